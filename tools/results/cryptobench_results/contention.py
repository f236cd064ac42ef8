"""Contention as a finding: what a noisy neighbour does to each backend.

Where the run's probes saw both regimes (sampled.py), every benchmark has a
figure from its quiet samples (the answer's) and, for the repetitions that
ran contended, one from its contended samples. Here:
- the run's contended share of the sampled time;
- each backend's slowdown under contention: the median over its benchmarks
  of quiet figure / contended figure (time per operation, so > 1 is
  slower); throughput-bound code suffers, a CBC-encryption chain does not;
- per workload class, the ranking under contention (each library's
  contended figure, as the answer ranks quiet ones), and where its winner
  is not the quiet winner by more than its class's noise floor.
"""
import math
from dataclasses import dataclass, field

from . import scenarios, stats

MIN_SHARE = 0.02   # below this, the run saw no contention worth a finding


@dataclass
class Change:
    result: object     # the answer's ClassResult
    winner: str        # under contention
    lead: float        # its margin there over the quiet winner


@dataclass
class Contention:
    share: float
    slowdowns: list = field(default_factory=list)   # [(backend, slowdown, benchmarks)], worst first
    changes: list = field(default_factory=list)     # [Change]
    compared: int = 0                               # classes ranked under contention too


def _median_figure(b, sc, contended):
    xs = b.contended.get(sc.metric, []) if contended else b.samples.get(sc.metric, [])
    return stats.median(xs) * sc.scale if xs else None


def findings(run, results):
    """The run's Contention, or None when it saw none (or has no record). A
    winner changes under contention only by more than its class's noise floor."""
    sampling = getattr(run, "sampling", None)
    if sampling is None or sampling.status != "applied":
        return None
    share = sampling.contended_share
    if math.isnan(share) or share < MIN_SHARE:
        return None
    out = Contention(share)
    per_backend = {}
    for b in run.benchmarks.values():
        if b.error or not b.contended:
            continue
        sc = scenarios.of(b)
        quiet, busy = _median_figure(b, sc, False), _median_figure(b, sc, True)
        if quiet and busy:
            slow = quiet / busy if sc.higher_is_better else busy / quiet
            per_backend.setdefault(b.params.get("backend", ""), []).append(slow)
    out.slowdowns = sorted(((name, stats.median(xs), len(xs)) for name, xs in per_backend.items()),
                           key=lambda x: -x[1])
    for r in results:
        if len(r.ranking) < 2:
            continue
        members = r.members
        scores = []
        for backend, _ in r.ranking:
            per_size = members.get(backend, {})
            values = [_median_figure(per_size[s], r.scenario, True) if s in per_size else None
                      for s in r.sizes]
            if any(v is None or v <= 0 for v in values):
                break
            scores.append((backend, stats.geometric_mean(values)))
        else:
            out.compared += 1
            scores.sort(key=lambda x: -x[1] if r.scenario.higher_is_better else x[1])
            if scores[0][0] != r.winner:
                quiet_winner = dict(scores)[r.winner]
                lead = (scores[0][1] / quiet_winner if r.scenario.higher_is_better
                        else quiet_winner / scores[0][1])
                if r.floor.measured and lead - 1 <= r.floor.value:
                    continue  # within the noise: not a change
                out.changes.append(Change(r, scores[0][0], lead))
    return out
