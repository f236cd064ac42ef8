"""Figures formed from the per-sample record (samples.jsonl beside the JSON).

A shared host's neighbours slow throughput-bound AES by 1.45-1.8x in
regimes of 0.1-3 s (../shared/noise): one figure per repetition is a draw
from a two-regime mixture, and its median lands in one mode or the other.
The benchmark binary (benchmarks/samples.h) times each loop in samples of
about 0.25 ms and, between two samples and outside the measured time, a
fixed throughput-bound AES probe. Here:

- The probe's quiet time is the 5th percentile of every probe of the run (of
  a run spread over processes, the lowest of each process's: stricter); a probe over
  QUIET_LIMIT x that is contended. A sample is quiet when the
  probes on both sides of it are: it is never classified by the measured
  code's own time, which would bias the figure toward the fast samples.
- A repetition's figure is, per thread, the rate of its quiet samples at
  most QUIET_BAND slower than the BAND_ANCHOR percentile of them (their time
  over their iterations; rates summed over threads), scaled onto the JSON's
  counters: every rate is multiplied and every time divided by (quiet rate /
  the loop's mean rate), so each figure keeps its JSON meaning and unit.
  Delays only add (Chen & Revels 2016): a neighbour too faint for the probes
  to call contended still slows some quiet samples, and the band leaves them
  out. It is wide enough to keep the delays every loop has alike: the Zen 5
  VM's host stalls the vCPU for 17-25 us every millisecond, most at one
  phase of it (with the guest's own tick, 2.4-4.0% of the time), so a
  quarter of the samples read 8-16% slow. A 10% band kept some of those
  and cut those that also held an extra operation of the 3%-slower test
  copy at 16 KiB (one 13 us operation in about half its samples): the
  copy's AES-128-CBC encryption read 1.6% slower against 2.8% by whole
  loops. With 20%, it read 2.5-5.7% in every class of the slice (the
  afternoon campaign's 40 planted runs of 2026-12-07 read again:
  results/reference/2026-12-07-band-zen5). The fastest sample would be a
  worse anchor: a sample is only about 0.25 ms, and where a loop's work is uneven at that
  scale (a 16 KiB operation takes 13 us, and a copy doing 3% more work runs
  one extra operation in some samples and not in others) the fastest is the
  one with the least work (that copy read 2.0% slower by its fastest
  samples, 2.8% by a 10% band, 3.2% by the median sample, in an earlier
  run); and the fastest of more samples is faster, so a figure anchored
  there would depend on how many quiet samples a round had, which
  contention decides. A quartile does neither.
- The median over the contended samples gives each benchmark's figure under
  contention (a typical contended level, not the least contended one), and
  the run's contended share is the contended samples' time over all
  classified samples' time: contention is a finding (answer.py).

A sample during which the thread ran less than RAN of the time was
preempted by another task on the core: it is left out of both regimes.
A repetition with fewer than MIN_SAMPLES quiet samples, or with fewer
than MIN_QUIET_SHARE of its usable samples quiet (ramp-up and preempted
ones not counted), has no quiet figure and is left out of every metric of
that benchmark (it ran contended); its contended figure stands. A loop
mostly contended has its few quiet samples beside the neighbour, at its
edges and in its faint phases: on a Zen 4 VM of 2026-12-07, 11 of the 15
rounds of an injected run that read most off their class (32-56%) had 3-8
quiet samples of 19-39 (the rule drops 9 of them). Over 6 A/A pairs of
the default run (5 injected) the floor's median moved from 3.51% to
3.44%, the worst run's from 9.24% to 6.74%, and a second run's margins
from 2.53% to 2.42% (95th percentiles); a 3%-slower copy was called in 9
of 10 runs against 8. Each difference is within the noise of so few runs:
the rule rests on where those samples sit, and the runs showed no cost
(half the loop cost the copy without injection 2 runs of 10;
results/reference/2026-12-07-aa-zen4). Where a benchmark has no quiet
repetition at all, every backend of its workload keeps its JSON figures
(whole loops, contention included), and the views say so. A benchmark with more threads than
the run's cores keeps its JSON figures (its samples include time the
scheduler gave to its other threads), as does every benchmark when the record
is missing (the run says so)."""
import json
import math
import os
import re
from dataclasses import dataclass, field

import numpy as np

from . import gbench, stats
from .gbench import ResultsError, shown

