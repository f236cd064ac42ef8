"""Comparison of runs: for each benchmark present in both, the medians, the
change, a 95% bootstrap interval of the change, and a two-sided Mann-Whitney U
p-value, for time and for every counter (Google Benchmark's compare.py
ignores counters). A change is called better or worse only when it is
significant, its interval excludes no change, and it is larger than the
runs' noise floor (noise.py: the larger of the two runs' own split-half A/A
changes, each taken against its run's shift as below); a significant change
within the floor is "within noise".

Significant means q < alpha, where q is the p-value adjusted by
Benjamini-Hochberg over every benchmark compared in that metric: a run has
hundreds of benchmarks, and at p < 0.05 each an A/A comparison of two runs
of one binary would call about one in twenty of them changed. (Seen: 4 of
490 benchmarks flagged beyond the floor, one of them +77%, from a
benchmark that moved between two speeds within a run.) The adjustment
keeps the expected share of false changes among those reported at alpha;
a change that touches many benchmarks lowers every q, one that touches a
few needs repetitions enough for a small p.

Two runs of one binary also drift apart as a whole: on the Zen 5 VM, five
A/A pairs differed by 0.8-2.4% in every benchmark alike, beyond each run's
own floor, and compare flagged 93 of 355 benchmarks; on a busier day
(2026-12-07) ten pairs differed by 0.0-3.4% and, under the injected
neighbour, one by 6.3% (with 3% taken out, the pair at 3.4% had 68 of 71
benchmarks flagged; the one at 6.3% stays beyond DRIFT). A shift the metric's benchmarks share
(their median ratio, over 10 or more) of up to DRIFT is taken out and said:
each change is judged against it. A larger shift is judged as it is,
benchmark by benchmark. Where the runs' quiet probe levels differ by more
than PROBES_APART, one run's quiet level is a contended one: the floor is
raised to that difference, and said.

Allocations made less than once per 100 operations are one-time
allocations (a buffer or table set up once per repetition), per operation
0, and never a change. A geometric-mean summary with its 95% interval
closes the table.
"""
import math
from dataclasses import dataclass

from . import noise, stats
from .gbench import HIGHER_IS_BETTER, ResultsError

ALLOC_METRICS = ("allocs_per_op", "alloc_bytes_per_op")
ONE_TIME_RATE = 0.01  # allocations per operation below which they are one-time
# A shift every benchmark shares, up to DRIFT, is the machine's between two
# runs (A/A pairs, Zen 5 VM: 0.8-2.4% in results/reference/2026-12-03-noise-zen5,
# 0.0-3.4% and once 6.3% in results/reference/2026-12-07-processes-zen5); it is taken out when at least noise.MIN_FOR_SHIFT benchmarks show
# it (noise.drift; the floor takes out the same inside each run).
DRIFT = noise.MAX_SHIFT

DEFAULT_METRICS = ["time_ns", "bytes_per_second", "ops_per_ms", "cycles_per_byte",
                   "allocs_per_op", "alloc_bytes_per_op"]


@dataclass
class Row:
    name: str
    metric: str
    base: float
    new: float
    change: float        # new / base - 1 (NaN when base is 0)
    ci_low: float
    ci_high: float
    p: float
    method: str
    verdict: str         # better, worse, same, n/a
    q: float = math.nan  # p adjusted over the metric's benchmarks (Benjamini-Hochberg)


def _verdict(row, alpha, testable, floor):
    if not testable or math.isnan(row.p):
        return "n/a"
    if row.q >= alpha or row.change == 0 or math.isnan(row.change):
        return "same"
    if not (row.ci_low > 0 or row.ci_high < 0):  # the interval reaches no change
        return "same"
    # A margins floor (--backend-pair) counts a change either way alike.
    size = (noise.apart(1 + row.change) if floor.within == "margins" and row.change > -1
            else abs(row.change))
    if floor.measured and size <= floor.value:
        return "within noise"
    return "better" if (row.change > 0) == HIGHER_IS_BETTER[row.metric] else "worse"


def _same_allocations(metric, base, new):
    """Allocation counts are exact: per operation they differ only by the
    one-time ones spread over different iteration counts (a few per
    million). Equal to ONE_TIME_RATE allocations or 1 byte per op is equal."""
    resolution = ONE_TIME_RATE if metric == "allocs_per_op" else 1.0
    return abs(new - base) < resolution


def one_time_allocations(benchmark):
    """True when the benchmark allocates less than once per ONE_TIME_RATE^-1
    operations in every repetition: what it allocates is set up once."""
    rates = benchmark.samples.get("allocs_per_op") or []
    return bool(rates) and 0 < max(rates) < ONE_TIME_RATE


def pair_benchmarks(base, new, backend_pair=None):
    """Matches benchmarks by name; with backend_pair (a, b), matches base's
    backend a with new's backend b on every other parameter."""
    pairs = []
    for name, b in base.benchmarks.items():
        if backend_pair:
            if b.params.get("backend") != backend_pair[0]:
                continue
            other = name.replace(f"/backend:{backend_pair[0]}/", f"/backend:{backend_pair[1]}/")
        else:
            other = name
        n = new.benchmarks.get(other)
        if n is not None:
            pairs.append((b, n))
    return pairs


