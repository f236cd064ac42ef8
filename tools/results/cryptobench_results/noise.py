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
answer judges margins: the median, over the rounds, of the ratio of two
backends of one workload class measured side by side in each round. So its
floor ("margins") is the 95th percentile, over every pair of backends of a
class, of the change of that margin between the halves, each half's median
of the pair's per-round ratios (the margin the answer would report from
that half): a drift that moves both alike cancels, as it does in the margin
itself; a change counts either way alike (1.05 and 1 / 1.05). Kinds of
workload drift differently (kind_of: scenario and threads): on the Zen 5
VM's quiet default runs the grid's margins at 1 thread moved by 2.2-2.7%,
a seed-000 roundtrip's at 1 thread by 8.7-11.7%. Each kind with
MIN_KIND_PAIRS pairs over MIN_KIND_WORKLOADS workloads has its own floor,
which its classes are judged against; a kind with less gets the larger of
its own and the run's (all pairs together), so only a well-measured kind is
judged below the run's floor. The same four default runs (two campaigns,
docs/answer.md) read 2.9-3.9% over all pairs without injection and
4.4-8.5% under the injected neighbour (3.4-4.0% and 4.8-7.9% with each
benchmark's halves set apart; 3.7-4.2% and 4.0-4.9% for one benchmark's
change taken alone, the oldest form, but a margin is two benchmarks'
noise).

