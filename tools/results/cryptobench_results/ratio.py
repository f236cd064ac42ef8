"""The ratio of one benchmark's figure to another's, in one run.

"By how much?" across benchmarks whose names differ (a batch against one
message at a time, one backend's seed-000 against another's): each side is
selected by a regular expression that must match exactly one benchmark; the
answer is median(B) / median(A) for the metric, with a 95% percentile
bootstrap interval over the repetitions and a Mann-Whitney U p-value.
"""
import re

from . import stats
from .gbench import METRICS, ResultsError


def pick(run, pattern):
    try:
        regex = re.compile(pattern)
    except re.error as e:
        raise ResultsError(f"'{pattern}' is not a valid regular expression: {e}") from None
    found = [b for b in run.benchmarks.values() if regex.search(b.name) and b.error is None]
    if len(found) != 1:
        names = ", ".join(b.name for b in found[:3]) + (" ..." if len(found) > 3 else "")
        raise ResultsError(f"'{pattern}' matches {len(found)} benchmarks of {run.path}, "
                           f"not exactly one{': ' + names if found else ''}")
    return found[0]


def ratio(run, pattern_a, pattern_b, metric):
    if metric not in METRICS:
        raise ResultsError(f"unknown metric '{metric}'; known: {', '.join(METRICS)}")
    a, b = pick(run, pattern_a), pick(run, pattern_b)
    xa, xb = a.samples[metric], b.samples[metric]
    if not xa or not xb:
        raise ResultsError(f"{metric} is not recorded for both benchmarks")
    ma, mb = stats.median(xa), stats.median(xb)
    if ma == 0:
        raise ResultsError(f"the median {metric} of {a.name} is 0: no ratio")
    low, high = stats.bootstrap_change_ci(xa, xb)
    _, p, _ = stats.mann_whitney(xa, xb)
    return {"a": a.name, "b": b.name, "metric": metric, "median_a": ma, "median_b": mb,
            "n_a": len(xa), "n_b": len(xb), "ratio": mb / ma, "low": 1 + low, "high": 1 + high,
            "p": p}


def render(r):
    return (f"A: {r['a']}\n   {r['metric']} median {r['median_a']:.6g} (n={r['n_a']})\n"
            f"B: {r['b']}\n   {r['metric']} median {r['median_b']:.6g} (n={r['n_b']})\n"
            f"B/A = {r['ratio']:.3f} (95% bootstrap interval {r['low']:.3f}..{r['high']:.3f}; "
            f"Mann-Whitney p = {r['p']:.3g})")
