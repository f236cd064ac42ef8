#!/usr/bin/python3
"""hostile_run_test.py: the benchmark binary and run-benchmarks against what
a hostile or careless user does (issue 15): signals, a repeated signal, a
full disk under --cpuprofile, a CPU mask with a typo, a forged context, a
filter that would crash or hang a backtracking matcher, 20,000 backends.

usage: hostile_run_test.py CASE BINARY WORKDIR [SOURCE_DIR]

Each CASE is its own CTest; it prints PASS or FAIL: reason, and exits 0/1.
"""
import json
import os
import resource
import shutil
import signal
import subprocess
import sys
import threading
import time

import stderr_marker

# A few one-thread benchmarks of the quick suite, each a repetition of
# min_time: enough to interrupt in the middle.
PROGRESS = " elapsed, ~"  # the first progress line: about 5 s in, some benchmarks done
QUICK = ["--suite=quick", "--benchmark_filter=threads:1$", "--benchmark_min_time=0.05"]
ONE = ["--suite=quick", "--benchmark_min_time=0.01", "--benchmark_repetitions=1",
       "--benchmark_filter=backend:aesni/.*op:encrypt/size:16/codec:none/pool:on/.*threads:1$"]


def fail(message):
    print(f"FAIL: {message}")
    sys.exit(1)


def check(ok, message):
    if not ok:
        fail(message)


def run(args, timeout=120, env=None, **kw):
    return subprocess.run(args, capture_output=True, text=True, timeout=timeout,
                          env={**os.environ, **(env or {})}, **kw)


def leftovers(folder):
    return [n for n in os.listdir(folder) if n.endswith(".partial")]


def signal_after(p, marker, signals, gap=0.5, delay=0.0):
    """Sends each of `signals` (`gap` s apart) `delay` s after `marker` shows
    on p's stderr; returns (stderr, seconds from the last signal to the exit)."""
    lines, reader, seen = stderr_marker.read_until(p, marker, required=True)
    if not seen:
        fail(f"{marker!r} never showed on stderr:\n{''.join(lines)[-800:]}")
    time.sleep(delay)
    for k, sig in enumerate(signals):
        if k:
            time.sleep(gap)
        p.send_signal(sig)
    sent = time.monotonic()
    p.wait(timeout=300)
    reader.join()
    return "".join(lines), time.monotonic() - sent


def complete_results(path):
    with open(path) as f:
        doc = json.load(f)
    reps = [b for b in doc["benchmarks"] if b.get("run_type") == "iteration"]
    good = [b for b in reps if not b.get("error_occurred")]
    others = [b for b in reps if b.get("error_occurred")]
    return good, others


def case_signals(binary, work):
    """SIGTERM and SIGHUP are handled like Ctrl-C: the running benchmark
    finishes, the JSON keeps what finished, no temporary is left."""
    for sig, code in ((signal.SIGTERM, 143), (signal.SIGHUP, 129)):
        out = os.path.join(work, f"{sig.name}.json")
        with open(out, "w") as f:
            f.write("GOOD")
        p = subprocess.Popen([binary, *QUICK, f"--benchmark_out={out}"],
                             stdout=subprocess.DEVNULL, stderr=subprocess.PIPE, text=True)
        err, _ = signal_after(p, PROGRESS, [sig])
        check(p.returncode == code, f"{sig.name}: exit {p.returncode}, expected {code}\n{err[-800:]}")
        check(f"interrupted ({sig.name})" in err, f"{sig.name}: the run did not say so")
        good, others = complete_results(out)
        check(good and others, f"{sig.name}: expected finished and skipped benchmarks")
        check(all(b["error_message"] == "not run: the run was interrupted" for b in others),
              f"{sig.name}: a benchmark failed for another reason")
        check(not leftovers(work), f"{sig.name}: temporary files left: {leftovers(work)}")
    print("PASS: SIGTERM (exit 143) and SIGHUP (exit 129) keep what finished; JSON complete")


