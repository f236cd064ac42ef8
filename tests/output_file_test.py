#!/usr/bin/python3
"""output_file_test.py: nothing lost (issue 15, points 1-7). Every output of
the benchmark binary and of cryptobench-results either is complete or leaves
the previous file as it was, never follows a planted link, never replaces
what is not a regular file, and leaves no temporary file behind.

A full disk is a file-size limit (RLIMIT_FSIZE, SIGXFSZ ignored): writes then
fail with EFBIG, with no privileges needed.

usage: output_file_test.py CRYPTOBENCH CRYPTOBENCH_RESULTS GOLDEN_RUN.json
"""
import json
import os
import resource
import shutil
import signal
import subprocess
import sys
import tempfile

FILTER = "--benchmark_filter=backend:aesni/.*size:64/codec:none/pool:on/key:cached/real_time/threads:1$"
FAST = ["--benchmark_min_time=0.001", "--benchmark_repetitions=2"]
GOOD = "GOOD: a previous run's results\n"
failures = []


def check(condition, what):
    print(("ok   " if condition else "FAIL ") + what)
    if not condition:
        failures.append(what)


def file_size_limit(limit):
    def apply():
        signal.signal(signal.SIGXFSZ, signal.SIG_IGN)
        resource.setrlimit(resource.RLIMIT_FSIZE, (limit, limit))
    return apply


def run(args, env=None, limit=None):
    return subprocess.run(args, capture_output=True, text=True, timeout=300,
                          env={**os.environ, **(env or {})},
                          preexec_fn=file_size_limit(limit) if limit else None)


def good_file(folder, name="out.json"):
    path = os.path.join(folder, name)
    with open(path, "w") as f:
        f.write(GOOD)
    return path


def unchanged(path):
    with open(path) as f:
        return f.read() == GOOD


def only(folder, names):
    return sorted(os.listdir(folder)) == sorted(names)


def main():
    binary, results, golden = sys.argv[1:4]
    with tempfile.TemporaryDirectory() as d:
        # 1. A full disk: the good file stays, the run fails, nothing is left over.
        out = good_file(d)
        r = run([binary, FILTER, *FAST, f"--benchmark_out={out}"], limit=8192)
        check(r.returncode != 0 and unchanged(out) and only(d, ["out.json"]),
              f"full disk: exit {r.returncode}, the previous file kept, no temporary left")
        check("could not be written completely" in r.stderr, "full disk: said on stderr")
        r = run([binary, FILTER, *FAST, f"--benchmark_out={out}"])
        check(r.returncode == 0 and json.load(open(out))["benchmarks"], "then a good run writes it")

        # 2. A link planted at the old temporary name is not followed; two runs
        # at once each write their own temporary and leave valid JSON.
        victim = good_file(d, "victim.txt")
        os.symlink(victim, out + ".partial")
        both = [subprocess.Popen([binary, FILTER, *FAST, f"--benchmark_out={out}"],
                                 stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL)
                for _ in range(2)]
        codes = [p.wait(timeout=300) for p in both]
        check(unchanged(victim), "a link planted at OUT.partial is not followed")
        check(codes == [0, 0] and json.load(open(out))["benchmarks"],
              f"two runs writing one output at once: exits {codes}, the file is valid JSON")
        if os.path.lexists(out + ".partial"):
            os.unlink(out + ".partial")
        check(only(d, ["out.json", "victim.txt"]), "no temporary file left by either run")

        # 3, 4. Only a regular file or a new name, checked before the run.
        fifo = os.path.join(d, "fifo")
        os.mkfifo(fifo)
        link = os.path.join(d, "link.json")
        os.symlink(victim, link)
        for target, what in ((fifo, "a FIFO"), (d, "a folder"), (link, "a symlink"),
                             (os.path.join(d, "x" * 250 + ".json"), "a name too long")):
            r = run([binary, FILTER, *FAST, f"--benchmark_out={target}"])
            check(r.returncode == 2 and "Run on" not in r.stderr and "--benchmark_out" in r.stderr,
                  f"--benchmark_out to {what}: refused before running (exit {r.returncode})")
        check(unchanged(victim) and os.path.exists(fifo), "nothing replaced")

        # 5. Listing through the environment keeps the file; "=no" runs and writes.
        out = good_file(d)
        r = run([binary, FILTER, f"--benchmark_out={out}"], env={"BENCHMARK_LIST_TESTS": "true"})
        check(r.returncode == 0 and unchanged(out), "BENCHMARK_LIST_TESTS=true keeps the previous file")
        for value in ("no", "off", "False", "f", "N"):
            out = good_file(d)
            r = run([binary, FILTER, *FAST, f"--benchmark_list_tests={value}", f"--benchmark_out={out}"])
            check(r.returncode == 0 and not unchanged(out) and json.load(open(out))["benchmarks"],
                  f"--benchmark_list_tests={value} runs and writes the results")

        # 6. Outputs over inputs or over each other.
        r = run([binary, FILTER, *FAST, f"--benchmark_out={out}", f"--cpuprofile={out}"])
        check(r.returncode == 2 and "the same file" in r.stderr, "--cpuprofile over --benchmark_out refused")
        run_json = os.path.join(d, "run.json")
        shutil.copy(golden, run_json)
        before = open(run_json).read()
        r = run([sys.executable, results, "report", run_json, "-o", run_json])
        check(r.returncode == 2 and open(run_json).read() == before, "report -o INPUT refused")
        r = run([sys.executable, results, "report", run_json, "-o", d])
        check(r.returncode == 2 and "not a regular file" in r.stderr, "report -o FOLDER refused")

        # 7. cryptobench-results on a full disk: nothing replaced, nothing left.
        html = good_file(d, "report.html")
        listing = sorted(os.listdir(d))
        r = run([sys.executable, results, "report", run_json, "-o", html], limit=4096)
        check(r.returncode == 2 and unchanged(html) and sorted(os.listdir(d)) == listing,
              f"report on a full disk: exit {r.returncode}, the old file kept, no stray temporary")
        r = run([sys.executable, results, "jmh", run_json, "-o", link])
        check(r.returncode == 2 and unchanged(victim), "jmh -o LINK refused")
    if failures:
        print(f"FAIL: {len(failures)} check(s)")
        return 1
    print("PASS: no output lost, overwritten wrongly or left behind")
    return 0


if __name__ == "__main__":
    sys.exit(main())
