"""Library selection: for each workload class a run covers, the fastest
backend, its margin over the runner-up, whether the margin is significant,
and a plain-language recommendation.

A workload class is everything but the backend and the exact size: scenario,
operation, cipher, codec, pool, key handling, threads, and a size class. The
score of a backend in a class is the geometric mean over the class's sizes of
its median throughput (bytes/s; ops/ms for seed000; setups/s for key
setup). The margin is
significant when, at every size of the class, a two-sided Mann-Whitney U test
of the winner's against the runner-up's repetitions gives p < alpha.
"""
import math
from collections import OrderedDict
from dataclasses import dataclass, field

from . import stats

SIZE_CLASSES = [(64, "tiny (<= 64 B)"), (1024, "small (65 B - 1 KiB)"),
                (65536, "medium (1 - 64 KiB)"), (math.inf, "large (> 64 KiB)")]
TIE_MARGIN = 0.02  # below this the backends are reported as equivalent


def size_class(size):
    if size == 0:
        return "no payload"
    for limit, label in SIZE_CLASSES:
        if size <= limit:
            return label
    return SIZE_CLASSES[-1][1]


def score_metric(benchmark):
    if benchmark.scenario == "seed000":
        return "ops_per_ms"
    if benchmark.scenario == "keysetup":
        return "items_per_second"  # key setups per second: no bytes
    return "bytes_per_second"


@dataclass
class Selection:
    workload: OrderedDict
    metric: str
    ranking: list            # [(backend, score)], best first
    margin: float            # winner / runner-up - 1 (NaN with one backend)
    significant: object      # True, False, or None (too few repetitions)
    max_p: float
    sizes: list = field(default_factory=list)

    @property
    def winner(self):
        return self.ranking[0][0]

    def recommendation(self):
        if len(self.ranking) == 1:
            return f"only {self.winner} was measured for this workload"
        runner_up = self.ranking[1][0]
        ratio = 1 + self.margin
        if self.significant is None:
            certainty = "not tested for significance (fewer than 4 repetitions)"
        elif self.significant:
            certainty = f"significant, p <= {self.max_p:.2g} at every size"
        else:
            certainty = f"not significant at every size (largest p {self.max_p:.2g})"
        if self.margin < TIE_MARGIN:
            return (f"{self.winner} and {runner_up} are equivalent here ({self.margin * 100:.1f}% "
                    f"apart, {certainty}): choose on other grounds")
        return (f"use {self.winner}: {ratio:.2f}x the runner-up {runner_up} ({certainty})")


def select(run, alpha=0.05):
    groups = OrderedDict()
    for b in run.benchmarks.values():
        if b.error:
            continue
        key_params = OrderedDict((k, v) for k, v in b.params.items() if k not in ("backend", "size"))
        size = int(b.params.get("size", "0"))
        workload = OrderedDict([("scenario", b.scenario)])
        workload.update(key_params)
        workload["sizes"] = size_class(size)
        key = tuple(workload.items())
        groups.setdefault(key, OrderedDict()).setdefault(b.params["backend"], {})[size] = b
    selections = []
    for key, by_backend in groups.items():
        # Only sizes every backend of the class ran are comparable.
        common = set.intersection(*(set(s) for s in by_backend.values()))
        if not common:
            continue
        sizes = sorted(common)
        metric = score_metric(next(iter(by_backend.values()))[sizes[0]])
        scores = []
        for backend, per_size in by_backend.items():
            values = [per_size[s].value(metric) for s in sizes]
            if any(v is None or v <= 0 for v in values):
                continue
            scores.append((backend, stats.geometric_mean(values)))
        if not scores:
            continue
        scores.sort(key=lambda x: -x[1])
        margin, significant, max_p = math.nan, None, math.nan
        if len(scores) > 1:
            margin = scores[0][1] / scores[1][1] - 1
            first, second = by_backend[scores[0][0]], by_backend[scores[1][0]]
            ps = []
            testable = True
            for s in sizes:
                xs, ys = first[s].samples[metric], second[s].samples[metric]
                if stats.min_achievable_p(len(xs), len(ys)) >= alpha:
                    testable = False
                    break
                ps.append(stats.mann_whitney(xs, ys)[1])
            if testable:
                max_p = max(ps)
                significant = max_p < alpha
        selections.append(Selection(OrderedDict(key), metric, scores, margin, significant, max_p, sizes))
    return selections


def describe_workload(workload):
    w = dict(workload)
    parts = [w.pop("scenario")]
    for k in ("op", "cipher", "sizes", "codec", "pool", "key", "threads"):
        if k in w:
            v = w.pop(k)
            parts.append(f"{k}={v}" if k in ("pool", "key", "threads", "codec") else v)
    parts.extend(f"{k}={v}" for k, v in w.items())
    return " ".join(parts)


def render(selections, markdown=False):
    lines = []
    if markdown:
        lines.append("| workload | winner | margin over runner-up | significant | recommendation |")
        lines.append("|---|---|---|---|---|")
    for s in selections:
        margin = "-" if math.isnan(s.margin) else f"+{s.margin * 100:.1f}%"
        sig = {True: "yes", False: "no", None: "n/a"}[s.significant]
        if markdown:
            lines.append(f"| {describe_workload(s.workload)} | {s.winner} | {margin} | {sig} | "
                         f"{s.recommendation()} |")
        else:
            lines.append(f"{describe_workload(s.workload)}: {s.recommendation()}")
    return "\n".join(lines)