def second_signal(binary, work, args, what):
    out = os.path.join(work, "second.json")
    with open(out, "w") as f:
        f.write("GOOD")
    p = subprocess.Popen([binary, *args, "--benchmark_repetitions=1", "--benchmark_min_time=30",
                          f"--benchmark_out={out}"],
                         stdout=subprocess.DEVNULL, stderr=subprocess.PIPE, text=True)
    # 1 s after the context is printed the first benchmark is running; the
    # second signal comes 1 s later (a repeat within 0.5 s counts once).
    err, after = signal_after(p, "Run on (", [signal.SIGINT, signal.SIGINT], gap=1.0, delay=1.0)
    check(p.returncode == 130, f"{what}: exit {p.returncode} after two Ctrl-C, expected 130\n"
          f"{err[-800:]}")
    check("stopping the current benchmark too" in err, f"{what}: the second Ctrl-C was not seen")
    check(after < 10, f"{what}: the run took {after:.1f} s to end after the second Ctrl-C")
    good, others = complete_results(out)
    check(not good and others and all(b["error_message"] == "not run: the run was interrupted"
                                      for b in others),
          f"{what}: expected the stopped benchmark marked not run, got {good + others}")
    check(not leftovers(work), f"{what}: temporary files left: {leftovers(work)}")
    return after


def case_second_signal(binary, work):
    """A second Ctrl-C stops even a long benchmark at once and still writes
    the JSON (it used to kill the process, leaving a .partial file); with 4
    threads too (a thread breaking out of its loop must not deadlock the
    others at Google Benchmark's stop barrier)."""
    one = second_signal(binary, work, ["--suite=seed002-keys",
                                       "--benchmark_filter=keysetup/backend:openssl/"
                                       ".*pbkdf2-sha256-10000/"], "1 thread")
    four = [second_signal(binary, work, ["--suite=seed000",
                                         "--benchmark_filter=seed000/backend:openssl/.*pool:on/"
                                         ".*threads:4$"], f"4 threads, try {k + 1}")
            for k in range(3)]
    print(f"PASS: a second Ctrl-C ended a 30-s benchmark {one:.1f} s later (4 threads: "
          f"{max(four):.1f} s at most, 3 tries); JSON complete")


def case_cpuprofile_full_disk(binary, work):
    """--cpuprofile under a file-size limit: no abort; the results are kept,
    the old profile is untouched, exit 1 with a clear line."""
    prof, out = os.path.join(work, "p.prof"), os.path.join(work, "r.json")
    for path, text in ((prof, "OLD PROFILE"), (out, "OLD")):
        with open(path, "w") as f:
            f.write(text)
    # 2 s: the profile grows with the samples it holds (at 1 s it was 29-39 KB
    # beside 24 KB of results, once too close to test a limit between them;
    # at 2 s 53-56 KB).
    args = [binary, "--suite=seed002-keys", "--benchmark_filter=keysetup/backend:aesni/.*hmac",
            "--benchmark_min_time=2", f"--cpuprofile={prof}", f"--benchmark_out={out}"]

    def limit(size):
        def apply():
            signal.signal(signal.SIGXFSZ, signal.SIG_IGN)
            resource.setrlimit(resource.RLIMIT_FSIZE, (size, size))
        return apply
    # Unlimited first: both written, the profile in pprof's format; then a
    # file-size limit with room for the results, not for the profile. The
    # limit sits just above the results, not halfway to the profile: the
    # profile's size follows its sample count, which varies from run to run
    # (a halfway limit let a smaller second profile fit on a busy machine).
    r = run(args)
    check(r.returncode == 0 and "CPU profile written" in r.stderr, f"exit {r.returncode}")
    with open(prof, "rb") as f:
        header = f.read(16)
    check(len(header) == 16 and header[:8] == bytes(8), "the profile lacks pprof's header")
    profile_size, results_size = os.path.getsize(prof), os.path.getsize(out)
    check(profile_size > results_size + 8192,
          f"the profile ({profile_size} B) is too small beside the results ({results_size} B) "
          "to test a limit between them")
    for path, text in ((prof, "OLD PROFILE"), (out, "OLD")):
        with open(path, "w") as f:
            f.write(text)
    size_limit = results_size + 1024
    r = run(args, preexec_fn=limit(size_limit))
    check(r.returncode == 1, f"exit {r.returncode}, expected 1\n{r.stderr[-800:]}")
    check("the CPU profile could not be written" in r.stderr and "File too large" in r.stderr,
          f"no clear line about the profile\n{r.stderr[-800:]}")
    check(open(prof).read() == "OLD PROFILE", "the old profile was replaced")
    good, _ = complete_results(out)
    check(good, "the results were lost with the profile")
    check(not leftovers(work), f"temporary files left: {leftovers(work)}")
    # A read-only target is replaced like any other (the mode is kept).
    os.chmod(out, 0o444)
    r = run(args)
    check(r.returncode == 0 and (os.stat(out).st_mode & 0o777) == 0o444,
          f"a read-only --benchmark_out: exit {r.returncode}: {r.stderr[-300:]}")
    # A target that is not a regular file is refused before the run.
    for target in ("/dev/null", work):
        r = run([binary, *ONE, f"--cpuprofile={target}"])
        check(r.returncode == 2 and "not a regular file" in r.stderr,
              f"--cpuprofile={target}: exit {r.returncode}: {r.stderr[-300:]}")
    print(f"PASS: under a {size_limit}-byte file-size limit the profile "
          "fails cleanly (exit 1), the results and the old profile are kept; a read-only "
          "target keeps its mode; non-regular targets refused")


