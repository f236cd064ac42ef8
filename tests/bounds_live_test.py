#!/usr/bin/python3
"""bounds_live_test.py: a slice of the bounds suite, measured here, set
against the hardware bounds the same run measured. No figure may be faster
than the hardware allows (that would mean the harness mis-measures), and
every backend's row must be there.

usage: bounds_live_test.py CRYPTOBENCH RESULTS_CLI
"""
import json
import subprocess
import sys
import tempfile


def main():
    binary, cli = sys.argv[1:3]
    with tempfile.NamedTemporaryFile(suffix=".json") as out:
        run = subprocess.run([binary, "--suite=bounds", "--benchmark_filter=aes-128",
                              "--benchmark_min_time=0.05", f"--benchmark_out={out.name}",
                              "--benchmark_out_format=json"], capture_output=True, text=True)
        if run.returncode != 0:
            print(f"FAIL: cryptobench exit {run.returncode}\n{run.stderr[-2000:]}")
            return 1
        doc = json.load(open(out.name))
        backends = {b["name"].split("/backend:")[1].split("/")[0] for b in doc["benchmarks"]}
        # Per backend: encrypt and decrypt in each block mode it offers (the
        # bounds suite has no CTR or GCM cells yet), and 2 batches.
        block_modes = {"ecb", "cbc"}
        expected = {b: 2 * len(block_modes & set(doc["context"][f"backend.{b}.modes"].split(",")))
                    + 2 for b in backends}
        table = subprocess.run([sys.executable, cli, "bounds", out.name], capture_output=True,
                               text=True)
    print(table.stdout)
    if table.returncode != 0:
        print(f"FAIL: cryptobench-results bounds exit {table.returncode}: {table.stderr.strip()}")
        return 1
    rows = [line.split()[0] for line in table.stdout.splitlines()[3:] if line.strip()]
    for backend in sorted(backends):
        if rows.count(backend) != expected[backend]:
            print(f"FAIL: {backend} has {rows.count(backend)} rows, expected {expected[backend]}")
            return 1
    print(f"bounds: {len(rows)} figures of {len(backends)} backends, none above its bound")
    return 0


if __name__ == "__main__":
    sys.exit(main())
