#!/usr/bin/python3
"""What a run's noise floor is made of (the figures in README.md beside this).

  /usr/bin/python3 analysis.py anatomy RUN.json [...]   per kind at 1 thread: the floor
      with other estimators of a half's margin; a margin's round-to-round and
      process-to-process spread; the backends in the pairs that set the floor
  /usr/bin/python3 analysis.py within RUN.json          a round's own sampling noise:
      each loop's quiet samples split odd/even, each half's figure as sampled.py forms it
  /usr/bin/python3 analysis.py pairs DIR COUNT          noise-campaign --only=processes
      runs in DIR with COUNT processes: each A/A pair's floors, contended shares and
      the 95th percentile of its margins' change between the two runs
  /usr/bin/python3 analysis.py coverage K A.json B.json [A.json B.json ...]   A/A pairs of
      runs: how many margins' change between the two runs stays within the floor, today's
      (the kind's) and a floor per backend (a backend whose pairs' median change is over
      K times the kind's typical backend's is judged by its own pairs' 95th percentile,
      every other pair by the 95th percentile of the pairs without such backends)

RUN.json: a run's benchmark.json with its samples.jsonl beside it (tools/run-benchmarks
writes both). Reads the runs through tools/results, as the answer does."""
import collections
import itertools
import math
import os
import sys

import numpy as np

ROOT = os.path.dirname(os.path.dirname(os.path.dirname(os.path.dirname(os.path.abspath(__file__)))))
sys.path.insert(0, os.path.join(ROOT, "tools", "results"))
from cryptobench_results import gbench, noise, sampled, scenarios, stats  # noqa: E402

# These figures were made with a round's band at 10% over the quartile; the
# tools' default is 20% since (../2026-12-07-band-zen5): pinned, so that
# this script gives what its outputs beside it say.
sampled.QUIET_BAND = 0.10


def hodges_lehmann(xs):
    xs = np.asarray(xs)
    walsh = (xs[:, None] + xs[None, :]) / 2
    return float(np.median(walsh[np.triu_indices(len(xs))]))


def classes(run):
    return sampled.by_class(b for b in run.benchmarks.values() if not b.error)


def log_ratios(x, y):
    """[(round, log(x / y))] over the rounds both have quiet figures."""
    xs, ys = scenarios.of(x).figures(x), scenarios.of(y).figures(y)
    if len(xs) != len(x.indices) or len(ys) != len(y.indices):
        return []
    by_round = dict(zip(y.indices, ys))
    return [(r, math.log(v / by_round[r])) for v, r in zip(xs, x.indices)
            if r in by_round and by_round[r] > 0]


def margins(run):
    """(workload, backend, backend) -> (the answer's margin, the pair's kind)."""
    out = {}
    for w, members in classes(run).items():
        for x, y in itertools.combinations(sorted(members, key=lambda m: m.params["backend"]), 2):
            points = log_ratios(x, y)
            if len(points) >= noise.MIN_REPETITIONS:
                out[(w, x.params["backend"], y.params["backend"])] = (
                    stats.median([math.exp(v) for _, v in points]), noise.kind_of(x))
    return out


