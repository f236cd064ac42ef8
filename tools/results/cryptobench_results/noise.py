"""The machine's run-to-run noise, measured inside a run.

Each benchmark's repetitions are split by the order they ran into an early
and a late half; the change between the halves' medians is what comparing
the run with a second run a moment later would show for that benchmark if
nothing changed (an A/A comparison inside the run). With repetitions
interleaved across benchmarks the halves are minutes apart, so the machine's
drift, a neighbour's load and frequency changes are in them. The noise floor
is the 95th percentile of those changes over all benchmarks: a difference
smaller than that is one the machine makes by itself, and the tools call it
"within noise" however small its p-value."""
import math
from dataclasses import dataclass

from . import scenarios, stats

QUANTILE = 95
MIN_REPETITIONS = 4  # two per half at least


@dataclass
class NoiseFloor:
    value: float   # relative change, e.g. 0.03 for 3%; NaN when not measurable
    cells: int     # benchmarks it was measured on
    repetitions: int

    @property
    def measured(self):
        return not math.isnan(self.value)

    def describe(self):
        if not self.measured:
            return (f"noise floor not measured (it needs {MIN_REPETITIONS} or more repetitions; "
                    "this run has fewer)")
        return (f"noise floor {100 * self.value:.1f}%: the early and late halves of each of "
                f"{self.cells} benchmarks' repetitions differ by less in {QUANTILE}% of them "
                "(an A/A comparison inside the run); smaller margins count as ties")


def split_half_changes(run):
    """|median(late half) / median(early half) - 1| per benchmark, on each
    benchmark's primary figure."""
    changes = []
    for b in run.benchmarks.values():
        xs = scenarios.of(b).figures(b)
        if b.error or len(xs) < MIN_REPETITIONS or min(xs) <= 0:
            continue
        half = len(xs) // 2
        early, late = xs[:half], xs[-half:]
        changes.append(abs(stats.median(late) / stats.median(early) - 1))
    return changes


def noise_floor(run):
    changes = split_half_changes(run)
    if not changes:
        return NoiseFloor(math.nan, 0, run.repetitions)
    return NoiseFloor(stats.percentile(changes, QUANTILE), len(changes), run.repetitions)


def combined(*floors):
    """The floor for comparing runs: the larger of theirs (NaN if one is unknown)."""
    values = [f.value for f in floors]
    value = math.nan if any(math.isnan(v) for v in values) else max(values)
    return NoiseFloor(value, min(f.cells for f in floors), min(f.repetitions for f in floors))