PROBE_PART_NAMES = ("AES", "table", "CLMUL")
# Two runs' quiet probe levels further apart than this: one run's is a
# contended level. On the Zen 5 VM the quiet levels of A/A pairs differed by
# 0.9-7.3% (a probe's own layout and jitter), and by 33-39% where a
# neighbour stayed through all of one run's processes.
PROBES_APART = 0.10


def quiet_levels_apart(base, new):
    """(change, part, base ns, new ns) of the probe part whose quiet level
    (sampled.py: a run's quietest probes) differs most between two sampled
    runs, either way; None unless both are sampled with the same parts. A
    neighbour that stayed through a whole run (seen on the Zen 5 VM: the
    table part 1.4x slow for all 8 processes of a run) leaves it no quiet
    probe, so its quiet level is a contended one and its "quiet" figures
    are slower by up to that much."""
    levels = [getattr(getattr(r, "sampling", None), "probe_quiet_ns", None) or []
              for r in (base, new)]
    if not levels[0] or len(levels[0]) != len(levels[1]):
        return None
    worst = max(range(len(levels[0])), key=lambda i: noise.apart(levels[1][i] / levels[0][i]))
    names = PROBE_PART_NAMES if len(levels[0]) == len(PROBE_PART_NAMES) else ()
    return (noise.apart(levels[1][worst] / levels[0][worst]),
            f"the {names[worst]} probe" if names else "the probe", levels[0][worst],
            levels[1][worst])


def compare(base, new, metrics=None, alpha=0.05, backend_pair=None):
    """Returns (rows, summary dict, warnings)."""
    metrics = metrics or DEFAULT_METRICS
    pairs = pair_benchmarks(base, new, backend_pair)
    if not pairs:
        raise ResultsError(f"{base.path} and {new.path} have no benchmark in common")
    rows, warnings = [], []
    samples = {}  # id(row) -> (base's samples, new's), for the rows to test
    kinds = {}    # id(row) -> its benchmark's kind of workload (noise.kind_of)
    # Two backends of one run are a margin, and so is their floor; one
    # benchmark in two runs is set against its run's shift, as below.
    within = "margins" if backend_pair else "run"
    floor = noise.combined(noise.noise_floor(base, within=within),
                           noise.noise_floor(new, within=within))
    unlike = quiet_levels_apart(base, new)
    if unlike is not None and unlike[0] > PROBES_APART:
        change, part, ns_base, ns_new = unlike
        floor = noise.widened(floor, change)
        warnings.append(
            f"the runs' quiet probes differ by {change:.1%} ({part} quiet at {ns_base:,.0f} "
            f"ns in the base, {ns_new:,.0f} ns in the new run): one run's neighbour never left, "
            "so its quiet figures are not the other's; changes up to that count as ties")
    n_base, n_new = base.repetitions, new.repetitions
    testable = stats.min_achievable_p(n_base, n_new) < alpha
    if not testable:
        warnings.append(
            f"too few repetitions for a significance test ({n_base} vs {n_new}: the smallest "
            f"possible p-value is {stats.min_achievable_p(n_base, n_new):.3g}, not below "
            f"alpha={alpha}); rerun with --benchmark_repetitions=5 or more")
    for b, n in pairs:
        if b.error or n.error:
            warnings.append(f"{b.name}: skipped, a run reported an error: {b.error or n.error}")
            continue
        for metric in metrics:
            xs, ys = b.samples.get(metric) or [], n.samples.get(metric) or []
            if not xs or not ys:
                continue
            if metric in ALLOC_METRICS and one_time_allocations(b) and one_time_allocations(n):
                rows.append(Row(n.name if backend_pair else b.name, metric, 0.0, 0.0, 0.0,
                                math.nan, math.nan, math.nan, "one-time", "same (one-time)"))
                continue
            mb, mn = stats.median(xs), stats.median(ys)
            if metric in ALLOC_METRICS and _same_allocations(metric, mb, mn):
                rows.append(Row(n.name if backend_pair else b.name, metric, mb, mn, 0.0,
                                math.nan, math.nan, math.nan, "counted", "same"))
                continue
            change = mn / mb - 1 if mb != 0 else (0.0 if mn == 0 else math.nan)
            rows.append(Row(n.name if backend_pair else b.name, metric, mb, mn, change, math.nan,
                            math.nan, math.nan, "", ""))
            samples[id(rows[-1])] = (xs, ys)
            kinds[id(rows[-1])] = noise.kind_of(b)
    # Two runs of one binary drift apart as a whole (measured: every benchmark
    # 0.8-3.4% (once 6.3%) slower or faster in the second run of a pair, around that shift
    # a spread of about 1%): within DRIFT, a shift shared by the metric's benchmarks is
    # taken out, and each change is judged against it.
    shifts = {}
    for metric in metrics:
        if backend_pair or metric in ALLOC_METRICS:
            continue
        ratios = [r.new / r.base for r in rows
                  if r.metric == metric and id(r) in samples and r.base > 0 and r.new > 0]
        shift = noise.drift(ratios)
        if shift is not None:
            shifts[metric] = (shift, len(ratios))
    for r in rows:
        if id(r) not in samples:
            continue
        xs, ys = samples[id(r)]
        shift = shifts.get(r.metric, (1.0, 0))[0]
        xs = [x * shift for x in xs]
        _, r.p, r.method = stats.mann_whitney(xs, ys)
        if r.base != 0:
            r.ci_low, r.ci_high = stats.bootstrap_change_ci(xs, ys)
            r.change = r.new / (r.base * shift) - 1
    for metric in metrics:
        tested = [r for r in rows if r.metric == metric and not r.verdict]
        for r, q in zip(tested, stats.benjamini_hochberg([r.p for r in tested])):
            r.q = q
            # A margin (--backend-pair) is judged against its kind's floor.
            r.verdict = _verdict(r, alpha, testable, floor.of(kinds.get(id(r))))
    for metric, (shift, count) in shifts.items():
        if abs(shift - 1) >= 0.0005:
            warnings.append(
                f"{metric}: the new run differs from the base by x{shift:.3f} across the board (the "
                f"median over {count} benchmarks), within the {DRIFT:.0%} that two runs of one "
                "binary drift apart: taken out, each change below is against it (a change to every "
                "benchmark this small cannot be told from that drift; interleave both builds in "
                "one run to see it)")
    summary = {"cells": len({r.name for r in rows}),
               "cells_flagged": len({r.name for r in rows if r.verdict in ("better", "worse")})}
    for metric in metrics:
        ratios = [r.new / r.base for r in rows if r.metric == metric and r.base > 0 and r.new > 0]
        if ratios:
            geomean, low, high = stats.geometric_mean_ci(ratios)
            summary[metric] = {
                "geomean_ratio": geomean, "low": low, "high": high,
                "benchmarks": len(ratios),
                "better": sum(r.verdict == "better" for r in rows if r.metric == metric),
                "worse": sum(r.verdict == "worse" for r in rows if r.metric == metric),
                "within_noise": sum(r.verdict == "within noise" for r in rows if r.metric == metric),
            }
    return rows, summary, warnings, floor


