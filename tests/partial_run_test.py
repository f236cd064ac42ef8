#!/usr/bin/python3
"""partial_run_test.py: a failed or partial run never reads as a clean
answer (issue 23), with the real binary and drivers: a verification failure
is named first and never recommended (3); an interrupted run says so first
and ranks no class that lacks a backend (4); runs started together get their
own folders, in run-benchmarks and run-pingpong (1); SIGKILL of
run-benchmarks takes the binary with it, and a run beside another is told so
(2); --benchmark_out is honoured (8); a symlink to the script and paths
relative to the caller work (10, 11); a .rsp file's encoding (12); a full disk is said as such (13);
OPENSSL_ia32cap is read as OpenSSL reads it (6); the affinity mask and the
cgroup quota set the usable cores (7).

usage: partial_run_test.py CASE BINARY WORKDIR SOURCE_DIR

Each CASE is its own CTest; it prints PASS, SKIP (exit 77) or FAIL: reason.
"""
import json
import os
import shutil
import signal
import subprocess
import sys
import threading
import time

ONE_THREAD = "codec:none/pool:on/key:cached/real_time/threads:1$"
TINY = ["--benchmark_min_time=0.01", "--benchmark_repetitions=2"]


def fail(message):
    print(f"FAIL: {message}")
    sys.exit(1)


def check(ok, message):
    if not ok:
        fail(message)


class Paths:
    def __init__(self, binary, work, source):
        self.binary = os.path.abspath(binary)
        self.build = os.path.dirname(os.path.dirname(self.binary))
        self.work = os.path.abspath(work)
        self.source = os.path.abspath(source)
        self.script = os.path.join(self.source, "tools", "run-benchmarks")
        self.pingpong = os.path.join(self.source, "tools", "run-pingpong")
        self.results = os.path.join(self.source, "tools", "results", "cryptobench-results")
        sys.path.insert(0, os.path.join(self.source, "tools", "results"))

    def fresh(self, name):
        path = os.path.join(self.work, name)
        shutil.rmtree(path, ignore_errors=True)
        os.makedirs(path)
        return path

    def env(self, runs):
        return {**os.environ, "CRYPTOBENCH_BUILD_DIR": self.build, "CRYPTOBENCH_RUNS_DIR": runs}


def run(args, timeout=300, **kw):
    return subprocess.run(args, capture_output=True, text=True, timeout=timeout, **kw)


def status_lines(text):
    """The lines an answer starts with before its own heading."""
    return text.split("== Which AES library")[0]


def no_class_lacks_a_backend(path):
    """Every class the answer ranks holds every backend that has an entry in it."""
    from cryptobench_results import answer, gbench
    run_ = gbench.load_run(path)
    a = answer.answer(run_)
    asked = {}
    for b in run_.benchmarks.values():
        fixed, dims = answer.class_parts(b)
        asked.setdefault(fixed + tuple(dims.values()), set()).add(b.params["backend"])
    for r in a.results:
        ranked = {b for b, _ in r.ranking} | {b for b, _ in r.hand_written}
        check(ranked == asked[r.fixed + tuple(r.dims.values())],
              f"{path}: class {r.fixed} {r.dims} ranked with {ranked}, asked for "
              f"{asked[r.fixed + tuple(r.dims.values())]}")


