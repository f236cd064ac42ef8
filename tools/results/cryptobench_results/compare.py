"""Comparison of runs: for each benchmark present in both, the medians, the
change, a 95% bootstrap interval of the change, and a two-sided Mann-Whitney U
p-value, for time and for every counter (Google Benchmark's compare.py
ignores counters). A geometric-mean summary closes the table.
"""
import math
from dataclasses import dataclass

from . import stats
from .gbench import HIGHER_IS_BETTER, ResultsError

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


def _verdict(metric, change, p, alpha, testable):
    if not testable or math.isnan(p):
        return "n/a"
    if p >= alpha or change == 0 or math.isnan(change):
        return "same"
    return "better" if (change > 0) == HIGHER_IS_BETTER[metric] else "worse"


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


def compare(base, new, metrics=None, alpha=0.05, backend_pair=None):
    """Returns (rows, summary dict, warnings)."""
    metrics = metrics or DEFAULT_METRICS
    pairs = pair_benchmarks(base, new, backend_pair)
    if not pairs:
        raise ResultsError(f"{base.path} and {new.path} have no benchmark in common")
    rows, warnings = [], []
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
            mb, mn = stats.median(xs), stats.median(ys)
            change = mn / mb - 1 if mb != 0 else (0.0 if mn == 0 else math.nan)
            _, p, method = stats.mann_whitney(xs, ys)
            lo, hi = stats.bootstrap_change_ci(xs, ys) if mb != 0 else (math.nan, math.nan)
            rows.append(Row(n.name if backend_pair else b.name, metric, mb, mn, change, lo, hi, p,
                            method, _verdict(metric, change, p, alpha, testable)))
    summary = {}
    for metric in metrics:
        ratios = [r.new / r.base for r in rows if r.metric == metric and r.base > 0 and r.new > 0]
        if ratios:
            summary[metric] = {
                "geomean_ratio": stats.geometric_mean(ratios),
                "benchmarks": len(ratios),
                "better": sum(r.verdict == "better" for r in rows if r.metric == metric),
                "worse": sum(r.verdict == "worse" for r in rows if r.metric == metric),
            }
    return rows, summary, warnings


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


def render(rows, summary, warnings, base_label, new_label, markdown=False):
    header = ["benchmark", "metric", base_label, new_label, "change", "95% CI", "p", "verdict"]
    table = [[r.name, r.metric, _fmt(r.base), _fmt(r.new), _pct(r.change),
              f"[{_pct(r.ci_low)}, {_pct(r.ci_high)}]", f"{r.p:.3g}", r.verdict] for r in rows]
    out = []
    for w in warnings:
        out.append(f"WARNING: {w}")
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
        out.append(f"{'- ' if markdown else '  '}{metric}: x{s['geomean_ratio']:.3f} over "
                   f"{s['benchmarks']} benchmarks; {s['better']} significantly better, "
                   f"{s['worse']} significantly worse")
    return "\n".join(out)
