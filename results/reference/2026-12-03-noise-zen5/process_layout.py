#!/usr/bin/python3
"""Per process, each benchmark's quiet median against its median over the
processes, the process's own shift (the median over its benchmarks) taken
out: what a difference between two processes of one binary is made of.

  process_layout.py 'RUNS_GLOB' [BACKEND,...]

Prints one row per process (run JSON, per-sample record beside it) and one
column per benchmark of the backends named (default openssl,ipsecmb), in
percent. Needs the repository's tools/results on the path (run it from the
repository's top).
"""
import glob
import re
import statistics
import sys

sys.path.insert(0, "tools/results")
from cryptobench_results import gbench, scenarios, stats  # noqa: E402


def main():
    if len(sys.argv) < 2 or sys.argv[1] in ("-h", "--help"):
        print(__doc__.strip())
        sys.exit(0 if len(sys.argv) > 1 else 2)
    wanted = (sys.argv[2] if len(sys.argv) > 2 else "openssl,ipsecmb").split(",")
    runs = {}
    paths = sorted(glob.glob(sys.argv[1]),
                   key=lambda p: [int(x) for x in re.findall(r"\d+", p.rsplit("/", 1)[-1])])
    for path in paths:
        run = gbench.load_run(path)
        figures = {}
        for b in run.benchmarks.values():
            xs = scenarios.of(b).figures(b)
            if xs:
                p = b.params
                figures[(p["backend"], p["op"][:3], p["cipher"], p.get("aad", ""),
                         p["size"])] = stats.median(xs)
        runs[path.rsplit("/", 1)[-1][:-len(".json")]] = figures
    keys = sorted(set.intersection(*(set(f) for f in runs.values())))
    middle = {k: statistics.median(f[k] for f in runs.values()) for k in keys}
    shown = [k for k in keys if k[0] in wanted]
    labels = [f"{k[0]}-{k[1]}-{k[2][4:]}{'+' + k[3] if k[3] else ''}-{k[4]}" for k in shown]
    print("process   " + " ".join(labels))
    for name, f in runs.items():
        shift = statistics.median(f[k] / middle[k] for k in keys)
        print(f"{name:9s} " + " ".join(f"{100 * (f[k] / middle[k] / shift - 1):+{len(label)}.1f}"
                                       for k, label in zip(shown, labels)))

if __name__ == "__main__":
    main()