A margin also moves between two processes of one binary (openssl and
ipsec-mb at 64 B and 1 KiB by 2-13% on the Zen 5 VM; openssl's with the
process's memory layout), which no floor measured inside one process can
see. So tools/run-benchmarks runs each round of a run in a process of its
own (up to 40): a half of the run then spans 20 layouts and the whole run
40, and the halves split where the processes do (_paired_change). Measured
on that VM, 5 A/A pairs of a slice per process count, interleaved in time,
no injection (the 95th percentile of the margins' change between the two
runs of a pair, against the runs' median floor): on 2026-12-03 one process
6.4% against 2.2% (the floor blind to it), 4 processes 2.8% against 2.9%,
8 processes 2.1% against 3.4%; on 2026-12-07, a busier day, 20.1% against
2.0%, 21.0% against 3.1%, and 2.2% against 2.6%. Then the default run
under injection (docs/answer.md, "Processes"): a round per process moved
the floor and the change between runs down again. The halves hold half a
run's processes and rounds, so in a model where processes' effects average
like a mean's a whole run would move sqrt(2) less than its halves; the
floor is not scaled so: on 2026-12-07 that (1.8%) fell short of the 2.2%
measured in 8 processes.
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
# A kind of workload is judged against its own floor, even one below the
# run's, only with this many pairs over this many workloads; a kind with
# less gets the larger of its own and the run's (a 95th percentile of a few
# pairs sharing their benchmarks is itself mostly noise).
MIN_KIND_PAIRS = 40
MIN_KIND_WORKLOADS = 5
MAX_SHIFT = 0.06     # the largest shift taken out as drift (compare.py, compare.DRIFT)


@dataclass
class NoiseFloor:
    value: float   # relative change, e.g. 0.03 for 3%; NaN when not measurable
    cells: int     # benchmarks (or, within="margins", pairs) it was measured on
    repetitions: int
    left_out: list = field(default_factory=list)  # backends whose back-to-back halves were left out
    back_to_back: bool = False  # measured on back-to-back repetitions only (nothing interleaved)
    within: str = ""    # "margins" or "run" (module docstring); "" each benchmark alone
    shift: float = 0.0  # the run's median change between its halves (late / early - 1)
    # within="margins": kind (kind_of) -> the floor its classes are judged
    # against (MIN_KIND_PAIRS); a kind without pairs is judged against value.
    kinds: dict = field(default_factory=dict)
    pooled: list = field(default_factory=list)  # kinds with too few: no lower than value
    # processes: how many processes the run's rounds ran in (its halves hold
    # half each); 0 or 1: one, or not known. stages: the run's stages
    # (merge.join_parts), processes then its first stage's.
    processes: int = 0
    stages: int = 1

    @property
    def measured(self):
        return not math.isnan(self.value)

    def of(self, kind):
        """The floor a workload class of this kind (kind_of) is judged against."""
        return self.kinds.get(kind, self)

    def describe(self):
        if not self.measured:
            return (f"noise floor not measured (it needs {MIN_REPETITIONS} or more repetitions; "
                    "this run has fewer)")
        if self.back_to_back:
            return (f"noise floor {100 * self.value:.1f}%: the early and late halves of each of "
                    f"{self.cells} benchmarks' repetitions differ by less in {QUANTILE}% of them; "
                    "the repetitions ran back to back, so drift over minutes is not in it; "
                    "smaller margins count as ties")
        less = "by less"
        each = (f" ({self.processes // 2} of its {self.processes} processes each"
                + (f"; {self.processes} of {self.stages * self.processes} for the classes run "
                   "again)" if self.stages > 1 else ")") if self.processes > 1 else "")
        halves = f"the early and late halves of the run{each}"
        if self.within == "margins" and len(self.kinds) > 1:
            floors = ", ".join(f"{100 * f.value:.1f}% ({kind_text(k)})"
                               + ("*" if k in self.pooled else "")
                               for k, f in sorted(self.kinds.items()))
            cells = sorted(f.cells for f in self.kinds.values())
            count = f"{cells[0]}" if cells[0] == cells[-1] else f"{cells[0]}-{cells[-1]}"
            text = (f"noise floor {floors}: the margin between two backends of a workload moved "
                    f"{less} between {halves} in {QUANTILE}% of the pairs of its kind ({count} "
                    f"pair{'' if count == '1' else 's'}, an A/A comparison inside the run)")
            if self.pooled:
                text += (f"; * fewer than {MIN_KIND_WORKLOADS} workloads or {MIN_KIND_PAIRS} "
                         f"pairs of its own: no lower than the run's {100 * self.value:.1f}% "
                         f"over all {self.cells} pairs")
        elif self.within == "margins":
            text = (f"noise floor {100 * self.value:.1f}%: the margin between two backends of a "
                    f"workload moved {less} between {halves} in {QUANTILE}% of {self.cells} "
                    "pairs (an A/A comparison inside the run)")
        else:
            against = ", each against the whole run's shift," if self.within == "run" else ""
            text = (f"noise floor {100 * self.value:.1f}%: the early and late halves{each} of "
                    f"each of {self.cells} benchmarks' repetitions differ{against} {less} in "
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
        early, late = halves(run.context, xs, b.indices if len(b.indices) == len(xs) else None)
        ratio = stats.median(late) / stats.median(early)
        out[b.name] = 1 / ratio if scenarios.of(b).higher_is_better else ratio
    return out


def split_by_process(context, last_round=0):
    """The round (0-based) the late half starts at where the run's rounds
    were spread over an even number of processes (part N/2 ends at round
    R/2), so that no process is in both halves; else None. A run in stages
    (merge.join_parts: more rounds for some classes) splits a benchmark
    whose rounds (0-based, up to last_round) end in stage s as a run of its
    first s stages."""
    parts, rounds = _whole_number(context, "round_parts"), _whole_number(context, "rounds")
    stages = _whole_number(context, "stages") or 1
    if stages > 1 and parts % stages == 0 and rounds % stages == 0:
        own = min(stages, last_round // (rounds // stages) + 1)
        parts, rounds = parts // stages * own, rounds // stages * own
    return rounds // 2 if parts > 1 and parts % 2 == 0 and rounds >= parts else None


def halves(context, values, rounds=None):
    """(early, late) of values in round order: split where the processes do
    (split_by_process; `rounds` the values' 0-based rounds) with
    MIN_REPETITIONS or more on each side, else by count (the middle value of
    an odd count left out)."""
    at = split_by_process(context, max(rounds, default=0)) if rounds is not None else None
    if at is not None:
        early = [v for r, v in zip(rounds, values) if r < at]
        late = [v for r, v in zip(rounds, values) if r >= at]
        if min(len(early), len(late)) >= MIN_REPETITIONS:
            return early, late
    half = len(values) // 2
    return values[:half], values[-half:]


def kind_of(b):
    """The kind of workload a benchmark's margins are judged as: its scenario
    and thread count. Their margins drift apart by different amounts (the
    Zen 5 VM's quiet default runs: the grid at 1 thread 2.2-2.7%, a seed-000
    roundtrip at 1 thread 8.7-11.7%, at 2 threads 2.9-4.6%), and one floor
    for all would hold the grid to the roundtrips' noise."""
    return (b.scenario, b.threads)


def kind_text(kind):
    scenario, threads = kind
    return f"{scenario} at {threads} thread{'s' if threads > 1 else ''}"


def apart(ratio):
    """How far a ratio is from 1 either way (1.05 and 1 / 1.05 alike)."""
    return max(ratio, 1 / ratio) - 1


def _paired_change(run, x, y):
    """How far the margin x over y moved between the run's halves, as the
    answer measures a margin: the median of their per-round ratios, each
    half its own (None when the two were not measured side by side in
    rounds)."""
    if run.context.get("design") != "rounds":
        return None
    xs, ys = scenarios.of(x).figures(x), scenarios.of(y).figures(y)
    if len(xs) != len(x.indices) or len(ys) != len(y.indices):
        return None
    ratios = stats.paired_ratios(xs, x.indices, ys, y.indices)  # in round order
    if len(ratios) < MIN_REPETITIONS:
        return None
    by_round = dict(zip(y.indices, ys))
    kept = [i for i in x.indices if i in by_round and by_round[i] > 0]  # the ratios' rounds
    early, late = halves(run.context, ratios, kept)
    return apart(stats.median(late) / stats.median(early))


def _whole_number(context, key):
    value = context.get(key)
    return int(value) if isinstance(value, str) and value.isdigit() else 0


def margin_changes(run, ratios):
    """kind -> [(workload, change)], per pair of backends of a workload
    class of that kind: how far their margin moved between the run's halves
    (paired per round where the design pairs them, else the ratio of each
    one's late / early `ratios`)."""
    out = {}
    for workload, members in sampled.by_class(run.benchmarks[n] for n in ratios).items():
        for x, y in itertools.combinations(members, 2):
            # Two backends from separate merged runs share no rounds: their
            # margin's drift is not one a floor inside a run measures.
            if sources.separate(run.context, x.params.get("backend", ""),
                                y.params.get("backend", "")):
                continue
            change = _paired_change(run, x, y)
            if change is None:
                change = apart(ratios[x.name] / ratios[y.name])
            out.setdefault(kind_of(x), []).append((workload, change))
    return out


def split_half_changes(run, benchmarks=None, within=""):
    """|late / early - 1| per benchmark (within="run": against the run's
    median late / early, when that shift is drift) or, within="margins", per
    pair of backends of a workload class: how far the margin moved either
    way (margin_changes)."""
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
    late / early - 1, within="margins": kind -> its pairs' changes)."""
    ratios = _late_over_early(run, benchmarks)
    median = stats.median(list(ratios.values())) - 1 if ratios else 0.0
    if within == "margins":
        kinds = margin_changes(run, ratios)
        pairs = [c for items in kinds.values() for _, c in items]
        if len(pairs) >= MIN_PAIRS:
            return pairs, within, median, kinds
    shift = drift(list(ratios.values())) if within == "run" else None
    if shift is not None:
        return [abs(r / shift - 1) for r in ratios.values()], within, median, {}
    return [abs(r - 1) for r in ratios.values()], "", median, {}


def noise_floor(run, within=""):
    """The floor from the interleaved benchmarks (module docstring)."""
    kept, back_to_back = [], []
    for b in run.benchmarks.values():
        backend = b.params.get("backend", "")
        (back_to_back if sources.interleaved(run.context, backend) is False else kept).append(b)
    changes, measured_as, shift, kinds = _changes(run, kept, within)
    left_out = sorted({b.params.get("backend", "") for b in back_to_back
                       if split_half_changes(run, [b])})
    only_back_to_back = False
    if not changes:
        # Peers alone: each benchmark's own halves (the description says
        # they ran back to back).
        (changes, measured_as, shift, kinds), left_out = _changes(run, back_to_back, ""), []
        only_back_to_back = bool(changes)
    if not changes:
        return NoiseFloor(math.nan, 0, run.repetitions)
    # The header names the halves' processes where they split by process.
    # (Of a run in stages, its first stage's: every benchmark's halves.)
    stages = _whole_number(run.context, "stages") or 1
    processes = _whole_number(run.context, "round_parts") // stages \
        if not only_back_to_back and split_by_process(run.context) is not None \
        and _processes(run.context) == _whole_number(run.context, "round_parts") else 0
    floor = NoiseFloor(stats.percentile(changes, QUANTILE), len(changes),
                       run.repetitions, left_out, only_back_to_back, measured_as, shift,
                       processes=processes, stages=stages)
    for kind, items in sorted(kinds.items()):
        own = stats.percentile([c for _, c in items], QUANTILE)
        if len(items) < MIN_KIND_PAIRS or len({w for w, _ in items}) < MIN_KIND_WORKLOADS:
            own = max(own, floor.value)
            floor.pooled.append(kind)
        floor.kinds[kind] = NoiseFloor(own, len(items), run.repetitions, left_out, False,
                                       measured_as, shift, processes=processes,
                                       stages=stages)
    return floor


def _processes(context):
    """How many processes the run's rounds ran in (context processes; 1)."""
    return _whole_number(context, "processes") or 1


def widened(floor, value):
    """The floor no lower than value, kind by kind too (compare: runs whose
    quiet conditions differ by that much)."""
    out = NoiseFloor(max(floor.value, value), floor.cells, floor.repetitions, floor.left_out,
                     floor.back_to_back, floor.within, floor.shift, processes=floor.processes,
                     stages=floor.stages)
    out.pooled = list(floor.pooled)
    out.kinds = {k: widened(f, value) for k, f in floor.kinds.items()}
    return out


def combined(*floors):
    """The floor for comparing runs: the larger of theirs (NaN if one is
    unknown), kind by kind too."""
    def larger(values):
        return math.nan if any(math.isnan(v) for v in values) else max(values)

    out = NoiseFloor(larger([f.value for f in floors]), min(f.cells for f in floors),
                     min(f.repetitions for f in floors),
                     sorted({b for f in floors for b in f.left_out}),
                     any(f.back_to_back for f in floors),
                     floors[0].within if len({f.within for f in floors}) == 1 else "",
                     processes=min(f.processes for f in floors),
                     stages=max(f.stages for f in floors))
    if out.within != "margins":  # one run without a margins floor: one floor for all
        return out
    out.pooled = sorted({k for f in floors for k in f.pooled})
    for kind in sorted({k for f in floors for k in f.kinds}):
        of = [f.of(kind) for f in floors]
        # A kind with too few pairs in either run stays no lower than the runs' floor.
        values = [f.value for f in of] + ([out.value] if kind in out.pooled else [])
        out.kinds[kind] = NoiseFloor(larger(values), min(f.cells for f in of), out.repetitions,
                                     out.left_out, False, out.within)
    return out