def case_verify_failure(p):
    """Point 3: openssl fails verification at 16 KiB, merged with a good
    run of the other sizes: select names it first and recommends it for no
    AES-128-CBC encryption mix."""
    work = p.fresh("verify")
    bad, good, merged = (os.path.join(work, n) for n in ("bad.json", "good.json", "merged.json"))
    r = run([p.binary, "--backends=openssl,botan", "--benchmark_repetitions=4",
             "--benchmark_min_time=0.01", "--benchmark_out_format=json", f"--benchmark_out={bad}",
             "--inject-fault=verify",
             f"--benchmark_filter=backend:openssl/cipher:aes-128-cbc/op:encrypt/size:16384/"
             f"{ONE_THREAD}"])
    check(r.returncode == 1, f"the faulty run: exit {r.returncode}\n{r.stderr[-500:]}")
    r = run([p.binary, "--backends=openssl,botan", "--benchmark_repetitions=4",
             "--benchmark_min_time=0.01", "--benchmark_out_format=json", f"--benchmark_out={good}",
             f"--benchmark_filter=cipher:aes-128-cbc/op:encrypt/size:(16|64|256|1024|4096)/"
             f"{ONE_THREAD}"])
    check(r.returncode == 0, f"the good run: exit {r.returncode}\n{r.stderr[-500:]}")
    r = run([p.results, "merge", good, bad, "-o", merged])
    check(r.returncode == 0, f"merge: {r.stderr}")
    for path in (bad, merged):
        r = run([p.results, "select", path])
        text = r.stdout if r.returncode == 0 else r.stderr
        check(text.startswith("FAILED:") or "(FAILED: " in text,
              f"select {os.path.basename(path)}: the failure is not said first\n{text[:600]}")
        check("verification failed" in text.splitlines()[0], f"select: no reason\n{text[:400]}")
        if r.returncode == 0:
            check("AES-128-CBC encryption: not answered: openssl failed verification" in text,
                  f"select: a mix verdict made over the failure\n{text}")
            no_class_lacks_a_backend(path)
    r = run([p.results, "select", merged])
    check(r.returncode == 0, f"select of the merged run: exit {r.returncode}: {r.stderr}")
    print("PASS: a verification failure is said first by select and openssl is ranked nowhere "
          "it failed, nor for the mix its ladder feeds")


def case_interrupted(p):
    """Point 4: SIGINT to run-benchmarks' process group (Ctrl-C) a few
    seconds into an interleaved run of many repetitions: the answer (or the
    reason there is none) says first that the run was interrupted, and no
    class lacks a backend."""
    runs = p.fresh("interrupted")
    args = [p.script, "--suite=libraries", "--backends=openssl,botan",
            f"--benchmark_filter=cipher:aes-128-cbc/op:(en|de)crypt/size:(64|16384)/{ONE_THREAD}",
            "--benchmark_repetitions=240", "--benchmark_min_time=0.05"]
    proc = subprocess.Popen(args, env=p.env(runs), stdout=subprocess.PIPE,
                            stderr=subprocess.PIPE, text=True, start_new_session=True)
    err_lines = []
    reader = threading.Thread(target=lambda: err_lines.extend(proc.stderr))
    reader.start()
    deadline = time.monotonic() + 240
    while time.monotonic() < deadline and proc.poll() is None and not any(
            "run-benchmarks: measuring" in line for line in err_lines):
        time.sleep(0.1)
    time.sleep(3)
    os.killpg(proc.pid, signal.SIGINT)
    out = proc.stdout.read()
    proc.wait(timeout=300)
    reader.join()
    err = "".join(err_lines)
    check(proc.returncode == 130, f"exit {proc.returncode}, expected 130\n{err[-800:]}")
    (folder,) = os.listdir(runs)
    answer = os.path.join(runs, folder, "answer.txt")
    if os.path.exists(answer):
        with open(answer) as f:
            head = status_lines(f.read())
        check("INTERRUPTED: the run was stopped: " in head and "finished every repetition" in head,
              f"answer.txt does not say first that the run was interrupted\n{head}")
        check("INTERRUPTED:" in status_lines(out), f"the printed answer does not say it\n{out}")
        no_class_lacks_a_backend(os.path.join(runs, folder, "benchmark.json"))
    else:
        check("no answer from this run" in err and "INTERRUPTED:" in err
              or "interrupted before any benchmark finished" in err,
              f"no answer, and not why\n{err[-800:]}")
    print("PASS: an interrupted run says so first, with what finished, and ranks no class "
          "that lacks a backend")


def together(commands, env):
    """Starts every command at once; [(exit, stdout, stderr)]."""
    procs = [subprocess.Popen(c, env=env, stdout=subprocess.PIPE, stderr=subprocess.PIPE,
                              text=True) for c in commands]
    return [(pr.returncode, out, err) for pr, (out, err) in
            ((pr, pr.communicate(timeout=600)) for pr in procs)]


