"""The machine's run-to-run noise, measured inside a run.

Each benchmark's repetitions are split by the order they ran into an early
and a late half; the change between the halves' medians is what comparing
the run with a second run a moment later would show for that benchmark if
nothing changed (an A/A comparison inside the run). With repetitions
interleaved across benchmarks the halves are minutes apart, so the machine's
drift, a neighbour's load and frequency changes are in them. The noise floor
is the 95th percentile of those changes over all benchmarks: a difference
smaller than that is one the machine makes by itself, and the tools call it
"within noise" however small its p-value.

Only interleaved repetitions measure that drift: a benchmark whose
repetitions ran back to back (the run says repetitions_interleaved=false,
as the Java and Go peers' runs do) has halves seconds apart, which would
pull the floor down. Such benchmarks are left out of the floor, and the
description names their backends; a run with nothing else (every
repetition back to back) gets the floor of its back-to-back halves, and
the description says that drift over minutes is not in it. A merged run's
sources each say it for their own backends (sources.py).

What the floor is compared with decides what it takes out first
(`within`). The answer compares backends of one workload class, measured
side by side in every round: a change the whole class shares between the
halves moves none of its margins, so each benchmark's change is taken
relative to its class's median change. A class of one or two (a median of
two is as noisy as either) is taken against the run's median change
instead, a drift that moves both sides of its margins alike.
compare sets each benchmark against itself in another run, and takes out a
shift the whole run shares (compare.py): so does its floor, relative to the
run's median change (MIN_FOR_SHIFT benchmarks or more). Measured on two
decision runs of the Zen 5 VM, the halves of the whole run differed by 3.0%
and 0.4%, with 97% and 40% of the benchmarks moving the same way; after the
class's share the 95th percentile was 2.2% and 3.7% (4.2% and 3.9%
taken raw; docs/answer.md)."""
import math
from dataclasses import dataclass, field

from . import sampled, scenarios, sources, stats

QUANTILE = 95
MIN_REPETITIONS = 4  # two per half at least
MIN_GROUP = 3        # a class median steadier than the benchmark it is set against
MIN_FOR_SHIFT = 10   # as compare.py


@dataclass
class NoiseFloor:
    value: float   # relative change, e.g. 0.03 for 3%; NaN when not measurable
    cells: int     # benchmarks it was measured on
    repetitions: int
    left_out: list = field(default_factory=list)  # backends whose back-to-back halves were left out
    back_to_back: bool = False  # measured on back-to-back repetitions only (nothing interleaved)
    within: str = ""    # "class" or "run": the shared change taken out first ("" none)
    shift: float = 0.0  # the run's median change between its halves (late / early - 1)

    @property
    def measured(self):
        return not math.isnan(self.value)

    def describe(self):
        if not self.measured:
            return (f"noise floor not measured (it needs {MIN_REPETITIONS} or more repetitions; "
                    "this run has fewer)")
        if self.back_to_back:
            return (f"noise floor {100 * self.value:.1f}%: the early and late halves of each of "
                    f"{self.cells} benchmarks' repetitions differ by less in {QUANTILE}% of them; "
                    "the repetitions ran back to back, so drift over minutes is not in it; "
                    "smaller margins count as ties")
        against = {"class": ", each against the other backends of its workload (or the "
                            "whole run),",
                   "run": ", each against the whole run's shift,"}.get(self.within, "")
        text = (f"noise floor {100 * self.value:.1f}%: the early and late halves of each of "
                f"{self.cells} benchmarks' repetitions differ{against} by less in {QUANTILE}% "
                "of them (an A/A comparison inside the run)")
        if self.within and abs(self.shift) >= 0.005:
            text += (f"; the run as a whole was {100 * abs(self.shift):.1f}% "
                     f"{'slower' if self.shift > 0 else 'faster'} in its late half")
        if self.left_out:
            text += (f", {', '.join(self.left_out)} left out (repetitions back to back, halves "
                     "seconds apart)")
        return text + "; smaller margins count as ties"


def _late_over_early(run, benchmarks):
    """name -> median(late half) / median(early half), on each benchmark's
    primary figure (a time: above 1 is slower)."""
    out = {}
    for b in run.benchmarks.values() if benchmarks is None else benchmarks:
        xs = scenarios.of(b).figures(b)
        if b.error or len(xs) < MIN_REPETITIONS or min(xs) <= 0:
            continue
        half = len(xs) // 2
        ratio = stats.median(xs[-half:]) / stats.median(xs[:half])
        out[b.name] = 1 / ratio if scenarios.of(b).higher_is_better else ratio
    return out


def split_half_changes(run, benchmarks=None, within=""):
    """|late / early - 1| per benchmark; within="class" or "run": relative to
    the median of its class's (or the run's) late / early first (module
    docstring)."""
    return _changes(run, benchmarks, within)[0]


def _changes(run, benchmarks, within):
    """(the changes, whether any was taken relative to its class or run)."""
    ratios = _late_over_early(run, benchmarks)
    if within == "run" and len(ratios) >= MIN_FOR_SHIFT:
        shift = stats.median(list(ratios.values()))
        return [abs(r / shift - 1) for r in ratios.values()], True
    groups = {}
    if within == "class":
        for name, r in ratios.items():
            groups.setdefault(sampled.workload_of(name), []).append(r)
    # A class too small for a steady median of its own still shares the
    # run's drift, which moves both sides of its margin alike.
    shift = stats.median(list(ratios.values())) if len(ratios) >= MIN_FOR_SHIFT else None
    changes, relative = [], False
    for name, r in ratios.items():
        group = groups.get(sampled.workload_of(name), [])
        if len(group) >= MIN_GROUP:
            changes.append(abs(r / stats.median(group) - 1))
            relative = True
        elif within == "class" and shift is not None:
            changes.append(abs(r / shift - 1))
            relative = True
        else:
            changes.append(abs(r - 1))
    return changes, relative


def noise_floor(run, within=""):
    """The floor from the interleaved benchmarks (module docstring)."""
    kept, back_to_back = [], []
    for b in run.benchmarks.values():
        backend = b.params.get("backend", "")
        (back_to_back if sources.interleaved(run.context, backend) is False else kept).append(b)
    changes, relative = _changes(run, kept, within)
    left_out = sorted({b.params.get("backend", "") for b in back_to_back
                       if split_half_changes(run, [b])})
    only_back_to_back = False
    used = kept
    if not changes:
        (changes, relative), left_out, used = _changes(run, back_to_back, within), [], back_to_back
        only_back_to_back = bool(changes)
    if not changes:
        return NoiseFloor(math.nan, 0, run.repetitions)
    ratios = list(_late_over_early(run, used).values())
    return NoiseFloor(stats.percentile(changes, QUANTILE), len(changes), run.repetitions,
                      left_out, only_back_to_back, within if relative else "",
                      stats.median(ratios) - 1)


def combined(*floors):
    """The floor for comparing runs: the larger of theirs (NaN if one is unknown)."""
    values = [f.value for f in floors]
    value = math.nan if any(math.isnan(v) for v in values) else max(values)
    return NoiseFloor(value, min(f.cells for f in floors), min(f.repetitions for f in floors),
                      sorted({b for f in floors for b in f.left_out}),
                      any(f.back_to_back for f in floors),
                      floors[0].within if len({f.within for f in floors}) == 1 else "")
