"""The machine's run-to-run noise, measured inside a run.

Each benchmark's repetitions are split by the order they ran into an early
and a late half; the change between the halves' medians is what comparing
the run with a second run a moment later would show for that benchmark if
nothing changed (an A/A comparison inside the run). With repetitions
interleaved across benchmarks the halves are minutes apart, so the machine's
drift, a neighbour's load and frequency changes are in them. The noise floor
is the 95th percentile of those changes over all benchmarks (for the answer,
of the changes of margins between pairs of them: below): a difference
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

What the floor is set against decides what it measures (`within`). The
answer judges margins: the ratio of two backends of one workload class,
measured side by side in every round. So its floor ("margins") is the 95th
percentile, over every pair of backends of a class, of the change of their
margin between the halves: a drift that moves both alike cancels, as it does
in the margin itself. Measured on four default runs of the Zen 5 VM (two
campaigns, docs/answer.md): 3.4-4.0% without injection, 4.8-7.9% under the
injected neighbour; one benchmark's change taken alone, the floor's old
form, read 3.7-4.2% and 4.0-4.9%, but a margin is two benchmarks' noise. A
margin's change between two runs of one binary is larger still on this VM
(95th percentile 3.1-5.8% without injection, over 875 pairs of a slice:
openssl and ipsec-mb at 64 B and 1 KiB differ by 2-13% between two
processes), which no floor measured inside one process can see.
compare sets each benchmark against itself in another run and takes out a
shift the whole run shares, up to MAX_SHIFT (compare.py): its floor ("run")
takes each benchmark's change against the run's median change the same way.
"""
import itertools
import math
from dataclasses import dataclass, field

from . import sampled, scenarios, sources, stats

QUANTILE = 95
MIN_REPETITIONS = 4  # two per half at least
MIN_FOR_SHIFT = 10   # benchmarks for a run's median change to mean anything
MIN_PAIRS = 10       # pairs for a 95th percentile of margins (fewer: each benchmark's own)
MAX_SHIFT = 0.03     # the largest shift taken out as drift (compare.DRIFT)


@dataclass
class NoiseFloor:
    value: float   # relative change, e.g. 0.03 for 3%; NaN when not measurable
    cells: int     # benchmarks (or, within="margins", pairs) it was measured on
    repetitions: int
    left_out: list = field(default_factory=list)  # backends whose back-to-back halves were left out
    back_to_back: bool = False  # measured on back-to-back repetitions only (nothing interleaved)
    within: str = ""    # "margins" or "run" (module docstring); "" each benchmark alone
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
        if self.within == "margins":
            text = (f"noise floor {100 * self.value:.1f}%: the margin between two backends of a "
                    f"workload moved by less between the early and late halves of the run in "
                    f"{QUANTILE}% of {self.cells} pairs (an A/A comparison inside the run)")
        else:
            against = ", each against the whole run's shift," if self.within == "run" else ""
            text = (f"noise floor {100 * self.value:.1f}%: the early and late halves of each of "
                    f"{self.cells} benchmarks' repetitions differ{against} by less in "
                    f"{QUANTILE}% of them (an A/A comparison inside the run)")
        if self.left_out:
            text += (f", {', '.join(self.left_out)} left out (repetitions back to back, halves "
                     "seconds apart)")
        if abs(self.shift) >= 0.005:
            text += (f"; the run as a whole was {100 * abs(self.shift):.1f}% "
                     f"{'slower' if self.shift > 0 else 'faster'} in its late half")
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
    """|late / early - 1| per benchmark (within="run": against the run's
    median late / early, when that shift is drift) or, within="margins", per
    pair of backends of a workload class: |the margin's late / early - 1|."""
    return _changes(run, benchmarks, within)[0]


def drift(ratios):
    """The median of ratios when it is a shift two measurements of one binary
    drift apart by (MIN_FOR_SHIFT or more ratios, within MAX_SHIFT); else
    None. compare.py takes the same out between runs."""
    if len(ratios) < MIN_FOR_SHIFT:
        return None
    shift = stats.median(ratios)
    return shift if abs(math.log(shift)) <= math.log(1 + MAX_SHIFT) else None


def _changes(run, benchmarks, within):
    """(the changes, the `within` they were measured as, the run's median
    late / early - 1)."""
    ratios = _late_over_early(run, benchmarks)
    median = stats.median(list(ratios.values())) - 1 if ratios else 0.0
    if within == "margins":
        classes = {}
        for name, r in ratios.items():
            backend = run.benchmarks[name].params.get("backend", "")
            classes.setdefault(sampled.workload_of(name), []).append((backend, r))
        # Two backends from separate merged runs share no rounds: their
        # margin's drift is not one a floor inside a run measures.
        pairs = [abs(a / b - 1) for members in classes.values()
                 for (x, a), (y, b) in itertools.combinations(members, 2)
                 if not sources.separate(run.context, x, y)]
        if len(pairs) >= MIN_PAIRS:
            return pairs, within, median
    shift = drift(list(ratios.values())) if within == "run" else None
    if shift is not None:
        return [abs(r / shift - 1) for r in ratios.values()], within, median
    return [abs(r - 1) for r in ratios.values()], "", median


def noise_floor(run, within=""):
    """The floor from the interleaved benchmarks (module docstring)."""
    kept, back_to_back = [], []
    for b in run.benchmarks.values():
        backend = b.params.get("backend", "")
        (back_to_back if sources.interleaved(run.context, backend) is False else kept).append(b)
    changes, measured_as, shift = _changes(run, kept, within)
    left_out = sorted({b.params.get("backend", "") for b in back_to_back
                       if split_half_changes(run, [b])})
    only_back_to_back = False
    if not changes:
        # Peers alone: each benchmark's own halves (the description says
        # they ran back to back).
        (changes, measured_as, shift), left_out = _changes(run, back_to_back, ""), []
        only_back_to_back = bool(changes)
    if not changes:
        return NoiseFloor(math.nan, 0, run.repetitions)
    return NoiseFloor(stats.percentile(changes, QUANTILE), len(changes), run.repetitions,
                      left_out, only_back_to_back, measured_as, shift)


def combined(*floors):
    """The floor for comparing runs: the larger of theirs (NaN if one is unknown)."""
    values = [f.value for f in floors]
    value = math.nan if any(math.isnan(v) for v in values) else max(values)
    return NoiseFloor(value, min(f.cells for f in floors), min(f.repetitions for f in floors),
                      sorted({b for f in floors for b in f.left_out}),
                      any(f.back_to_back for f in floors),
                      floors[0].within if len({f.within for f in floors}) == 1 else "")