def case_folders(p, rounds=3):
    """Point 1: two run-benchmarks started together: two folders, each with
    its own backend's results and answer."""
    for k in range(rounds):
        runs = p.fresh("folders")
        done = together([
            [p.script, "--suite=libraries", "--backends=openssl", *TINY,
             f"--benchmark_filter=op:encrypt/size:16384/{ONE_THREAD}"],
            [p.script, "--suite=libraries", "--backends=botan", *TINY,
             f"--benchmark_filter=op:decrypt/size:64/{ONE_THREAD}"]], p.env(runs))
        for code, out, err in done:
            check(code == 0, f"round {k}: exit {code}\n{err[-600:]}")
        folders = sorted(os.listdir(runs))
        check(len(folders) == 2, f"round {k}: {len(folders)} folder(s) for two runs: {folders}")
        backends = set()
        for (code, out, err), name in zip(done, ("openssl", "botan")):
            (folder,) = [f for f in folders if f"{runs}/{f}/" in out]
            with open(os.path.join(runs, folder, "benchmark.json")) as f:
                names = {b["name"].split("/")[1] for b in json.load(f)["benchmarks"]}
            check(names == {f"backend:{name}"}, f"round {k}: {folder} holds {names}, not {name}")
            check(os.path.exists(os.path.join(runs, folder, "answer.txt")), f"{folder}: no answer")
            backends.add(name)
        check(len(backends) == 2, f"round {k}: the runs printed one folder")
    print(f"PASS: two runs of run-benchmarks started together {rounds} times got their own "
          "folders and results")


def case_pingpong_folders(p, rounds=3):
    """Point 1 for run-pingpong."""
    server = os.path.join(p.build, "pingpong", "cryptobench-pingpong-server")
    if not os.path.exists(server):
        print("SKIP: the ping-pong programs are not built")
        sys.exit(77)
    common = [p.pingpong, "--connections=1", "--unloaded-pings=0", "--peers=none",
              "--repetitions=1", "--no-interop"]
    for k in range(rounds):
        runs = p.fresh("pingpong-folders")
        done = together([common + ["--pings=50", "--backends=openssl"],
                         common + ["--pings=70", "--backends=botan"]], p.env(runs))
        for code, out, err in done:
            check(code == 0, f"round {k}: exit {code}\n{err[-600:]}")
        folders = sorted(os.listdir(runs))
        check(len(folders) == 2, f"round {k}: {len(folders)} folder(s) for two runs: {folders}")
        for (code, out, err), name in zip(done, ("openssl", "botan")):
            (folder,) = [f for f in folders if f"{runs}/{f}/" in out]
            with open(os.path.join(runs, folder, "benchmark.json")) as f:
                names = {b["name"] for b in json.load(f)["benchmarks"]}
            check(any(f"backend:{name}" in n for n in names), f"{folder}: no {name} cell")
    print(f"PASS: two runs of run-pingpong started together {rounds} times got their own folders")


def process_state(pid):
    """'R', 'S', ... or 'Z'; None when gone."""
    try:
        with open(f"/proc/{pid}/stat") as f:
            return f.read().rsplit(")", 1)[1].split()[0]
    except OSError:
        return None


def case_sigkill(p):
    """Point 2: SIGKILL of run-benchmarks ends the binary too; a run started
    beside another cryptobench run says so and records it."""
    runs = p.fresh("sigkill")
    proc = subprocess.Popen([p.script, "--suite=libraries", "--backends=openssl",
                             "--benchmark_repetitions=60", "--benchmark_min_time=0.5",
                             f"--benchmark_filter=op:encrypt/size:16384/{ONE_THREAD}"],
                            env=p.env(runs), stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL,
                            start_new_session=True)
    try:
        sigkill_checks(p, runs, proc)
    finally:  # a failed check leaves nothing running
        try:
            os.killpg(proc.pid, signal.SIGKILL)
        except ProcessLookupError:
            pass
        proc.wait()


