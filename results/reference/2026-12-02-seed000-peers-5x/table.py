"""Issue 14's seed-000 table: ops/ms (median of the repetitions, min-max) at
1 and 2 threads, pool off and on, every backend of a merged run; allocations
per op at 1 thread. Usage: table.py merged.json"""
import collections, json, statistics, sys

doc = json.load(open(sys.argv[1]))
ctx = doc["context"]
ops = collections.defaultdict(list)
alloc = {}
for b in doc["benchmarks"]:
    if b.get("run_type") != "iteration" or b.get("error_occurred") or not b["name"].startswith("seed000/"):
        continue
    p = dict(kv.split(":", 1) for kv in b["run_name"].split("/")[1:] if ":" in kv)
    key = (p["backend"], p["pool"], b["threads"])
    ops[key].append(b["ops_per_ms"])
    if b["threads"] == 1:
        alloc.setdefault((p["backend"], p["pool"]), []).append((b.get("allocs_per_op"), b.get("alloc_bytes_per_op")))


def cell(k):
    v = ops.get(k)
    return f"{statistics.median(v):,.0f} ({min(v):,.0f}-{max(v):,.0f})" if v else "-"


def allocs(backend, pool):
    v = alloc.get((backend, pool))
    if not v:
        return "-"
    n = [a for a, _ in v if a is not None]
    by = [c for _, c in v if c is not None]
    count = f"{statistics.median(n):.0f}" if n else "n/a"
    return f"{count} ({statistics.median(by):,.0f} B)" if by else count


backends = sorted({k[0] for k in ops}, key=lambda b: -statistics.median(ops.get((b, "on", 1), [0])))
print("| backend | library | pool off, 1 thread | pool off, 2 threads | pool on, 1 thread | pool on, 2 threads | allocations per op (bytes), 1 thread, off / on |")
print("|---|---|---:|---:|---:|---:|---|")
for b in backends:
    lib = ctx.get(f"backend.{b}.library", "")
    star = "*" if any(k.startswith(f"backend.{b}.caveat") for k in ctx) else ""
    print(f"| {b}{star} | {lib} | {cell((b, 'off', 1))} | {cell((b, 'off', 2))} | {cell((b, 'on', 1))} | "
          f"{cell((b, 'on', 2))} | {allocs(b, 'off')} / {allocs(b, 'on')} |")
for k, v in sorted(ctx.items()):
    if ".caveat" in k:
        print(f"\n\\* {k}: {v}")