def case_cpu_mask(binary, work):
    for mask in ("garbage", "aesni", "aes,,vaes"):
        r = run([binary, "--list-suites"], env={"CRYPTOBENCH_CPU_MASK": mask})
        check(r.returncode == 2 and "CRYPTOBENCH_CPU_MASK names" in r.stderr,
              f"mask '{mask}': exit {r.returncode}: {r.stderr[-300:]}")
    out = os.path.join(work, "masked.json")
    r = run([binary, *ONE, f"--benchmark_out={out}"], env={"CRYPTOBENCH_CPU_MASK": "avx2"})
    check(r.returncode == 0, f"a valid mask failed: {r.stderr[-500:]}")
    context = json.load(open(out))["context"]
    check(context.get("cpu_mask") == "avx2", f"cpu_mask recorded as {context.get('cpu_mask')}")
    check("avx2" not in context["cpu_flags_in_use"].split(), "cpu_flags_in_use lists avx2")
    print("PASS: unknown mask names refused (exit 2); a valid mask is recorded in the context")


def case_context(binary, work):
    out = os.path.join(work, "context.json")
    r = run([binary, *ONE, f"--benchmark_out={out}",
             "--benchmark_context=git_commit=FAKE,host_name=evil,team=crypto"])
    check(r.returncode == 0, f"exit {r.returncode}: {r.stderr[-500:]}")
    with open(out) as f:
        pairs = json.load(f, object_pairs_hook=lambda kv: kv)
    context = dict(next(v for k, v in pairs if k == "context"))
    keys = [k for k, _ in next(v for k, v in pairs if k == "context")]
    check(len(keys) == len(set(keys)), "the context has a key twice")
    check(context["git_commit"] != "FAKE", "the measured git_commit was replaced")
    check(context["host_name"] != "evil", "the measured host_name was replaced")
    check(context.get("user.git_commit") == "FAKE" and context.get("user.host_name") == "evil",
          "the user's values were not kept beside the measured ones")
    check(context.get("team") == "crypto", "a user key of its own was lost")
    r = run([binary, *ONE, f"--benchmark_out={out}"], env={"BENCHMARK_CONTEXT": "git_commit=X"})
    check(json.load(open(out))["context"].get("user.git_commit") == "X",
          "BENCHMARK_CONTEXT is not treated like the flag")
    r = run([binary, *ONE, "--benchmark_context=novalue"])
    check(r.returncode == 2 and "KEY=VALUE" in r.stderr, f"a bad pair: exit {r.returncode}")
    print("PASS: --benchmark_context is stored beside the measured context, never over it")