def sigkill_checks(p, runs, proc):
    child = None
    deadline = time.monotonic() + 240
    while child is None and time.monotonic() < deadline and proc.poll() is None:
        for entry in os.listdir("/proc"):
            if entry.isdigit():
                try:
                    with open(f"/proc/{entry}/stat") as f:
                        stat = f.read()
                except OSError:
                    continue
                if stat.split(" (")[1].startswith("cryptobench)") and \
                        int(stat.rsplit(")", 1)[1].split()[1]) == proc.pid:
                    # The measuring run, not the listing that checks the flags first.
                    try:
                        with open(f"/proc/{entry}/cmdline", "rb") as f:
                            measuring = b"--benchmark_out=" in f.read()
                    except OSError:
                        continue
                    if measuring:
                        child = int(entry)
        time.sleep(0.1)
    check(child is not None, "the binary never started")
    # Another run started now is beside it: said, and recorded.
    beside = os.path.join(runs, "beside.json")
    r = run([p.binary, "--backends=openssl", "--benchmark_min_time=0.01",
             f"--benchmark_filter=op:encrypt/size:64/{ONE_THREAD}", f"--benchmark_out={beside}"])
    check(r.returncode == 0, f"the run beside: exit {r.returncode}\n{r.stderr[-400:]}")
    check("cryptobench WARNING:" in r.stderr and f"{child} " in r.stderr,
          f"the run beside did not say another was measuring\n{r.stderr[-600:]}")
    with open(beside) as f:
        context = json.load(f)["context"]
    check(f"{child} " in context.get("concurrent_cryptobench_runs", ""),
          f"not recorded in the context: {context.get('concurrent_cryptobench_runs')}")
    r = run([p.results, "select", beside])
    check(r.returncode == 0 and "CONCURRENT:" in status_lines(r.stdout),
          f"select does not say it first\n{r.stdout[:600]}{r.stderr}")
    proc.kill()
    proc.wait()
    deadline = time.monotonic() + 60
    while process_state(child) not in (None, "Z") and time.monotonic() < deadline:
        time.sleep(0.1)
    state = process_state(child)
    if state not in (None, "Z"):
        os.kill(child, signal.SIGKILL)
        fail(f"the binary (pid {child}) outlived run-benchmarks' SIGKILL (state {state})")
    print("PASS: SIGKILL of run-benchmarks ends the binary; a run beside another says so, "
          "records it in the context, and select says it first")


def case_benchmark_out(p):
    """Point 8: --benchmark_out=FILE (relative to the caller) is a copy of
    the run's benchmark.json; a format it cannot honour is refused."""
    runs = p.fresh("benchmark-out")
    caller = p.fresh("benchmark-out-caller")
    r = run([p.script, "--suite=libraries", "--backends=openssl", *TINY,
             f"--benchmark_filter=op:encrypt/size:64/{ONE_THREAD}", "--benchmark_out=mine.json"],
            env=p.env(runs), cwd=caller)
    check(r.returncode == 0, f"exit {r.returncode}\n{r.stderr[-600:]}")
    (folder,) = os.listdir(runs)
    check(os.path.exists(os.path.join(caller, "mine.json")), "mine.json was not written")
    with open(os.path.join(caller, "mine.json"), "rb") as a, \
            open(os.path.join(runs, folder, "benchmark.json"), "rb") as b:
        check(a.read() == b.read(), "mine.json is not the run's benchmark.json")
    r = run([p.script, "--benchmark_out=x.txt", "--benchmark_out_format=console"],
            env=p.env(runs), cwd=caller)
    check(r.returncode == 2 and len(r.stderr.splitlines()) == 1,
          f"--benchmark_out_format=console: exit {r.returncode}\n{r.stderr}")
    r = run([p.script, f"--benchmark_out={caller}"], env=p.env(runs), cwd=caller)
    check(r.returncode == 2 and "not a regular file" in r.stderr, f"a folder: {r.stderr}")
    check(os.listdir(runs) == [folder], "a refused run made a folder")
    print("PASS: --benchmark_out is a copy of benchmark.json, from the caller's folder; what "
          "it cannot honour is refused in one line")


def case_paths(p):
    """Points 10 and 11: a symlink to run-benchmarks from another folder, a
    mix file and a runs folder relative to the caller."""
    caller = p.fresh("paths")
    os.symlink(p.script, os.path.join(caller, "rb"))
    with open(os.path.join(caller, "mymix.csv"), "w") as f:
        f.write("size,weight\n16,3\n64,1\n")
    env = {**p.env("runs"), "CRYPTOBENCH_BUILD_DIR": p.build}
    r = run(["./rb", "--suite=libraries", "--backends=openssl,botan", *TINY, "--mix=mymix.csv",
             f"--benchmark_filter=op:encrypt/size:64/{ONE_THREAD}"], env=env, cwd=caller)
    check(r.returncode == 0, f"exit {r.returncode}\n{r.stderr[-600:]}")
    # The mix is checked before anything is measured: exit 0 means it was read.
    check(len(os.listdir(os.path.join(caller, "runs"))) == 1, "the runs folder is not the caller's")
    print("PASS: a symlink to run-benchmarks works from another folder; --mix and "
          "CRYPTOBENCH_RUNS_DIR are relative to the caller")


