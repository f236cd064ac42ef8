#!/usr/bin/python3
"""bands.py: reads a noise-campaign folder's A/A and planted runs again with
other bands for a round's quiet figure (sampled.BAND_ANCHOR, QUIET_BAND),
and prints what each band makes of them.

  /usr/bin/python3 bands.py CAMPAIGN_DIR ANCHOR:WIDTH ...    e.g. 25:0.10 25:0.20
  /usr/bin/python3 bands.py CAMPAIGN_DIR copy
  /usr/bin/python3 bands.py CAMPAIGN_DIR shares
  /usr/bin/python3 bands.py RUN.json,RUN.json,... default ANCHOR:WIDTH ...


Per band and injection (0 none, 1 injected): in how many of the planted
runs the copy of gcrypt doing 3% (5%) more work was called slower in every
class, and in how many class verdicts; the median of the runs' floors; the
range of the classes' median margins (gcrypt over its copy). For the A/A
pairs: benchmarks compare flagged, decided winners differing within a pair,
and the runs' floors. `copy`: how much slower the copy is by whole loops
(the JSON's real time, every sample, per round against gcrypt's in the same
round; the median per class over the runs without injection): what it
really costs, whatever the band. `shares`: the contended share of the
sampled time of the campaign's A/A and planted runs (median and range).
`default`: each run's floor per kind, read with each band."""
import glob
import json
import os
import re
import statistics
import sys
from collections import defaultdict

ROOT = os.path.abspath(os.path.join(os.path.dirname(__file__), "..", "..", ".."))
sys.path.insert(0, os.path.join(ROOT, "tools", "results"))
from cryptobench_results import answer, compare, gbench, noise, sampled  # noqa: E402


def decided(a):
    return {answer.workload_text(s): s.first.winner for s in a.sentences
            if s.first.verdict == "decided"}


def planted(camp, pct, noisy):
    calls = good = total = 0
    floors, margins = [], defaultdict(list)
    for path in sorted(glob.glob(f"{camp}/planted{pct}-*-{noisy}.json")):
        if "stage1" in path:
            continue
        a = answer.answer(gbench.load_run(path))
        ok = [r for r in a.results
              if (r.winner, r.runner_up, r.verdict) == ("gcrypt", f"gcrypt-slower{pct}", "decided")]
        calls += len(ok) == len(a.results)
        good += len(ok)
        total += len(a.results)
        floors.append(a.floor.value)
        for r in a.results:
            margins[(r.fixed, tuple(r.sizes))].append(
                r.margin if r.winner == "gcrypt" else 1 / r.margin)
    runs = len(floors)
    medians = sorted(statistics.median(v) for v in margins.values())
    print(f"  {pct}% copy, injection {noisy}: called slower in every class in {calls} of {runs} "
          f"runs ({good} of {total} class verdicts); floors' median "
          f"{100 * statistics.median(floors):.2f}%; classes' median margins "
          f"{medians[0]:.4f}-{medians[-1]:.4f}", flush=True)


def aa(camp, noisy):
    flagged = rows_total = differ = classes = 0
    floors = []
    for a_path in sorted(glob.glob(f"{camp}/aa*a-{noisy}.json")):
        runs = [gbench.load_run(p) for p in (a_path, a_path.replace(f"a-{noisy}.json",
                                                                     f"b-{noisy}.json"))]
        rows = [r for r in compare.compare(*runs)[0] if r.metric == "bytes_per_second"]
        rows_total += len(rows)
        flagged += sum(r.verdict in ("better", "worse") for r in rows)
        floors += [noise.noise_floor(r).value for r in runs]
        wa, wb = (decided(answer.answer(r)) for r in runs)
        classes += len(set(wa) | set(wb))
        differ += sum(1 for c in set(wa) & set(wb) if wa[c] != wb[c])
    print(f"  A/A pairs, injection {noisy}: compare flagged {flagged} of {rows_total}; decided "
          f"winners differing {differ} of {classes}; floors {100 * min(floors):.2f}-"
          f"{100 * max(floors):.2f}%, median {100 * statistics.median(floors):.2f}%", flush=True)


def copy(camp):
    for pct in (3, 5):
        ratios = defaultdict(list)
        for path in sorted(glob.glob(f"{camp}/planted{pct}-*-0.json")):
            if "stage1" in path:
                continue
            with open(path, encoding="utf-8") as f:
                doc = json.load(f)
            times = {}
            for b in doc["benchmarks"]:
                if b.get("run_type") != "iteration" or "error_occurred" in b:
                    continue
                workload = re.sub(r"backend:[^/]*/|round:[0-9]+/|iterations:[0-9]+/", "", b["name"])
                rnd = re.search(r"/round:([0-9]+)", b["name"]).group(1)
                times[(workload, rnd, "-slower" in b["name"])] = b["real_time"]
            for (workload, rnd, slow), t in times.items():
                if slow and (workload, rnd, False) in times:
                    ratios[workload].append(t / times[(workload, rnd, False)])
        print(f"{pct}% copy by whole loops (median per-round ratio over 10 runs without injection):")
        for workload, xs in sorted(ratios.items()):
            print(f"  {statistics.median(xs):.4f}  {workload}")


def shares(camp):
    for pattern in ("aa*-0", "aa*-1", "planted*-0", "planted*-1"):
        share = [gbench.load_run(p).sampling.contended_share
                 for p in sorted(glob.glob(f"{camp}/{pattern}.json")) if "stage1" not in p]
        if not share:
            continue
        print(f"{pattern}: {len(share)} runs, contended {100 * statistics.median(share):.0f}% "
              f"(median), {100 * min(share):.0f}-{100 * max(share):.0f}%")


def default(paths, variants):
    for variant in variants:
        anchor, width = variant.split(":")
        sampled.BAND_ANCHOR, sampled.QUIET_BAND = float(anchor), float(width)
        for path in paths:
            a = answer.answer(gbench.load_run(path))
            kinds = ", ".join(f"{noise.kind_text(k)} {100 * f.value:.2f}%"
                              for k, f in sorted(a.floor.kinds.items()))
            print(f"band {100 * float(width):g}% over the {anchor}th percentile: {path}: floor "
                  f"{100 * a.floor.value:.2f}% over all pairs ({kinds})", flush=True)


def main():
    if len(sys.argv) < 3 or sys.argv[1] in ("-h", "--help"):
        print(__doc__.strip())
        sys.exit(0 if len(sys.argv) > 1 and sys.argv[1] in ("-h", "--help") else 2)
    camp = sys.argv[1]
    if sys.argv[2] == "copy":
        copy(camp)
        return
    if sys.argv[2] == "shares":
        shares(camp)
        return
    if sys.argv[2] == "default":
        default(camp.split(","), sys.argv[3:])
        return
    for variant in sys.argv[2:]:
        anchor, width = variant.split(":")
        sampled.BAND_ANCHOR, sampled.QUIET_BAND = float(anchor), float(width)
        print(f"band: samples at most {100 * float(width):g}% over their {anchor}th percentile")
        for noisy in (0, 1):
            for pct in (3, 5):
                planted(camp, pct, noisy)
            aa(camp, noisy)


if __name__ == "__main__":
    main()