def _fmt(x):
    if x is None or (isinstance(x, float) and math.isnan(x)):
        return "-"
    if x == 0:
        return "0"
    if abs(x) >= 1e6 or abs(x) < 1e-2:
        return f"{x:.4g}"
    return f"{x:,.2f}" if abs(x) < 1e4 else f"{x:,.0f}"


def _pct(x):
    return "-" if math.isnan(x) else f"{x * 100:+.1f}%"


def render(rows, summary, warnings, base_label, new_label, markdown=False, floor=None):
    header = ["benchmark", "metric", base_label, new_label, "change", "95% CI", "p", "q", "verdict"]
    table = [[r.name, r.metric, _fmt(r.base), _fmt(r.new), _pct(r.change),
              f"[{_pct(r.ci_low)}, {_pct(r.ci_high)}]", "-" if math.isnan(r.p) else f"{r.p:.3g}",
              "-" if math.isnan(r.q) else f"{r.q:.3g}", r.verdict] for r in rows]
    out = []
    for w in warnings:
        out.append(f"WARNING: {w}")
    if floor is not None:
        text = floor.describe()
        out.append(f"{text[0].upper()}{text[1:]} (the larger of the two runs'); a significant "
                   "change inside it is reported as 'within noise'. Significant: q, the p-value "
                   "adjusted over the metric's benchmarks (Benjamini-Hochberg), below alpha, and "
                   "a 95% interval that excludes no change.")
    if markdown:
        out.append("| " + " | ".join(header) + " |")
        out.append("|" + "---|" * len(header))
        out.extend("| " + " | ".join(cells) + " |" for cells in table)
    else:
        widths = [max(len(str(c)) for c in col) for col in zip(header, *table)]
        out.append("  ".join(h.ljust(w) for h, w in zip(header, widths)))
        out.extend("  ".join(c.ljust(w) for c, w in zip(cells, widths)) for cells in table)
    out.append("")
    out.append("summary (geometric mean of new/base per metric):" if not markdown
               else "**Summary** (geometric mean of new/base per metric):")
    for metric, s in summary.items():
        if not isinstance(s, dict):
            continue
        interval = "" if math.isnan(s["low"]) else f" [{s['low']:.3f}, {s['high']:.3f}]"
        if floor is not None and floor.measured and abs(s["geomean_ratio"] - 1) <= floor.value:
            interval += f" (within the {floor.value:.1%} noise floor)"
        out.append(f"{'- ' if markdown else '  '}{metric}: x{s['geomean_ratio']:.3f}{interval} over "
                   f"{s['benchmarks']} benchmarks; {s['better']} better, {s['worse']} worse, "
                   f"{s['within_noise']} significant but within noise")
    if "cells" in summary:
        out.append(f"{'- ' if markdown else '  '}benchmarks with a change in any metric: "
                   f"{summary['cells_flagged']} of {summary['cells']}")
    return "\n".join(out)
