#!/usr/bin/python3
"""Issue 22 on the Zen 4 VM (2026-12-07, fifth session): A/A pairs of the
default run, what moves its noise floor, and two designs that did not.

  analysis.py aa [--limit=X] [--quiet-share=S] PAIR...     # aa.txt
  analysis.py processes [--quiet-share=S] RUN/benchmark.json ...
  analysis.py outliers [--quiet-share=S] RUN/benchmark.json  # outliers.txt

PAIR: a path P such that P + "a" and P + "b" are folders holding one run
folder each (tools/run-benchmarks with CRYPTOBENCH_RUNS_DIR=P{a,b}).
aa: per pair, each run's floor at the grid at 1 thread, its quiet rounds
(median over benchmarks), and how far every margin (the median of a pair of
backends' per-round ratios, 6 or more rounds) moved between the two runs:
the 95th percentile, and the share within the larger of the two floors.
--limit: the probes' contended line (sampled.QUIET_LIMIT, 1.25);
--quiet-share: the least share of a loop's samples that must be quiet for
its quiet figure (0: only sampled.MIN_SAMPLES).
processes: how many benchmarks of a run had one of its 8 processes more
than 5% off its own median over the processes (each backend's per-round
log ratio to each other backend of its class, less that pair's median:
a drift of one backend alone, contention the probes missed, or a layout).
outliers: the per-round residuals (as above) and, for the 15 largest, the
loop's samples: how many were quiet and what the probes read.
"""
import glob
import itertools
import json
import math
import os
import re
import statistics
import sys

ROOT = os.path.join(os.path.dirname(os.path.abspath(__file__)), "..", "..", "..")
sys.path.insert(0, os.path.join(ROOT, "tools", "results"))
from cryptobench_results import gbench, noise, sampled, scenarios, stats  # noqa: E402

KIND = ("grid", 1)


def run_in(folder):
    found = glob.glob(os.path.join(folder, "*", "benchmark.json"))
    if len(found) != 1:
        sys.exit(f"analysis.py: {folder}: expected one run folder, found {len(found)}")
    return found[0]


def margins(run):
    classes = {}
    for b in run.benchmarks.values():
        if not b.error and noise.kind_of(b) == KIND:
            classes.setdefault(sampled.workload_of(b.name), {})[b.params["backend"]] = b
    out = {}
    for w, members in classes.items():
        for x, y in itertools.combinations(sorted(members), 2):
            bx, by = members[x], members[y]
            sc = scenarios.of(bx)
            r = stats.paired_ratios(sc.figures(bx), bx.indices, sc.figures(by), by.indices)
            if len(r) >= 6:
                out[(w, x, y)] = stats.median(r)
    return out


def aa(pairs):
    floors, changes, within = [], [], []
    print(f"QUIET_LIMIT {sampled.QUIET_LIMIT}, MIN_QUIET_SHARE {sampled.MIN_QUIET_SHARE}")
    for p in pairs:
        ra, rb = (gbench.load_run(run_in(p + s)) for s in "ab")
        fa, fb = (noise.noise_floor(r, "margins").of(KIND).value for r in (ra, rb))
        ma, mb = margins(ra), margins(rb)
        moved = [noise.apart(ma[k] / mb[k]) for k in ma if k in mb]
        quiet = [stats.median([len(b.indices) for b in r.benchmarks.values() if not b.error])
                 for r in (ra, rb)]
        contended = [r.sampling.contended_share for r in (ra, rb)]
        floors += [fa, fb]
        changes += moved
        within.append(sum(c <= max(fa, fb) for c in moved) / len(moved))
        print(f"  {os.path.basename(p)}: floors {100 * fa:.2f}% {100 * fb:.2f}%, quiet rounds "
              f"{quiet[0]:g} {quiet[1]:g} of {ra.context.get('rounds')} ({100 * contended[0]:.0f}% "
              f"and {100 * contended[1]:.0f}% contended); margins moved "
              f"{100 * stats.percentile(moved, 95):.2f}% (95th pct of {len(moved)}), "
              f"{100 * within[-1]:.1f}% within the larger floor")
    print(f"median floor {100 * stats.median(floors):.2f}% (range {100 * min(floors):.2f}-"
          f"{100 * max(floors):.2f}%); margins moved {100 * stats.percentile(changes, 95):.2f}% "
          f"(95th pct of {len(changes)}); within the floor {100 * statistics.fmean(within):.1f}%")