def case_filter(binary, work):
    """Filters that crash (stack overflow) or hang a backtracking matcher."""
    cases = [("a" * 100_000, 2, "characters long; the limit is"),
             ("(" * 20_000 + "zzz" + ")" * 20_000, 2, "matches none"),
             ("(.*)*x$", 2, "matches none"),
             ("(a|aa)*zq(.*)*(.*)*(.*)*$", 2, "matches none")]
    for pattern, code, message in cases:
        start = time.monotonic()
        r = run([binary, f"--benchmark_filter={pattern}"], timeout=60)
        took = time.monotonic() - start
        check(r.returncode == code and message in r.stderr,
              f"filter of {len(pattern)} chars: exit {r.returncode}: {r.stderr[-300:]}")
        check(took < 10, f"filter of {len(pattern)} chars took {took:.1f} s")
    # The syntax users of Google Benchmark write still works.
    r = run([binary, "--benchmark_list_tests",
             "--benchmark_filter=backend:(aesni|openssl)/.*size:1[6]/codec:[[:alpha:]]+/"
             "pool:on/key:cached/real_time/threads:1$"])
    check(r.returncode == 0 and len(r.stdout.split()) == 4, f"a normal filter: {r.stdout}")
    r = run([binary, "--benchmark_list_tests", "--suite=quick", "--benchmark_filter=-threads:"])
    check(r.returncode == 2 and "matches none" in r.stderr, "a negative filter")
    print("PASS: filters of 100,000 characters, 20,000 nested groups and nested repetitions "
          "end at once with a clear error; the usual syntax works")


def case_backends(binary, work):
    many = ",".join(["aesni"] * 20_000)
    start = time.monotonic()
    r = run([binary, f"--backends={many}", "--list-suites"], timeout=60)
    took = time.monotonic() - start
    check(r.returncode == 2 and "named twice" in r.stderr, f"exit {r.returncode}: {r.stderr[-300:]}")
    check(took < 5, f"20,000 names took {took:.1f} s")
    print(f"PASS: 20,000 copies of a backend refused in {took:.2f} s")


