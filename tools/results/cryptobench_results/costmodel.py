"""The cost model: per backend and operation (GCM: and AAD length), time per
call = a + b x bytes,
fitted over the run's size ladder (1 thread, no codec, pooled buffers,
cached key). a is the fixed cost of a call (ns): the library's dispatch,
context handling, padding and the last blocks' latency; b the cost per byte,
given in cycles per byte at the run's measured clock. From the fits:

- crossovers: where along the size axis the cheapest backend changes;
- mixes: the time per message for a distribution of message sizes (a preset
  or the user's CSV), and which library is fastest for that traffic.

The fit is weighted least squares with weights 1/time^2, so that every size
counts by its relative error (an unweighted fit would be the 16 KiB points'
alone). Intervals are 95% Student-t intervals from the fit's covariance.
"""
import math
import os
from collections import OrderedDict
from dataclasses import dataclass

import numpy as np
from scipy import stats as sps

from . import health, stats
from .gbench import ResultsError

# Message-size distributions: (size in bytes, weight by count of messages).
MIXES = {
    # The simple IMIX of network testing: 7:4:1 packets of 40, 576 and 1500 B.
    "imix": [(40, 7), (576, 4), (1500, 1)],
    # An illustrative TLS 1.3 server mix, by record count: full 16 KiB records
    # of bulk transfers, about 1400 B records where the server sizes records
    # to one TCP segment (dynamic record sizing at the start of a connection),
    # and small records for requests, headers and HTTP/2 control frames. Not a
    # measurement: give your own with --mix=FILE.csv.
    "tls-records": [(16384, 30), (4096, 10), (1400, 30), (256, 20), (32, 10)],
    # The seed-000 program's message: 100 characters and a counter.
    "seed000": [(107, 1)],
}
MAX_CSV_BYTES = 1 << 20


@dataclass
class Fit:
    backend: str
    op: str
    cipher: str
    a_ns: float
    a_half: float        # 95% half-width
    b_ns: float          # ns per byte
    b_half: float
    cov: np.ndarray      # 2x2 covariance of (a, b)
    ghz: float
    r2: float
    sizes: list
    points: int
    aad: str = ""        # GCM: the AAD bytes of every point ("" for other modes)

    @property
    def cycles_per_byte(self):
        return self.b_ns * self.ghz

    def time_ns(self, size):
        return self.a_ns + self.b_ns * size

    def time_var(self, size):
        g = np.array([1.0, float(size)])
        return float(g @ self.cov @ g)


def _ladder_key(b, failed_too=False):
    """(backend, op, cipher, aad) of a benchmark on a cost-model ladder, else
    None; a failed or skipped one only with failed_too (health's question)."""
    p = b.params
    if ((b.error and not failed_too) or b.threads != 1 or p.get("codec") != "none"
            or p.get("pool") != "on"
            or p.get("key") != "cached" or p.get("op") not in ("encrypt", "decrypt")
            or "messages" in p or "size" not in p):
        return None
    # GCM's AAD is part of the workload: 64 B + 13 B is not 64 B + 0 on the same line.
    return (p["backend"], p["op"], p["cipher"], p.get("aad", ""))


def fit_line(sizes, times):
    """(a, b, cov, r2) for times = a + b x sizes, weights 1/times^2."""
    x = np.asarray(sizes, dtype=float)
    y = np.asarray(times, dtype=float)
    w = 1.0 / y
    design = np.column_stack([np.ones_like(x), x]) * w[:, None]
    target = y * w
    coef, _, _, _ = np.linalg.lstsq(design, target, rcond=None)
    resid = target - design @ coef
    dof = len(y) - 2
    sigma2 = float(resid @ resid) / dof if dof > 0 else math.nan
    cov = sigma2 * np.linalg.inv(design.T @ design)
    # Weighted R²: 1 - sum w (y - fit)² / sum w (y - weighted mean)², w = 1/y².
    weights = w * w
    mean = float(weights @ y) / float(weights.sum())
    spread = float(weights @ (y - mean) ** 2)
    r2 = 1 - float(resid @ resid) / spread if spread > 0 else 1.0
    return float(coef[0]), float(coef[1]), cov, r2


def ladder_gaps(run):
    """OrderedDict (op, cipher, aad) -> OrderedDict backend -> why it has no
    figures: the ladders a failure or an interrupt left without a backend's
    figure at some size (no mix verdict or crossover is made from them)."""
    groups = OrderedDict()
    for b in run.benchmarks.values():
        key = _ladder_key(b, failed_too=True)
        if key is not None:
            groups.setdefault(key[1:], []).append(b)
    out = OrderedDict()
    for key, bs in groups.items():
        gaps = health.missing(bs)
        if gaps:
            out[key] = gaps
    return out