QUIET_QUANTILE = 5     # percent: the probe's quiet time
QUIET_LIMIT = 1.25     # the regimes are 1.45-1.8x; a probe's own jitter is a few %
MIN_SAMPLES = 3        # per thread and repetition, for a figure to stand on
MIN_QUIET_SHARE = 0.25  # of a loop's samples, quiet, for its quiet figure (docstring)
SHORT_SAMPLE = 0.25    # samples under this share of the target are a loop's ramp-up
RAN = 0.95             # a sample whose thread ran less of its time than this was preempted
QUIET_BAND = 0.20      # a quiet figure's samples: within this above BAND_ANCHOR (docstring)
BAND_ANCHOR = 25       # percentile of the quiet samples' times the band is measured from
RATES = ("bytes_per_second", "items_per_second", "ops_per_ms")
TIMES = ("time_ns", "cycles_per_byte")
FILE_NAME = re.compile(r"[A-Za-z0-9_.-]{1,200}")


@dataclass
class Sampling:
    """What the record did for a run: the views state it."""
    file: str
    status: str = "applied"      # applied, missing
    probe_quiet_ns: list = field(default_factory=list)  # each probe part's quiet time
    probes: int = 0
    quiet_ns: float = 0.0        # classified samples' time, quiet
    contended_ns: float = 0.0    # and contended
    preempted_ns: float = 0.0    # samples the scheduler interrupted (left out)
    benchmarks: int = 0          # benchmarks whose figures come from samples
    kept_json: list = field(default_factory=list)   # names that kept their JSON figures, and why
    never_quiet: list = field(default_factory=list)  # names with no quiet repetition
    dropped: int = 0             # repetitions with no quiet figure (contended throughout)

    @property
    def contended_share(self):
        total = self.quiet_ns + self.contended_ns
        return self.contended_ns / total if total > 0 else math.nan

    def describe(self):
        if self.status == "missing":
            return (f"the per-sample record {self.file} is missing: figures are whole "
                    "repetitions, noisy neighbours' regimes included")
        share = self.contended_share
        quiet = " and ".join(f"{q:,.0f}" for q in self.probe_quiet_ns)
        parts = {2: "an AES and a table probe", 3: "an AES, a table and a CLMUL probe"}.get(
            len(self.probe_quiet_ns), "a probe")
        text = (f"figures from {self.benchmarks} benchmarks' quiet 0.25 ms samples ({parts} beside "
                f"each, 1 thread: quiet at {quiet} ns, contended over {QUIET_LIMIT:g}x)")
        if not math.isnan(share):
            text += f"; {100 * share:.0f}% of the sampled time ran contended"
        total = self.quiet_ns + self.contended_ns + self.preempted_ns
        if total > 0 and self.preempted_ns / total >= 0.01:
            text += (f", {100 * self.preempted_ns / total:.0f}% was preempted by other tasks "
                     "(left out)")
        return text


def record_path(run, name):
    """The path of the run's per-sample record `name` (beside it), or None."""
    if not isinstance(name, str) or not FILE_NAME.fullmatch(name) or name in (".", ".."):
        raise ResultsError(f"{run.path}: context samples_file '{shown(name, 60)}' is not a file "
                           "name beside the results")
    folder = os.path.dirname(os.path.abspath(run.path))
    for candidate in (name, name + ".xz"):
        path = os.path.join(folder, candidate)
        if os.path.exists(path):
            return path
    return None


def _number(value, where, field_name, low=0):
    if not isinstance(value, (int, float)) or isinstance(value, bool) or not math.isfinite(value) \
            or value < low or value > 1e18:
        raise ResultsError(f"{where}: {field_name} is {shown(repr(value), 40)}, not a number "
                           f"from {low}")
    return value


def _table(rows, widths, where, what, low):
    """A list of equal-length lists of numbers as a float array, checked: every
    value a finite number from `low` up to 1e18 (JSON's true is not one)."""
    if not isinstance(rows, list):
        raise ResultsError(f"{where}: {what} must be a list")
    if not rows:
        return np.empty((0, min(widths)))
    if not all(isinstance(r, list) and len(r) in widths for r in rows) or \
            len({len(r) for r in rows}) != 1:
        raise ResultsError(f"{where}: {what}: each must be a list of {' or '.join(map(str, widths))} "
                           "numbers, all alike")
    if any(type(x) not in (int, float) for r in rows for x in r):
        raise ResultsError(f"{where}: {what}: a value is not a number")
    table = np.asarray(rows, dtype=float)
    if not np.isfinite(table).all() or (table < low).any() or (table > 1e18).any():
        raise ResultsError(f"{where}: {what}: a value is out of range (from {low:g} to 1e18)")
    return table


