"""The seed-000 figure in cycles per operation: each repetition's real time per
op times the core clock sampled around that repetition's loop (core_ghz),
medians and ranges per backend and pool. usage: cycles.py seed000-cbc.benchmark.json"""
import collections
import json
import statistics
import sys

doc = json.load(open(sys.argv[1]))
cycles = collections.defaultdict(list)
for b in doc["benchmarks"]:
    if b.get("run_type") == "iteration":
        key = "/".join(p for p in b["name"].split("/") if p.startswith(("backend", "pool")))
        cycles[key].append(b["real_time"] * b["core_ghz"])
for key, values in sorted(cycles.items()):
    print(f"{key:28s} {statistics.median(values):6.0f} cycles/op  "
          f"({min(values):.0f}-{max(values):.0f}, {len(values)} repetitions)")
