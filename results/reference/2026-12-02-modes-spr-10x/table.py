"""The issue-12 table: median MB/s and share of the bound per backend and cell, from benchmark.json and bounds.txt."""
import collections, json, re, statistics, sys
run, bounds = sys.argv[1], sys.argv[2]
cells = [("aes-128-gcm", "64", "13", "AES-128-GCM 64 B + 13 B AAD"), ("aes-128-gcm", "64", "0", "AES-128-GCM 64 B"),
         ("aes-128-gcm", "16384", "0", "AES-128-GCM 16 KiB"), ("aes-128-gcm", "16384", "13", "AES-128-GCM 16 KiB + 13 B AAD"),
         ("aes-256-gcm", "16384", "0", "AES-256-GCM 16 KiB"), ("aes-128-ctr", "64", "-", "AES-128-CTR 64 B"),
         ("aes-128-ctr", "16384", "-", "AES-128-CTR 16 KiB")]
rates = collections.defaultdict(list)
for b in json.load(open(run))["benchmarks"]:
    if b.get("run_type") != "iteration" or b.get("error_occurred"):
        continue
    p = dict(kv.split(":", 1) for kv in b["run_name"].split("/")[1:] if ":" in kv)
    rates[p["backend"], p["cipher"], p["size"], p.get("aad", "-")].append(b["bytes_per_second"] / 1e6)
share = {}
for line in open(bounds):
    f = line.split()
    if len(f) > 10 and f[2] == "encrypt" and f[9].endswith("%"):
        share[f[0], f[1], f[3], f[4]] = f[9]
backends = sorted({k[0] for k in rates}, key=lambda b: -statistics.median(rates.get((b, "aes-128-gcm", "16384", "0"), [0])))
print("| backend | " + " | ".join(c[3] for c in cells) + " |")
print("|---" * (len(cells) + 1) + "|")
for b in backends:
    row = []
    for cipher, size, aad, _ in cells:
        v = rates.get((b, cipher, size, aad))
        row.append(f"{statistics.median(v):,.0f} ({share.get((b, cipher, size, aad), '?')})" if v else "not offered")
    print(f"| {b} | " + " | ".join(row) + " |")