def anatomy(path):
    run = gbench.load_run(path)
    rounds, parts = int(run.context["rounds"]), int(run.context.get("round_parts", "1"))
    at = rounds // 2
    answers = "median (the answer's)"
    estimators = {answers: np.median, "Hodges-Lehmann": hodges_lehmann,
                  "median of each process's median": None}
    changes = {}
    spread = {}
    for members in classes(run).values():
        for x, y in itertools.combinations(members, 2):
            kind = noise.kind_of(x)
            if kind[1] != 1:
                continue
            points = log_ratios(x, y)
            early = [(r, v) for r, v in points if r < at]
            late = [(r, v) for r, v in points if r >= at]
            if min(len(early), len(late)) < noise.MIN_REPETITIONS:
                continue
            for name, f in estimators.items():
                def est(half):
                    if f is not None:
                        return f([v for _, v in half])
                    by = {}
                    for r, v in half:
                        by.setdefault(r * parts // rounds, []).append(v)
                    return float(np.median([np.median(vs) for vs in by.values()]))
                changes.setdefault(kind, {}).setdefault(name, []).append(
                    (abs(est(late) - est(early)), x.params["backend"], y.params["backend"]))
            by = {}
            for r, v in points:
                by.setdefault(r * parts // rounds, []).append(v)
            groups = [vs for vs in by.values() if len(vs) >= 2]
            if len(groups) >= 4:
                spread.setdefault(kind, []).append(
                    (np.mean([np.var(g, ddof=1) for g in groups]),
                     np.var([np.mean(g) for g in groups], ddof=1)))
    print(f"{path}: {rounds} rounds in {parts} processes; "
          f"{100 * run.sampling.contended_share:.0f}% contended")
    for kind in sorted(changes):
        print(f"  {noise.kind_text(kind)} ({len(changes[kind][answers])} pairs): "
              "floor (95th percentile of a margin's change between the halves) with "
              + ", ".join(f"{name} {100 * math.expm1(np.percentile([c[0] for c in v], 95)):.2f}%"
                          for name, v in changes[kind].items()))
        base = changes[kind][answers]
        values = [c[0] for c in base]
        print(f"    the change's median {100 * math.expm1(np.median(values)):.2f}% against its "
              f"95th percentile {100 * math.expm1(np.percentile(values, 95)):.2f}%")
        if kind in spread:
            within = np.median([w for w, _ in spread[kind]])
            between = np.median([b for _, b in spread[kind]])
            per = rounds / parts
            print(f"    a pair's round-to-round spread in one process {100 * math.sqrt(within):.2f}% "
                  f"(median over pairs); its processes' means spread {100 * math.sqrt(between):.2f}%, "
                  f"{100 * math.sqrt(within / per):.2f}% expected from the rounds alone")
        top = sorted(base, reverse=True)[:max(1, len(base) // 20)]
        counts = {}
        for _, a, b in top:
            for backend in (a, b):
                counts[backend] = counts.get(backend, 0) + 1
        named = sorted(counts.items(), key=lambda kv: -kv[1])[:4]
        print(f"    the {len(top)} pairs above the 95th percentile name: "
              + ", ".join(f"{b} {n}" for b, n in named))
        for backend, _ in named[:2]:
            rest = [c[0] for c in base if backend not in (c[1], c[2])]
            print(f"      without {backend}: {100 * math.expm1(np.percentile(rest, 95)):.2f}%")


def within(path):
    halves = []
    original = sampled._loop_figures

    def loop_figures(loop, limit, sampling, target_ns):
        figures = original(loop, limit, sampling, target_ns)
        s, p = loop["samples"], loop["probes"]
        if loop["threads"] == 1 and "grid/" in loop["name"] and s.shape[0] \
                and p.shape[0] == s.shape[0] + 1 and len(limit):
            ns, iterations = s[:, 1], s[:, 2]
            per = ns / iterations
            calm = (p <= np.asarray(limit[:p.shape[1]])).all(axis=1)
            quiet = np.where((ns >= sampled.SHORT_SAMPLE * target_ns) & calm[:-1] & calm[1:])[0]
            if len(quiet) >= 8:
                def level(idx):
                    band = idx[per[idx] <= np.percentile(per[idx], sampled.BAND_ANCHOR)
                               * (1 + sampled.QUIET_BAND)]
                    return ns[band].sum() / iterations[band].sum()
                halves.append(math.log(level(quiet[0::2]) / level(quiet[1::2])))
        return figures
    sampled._loop_figures = loop_figures
    gbench.load_run(path)
    sampled._loop_figures = original
    d = np.array(halves)
    robust = 1.4826 * np.median(np.abs(d - np.median(d)))
    print(f"{path}: {len(d)} loops of the grid at 1 thread with 8 or more quiet samples; "
          f"odd against even samples' figures differ by {100 * d.std():.2f}% (sd; "
          f"{100 * robust:.2f}% from the MAD): a whole loop's figure about half that")


def pairs(folder, count):
    for p in range(5):
        try:
            a, b = (gbench.load_run(os.path.join(folder, f"k{count}-aa{p}{side}-0.json"))
                    for side in "ab")
        except (OSError, gbench.ResultsError):
            continue
        ma, mb = margins(a), margins(b)
        changed = [noise.apart(ma[k][0] / mb[k][0]) for k in ma if k in mb]
        floors = [noise.noise_floor(r, "margins").value for r in (a, b)]
        print(f"  pair {p}: floors {100 * floors[0]:.2f}% {100 * floors[1]:.2f}%; contended "
              f"{100 * a.sampling.contended_share:.0f}% {100 * b.sampling.contended_share:.0f}%; "
              f"{len(changed)} margins, their change between the runs "
              + (f"{100 * np.percentile(changed, 95):.2f}% (95th percentile)" if changed else "-"))


def per_backend_floors(run, k):
    """kind -> (the floor of the pairs without unstable backends, backend -> its own floor)."""
    floor = noise.noise_floor(run, "margins")
    changes = collections.defaultdict(list)
    for members in classes(run).values():
        for x, y in itertools.combinations(members, 2):
            c = noise._paired_change(run, x, y)
            if c is not None:
                changes[noise.kind_of(x)].append((x.params["backend"], y.params["backend"], c))
    out = {}
    for kind, items in changes.items():
        per = collections.defaultdict(list)
        for x, y, c in items:
            per[x].append(c)
            per[y].append(c)
        typical = np.median([np.median(v) for v in per.values()])
        unstable = {b for b, v in per.items() if np.median(v) > k * typical}
        steady = [c for x, y, c in items if x not in unstable and y not in unstable]
        out[kind] = (stats.percentile(steady, 95) if len(steady) >= noise.MIN_PAIRS
                     else floor.of(kind).value,
                     {b: stats.percentile([c for x, y, c in items if b in (x, y)], 95)
                      for b in unstable})
    return floor, out


def coverage(k, paths):
    within_today = within_new = n = 0
    today, new, named = [], [], collections.Counter()
    for pa, pb in zip(paths[0::2], paths[1::2]):
        a, b = gbench.load_run(pa), gbench.load_run(pb)
        floors = [per_backend_floors(r, k) for r in (a, b)]
        margin = [margins(r) for r in (a, b)]
        for _, by_kind in floors:
            for _, own in by_kind.values():
                named.update(own.keys())
        for key, (m, kind) in margin[0].items():
            if key not in margin[1]:
                continue
            change = noise.apart(m / margin[1][key][0])
            old = max(f.of(kind).value for f, _ in floors)
            mine = max(max([by_kind.get(kind, (f.of(kind).value, {}))[0]]
                           + [by_kind.get(kind, (0, {}))[1].get(b, 0) for b in key[1:]])
                       for f, by_kind in floors)
            n += 1
            within_today += change <= old
            within_new += change <= mine
            today.append(old)
            new.append(mine)
    print(f"{len(paths) // 2} A/A pairs, {n} margins: within today's floor {100 * within_today / n:.1f}% "
          f"(median floor {100 * np.median(today):.2f}%); within a floor per backend (K={k:g}) "
          f"{100 * within_new / n:.1f}% (median {100 * np.median(new):.2f}%, 25th percentile "
          f"{100 * np.percentile(new, 25):.2f}%); backends judged by their own: "
          + (", ".join(f"{b} {c}" for b, c in named.most_common()) or "none"))


if __name__ == "__main__":
    if len(sys.argv) < 3 or sys.argv[1] not in ("anatomy", "within", "pairs", "coverage"):
        print(__doc__, file=sys.stderr if len(sys.argv) > 1 and sys.argv[1] not in ("-h", "--help")
              else sys.stdout)
        sys.exit(0 if len(sys.argv) > 1 and sys.argv[1] in ("-h", "--help") else 2)
    if sys.argv[1] == "anatomy":
        for path in sys.argv[2:]:
            anatomy(path)
    elif sys.argv[1] == "within":
        within(sys.argv[2])
    elif sys.argv[1] == "pairs":
        pairs(sys.argv[2], sys.argv[3])
    else:
        coverage(float(sys.argv[2]), sys.argv[3:])
