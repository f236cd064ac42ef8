"""More rounds for the classes contention left short of quiet ones.

A margin is the median of a pair's per-round ratios over the rounds both
backends were quiet in (answer.py). A neighbour that stays for seconds can
leave a short run's class a handful of such rounds, or none: on the Zen 5 VM
under the injected neighbour, 7 of 10 runs of a decision slice were 83-97%
contended and their classes "untested", or ties too wide to decide a 3%
margin. tools/run-benchmarks --top-up then runs those classes' benchmarks for
as many rounds again, in as many processes, once: a second stage of the run
(merge.join_parts), paired round by round as the first. A run takes at most
twice its time, and only when its host was contended.

Short: a class with a pair of backends quiet together in fewer than
QUIET_SHARE of the run's rounds, or, in a run of 6 rounds or more, in
fewer than the answer's sign test needs to call a margin at all (6 at
p < 0.05: a run of 6-10 rounds can leave a pair 5 and still hold half).
The rule reads how many rounds were quiet,
never the figures, so rounds added where it holds cannot lean a margin
either way (stopping on a figure would).
"""
import os
import re

from . import sampled, stats
from .gbench import ResultsError

QUIET_SHARE = 0.5
ALPHA = 0.05  # the answer's default significance level (answer.untested_reason)
MAX_REPETITIONS = 1000  # the binary's --benchmark_repetitions limit


def quiet_share():
    """QUIET_SHARE, or CRYPTOBENCH_TOP_UP_SHARE (a test's: 2 runs every class
    again) when it is a number above 0 and at most 2."""
    try:
        value = float(os.environ.get("CRYPTOBENCH_TOP_UP_SHARE", ""))
    except ValueError:
        return QUIET_SHARE
    return value if 0 < value <= 2 else QUIET_SHARE


def least_tested(alpha=ALPHA):
    """The fewest rounds a pair's sign test can reach p < alpha with."""
    return stats.fewest_for(alpha)


def _whole(context, key):
    value = context.get(key)
    return int(value) if isinstance(value, str) and value.isdigit() else 0


def short_classes(run):
    """[(workload, quiet rounds, rounds)]: the classes of a whole run in
    parts, one stage, whose least-quiet pair was quiet together in fewer
    than QUIET_SHARE of its rounds or than least_tested(), each with that
    pair's count; [] for any
    other run (no top-up can be planned for it)."""
    context = run.context
    rounds, parts = _whole(context, "rounds"), _whole(context, "round_parts")
    if (context.get("design") != "rounds" or parts < 1 or _whole(context, "processes") != parts
            or _whole(context, "stages") > 1 or run.sampling is None
            or run.sampling.status != "applied"):
        return []
    classes = sampled.by_class(b for b in run.benchmarks.values() if not b.error)
    out, share = [], quiet_share()
    # The sign test's fewest only where the run has that many rounds (a run
    # of fewer could never reach it, however quiet its host).
    least = max(share * rounds, least_tested() if rounds >= least_tested() else 0)
    for workload, members in sorted(classes.items()):
        quiet = [len(set(x.indices) & set(y.indices))
                 for i, x in enumerate(members) for y in members[i + 1:]]
        # A backend never quiet in the class: its figures kept whole, every
        # round counted (sampled.apply), but quiet in none.
        if any(b.contention_included for b in members):
            quiet = [0] if len(members) > 1 else []
        if quiet and min(quiet) < least:
            out.append((workload, min(quiet), rounds))
    return out


def _escaped(text):
    return re.sub(r"([.^$|?*+()\[\]{}\\])", r"\\\1", text)


def plan(run):
    """(rounds, parts, filter) of the run's second stage: cryptobench
    --benchmark_repetitions=2R --round-part=K/2N for K = N+1..2N
    --benchmark_filter=FILTER (the short classes' benchmarks, exactly); None
    when no class is short."""
    short = {w for w, _, _ in short_classes(run)}
    if not short or 2 * _whole(run.context, "rounds") > MAX_REPETITIONS:
        return None
    classes = sampled.by_class(b for b in run.benchmarks.values() if not b.error)
    patterns = []
    for workload, members in sorted((w, m) for w, m in classes.items() if w in short):
        found = re.search(r"(^|/)backend:[^/]*", members[0].name)
        before, after = members[0].name[:found.end(1)], members[0].name[found.end():]
        # A test-only slower copy (--inject-slower) is made from its
        # original: the original's name selects both (a copy alone: nothing).
        backends = sorted(b.params["backend"] for b in members
                          if not re.search(r"-slower[0-9]+$", b.params["backend"]))
        if not backends:
            continue
        patterns.append(f"{_escaped(before)}backend:(?:{'|'.join(map(_escaped, backends))})"
                        f"{_escaped(after)}")
    if not patterns:
        return None
    text = "^(?:" + "|".join(patterns) + ")$"
    if len(text) > 65536:  # the binary's limit (benchmarks/filter.h)
        raise ResultsError(f"the classes to run again make a filter of {len(text)} characters")
    return 2 * _whole(run.context, "rounds"), 2 * _whole(run.context, "round_parts"), text
