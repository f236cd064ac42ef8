#!/usr/bin/python3
"""bounds_live_test.py: a slice of the bounds suite, measured here, set
against the hardware bounds the same run measured. No figure may be faster
than the hardware allows (that would mean the harness mis-measures), and
every backend's row must be there. The run's CLMUL limits (the GHASH bounds
of GCM) must be there for each width the CPU flags promise, in the range of
real units.

usage: bounds_live_test.py CRYPTOBENCH RESULTS_CLI
"""
import json
import re
import subprocess
import sys
import tempfile


def check_clmul_limits(context):
    """'' when clmul_limits has the widths cpu_flags promise, each with a
    latency of 1-16 cycles and 0.25-4 instructions a cycle (real PCLMULQDQ
    units: 3-7 cycles, 0.5-2 a cycle); else what is wrong."""
    text = context.get("clmul_limits")
    print(f"clmul_limits: {text!r}; aes_limits: {context.get('aes_limits')!r}; "
          f"clock {context.get('core_clock_ghz')} GHz")
    if text is None:
        return "the run's context has no clmul_limits"
    flags = set(context.get("cpu_flags", "").split())
    expected = []
    if "pclmulqdq" in flags:
        expected.append("xmm")
        if "vpclmulqdq" in flags and "avx2" in flags:
            expected.append("ymm")
        if "vpclmulqdq" in flags and "avx512f" in flags:
            expected.append("zmm")
    widths = []
    for item in filter(None, text.split(",")):
        m = re.fullmatch(r"([xyz]mm):([0-9.]+)/([0-9.]+)", item)
        if not m:
            return f"clmul_limits entry '{item}' is not WIDTH:LATENCY/THROUGHPUT"
        latency, throughput = float(m[2]), float(m[3])
        if not (1 <= latency <= 16 and 0.25 <= throughput <= 4):
            return f"clmul_limits entry '{item}' is outside what real units do"
        widths.append(m[1])
    if widths != expected:
        return f"clmul_limits has widths {widths}, the CPU flags promise {expected}"
    return ""


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
        problem = check_clmul_limits(doc["context"])
        if problem:
            print(f"FAIL: {problem}")
            return 1
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
