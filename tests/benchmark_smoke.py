#!/usr/bin/python3
"""benchmark_smoke.py: runs a tiny slice of one suite and checks its JSON.

Every benchmark the binary lists for the slice must be in the JSON exactly
once, without error, with every figure positive and every counter present;
the context must carry what a reader needs; every benchmark must be in a
mode its backend offers (CTR and GCM: at a key size it offers, verified
against another backend); with pool on, the hand-written backend must report
zero allocations per operation.

usage: benchmark_smoke.py BINARY SUITE FILTER
"""
import json
import re
import subprocess
import sys
import tempfile

REQUIRED_CONTEXT = ["cryptobench_suite", "cpu_model", "cpu_flags", "core_clock_ghz",
                    "compiler", "cxx_flags", "build_type", "gbench_build_note",
                    "git_commit", "allocation_counting", "date", "host_name"]
POSITIVE = ["real_time", "cpu_time", "iterations", "bytes_per_second", "items_per_second",
            "ops_per_ms", "cycles_per_byte", "core_ghz"]
ALLOCATION = ["allocs_per_op", "alloc_bytes_per_op"]


def expected_aesni_allocations(name):
    """The hand-written backend allocates exactly what the workload asks for:
    nothing with pool on; with pool off, one buffer per output the operation
    writes (ciphertext, text, decoded, plaintext), plus, with key:per-op, the
    cipher context, and for seed000 the message string."""
    params = dict(p.split(":", 1) for p in name.split("/") if ":" in p)
    if params["key"] not in ("cached", "per-op") or params["op"] == "encrypt-log":
        return None  # a library's KDF, or the logger's formatting, allocates too
    if params["pool"] == "on":
        return 0
    if "messages" in params:
        return None  # batch ops run with pool on
    encrypts = params["op"] in ("encrypt", "roundtrip")
    decrypts = params["op"] in ("decrypt", "roundtrip")
    codec = params["codec"] != "none"
    count = encrypts + (encrypts and codec) + (decrypts and codec) + decrypts
    count += params["key"] == "per-op"
    count += name.startswith(("seed000/", "seed000-gcm/"))
    return count


def fail(message):
    print(f"FAIL: {message}")
    sys.exit(1)


def main():
    binary, suite, pattern = sys.argv[1:4]
    # The suite's own repetitions (--list-suites does not say; the decision
    # suite has 40, run as rounds of the paired design, every other suite 1).
    expected_repetitions = 40 if suite == "decision" else 1
    common = [binary, f"--suite={suite}", f"--benchmark_filter={pattern}"]
    listed = subprocess.run(common + ["--benchmark_list_tests"], capture_output=True,
                            text=True, check=True).stdout.split()
    if not listed:
        fail("the slice selects no benchmark")
    with tempfile.NamedTemporaryFile(suffix=".json") as out:
        run = subprocess.run(common + ["--benchmark_min_time=0.002", f"--benchmark_out={out.name}",
                                       "--benchmark_out_format=json"],
                             capture_output=True, text=True)
        if run.returncode != 0:
            fail(f"exit {run.returncode}\n{run.stderr[-2000:]}")
        doc = json.load(open(out.name))

    context = doc["context"]
    for key in REQUIRED_CONTEXT:
        if not str(context.get(key, "")).strip():
            fail(f"context lacks {key}")
    if context["cryptobench_suite"] != suite:
        fail(f"context says suite {context['cryptobench_suite']}")
    counting = not context["allocation_counting"].startswith("off")

    rounds = expected_repetitions > 1
    if rounds and (context.get("design"), context.get("rounds")) != ("rounds",
                                                                   str(expected_repetitions)):
        fail(f"context says design {context.get('design')!r}, rounds {context.get('rounds')!r}")
    seen = {}
    for b in doc["benchmarks"]:
        if b.get("run_type") == "aggregate":
            continue  # mean, median, ... of a suite's repetitions
        if rounds:
            # Round R of a benchmark is its repetition R - 1; Google Benchmark
            # runs each round once, its iterations fixed beforehand.
            found = re.fullmatch(r"(.*)/round:([0-9]+)/iterations:[0-9]+(/real_time/threads:[0-9]+)",
                                 b["name"])
            if not found or b.get("repetitions", 1) != 1:
                fail(f"{b['name']}: not a round of the paired design")
            seen.setdefault(found.group(1) + found.group(3), set()).add(int(found.group(2)) - 1)
        else:
            seen.setdefault(b["name"], set()).add(b.get("repetition_index", 0))
            if b.get("repetitions", 1) != expected_repetitions:
                fail(f"{b['name']}: {b.get('repetitions')} repetitions, expected the suite's "
                     f"{expected_repetitions}")
        if b.get("error_occurred"):
            fail(f"{b['name']}: {b.get('error_message')}")
        key_setup = b["name"].startswith("keysetup/")
        for field in POSITIVE:
            if key_setup and field in ("bytes_per_second", "cycles_per_byte"):
                continue  # no bytes are processed
            if not b.get(field, 0) > 0:
                fail(f"{b['name']}: {field} is {b.get(field)!r}, expected > 0")
        if abs(b["ops_per_ms"] * 1000 / b["items_per_second"] - 1) > 1e-9:
            fail(f"{b['name']}: ops_per_ms disagrees with items_per_second")
        if counting:
            for field in ALLOCATION:
                if field not in b or b[field] < 0:
                    fail(f"{b['name']}: {field} missing or negative")
            if "backend:aesni/" in b["name"]:
                expected = expected_aesni_allocations(b["name"])
                if expected is not None and b["allocs_per_op"] != expected:
                    fail(f"{b['name']}: hand-written backend made {b['allocs_per_op']} "
                         f"allocations per operation, expected exactly {expected}")
        backend = b["name"].split("/backend:")[1].split("/")[0]
        if not context.get(f"backend.{backend}.code_path"):
            fail(f"context lacks backend.{backend}.code_path")
        cipher = b["name"].split("/cipher:")[1].split("/")[0]
        mode = cipher.rsplit("-", 1)[1]
        if mode not in context.get(f"backend.{backend}.modes", "").split(","):
            fail(f"{b['name']}: {backend} does not offer {mode}")
        if ("/aad:" in b["name"]) != (mode == "gcm"):
            fail(f"{b['name']}: GCM names, and only they, have an aad parameter")
        if mode in ("ctr", "gcm"):
            reference = context.get(f"backend.{backend}.verified_against.{cipher}", "")
            if not reference or reference == backend or reference.startswith("none"):
                fail(f"{b['name']}: {backend} offers no {cipher} verified against another "
                     f"backend (verified_against: {reference!r})")
    missing = [n for n in listed if n not in seen]
    if missing:
        fail(f"{len(missing)} listed benchmarks missing from the JSON, e.g. {missing[0]}")
    extra = [n for n, k in seen.items()
             if k != set(range(expected_repetitions)) or n not in listed]
    if extra:
        fail(f"unexpected or repeated benchmarks, e.g. {extra[0]}")
    print(f"{suite}: {len(listed)} benchmarks x {expected_repetitions} repetitions present, "
          "verified, figures positive, "
          f"allocation counters {'checked' if counting else 'off in this build'}")


if __name__ == "__main__":
    main()