def case_full_disk(p):
    """Point 13: the runs folder on a tiny tmpfs: 'no space left on device in
    DIR', exit 1, no empty or temporary file left."""
    if os.geteuid() != 0:
        print("SKIP: mounting a small tmpfs needs root")
        sys.exit(77)
    mount = p.fresh("full-disk")
    seen = set()
    for size in ("12k", "24k", "40k", "64k"):
        r = run(["mount", "-t", "tmpfs", "-o", f"size={size}", "tmpfs", mount])
        if r.returncode != 0:
            print(f"SKIP: cannot mount a tmpfs here ({r.stderr.strip()})")
            sys.exit(77)
        try:
            r = run([p.script, "--suite=libraries", "--backends=openssl,botan", *TINY,
                     f"--benchmark_filter=op:(en|de)crypt/size:(64|16384)/{ONE_THREAD}"],
                    env=p.env(mount))
            if r.returncode == 0:
                continue  # it fitted
            check(r.returncode == 1, f"{size}: exit {r.returncode}\n{r.stderr[-600:]}")
            last = r.stderr.strip().splitlines()[-1]
            check(last.startswith(f"run-benchmarks: no space left on device in {mount}/"),
                  f"{size}: not said\n{r.stderr[-600:]}")
            check("internal error" not in r.stderr, f"{size}: an internal error\n{r.stderr}")
            for root, _, files in os.walk(mount):
                for name in files:
                    path = os.path.join(root, name)
                    check(os.path.getsize(path) > 0 and not name.endswith(".partial"),
                          f"{size}: left {path} ({os.path.getsize(path)} bytes)")
            seen.add(last.split("(writing ")[-1].split(")")[0])
        finally:
            run(["umount", mount])
    check(seen, "no size filled the disk")
    # The binary alone: its console table to a full disk is exit 1, said.
    r = run(["mount", "-t", "tmpfs", "-o", "size=16k", "tmpfs", mount])
    check(r.returncode == 0, f"mount: {r.stderr}")
    try:
        with open(os.path.join(mount, "filler"), "wb", buffering=0) as f:
            try:
                while f.write(b"x" * 512):
                    pass
            except OSError:
                pass
        out = os.path.join(p.fresh("full-disk-json"), "run.json")
        with open(os.path.join(mount, "console.txt"), "w") as console:
            r = subprocess.run([p.binary, "--suite=libraries", "--backends=openssl",
                                "--benchmark_min_time=0.01", f"--benchmark_out={out}",
                                f"--benchmark_filter=op:encrypt/size:64/{ONE_THREAD}"],
                               stdout=console, stderr=subprocess.PIPE, text=True, timeout=300)
        check(r.returncode == 1 and f"no space left on device in {mount}/" in r.stderr,
              f"the binary's table to a full disk: exit {r.returncode}\n{r.stderr[-400:]}")
    finally:
        run(["umount", mount])
    print(f"PASS: a full disk is said as such, exit 1, no empty file left (while writing: "
          f"{'; '.join(sorted(seen))})")


def case_ia32cap(p):
    """Point 6: the openssl backend's code path read from OPENSSL_ia32cap as
    OpenSSL reads it: ':' leaves the first word alone, '~' clears bits,
    clearing FXSR clears AES-NI too (not SSSE3)."""
    with open("/proc/cpuinfo") as f:
        flags = f.read()
    if " aes " not in flags or " ssse3 " not in flags:
        print("SKIP: the CPU lacks AES-NI or SSSE3")
        sys.exit(77)
    expected = {":0": "aesni (", "::0": "aesni (", "~0x1000000": "vpaes (",
                "~0x200000000000000": "vpaes (", "~0x200000000000000:0": "vpaes (",
                "0x0": "aes_core (", "~0x20000000000": "aesni ("}
    for value, path in expected.items():
        r = run([p.binary, "--backends=openssl", "--list-backends"],
                env={**os.environ, "OPENSSL_ia32cap": value})
        check(r.returncode == 0, f"OPENSSL_ia32cap={value}: exit {r.returncode}: {r.stderr}")
        lines = r.stdout.splitlines()
        start = next(i for i, line in enumerate(lines) if line.startswith("openssl "))
        code = next(line for line in lines[start:] if "code path:" in line)
        check(path in code, f"OPENSSL_ia32cap={value}: '{code.strip()}', expected {path}...")
    print("PASS: OPENSSL_ia32cap's forms (:, ~, the FXSR rule) give the code path OpenSSL runs")


