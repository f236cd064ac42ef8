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
sources each say it for their own backends (sources.py)."""
import math
from dataclasses import dataclass, field

from . import scenarios, sources, stats

QUANTILE = 95
MIN_REPETITIONS = 4  # two per half at least


@dataclass
class NoiseFloor:
    value: float   # relative change, e.g. 0.03 for 3%; NaN when not measurable
    cells: int     # benchmarks it was measured on
    repetitions: int
    left_out: list = field(default_factory=list)  # backends whose back-to-back halves were left out
    back_to_back: bool = False  # measured on back-to-back repetitions only (nothing interleaved)

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
        text = (f"noise floor {100 * self.value:.1f}%: the early and late halves of each of "
                f"{self.cells} benchmarks' repetitions differ by less in {QUANTILE}% of them "
                "(an A/A comparison inside the run)")
        if self.left_out:
            text += (f", {', '.join(self.left_out)} left out (repetitions back to back, halves "
                     "seconds apart)")
        return text + "; smaller margins count as ties"


def split_half_changes(run, benchmarks=None):
    """|median(late half) / median(early half) - 1| per benchmark, on each
    benchmark's primary figure."""
    changes = []
    for b in run.benchmarks.values() if benchmarks is None else benchmarks:
        xs = scenarios.of(b).figures(b)
        if b.error or len(xs) < MIN_REPETITIONS or min(xs) <= 0:
            continue
        half = len(xs) // 2
        early, late = xs[:half], xs[-half:]
        changes.append(abs(stats.median(late) / stats.median(early) - 1))
    return changes


def noise_floor(run):
    """The floor from the interleaved benchmarks (module docstring)."""
    kept, back_to_back = [], []
    for b in run.benchmarks.values():
        backend = b.params.get("backend", "")
        (back_to_back if sources.interleaved(run.context, backend) is False else kept).append(b)
    changes = split_half_changes(run, kept)
    left_out = sorted({b.params.get("backend", "") for b in back_to_back
                       if split_half_changes(run, [b])})
    only_back_to_back = False
    if not changes:
        changes, left_out = split_half_changes(run, back_to_back), []
        only_back_to_back = bool(changes)
    if not changes:
        return NoiseFloor(math.nan, 0, run.repetitions)
    return NoiseFloor(stats.percentile(changes, QUANTILE), len(changes), run.repetitions,
                      left_out, only_back_to_back)


def combined(*floors):
    """The floor for comparing runs: the larger of theirs (NaN if one is unknown)."""
    values = [f.value for f in floors]
    value = math.nan if any(math.isnan(v) for v in values) else max(values)
    return NoiseFloor(value, min(f.cells for f in floors), min(f.repetitions for f in floors),
                      sorted({b for f in floors for b in f.left_out}),
                      any(f.back_to_back for f in floors))