def fits(run):
    """Fit per (backend, op, cipher, aad) with 3 or more sizes, in run order; a
    mode or AAD length measured at fewer sizes has no fit."""
    groups = OrderedDict()
    for b in run.benchmarks.values():
        key = _ladder_key(b)
        if key is not None:
            groups.setdefault(key, []).append(b)
    out = []
    for (backend, op, cipher, aad), bs in groups.items():
        sizes = sorted({int(b.params["size"]) for b in bs})
        if len(sizes) < 3:
            continue
        xs, ys, ghz = [], [], []
        for b in bs:
            for t in b.samples["time_ns"]:
                xs.append(int(b.params["size"]))
                ys.append(t)
            ghz += b.samples.get("core_ghz") or []
        a, slope, cov, r2 = fit_line(xs, ys)
        t = float(sps.t.ppf(0.975, max(len(ys) - 2, 1)))
        clock = stats.median(ghz) if ghz else context_ghz(run)
        out.append(Fit(backend, op, cipher, a, t * math.sqrt(cov[0, 0]), slope,
                       t * math.sqrt(cov[1, 1]), cov, clock, r2, sizes, len(ys), aad))
    # Interleaved runs report benchmarks in no fixed order: sort.
    return sorted(out, key=lambda f: (f.cipher, f.op != "encrypt", f.op, _aad_rank(f.aad),
                                      f.backend))


def _aad_rank(aad):
    return int(aad) if aad else -1


def context_ghz(run):
    """The clock measured at the start of the run (GHz); NaN when absent."""
    try:
        return float(run.context.get("core_clock_ghz", "nan"))
    except ValueError:
        return math.nan


def envelope(group, low, high):
    """[(backend, from_size, to_size)]: the cheapest fit along [low, high],
    with the sizes where it changes (the lines' crossovers)."""
    points = {low, high}
    for i, f in enumerate(group):
        for g in group[i + 1:]:
            if f.b_ns != g.b_ns:
                x = (g.a_ns - f.a_ns) / (f.b_ns - g.b_ns)
                if low < x < high:
                    points.add(x)
    edges = sorted(points)
    segments = []
    for lo, hi in zip(edges, edges[1:]):
        mid = math.sqrt(lo * hi)
        best = min(group, key=lambda f: f.time_ns(mid))
        if segments and segments[-1][0] == best.backend:
            segments[-1] = (best.backend, segments[-1][1], hi)
        else:
            segments.append((best.backend, lo, hi))
    return segments


def load_mix(spec):
    """(name, [(size, weight)]) for a preset name or a CSV file of size,weight."""
    if spec in MIXES:
        return spec, MIXES[spec]
    if not os.path.isfile(spec):
        raise ResultsError(f"--mix: '{spec}' is neither a preset ({', '.join(MIXES)}) nor a file")
    if os.path.getsize(spec) > MAX_CSV_BYTES:
        raise ResultsError(f"--mix: {spec} is larger than {MAX_CSV_BYTES} bytes: not a size mix")
    with open(spec, "rb") as f:
        data = f.read(MAX_CSV_BYTES + 1)
    # A UTF-8 byte order mark (as spreadsheets save CSV) is read past; other
    # encodings are refused by name.
    if data.startswith((b"\xff\xfe", b"\xfe\xff")):
        raise ResultsError(f"--mix: {spec} is UTF-16 text: save it as UTF-8 (or ASCII)")
    try:
        text = data.decode("utf-8-sig")
    except UnicodeDecodeError as e:
        raise ResultsError(f"--mix: {spec} is not UTF-8 text (byte {e.start + 1}): save it as "
                           "UTF-8 (or ASCII)") from None
    mix = []
    for number, line in enumerate(text.split("\n"), 1):
        line = line.split("#")[0].strip()
        if not line or line.lower().replace(" ", "") == "size,weight":
            continue
        parts = [p.strip() for p in line.split(",")]
        try:
            size, weight = int(parts[0]), float(parts[1])
            if (len(parts) != 2 or not 0 < size <= 1 << 40
                    or not (weight >= 0 and math.isfinite(weight))):
                raise ValueError
        except (ValueError, IndexError):
            raise ResultsError(f"--mix: {spec} line {number}: expected 'size,weight' with a "
                               f"positive integer size and a weight >= 0, got '{line}'") from None
        mix.append((size, weight))
    if not mix or sum(w for _, w in mix) <= 0:
        raise ResultsError(f"--mix: {spec} has no size with a positive weight")
    if not (math.isfinite(sum(w for _, w in mix)) and math.isfinite(sum(s * w for s, w in mix))):
        raise ResultsError(f"--mix: {spec}: the weights are too large (their sum, or the bytes "
                           "they weigh, is not a finite number): use smaller weights (only their "
                           "ratios count)")
    return os.path.basename(spec), mix


@dataclass
class MixScore:
    fit: Fit
    time_ns: float       # per message
    var: float
    mb_per_s: float


def mix_scores(group, mix):
    """Score every fit of one (op, cipher) for the mix, fastest first."""
    total = sum(w for _, w in mix)
    mean_size = sum(s * w for s, w in mix) / total
    out = []
    for f in group:
        t = f.time_ns(mean_size)  # linear: the mean time is the time at the mean size
        if t <= 0:
            continue
        out.append(MixScore(f, t, f.time_var(mean_size), mean_size / t * 1e3))
    out.sort(key=lambda m: m.time_ns)
    return out, mean_size


def ratio_interval(faster, slower):
    """(ratio, low, high, p) of slower / faster time per message: the delta
    method on the log ratio, two-sided normal p-value of no difference."""
    ratio = slower.time_ns / faster.time_ns
    sd = math.sqrt(max(faster.var, 0) / faster.time_ns ** 2 + max(slower.var, 0) / slower.time_ns ** 2)
    if sd == 0 or math.isnan(sd):
        return ratio, ratio, ratio, math.nan
    z = math.log(ratio) / sd
    return ratio, ratio * math.exp(-1.96 * sd), ratio * math.exp(1.96 * sd), float(2 * sps.norm.sf(abs(z)))