def case_affinity(p):
    """Point 7: under taskset -c 0 the run counts one usable core, records
    the affinity and the quota, warns that its 2-thread cells share it, and
    the answer names the usable cores."""
    if os.cpu_count() < 2 or not shutil.which("taskset"):
        print("SKIP: needs 2 CPUs and taskset")
        sys.exit(77)
    out = os.path.join(p.fresh("affinity"), "run.json")
    r = run(["taskset", "-c", "0", p.binary, "--suite=quick", "--backends=openssl",
             "--benchmark_min_time=0.01", "--benchmark_repetitions=1", f"--benchmark_out={out}",
             "--benchmark_filter=op:encrypt/size:16384/codec:none/pool:on/key:cached/"
             "real_time/threads:(1|2)$"])
    check(r.returncode == 0, f"exit {r.returncode}\n{r.stderr[-500:]}")
    check("cryptobench WARNING: this run may use 1 of the machine's" in r.stderr
          and "2-thread benchmarks share cores" in r.stderr, f"not warned\n{r.stderr[-500:]}")
    with open(out) as f:
        context = json.load(f)["context"]
    check(context.get("cores_usable") == "1", f"cores_usable {context.get('cores_usable')}")
    check(context.get("cpu_affinity", "").startswith("0 (1 of "),
          f"cpu_affinity {context.get('cpu_affinity')}")
    check("cpu_quota" in context, "no cpu_quota")
    r = run([p.results, "select", out])
    check("1 usable: affinity 0 (1 of " in r.stdout, f"the answer's machine line\n{r.stdout[:400]}")
    print("PASS: the affinity mask sets the usable cores, recorded with the quota, warned about, "
          "and named in the answer")


def case_rsp_encoding(p):
    """Point 12: a NIST .rsp file with a UTF-8 byte order mark passes the
    vector runner; in UTF-16 (with or without a byte order mark) it is
    refused by its encoding, in one line, exit 2."""
    runner = os.path.join(p.build, "tools", "vectors", "cryptobench-vectors")
    source = os.path.join(p.source, "tests", "vectors", "nist_cavp", "CBC", "CBCGFSbox128.rsp")
    with open(source, encoding="ascii") as f:
        text = f.read()
    folder = p.fresh("rsp-encoding")
    target = os.path.join(folder, "CBCGFSbox128.rsp")
    for data, ok in ((b"\xef\xbb\xbf" + text.encode(), True), (text.encode("utf-16"), False),
                     (text.encode("utf-16-le"), False)):
        with open(target, "wb") as f:
            f.write(data)
        r = run([runner, folder])
        if ok:
            check(r.returncode == 0, f"a UTF-8 BOM: exit {r.returncode}: {r.stderr}")
        else:
            check(r.returncode == 2 and "is UTF-16 text" in r.stderr
                  and len(r.stderr.strip().splitlines()) == 1,
                  f"UTF-16: exit {r.returncode}: {r.stderr}")
    print("PASS: a UTF-8 byte order mark is read past; UTF-16 is refused by name")


def main():
    if len(sys.argv) != 5:
        print(__doc__)
        return 2
    case, binary, work, source = sys.argv[1:]
    os.makedirs(work, exist_ok=True)
    cases = {"verify_failure": case_verify_failure, "interrupted": case_interrupted,
             "folders": case_folders, "pingpong_folders": case_pingpong_folders,
             "sigkill": case_sigkill, "benchmark_out": case_benchmark_out, "paths": case_paths,
             "full_disk": case_full_disk, "ia32cap": case_ia32cap,
             "affinity": case_affinity, "rsp_encoding": case_rsp_encoding}
    if case not in cases:
        print(f"unknown case {case}; known: {', '.join(cases)}")
        return 2
    cases[case](Paths(binary, work, source))
    return 0


if __name__ == "__main__":
    sys.exit(main())