def residuals(members):
    """backend -> {round: its log ratio to each other backend, less that pair's median}."""
    figures = {}
    for m in members:
        xs = scenarios.of(m).figures(m)
        if len(xs) != len(m.indices):
            return {}
        figures[m.params["backend"]] = {r: math.log(x) for r, x in zip(m.indices, xs) if x > 0}
    out = {}
    for b, fb in figures.items():
        per_round = {}
        for c, fc in figures.items():
            common = [r for r in fb if r in fc] if c != b else []
            if len(common) < 4:
                continue
            centre = stats.median([fb[r] - fc[r] for r in common])
            for r in common:
                per_round.setdefault(r, []).append(fb[r] - fc[r] - centre)
        out[b] = {r: stats.median(v) for r, v in per_round.items()}
    return out


def classes(run):
    return sampled.by_class(b for b in run.benchmarks.values() if not b.error)


def processes(paths):
    for path in paths:
        run = gbench.load_run(path)
        per = int(run.context["rounds"]) // int(run.context["round_parts"])
        off, tested = 0, 0
        for members in classes(run).values():
            for res in residuals(members).values():
                groups = {}
                for r, v in res.items():
                    groups.setdefault(r // per, []).append(v)
                medians = {p: stats.median(g) for p, g in groups.items()}
                if len(medians) < 4:
                    continue
                tested += 1
                centre = stats.median(list(medians.values()))
                off += any(abs(m - centre) > 0.05 and len(groups[p]) >= 2
                           for p, m in medians.items())
        print(f"{path}: layout {run.context.get('layout', 'fixed (before the flag)')}: {off} of "
              f"{tested} benchmarks had a process more than 5% off")


def outliers(path):
    run = gbench.load_run(path)
    found = []
    for w, members in classes(run).items():
        for b, res in residuals(members).items():
            found += [(v, w, b, r) for r, v in res.items()]
    values = sorted(abs(f[0]) for f in found)
    n = len(values)
    print(f"{path}: {n} per-round residuals; |log| at the 50/90/95/99th percentile: "
          + ", ".join(f"{values[int(q * n)]:.3f}" for q in (0.5, 0.9, 0.95, 0.99)))
    for limit in (0.05, 0.1, 0.2):
        print(f"  off by more than {limit}: {100 * sum(v > limit for v in values) / n:.2f}%")
    record = {}
    with open(os.path.join(os.path.dirname(path), run.context["samples_file"])) as f:
        next(f)
        for line in f:
            loop = json.loads(line)
            record.setdefault(loop["name"], []).append(loop)
    import numpy as np
    quiet_level = np.percentile(np.array([p for loops in record.values() for lp in loops
                                          for p in lp["probes"]], dtype=float), 5, axis=0)
    print("  the 15 largest: round, residual, the loop's samples, quiet ones, the probes' highest "
          "reading (over their quiet level) beside a quiet sample: AES, table, CLMUL")
    for v, w, b, r in sorted(found, key=lambda f: -abs(f[0]))[:15]:
        name = next((n for n in record if f"backend:{b}/" in n and f"/round:{r + 1}/" in n
                     and sampled.workload_of(re.sub(r"/round:[0-9]+", "", n)) == w), None)
        if name is None:
            continue
        loop = record[name][0]
        probes = np.array(loop["probes"], dtype=float) / quiet_level
        calm = (probes <= sampled.QUIET_LIMIT).all(axis=1)
        quiet = calm[:-1] & calm[1:]
        highest = probes[:-1][quiet].max(axis=0).round(2).tolist() if quiet.any() else "-"
        print(f"  {b:10s} {w[:70]:70s} r{r + 1:<3d} {100 * (math.exp(v) - 1):+4.0f}% "
              f"{len(loop['samples']):3d} {int(quiet.sum()):3d} {highest}")


def main():
    if len(sys.argv) < 3 or sys.argv[1] not in ("aa", "processes", "outliers"):
        print(__doc__.strip(), file=sys.stderr)
        return 2
    command, args = sys.argv[1], []
    for a in sys.argv[2:]:
        if a.startswith("--limit="):
            sampled.QUIET_LIMIT = float(a.split("=", 1)[1])
        elif a.startswith("--quiet-share="):
            sampled.MIN_QUIET_SHARE = float(a.split("=", 1)[1])
        else:
            args.append(a)
    if command == "aa":
        aa(args)
    elif command == "processes":
        processes(args)
    else:
        outliers(args[0])
    return 0


if __name__ == "__main__":
    sys.exit(main())