def read_record(path, run_id):
    """The record's loops: dicts with name, thread, threads, iterations,
    samples [(start, ns, iterations)], probes [ns], checked."""
    data = gbench._read_bounded(path)
    if path.endswith(".xz"):
        data = gbench._unxz(path, data)
    try:
        lines = data.decode("utf-8").splitlines()
    except UnicodeDecodeError:
        raise ResultsError(f"{path}: not UTF-8 text: not a samples record") from None
    if not lines:
        raise ResultsError(f"{path}: empty: not a samples record")
    loops = []
    for number, line in enumerate(lines, 1):
        where = f"{path}: line {number}"
        try:
            doc = json.loads(line)
        except (json.JSONDecodeError, RecursionError, ValueError):
            raise ResultsError(f"{where}: not a JSON object") from None
        if not isinstance(doc, dict):
            raise ResultsError(f"{where}: not a JSON object")
        if number == 1:
            if doc.get("cryptobench_samples") != 1:
                raise ResultsError(f"{where}: not a cryptobench samples record (version 1)")
            if doc.get("run_id") != run_id:
                raise ResultsError(f"{path}: its run_id {shown(repr(doc.get('run_id')), 30)} is "
                                   f"not the run's ({shown(repr(run_id), 30)}): the record of "
                                   "another run")
            continue
        name = doc.get("name")
        if not isinstance(name, str) or not gbench.NAME_CHARS.fullmatch(name):
            raise ResultsError(f"{where}: name is not a cryptobench name")
        samples = _table(doc.get("samples"), (3, 4), where, "samples ([start, ns, iterations, "
                         "cpu_ns])", 0)
        if samples.shape[0] and ((samples[:, 1] < 1).any() or (samples[:, 2] < 1).any()):
            raise ResultsError(f"{where}: a sample of no time or no iterations")
        probes = _table(doc.get("probes"), tuple(range(1, 9)), where, "probes (their parts' "
                        "times)", 0)
        loops.append({"name": name,
                      "thread": int(_number(doc.get("thread"), where, "thread")),
                      "threads": int(_number(doc.get("threads"), where, "threads", 1)),
                      "iterations": int(_number(doc.get("iterations"), where, "iterations")),
                      "samples": samples, "probes": probes})
    return loops


def _calls(loops):
    """name -> the timed calls in run order, each a list of its threads' loops."""
    calls = {}
    for loop in loops:
        runs = calls.setdefault(loop["name"], [])
        if not runs or any(x["thread"] == loop["thread"] for x in runs[-1]) \
                or len(runs[-1]) >= loop["threads"]:
            runs.append([])
        runs[-1].append(loop)
    return calls


def _loop_figures(loop, limit, sampling, target_ns):
    """(mean ns per iteration, quiet level, median contended) of one thread's loop."""
    samples, probes = loop["samples"], loop["probes"]
    if not samples.shape[0]:
        return None
    ns, iterations = samples[:, 1], samples[:, 2]
    per = ns / iterations
    use = ns >= SHORT_SAMPLE * target_ns
    if not use.any():
        use[:] = True
    if samples.shape[1] == 4:  # another task had the core: no regime's figure
        preempted = use & (samples[:, 3] < RAN * ns)
        sampling.preempted_ns += float(ns[preempted].sum())
        use &= ~preempted
    if probes.shape[0] != samples.shape[0] + 1 or not len(limit):
        quiet, contended = use, np.zeros_like(use)  # no probes: nothing to classify by
    else:
        calm = (probes <= np.asarray(limit[:probes.shape[1]])).all(axis=1)
        quiet = use & calm[:-1] & calm[1:]
        contended = use & ~quiet
        sampling.quiet_ns += float(ns[quiet].sum())
        sampling.contended_ns += float(ns[contended].sum())
    level = None
    if quiet.sum() >= max(MIN_SAMPLES, MIN_QUIET_SHARE * use.sum()):
        band = quiet & (per <= np.percentile(per[quiet], BAND_ANCHOR) * (1 + QUIET_BAND))
        level = float(ns[band].sum() / iterations[band].sum())
    return (float(ns.sum() / iterations.sum()), level,
            float(np.median(per[contended])) if contended.sum() >= MIN_SAMPLES else None)


