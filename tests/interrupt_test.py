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

import stderr_marker


def fail(message):
    print(f"FAIL: {message}")
    sys.exit(1)


PROGRESS = " elapsed, ~"  # the progress line on stderr (progress_reporter.cc)


def interrupt_once(p, marker, delay):
    """Sends SIGINT `delay` seconds after `marker` first shows on p's stderr
    (not after a fixed time: set-up takes longer on a busy machine), and
    returns all of stderr."""
    lines, reader, seen = stderr_marker.read_until(p, marker, required=True)
    if not seen:
        fail(f"{marker!r} never showed on stderr:\n{''.join(lines)[-800:]}")
    time.sleep(delay)
    p.send_signal(signal.SIGINT)
    p.wait(timeout=300)
    reader.join()
    return "".join(lines)


def leftovers(folder):
    """Temporary output files (OUT.XXXXXX.partial) left in the folder."""
    return [n for n in os.listdir(folder) if n.endswith(".partial")]


def main():
    binary, work = sys.argv[1], sys.argv[2]
    os.makedirs(work, exist_ok=True)
    for name in leftovers(work):  # a killed earlier run of this test
        os.unlink(os.path.join(work, name))
    out = os.path.join(work, "interrupted.json")
    with open(out, "w") as f:
        f.write("GOOD")
    args = [binary, "--suite=quick", "--benchmark_filter=threads:1$", "--benchmark_min_time=0.05",
            f"--benchmark_out={out}", "--benchmark_out_format=json"]

    # Only listing must not touch the previous file either.
    subprocess.run([binary, "--benchmark_list_tests", f"--benchmark_out={out}"],
                   stdout=subprocess.DEVNULL, check=True)
    if open(out).read() != "GOOD" or leftovers(work):
        fail("--benchmark_list_tests replaced the previous output file")

    # Killed outright: the previous file must survive untouched.
    p = subprocess.Popen(args, stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL)
    time.sleep(1.5)
    p.kill()
    p.wait()
    if open(out).read() != "GOOD":
        fail("a killed run replaced the previous output file")
    for name in leftovers(work):  # SIGKILL leaves no chance to remove its temporary
        os.unlink(os.path.join(work, name))

    # Ctrl-C: complete JSON with what finished, exit 130, said on stderr.
    p = subprocess.Popen(args, stdout=subprocess.DEVNULL, stderr=subprocess.PIPE, text=True)
    # The first progress line comes about 5 s in, some 40 benchmarks done (a
    # line per benchmark was printed once; "[2/" now never shows, and the
    # wait ran out its 120 s before the signal).
    err = interrupt_once(p, PROGRESS, 0.2)
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
    if leftovers(work):
        fail(f"a temporary file was left behind: {leftovers(work)}")
    summary = [line for line in err.splitlines() if "interrupted:" in line][-1]
    said_finished = int(summary.split("interrupted: ")[1].split(" of ")[0])
    if said_finished != len(finished):
        fail(f"the run says {said_finished} finished, the JSON has {len(finished)}")

    # With repetitions (interleaved across benchmarks), and a slow benchmark
    # interrupted while it runs: its running repetition must still finish
    # (Google Benchmark calls it several times); the other repetitions are
    # marked not run, and the finished ones stay usable.
    slow = [binary, "--suite=seed002-keys", "--benchmark_filter=keysetup/backend:openssl/.*pbkdf2",
            "--benchmark_repetitions=2", "--benchmark_min_time=1", f"--benchmark_out={out}",
            "--benchmark_out_format=json"]
    p = subprocess.Popen(slow, stdout=subprocess.DEVNULL, stderr=subprocess.PIPE, text=True)
    # Google Benchmark prints the run's context ("Run on (...)") on stderr as
    # the first benchmark starts; 0.5 s later is well inside it (2 repetitions
    # of at least 1 s each).
    err = interrupt_once(p, "Run on (", 0.5)
    doc = json.load(open(out))
    reps = [b for b in doc["benchmarks"] if b.get("run_type") == "iteration"]
    good = [b for b in reps if not b.get("error_occurred")]
    if p.returncode != 130 or len(good) != 1:
        fail(f"expected the repetition running at Ctrl-C alone to finish (exit {p.returncode}, "
             f"{len(good)} finished)\n{err[-500:]}")
    if "the repetitions that finished are kept" not in err:
        fail(f"the interleaved run did not say what it kept\n{err[-500:]}")
    others = [b for b in reps if b.get("error_occurred")]
    if len(others) != 3 or any(b["error_message"] != "not run: the run was interrupted"
                               for b in others):
        fail(f"expected the 3 other repetitions marked not run, got {others}")
    print(f"PASS: interrupted after {len(finished)} finished benchmarks; {len(skipped)} marked "
          "not run; JSON complete; with interleaved repetitions the running one finished and "
          "the 3 others were marked not run")


if __name__ == "__main__":
    main()
