"""The ratio of one benchmark's figure to another's, in one run.

"By how much?" across benchmarks whose names differ (a batch against one
message at a time, one backend's seed-000 against another's): each side is
selected by a regular expression that must match exactly one benchmark; the
answer is median(B) / median(A) for the metric, with a 95% percentile
bootstrap interval over the repetitions and a Mann-Whitney U p-value.

The patterns are the user's, and Python's re backtracks: `(.*)*x$` on a
benchmark name runs practically forever. So a pattern is at most
MAX_PATTERN characters, and is matched in a forked child that is killed
after MATCH_SECONDS, whatever it is doing, leaving the parent as it was.
"""
import os
import re
import select
import signal
import time

from . import stats
from .gbench import METRICS, ResultsError, shown

MAX_PATTERN = 1000     # characters
MATCH_SECONDS = 2.0    # a normal pattern matches a run's names in milliseconds


def compile_pattern(pattern):
    if len(pattern) > MAX_PATTERN:
        raise ResultsError(f"the pattern '{shown(pattern, 40)}' is {len(pattern):,} characters long; "
                           f"at most {MAX_PATTERN:,} characters are taken")
    try:
        return re.compile(pattern)
    except (re.error, RecursionError, OverflowError) as e:
        why = e if isinstance(e, re.error) else "nested too deeply or too large"
        raise ResultsError(f"'{shown(pattern)}' is not a valid regular expression: {why}") from None


def search(regex, names):
    """The indices of the names the regex matches, found in a forked child
    (killed after MATCH_SECONDS) that writes them to a pipe."""
    read_end, write_end = os.pipe()
    pid = os.fork()
    if pid == 0:  # the child: match, write, exit at once (no cleanup of the parent's state)
        code = 1
        try:
            os.close(read_end)
            data = ",".join(str(i) for i, name in enumerate(names) if regex.search(name)).encode()
            while data:
                data = data[os.write(write_end, data):]
            code = 0
        finally:
            os._exit(code)
    os.close(write_end)
    chunks, finished = [], False
    deadline = time.monotonic() + MATCH_SECONDS
    try:
        while True:
            left = deadline - time.monotonic()
            if left <= 0 or not select.select([read_end], [], [], left)[0]:
                raise ResultsError(f"'{shown(regex.pattern, 60)}': the pattern took too long to "
                                   f"match (over {MATCH_SECONDS:g} s; Python's regular expressions "
                                   "backtrack: avoid nested repeats such as (.*)*)")
            chunk = os.read(read_end, 1 << 16)
            if not chunk:
                break
            chunks.append(chunk)
        finished = True
    finally:
        os.close(read_end)
        if not finished:
            os.kill(pid, signal.SIGKILL)
        _, status = os.waitpid(pid, 0)
    if os.waitstatus_to_exitcode(status) != 0:
        raise ResultsError(f"'{shown(regex.pattern, 60)}': matching failed in its child process")
    text = b"".join(chunks).decode()
    return [int(i) for i in text.split(",")] if text else []


def pick(run, pattern):
    regex = compile_pattern(pattern)
    candidates = [b for b in run.benchmarks.values() if b.error is None]
    found = [candidates[i] for i in search(regex, [b.name for b in candidates])]
    if len(found) != 1:
        names = ", ".join(b.name for b in found[:3]) + (" ..." if len(found) > 3 else "")
        raise ResultsError(f"'{shown(pattern)}' matches {len(found)} benchmarks of {run.path}, "
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