def _factor(call, limit, sampling, target_ns):
    """(quiet, contended) factors: the quiet or contended rate over the loop's mean rate,
    summed over threads; None where a thread lacks the samples."""
    mean_rate = quiet_rate = contended_rate = 0.0
    quiet_ok = contended_ok = True
    for loop in call:
        figures = _loop_figures(loop, limit, sampling, target_ns)
        if figures is None:
            return None, None
        mean, quiet, contended = figures
        mean_rate += 1 / mean
        quiet_ok &= quiet is not None
        contended_ok &= contended is not None
        quiet_rate += 1 / quiet if quiet else 0
        contended_rate += 1 / contended if contended else 0
    return (quiet_rate / mean_rate if quiet_ok else None,
            contended_rate / mean_rate if contended_ok else None)


def _scaled(b, k, factor):
    out = {}
    for metric, xs in b.samples.items():
        if k >= len(xs):
            continue
        x = xs[k]
        out[metric] = x * factor if metric in RATES else (x / factor if metric in TIMES else x)
    return out


def _process_of(context):
    """name -> the process (1..N) a loop of the run ran in: a run whose rounds
    were spread over N processes (context round_parts; --round-part gives
    part K rounds (K-1)R/N + 1 to KR/N) tells it by the round; else 1."""
    parts, rounds = context.get("round_parts"), context.get("rounds")
    if not (isinstance(parts, str) and parts.isdigit() and isinstance(rounds, str)
            and rounds.isdigit() and 1 < int(parts) <= int(rounds)):
        return lambda name: 1
    n, total = int(parts), int(rounds)

    def process(name):
        found = re.search(r"/round:([0-9]+)(?=/|$)", name)
        r = int(found.group(1)) if found else 1
        return next((k for k in range(1, n + 1) if r <= k * total // n), n)
    return process


def apply(run):
    """Replaces the run's figures by the sampled ones (module docstring)."""
    name = run.context.get("samples_file")
    run.sampling = None
    if name is None:
        return
    path = record_path(run, name)
    sampling = run.sampling = Sampling(str(name))
    if path is None:
        sampling.status = "missing"
        return
    loops = read_record(path, run.context.get("samples_run_id"))
    calls = _calls(loops)
    sampling.probes = sum(loop["probes"].shape[0] for loop in loops)
    # Each thread count has its own quiet level: a benchmark's other threads
    # share the core's neighbour (an SMT sibling on the host) by design.
    # A run whose rounds span processes (tools/run-benchmarks) takes each
    # process's quiet level and keeps the lowest, a stricter level than the
    # whole run's 5th percentile where every process saw some contention.
    # Measured on the Zen 5 VM (4 processes, 5 A/A pairs of a slice under
    # injection): compare flagged 5 of 355 benchmarks with it, 38 without.
    process_of = _process_of(run.context)
    limits = {}
    for threads in sorted({loop["threads"] for loop in loops}):
        mine = [loop for loop in loops if loop["threads"] == threads]
        parts = max((loop["probes"].shape[1] for loop in mine if loop["probes"].shape[0]),
                    default=0)
        quiet = [math.inf] * parts
        for process in sorted({process_of(loop["name"]) for loop in mine}):
            tables = [loop["probes"] for loop in mine if process_of(loop["name"]) == process
                      and loop["probes"].shape[0] and loop["probes"].shape[1] == parts]
            if not tables:
                continue
            probes = np.concatenate(tables)
            for part in range(parts):
                times = probes[:, part][probes[:, part] > 0]
                if times.size:
                    quiet[part] = min(quiet[part],
                                      float(np.percentile(times, QUIET_QUANTILE)))
        if threads == 1 or not sampling.probe_quiet_ns:
            sampling.probe_quiet_ns = [q for q in quiet if math.isfinite(q)]
        limits[threads] = [q * QUIET_LIMIT for q in quiet]
    target_ns = 250e3
    cores = run.context.get("num_cpus")
    cores = cores if isinstance(cores, int) and cores > 0 else None
    quiet = {}  # name -> (its quiet figures, the rounds that have them)
    for b in run.benchmarks.values():
        b.raw_samples = {m: list(xs) for m, xs in b.samples.items()}
        b.contended = {m: [] for m in b.samples}
        b.contended_indices = []
        if b.error or not b.run_names:
            continue
        if cores is not None and b.threads > cores:
            sampling.kept_json.append((b.name, f"{b.threads} threads on {cores} cores"))
            continue
        cursor = {}
        factors = []
        for run_name, iterations in zip(b.run_names, b.iterations):
            found = None
            candidates = calls.get(run_name, [])
            start = cursor.get(run_name, 0)
            for j in range(start, len(candidates)):
                total = sum(loop["iterations"] for loop in candidates[j])
                if iterations in (total, candidates[j][0]["iterations"]):
                    found, cursor[run_name] = candidates[j], j + 1
                    break
            if found is None:
                break
            factors.append(_factor(found, limits.get(found[0]["threads"], []), sampling,
                                   target_ns))
        if len(factors) != len(b.run_names):
            sampling.kept_json.append((b.name, "no samples recorded for a repetition"))
            continue
        keep = [k for k, (quiet, _) in enumerate(factors) if quiet is not None]
        for k, (_, contended) in enumerate(factors):
            if contended is not None:
                for metric, x in _scaled(b, k, contended).items():
                    b.contended[metric].append(x)
                b.contended_indices.append(b.indices[k])
        new = {m: [] for m in b.samples}
        for k in keep:
            for metric, x in _scaled(b, k, factors[k][0]).items():
                new[metric].append(x)
        quiet[b.name] = (new, keep)
    # A workload one of whose backends never ran quiet keeps every backend's
    # whole-loop figures, contention included: a quiet figure beside a
    # contended one would rank the neighbour, and no figure would rank nothing.
    sampling.never_quiet = [name for name, (_, keep) in quiet.items() if not keep]
    lacking = {workload_of(name) for name in sampling.never_quiet}
    for name, (new, keep) in quiet.items():
        b = run.benchmarks[name]
        if workload_of(name) in lacking:
            b.contention_included = True
            continue
        sampling.dropped += len(b.run_names) - len(keep)
        b.samples = new
        b.iterations = [b.iterations[k] for k in keep]
        b.indices = [b.indices[k] for k in keep]
        b.run_names = [b.run_names[k] for k in keep]
        sampling.benchmarks += 1


def workload_of(name):
    """A benchmark's name without its backend: the figures a ranking compares."""
    return re.sub(r"(^|/)backend:[^/]*", "", name)


def by_class(benchmarks):
    """workload_of -> the benchmarks of that workload class, in the order given."""
    out = {}
    for b in benchmarks:
        out.setdefault(workload_of(b.name), []).append(b)
    return out


def size_text(run):
    """'490 benchmarks x 40 rounds in 4 processes (quiet in 12 of them at the
    median, at least 3)', or 'N benchmarks x R repetitions'; a missing
    record said first."""
    n = len(run.benchmarks)
    sampling = getattr(run, "sampling", None)
    given = rounds = run.context.get("rounds")
    processes = run.context.get("processes")
    stages = run.context.get("stages")
    if isinstance(processes, str) and processes.isdigit() and int(processes) > 1:
        parts = run.context.get("round_parts")
        if isinstance(stages, str) and stages.isdigit() and int(stages) > 1 and \
                isinstance(given, str) and given.isdigit() and isinstance(parts, str) and \
                parts.isdigit():
            # More rounds for the classes contention left short (topup.py).
            first, first_parts = int(given) // int(stages), int(parts) // int(stages)
            more = sum(1 for b in run.benchmarks.values()
                       if max(b.indices + b.contended_indices, default=-1) >= first)
            rounds = (f"{first} rounds in {first_parts} processes, and {int(given) - first} "
                      f"more in {int(parts) - first_parts} more processes for the {more} whose "
                      "classes had too few quiet")
        else:
            rounds = f"{rounds} rounds in {processes} processes"
        if parts != processes:  # an interrupted or failed run: its later parts never ran
            rounds += f" (of {parts}: the rest never ran)"
    else:
        rounds = f"{rounds} rounds"
    if sampling is not None and sampling.status == "applied" and isinstance(given, str):
        counts = [len(b.samples.get("time_ns", [])) for b in run.benchmarks.values() if not b.error]
        if counts:
            return (f"{n} benchmarks x {rounds} (quiet in {stats.median(counts):g} of them "
                    f"at the median, at least {min(counts)}); {sampling.describe()}")
    text = f"{n} benchmarks x {run.repetitions} repetitions"
    if sampling is not None and sampling.status == "missing":
        text = f"{sampling.describe()}; {text}"
    return text