def case_run_benchmarks(binary, work, source):
    """run-benchmarks: a bad flag, suite or mix fails before any folder is
    made; a suite name never escapes results/; SIGTERM keeps what finished
    and still gives the answer."""
    build = os.path.dirname(os.path.dirname(binary))
    script = os.path.join(source, "tools", "run-benchmarks")
    runs = os.path.join(work, "runs")
    shutil.rmtree(runs, ignore_errors=True)
    os.makedirs(runs)
    env = {"CRYPTOBENCH_BUILD_DIR": build, "CRYPTOBENCH_RUNS_DIR": runs}
    above = set(os.listdir(work))
    for args in (["--no-such-flag"], ["--suite=/../../x"], ["--suite=nope"], ["--mix=nope"],
                 ["--benchmark_repetitions=0"]):
        r = run([script, *args], env=env)
        check(r.returncode == 2, f"{args}: exit {r.returncode}: {r.stderr[-300:]}")
        check(not os.listdir(runs), f"{args}: left {os.listdir(runs)}")
        check(set(os.listdir(work)) == above, f"{args}: wrote outside the runs folder")
    filter_ = ("--benchmark_filter=backend:(openssl|gcrypt|nettle)/.*op:encrypt/size:(16|4096)/"
               "codec:none/pool:on/.*threads:1$")
    # 4 s into 18 repetitions of 1 s (set-up takes 0.5 s), or at once into
    # repetitions of 3 s, which no scheduling delay of the test outlasts.
    cases = [("to the script", 4, False, 1), ("to the process group", 4, True, 1),
             ("before anything finished", 0, True, 3)]
    for what, delay, group, min_time in cases:
        shutil.rmtree(runs)
        os.makedirs(runs)
        args = [script, *ONE[:1], f"--benchmark_min_time={min_time}",
                "--benchmark_repetitions=3", filter_]
        p = subprocess.Popen(args, env={**os.environ, **env}, stdout=subprocess.PIPE,
                             stderr=subprocess.PIPE, text=True, start_new_session=True)
        out_lines = []
        reader = threading.Thread(target=lambda: out_lines.extend(p.stdout))
        reader.start()
        lines, err_reader, _ = stderr_marker.read_until(p, "run-benchmarks: measuring")
        time.sleep(delay)
        (os.killpg if group else os.kill)(p.pid, signal.SIGTERM)
        p.wait(timeout=120)
        reader.join()
        err_reader.join()
        err = "".join(lines)
        check(p.returncode == 143, f"{what}: exit {p.returncode}, expected 143\n{err[-800:]}")
        (folder,) = os.listdir(runs)
        folder = os.path.join(runs, folder)
        check(not leftovers(folder), f"{what}: temporary files left: {leftovers(folder)}")
        if delay == 0:
            check("interrupted before any benchmark finished" in err, f"{what}: not said\n{err}")
            continue
        good, others = complete_results(os.path.join(folder, "benchmark.json"))
        check(good and others, f"{what}: expected finished and skipped repetitions")
        # An answer says first that the run was interrupted; with no class
        # in which every backend finished, there is none, and that is said.
        answer = os.path.join(folder, "answer.txt")
        if os.path.exists(answer):
            with open(answer) as f:
                head = f.read().split("== Which AES library")[0]
            check("INTERRUPTED:" in head, f"{what}: the answer does not say first it was "
                  f"interrupted\n{head}")
        else:
            check("no answer from this run" in err and "INTERRUPTED:" in err,
                  f"{what}: no answer, and not why\n{err[-800:]}")
        log = open(os.path.join(folder, "stderr.txt")).read()
        check("stopping the current benchmark too" not in log,
              f"{what}: one SIGTERM counted twice\n{log[-500:]}")
        check("interrupted: the repetitions that finished are kept" in log,
              f"{what}: stderr.txt lost the binary's last lines")
    # Between the processes a run's rounds are spread over: the parts that
    # ran are joined, the rest marked as not run, and the answer says first
    # that the run was interrupted. The signal comes as a part starts (its
    # line is printed just before): a Ctrl-C there, before the binary set its
    # handler, was once lost and the rest of the run went on.
    for sig, code in ((signal.SIGTERM, 143), (signal.SIGINT, 130)):
        shutil.rmtree(runs)
        os.makedirs(runs)
        p = subprocess.Popen([script, "--backends=openssl,gcrypt,nettle",
                              "--benchmark_filter=grid/.*op:encrypt/size:(64|16384)/codec:none/"
                              "pool:on/key:cached/real_time/threads:1$"],
                             env={**os.environ, **env}, stdout=subprocess.PIPE,
                             stderr=subprocess.PIPE, text=True, start_new_session=True)
        reader = threading.Thread(target=p.stdout.read)
        reader.start()
        lines = []
        for line in p.stderr:  # the signal at once: stderr_marker polls every 50 ms
            lines.append(line)
            if line.startswith("run-benchmarks: process 3 of 40"):
                os.killpg(p.pid, sig)
                break
        lines += p.stderr.readlines()
        p.wait(timeout=120)
        reader.join()
        err = "".join(lines)
        what = f"between processes, {sig.name}"
        check(p.returncode == code, f"{what}: exit {p.returncode}, expected {code}\n{err[-800:]}")
        (folder,) = os.listdir(runs)
        folder = os.path.join(runs, folder)
        names = sorted(os.listdir(folder))
        check(not [n for n in names if n.startswith("part-")] and "benchmark.json" in names,
              f"{what}: not joined: {names}\n{err[-800:]}")
        with open(os.path.join(folder, "benchmark.json")) as f:
            context = json.load(f)["context"]
        check(context.get("round_parts") == "40" and context.get("processes") in ("2", "3"),
              f"{what}: {context.get('processes')} of {context.get('round_parts')} joined")
        with open(os.path.join(folder, "answer.txt")) as f:
            said = f.read()
        check(said.startswith("INTERRUPTED: the run was stopped: 0 of 12 benchmarks finished "
                              "every repetition") and "of 40: the rest never ran" in said,
              f"{what}: the answer does not say first it was interrupted\n{said[:600]}")
    print("PASS: run-benchmarks stopped (SIGTERM, or Ctrl-C) as a part of a run starts joins "
          "the parts that ran and answers with the run marked interrupted")
    print("PASS: run-benchmarks refuses bad input before making a folder; SIGTERM to it, or to "
          "its process group, keeps the finished repetitions and says first in the answer that "
          "the run was interrupted (or why there is none); before "
          "anything finished it says so")


def main():
    case, binary, work = sys.argv[1], sys.argv[2], sys.argv[3]
    shutil.rmtree(work, ignore_errors=True)
    os.makedirs(work)
    cases = {"signals": case_signals, "second_signal": case_second_signal,
             "cpuprofile_full_disk": case_cpuprofile_full_disk, "cpu_mask": case_cpu_mask,
             "context": case_context, "filter": case_filter, "backends": case_backends}
    try:
        if case == "run_benchmarks":
            case_run_benchmarks(binary, work, sys.argv[4])
        else:
            cases[case](binary, work)
    finally:
        shutil.rmtree(work, ignore_errors=True)


if __name__ == "__main__":
    main()
