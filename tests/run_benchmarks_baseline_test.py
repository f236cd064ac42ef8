#!/usr/bin/env python3
"""run_benchmarks_baseline_test.py SOURCE_DIR BUILD_DIR WORK_DIR: tools/run-benchmarks --baseline.

- A baseline the run cannot have (an unknown name, a hand-written kernel, a
  library left out by --backends, an empty name) is one line and exit 2
  before anything is measured: no run folder.
- --processes: a count the run's rounds cannot fill is one line and exit 2,
  before anything is measured.
- The small real run's 8 rounds run in 8 processes (the default) and are
  joined: benchmark.json and samples.jsonl are the whole run, no part's file
  is left, and the answer's header says it. Its classes are made short of
  quiet rounds (--top-up with CRYPTOBENCH_TOP_UP_SHARE=2: every class,
  whatever the host did), so they run for 8 more rounds in 8 more
  processes, a second stage the join and the header take in.
- --baseline=gcrypt on a small real run: the answer's heading names it, every
  line gcrypt did not win says where gcrypt stands, none names openssl as the
  baseline, and selection.md and report.html say the same; console.txt and
  bounds.txt come out in their order (a section per scenario; a line per
  cipher, operation and size).
"""
import json
import os
import re
import shutil
import subprocess
import sys

failures = []


def check(ok, message):
    if not ok:
        failures.append(message)
        print(f"FAIL: {message}")


def main():
    if len(sys.argv) != 4:
        print("usage: run_benchmarks_baseline_test.py SOURCE_DIR BUILD_DIR WORK_DIR",
              file=sys.stderr)
        return 2
    source, build, work = (os.path.abspath(p) for p in sys.argv[1:])
    shutil.rmtree(work, ignore_errors=True)
    os.makedirs(work)
    env = dict(os.environ, CRYPTOBENCH_BUILD_DIR=build, CRYPTOBENCH_RUNS_DIR=work)
    script = os.path.join(source, "tools", "run-benchmarks")
    for args, words in ((["--baseline=nope"], "unknown backend 'nope'"),
                        (["--baseline=aesni"], "a hand-written kernel"),
                        (["--baseline=openssl", "--backends=gcrypt,nettle"], "not among --backends"),
                        (["--baseline="], "needs a backend name"),
                        (["--processes=9", "--benchmark_repetitions=8"],
                         "--processes=9 needs 9 rounds or more"),
                        (["--processes=0"], "--processes takes a number of processes"),
                        (["--processes=2", "--design=interleaved"],
                         "--processes=2 needs 2 rounds or more")):
        r = subprocess.run([script, *args], env=env, capture_output=True, text=True, timeout=120)
        check(r.returncode == 2, f"{args}: exit {r.returncode}, expected 2: {r.stderr[-400:]}")
        check(len(r.stderr.splitlines()) == 1, f"{args}: not one line: {r.stderr[-400:]}")
        check(words in r.stderr, f"{args}: no '{words}' in {r.stderr!r}")
        check(os.listdir(work) == [], f"{args}: made {os.listdir(work)}")

    r = subprocess.run([script, "--top-up", "--baseline=gcrypt", "--backends=openssl,gcrypt,nettle",
                        "--benchmark_filter=op:(en|de)crypt/size:(64|1024|16384)/codec:none/"
                        "pool:on/key:cached/real_time/threads:1$",
                        "--benchmark_repetitions=8", "--benchmark_min_time=0.005"],
                       env=dict(env, CRYPTOBENCH_TOP_UP_SHARE="2"), capture_output=True,
                       text=True, timeout=280)
    check(r.returncode == 0, f"the run: exit {r.returncode}: {r.stderr[-1500:]}")
    check(re.search(r"^run-benchmarks: ([0-9]+) of \1 classes had a pair of backends quiet together in "
                    r"fewer than 200% of the 8 rounds \(the least quiet pair: [0-8]\): 8 more rounds of "
                    r"them in 8 more processes$", r.stderr, re.M)
          and "run-benchmarks: process 16 of 16" in r.stderr,
          "no second stage said: " + "\n".join(
              line for line in r.stderr.splitlines() if line.startswith("run-benchmarks: "))[-1500:])
    [run] = os.listdir(work) or [""]
    folder = os.path.join(work, run)
    answer = open(os.path.join(folder, "answer.txt")).read()
    check(" 27 benchmarks x 8 rounds in 8 processes, and 8 more in 8 more processes for the 27 "
          "whose classes had too few quiet (quiet in " in answer,
          f"no processes said:\n{answer[:600]}")
    check(not [f for f in os.listdir(folder) if f.startswith("part-")],
          f"parts left: {os.listdir(folder)}")
    with open(os.path.join(folder, "benchmark.json")) as f:
        run_doc = json.load(f)
    rounds = {re.search(r"/round:([0-9]+)/", b["name"]).group(1) for b in run_doc["benchmarks"]}
    check((run_doc["context"].get("processes"), run_doc["context"].get("stages"), rounds) ==
          ("16", "2", {str(r) for r in range(1, 17)}),
          f"benchmark.json: processes {run_doc['context'].get('processes')}, rounds {rounds}")
    check("gcrypt, the baseline, where it lost" in answer, f"no baseline heading:\n{answer}")
    verdicts = answer.split("where it lost):\n", 1)[-1].split("\n\n", 1)[0]
    lines = [line for line in verdicts.splitlines() if line.startswith("  AES-")]
    check(len(lines) >= 2, f"too few answer lines:\n{answer}")
    for line in lines:
        won = re.search(r": gcrypt at ", line) is not None
        check(("; gcrypt: " in line) != won, f"baseline words and winner disagree: {line}")
        check("; openssl: " not in line, f"openssl as the baseline: {line}")
    selection = open(os.path.join(folder, "selection.md")).read()
    check("(the baseline) crosses" in selection and "gcrypt (the baseline)" in selection,
          "selection.md does not name gcrypt as the baseline")
    report = open(os.path.join(folder, "report.html")).read()
    check("baseline: gcrypt" in report, "report.html has no 'baseline: gcrypt' column")
    console = open(os.path.join(folder, "console.txt")).read()
    # (A line naming what went wrong on a busy machine may come first in each view.)
    check(any(line.startswith("== grid (") for line in console.splitlines()),
          f"console.txt: {console[:300]}")
    bounds = open(os.path.join(folder, "bounds.txt")).read().splitlines()
    groups = [line for line in bounds if line.startswith("aes-")]
    check(groups and all(": absolute bound " in g for g in groups), f"bounds.txt: {groups[:3]}")
    if failures:
        print(f"{len(failures)} failure(s)")
        return 1
    print("PASS: bad baselines refused before measuring; --baseline=gcrypt through every view")
    return 0


if __name__ == "__main__":
    sys.exit(main())
