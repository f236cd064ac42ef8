#!/usr/bin/python3
"""What a margin's per-round noise is made of, in runs of the default
decision suite (issue 22, 2026-12-08, Zen 5 VM).

  components.py rounds RUN/benchmark.json ...    # components.txt
  components.py samples RUN/samples.jsonl ...
  components.py halves RUN/benchmark.json ...
  components.py planted CAMPAIGN/plantedP-K-N.json ...

rounds: for every pair of backends of a grid class at 1 thread with 6 or
more quiet rounds together, each per-round log ratio less the pair's
median, split into the process it ran in and its round's move within
that process: the standard deviation (and the robust one, 1.4826 x the
median absolute value) of the moves within a process, and of the process
means beyond what the moves within explain (needs several rounds per
process: a run in 8 processes of 5 rounds).
samples: the noise of a loop's quiet figure from its own 0.25 ms samples
(grid at 1 thread): its quiet, in-band samples split alternately into two
halves, the standard deviation of log(half A / half B) / 2.
halves: the floor (grid at 1 thread) with its halves early and late, as the
tools split them, and with the odd and the even processes as the halves: a
drift between the early and late halves would show as a difference.
planted: per class of a planted run (tools/noise-campaign), the copy's
per-round ratio to gcrypt: rounds, median and standard deviation.
"""
import itertools
import json
import math
import os
import statistics
import sys

import numpy as np

ROOT = os.path.join(os.path.dirname(os.path.abspath(__file__)), "..", "..", "..")
sys.path.insert(0, os.path.join(ROOT, "tools", "results"))
from cryptobench_results import gbench, noise, sampled, scenarios, stats  # noqa: E402

KIND = ("grid", 1)


def rounds(path):
    run = gbench.load_run(path)
    per = int(run.context["rounds"]) // int(run.context.get("round_parts") or 1)
    within, means = [], []
    for members in sampled.by_class(b for b in run.benchmarks.values() if not b.error).values():
        members = [m for m in members if noise.kind_of(m) == KIND]
        for x, y in itertools.combinations(members, 2):
            fx = dict(zip(x.indices, scenarios.of(x).figures(x)))
            fy = dict(zip(y.indices, scenarios.of(y).figures(y)))
            logs = {r: math.log(fx[r] / fy[r]) for r in fx if r in fy and fx[r] > 0 and fy[r] > 0}
            if len(logs) < 6:
                continue
            centre = statistics.median(logs.values())
            groups = {}
            for r, v in logs.items():
                groups.setdefault(r // per, []).append(v - centre)
            for g in groups.values():
                mean = sum(g) / len(g)
                within += [v - mean for v in g]
                if len(g) >= 2:
                    means.append((mean, len(g)))
    w = np.array(within)
    text = f"{os.path.basename(os.path.dirname(path))}: {per} round(s) a process"
    if per > 1 and len(w) > 1 and means:
        var_w = float(w.var(ddof=1))
        between = float(np.mean([m * m - var_w / n for m, n in means]))
        text += (f"; within a process {100 * math.sqrt(var_w):.2f}% (robust "
                 f"{100 * 1.4826 * float(np.median(np.abs(w))):.2f}%), between processes "
                 f"{100 * math.sqrt(max(between, 0)):.2f}%")
    print(text)


def samples(path):
    loops = []
    with open(path, encoding="utf-8") as f:
        next(f)
        for line in f:
            loop = json.loads(line)
            if loop["name"].startswith("grid/") and loop.get("threads", 1) == 1:
                loops.append(loop)
    level = np.percentile(np.array([p for lp in loops for p in lp["probes"]], dtype=float), 5,
                          axis=0)
    halves, kept = [], []
    for loop in loops:
        s, p = np.array(loop["samples"], dtype=float), np.array(loop["probes"], dtype=float)
        if len(s) < 6 or p.shape[0] != s.shape[0] + 1:
            continue
        calm = (p <= sampled.QUIET_LIMIT * level).all(axis=1)
        per = s[:, 1] / s[:, 2]
        use = calm[:-1] & calm[1:] & (s[:, 1] >= sampled.SHORT_SAMPLE * np.median(s[:, 1]))
        if use.sum() < 8:
            continue
        band = np.where(use & (per <= np.percentile(per[use], sampled.BAND_ANCHOR)
                               * (1 + sampled.QUIET_BAND)))[0]
        a, b = band[0::2], band[1::2]
        if min(len(a), len(b)) < 3:
            continue
        halves.append(math.log((s[a, 1].sum() / s[a, 2].sum()) / (s[b, 1].sum() / s[b, 2].sum())))
        kept.append(len(band))
    h = np.array(halves)
    print(f"{os.path.basename(os.path.dirname(path))}: {len(h)} loops, {np.median(kept):g} in-band "
          f"samples at the median; a loop's figure from its samples: {100 * h.std() / 2:.2f}% "
          f"(robust {100 * 1.4826 * float(np.median(np.abs(h))) / 2:.2f}%)")


def halves(path):
    run = gbench.load_run(path)
    early_late = noise.noise_floor(run, "margins").of(KIND).value
    per = int(run.context["rounds"]) // int(run.context.get("round_parts") or 1)
    split = noise.halves

    def odd_even(context, values, rounds=None):
        if rounds is None:
            return split(context, values, rounds)
        even = [v for r, v in zip(rounds, values) if r // per % 2 == 0]
        odd = [v for r, v in zip(rounds, values) if r // per % 2 == 1]
        if min(len(even), len(odd)) < noise.MIN_REPETITIONS:
            return split(context, values, rounds)
        return even, odd

    noise.halves = odd_even
    try:
        alternate = noise.noise_floor(run, "margins").of(KIND).value
    finally:
        noise.halves = split
    print(f"{os.path.basename(os.path.dirname(path))}: early and late {100 * early_late:.2f}%, "
          f"odd and even processes {100 * alternate:.2f}%")


def planted(path):
    run = gbench.load_run(path)
    out = []
    for workload, members in sorted(sampled.by_class(
            b for b in run.benchmarks.values() if not b.error).items()):
        by = {m.params["backend"]: m for m in members}
        copy = next((b for name, b in by.items() if name.startswith("gcrypt-slower")), None)
        if copy is None or "gcrypt" not in by:
            continue
        x, y = copy, by["gcrypt"]
        ratios = stats.paired_ratios(scenarios.of(x).figures(x), x.indices,
                                     scenarios.of(y).figures(y), y.indices)
        if len(ratios) < 2:
            continue
        spread = statistics.pstdev([math.log(r) for r in ratios])
        name = "/".join(part for part in workload.split("/")[1:4])
        out.append(f"{name} {len(ratios)} rounds {stats.median(ratios):.4f} sd {100 * spread:.1f}%")
    print(f"{os.path.basename(path)}: " + "; ".join(out))


def main():
    commands = {"rounds": rounds, "samples": samples, "halves": halves, "planted": planted}
    if len(sys.argv) < 3 or sys.argv[1] not in commands:
        print(__doc__.strip(), file=sys.stderr)
        return 2
    for path in sys.argv[2:]:
        commands[sys.argv[1]](path)
    return 0


if __name__ == "__main__":
    sys.exit(main())
