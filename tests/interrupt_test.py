#!/usr/bin/python3
"""interrupt_test.py: Ctrl-C during a suite. The binary must finish the
running benchmark, skip the rest, exit 130 and leave complete JSON with the
finished results; killed outright, it must leave the previous file alone.

usage: interrupt_test.py BINARY WORKDIR
"""
import json
import os
import signal
import subprocess
import sys
import time


def fail(message):
    print(f"FAIL: {message}")
    sys.exit(1)


def main():
    binary, work = sys.argv[1], sys.argv[2]
    os.makedirs(work, exist_ok=True)
    out = os.path.join(work, "interrupted.json")
    with open(out, "w") as f:
        f.write("GOOD")
    args = [binary, "--benchmark_filter=threads:1$", "--benchmark_min_time=0.05",
            f"--benchmark_out={out}", "--benchmark_out_format=json"]

    # Only listing must not touch the previous file either.
    subprocess.run([binary, "--benchmark_list_tests", f"--benchmark_out={out}"],
                   stdout=subprocess.DEVNULL, check=True)
    if open(out).read() != "GOOD" or os.path.exists(out + ".partial"):
        fail("--benchmark_list_tests replaced the previous output file")

    # Killed outright: the previous file must survive untouched.
    p = subprocess.Popen(args, stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL)
    time.sleep(1.5)
    p.kill()
    p.wait()
    if open(out).read() != "GOOD":
        fail("a killed run replaced the previous output file")

    # Ctrl-C: complete JSON with what finished, exit 130, said on stderr.
    p = subprocess.Popen(args, stdout=subprocess.DEVNULL, stderr=subprocess.PIPE, text=True)
    time.sleep(2.0)
    p.send_signal(signal.SIGINT)
    _, err = p.communicate(timeout=120)
    if p.returncode != 130:
        fail(f"exit {p.returncode} after Ctrl-C, expected 130\n{err[-1000:]}")
    if "interrupted:" not in err:
        fail("the run did not say it was interrupted")
    doc = json.load(open(out))
    finished = [b for b in doc["benchmarks"] if not b.get("error_occurred")]
    skipped = [b for b in doc["benchmarks"] if b.get("error_occurred")]
    if not finished or not skipped:
        fail(f"expected finished and skipped benchmarks, got {len(finished)} and {len(skipped)}")
    if any(b["error_message"] != "not run: the run was interrupted" for b in skipped):
        fail("a benchmark failed for another reason than the interruption")
    if any(not b.get("bytes_per_second", 0) > 0 for b in finished):
        fail("a finished benchmark lacks its figures")
    if os.path.exists(out + ".partial"):
        fail("a .partial file was left behind")
    summary = [line for line in err.splitlines() if "interrupted:" in line][-1]
    said_finished = int(summary.split("interrupted: ")[1].split(" of ")[0])
    if said_finished != len(finished):
        fail(f"the run says {said_finished} finished, the JSON has {len(finished)}")

    # With repetitions, and a slow benchmark interrupted while it runs: it
    # must still finish (Google Benchmark calls it several times).
    slow = [binary, "--suite=seed002-keys", "--benchmark_filter=keysetup/backend:openssl/.*pbkdf2",
            "--benchmark_repetitions=2", "--benchmark_min_time=1", f"--benchmark_out={out}",
            "--benchmark_out_format=json"]
    p = subprocess.Popen(slow, stdout=subprocess.DEVNULL, stderr=subprocess.PIPE, text=True)
    # Well inside the first benchmark (2 repetitions of at least 1 s each),
    # even when a busy machine makes the set-up slow.
    time.sleep(2.5)
    p.send_signal(signal.SIGINT)
    _, err = p.communicate(timeout=300)
    doc = json.load(open(out))
    names = {b["run_name"] for b in doc["benchmarks"] if not b.get("error_occurred")}
    if p.returncode != 130 or not names:
        fail(f"the benchmark running at Ctrl-C did not finish (exit {p.returncode})\n{err[-500:]}")
    summary = [line for line in err.splitlines() if "interrupted:" in line][-1]
    said_finished, said_total = summary.split("interrupted: ")[1].split(" benchmarks")[0].split(" of ")
    if int(said_finished) > int(said_total) or int(said_total) > 2:
        fail(f"nonsense counts: {summary}")
    print(f"PASS: interrupted after {len(finished)} finished benchmarks; {len(skipped)} marked "
          f"not run; JSON complete; a running benchmark with repetitions finished ({summary.strip()})")


if __name__ == "__main__":
    main()
