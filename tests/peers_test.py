#!/usr/bin/python3
"""The peers (tools/run-peers, peers/java, peers/go) run for real, with tiny
budgets, their JSON checked with the results tools' own loader.

  peers_test.py MODE SOURCE_DIR WORK_DIR BUILD_DIR

java, go: the peer builds (into WORK_DIR) and runs a slice of each of
  seed000 (as suite quick, whose name both peers must record), seed002 and
  seed003; its JSON must load (gbench.load_run), hold exactly the expected
  names, repetitions, figures (each repetition's loop at least the minimum
  time, the plaintext bytes per operation the workload's) and context (the
  machine as the C++ binary records it, so that merge takes both; the
  backend's library, version and code path), and select must rank it as a
  library. java: also Google Benchmark's cpu_time (the threads' CPU summed,
  over all iterations) from a child's figures.
fault: with the hidden fault injection, one output of each timed loop is
  wrong: each seed-000 cell of both peers (pool off and on: each its own
  roundtrip comparison) must fail, run-peers exit 1 with a FAILED line per
  peer and replace none of the files already in its folder; run-benchmarks
  --peers then exits 1 and writes no merged.json.
interrupt: SIGTERM to run-peers while Go measures, Ctrl-C (SIGINT to the
  process group) while Java measures, SIGKILL to run-peers while Java
  measures, SIGTERM to run-benchmarks --peers while the peers run: every
  process they started is gone, no traceback, peers.txt says interrupted,
  the exit is 128 + the signal, no good file replaced; run-benchmarks
  answers from the C++ run.
bad_input: a bad suite, warm-up (flag and environment), vectors folder,
  repetitions, peers list: one line, exit 2, nothing built; a filter the
  Java peer's regular expressions refuse: exit 2, nothing measured (also
  through run-benchmarks --peers, before the C++ run); run-peers knows
  every suite of the binary's --list-suites.
skip: with no JDK and no go, run-peers prints one skip line per peer,
  records it in peers.txt and exits 0, writing no JSON.
known_answer_failure: with one NIST record changed, both peers fail before
  measuring and run-peers exits 1, naming the failure.
run_benchmarks: tools/run-benchmarks --suite=seed000 --peers (BUILD_DIR's
  binaries): benchmark.json stays the C++ run's alone, the peers' JSON
  beside it, and the answer, selection.md, report.html (the seed-000 thread
  sweep) and jmh.json include java-17 and go-1.19 next to openssl.
"""
import json
import os
import re
import shutil
import signal
import subprocess
import sys
import time

SOURCE, WORK, BUILD = sys.argv[2], sys.argv[3], sys.argv[4]
sys.path.insert(0, os.path.join(SOURCE, "tools", "results"))
from cryptobench_results import gbench, merge  # noqa: E402

RUN_PEERS = os.path.join(SOURCE, "tools", "run-peers")
RUN_BENCHMARKS = os.path.join(SOURCE, "tools", "run-benchmarks")
RESULTS = os.path.join(SOURCE, "tools", "results", "cryptobench-results")
BENCH = os.path.join(BUILD, "benchmarks", "cryptobench")
MIN_TIME = 0.005
failures = []


def check(condition, message):
    if not condition:
        failures.append(message)
        print(f"FAIL: {message}", file=sys.stderr)


def run_peers(peer, out, *args, env=None, min_time=MIN_TIME):
    command = [RUN_PEERS, f"--out-dir={out}", f"--peers={peer}",
               f"--build-dir={os.path.join(WORK, 'build')}", "--warmup_time=0",
               f"--benchmark_min_time={min_time}", *args]
    return subprocess.run(command, capture_output=True, text=True, env=env)


def cpp_run():
    """A tiny run of the C++ binary on this machine (its context is what the
    peers' must match for merge to take them)."""
    path = os.path.join(WORK, "cpp.json")
    if not os.path.exists(path):
        r = subprocess.run([BENCH, "--suite=seed000", "--benchmark_min_time=0.001",
                            "--benchmark_filter=backend:openssl/.*pool:on/.*threads:1$",
                            f"--benchmark_out={path}", "--benchmark_out_format=json"],
                           capture_output=True, text=True)
        if r.returncode != 0:
            failures.append(f"the C++ binary failed: {r.stderr[-500:]}")
            return None
    return path


# The slice of each suite the peer tests run (suite, its scenario), and the
# names it must give (BACKEND is filled in).
SLICES = [
    ("quick", "seed000", "pool:on/.*threads:[12]$", 2, [
        "seed000/backend:B/cipher:aes-128-cbc/op:roundtrip/size:100/codec:base64/pool:on/key:per-op/real_time/threads:1",
        "seed000/backend:B/cipher:aes-128-cbc/op:roundtrip/size:100/codec:base64/pool:on/key:per-op/real_time/threads:2"]),
    ("seed002", "seed002", "threads:1$", 1, [
        "seed002/backend:B/cipher:aes-256-cbc/op:roundtrip/size:1048576/codec:none/pool:off/key:cached/real_time/threads:1"]),
    ("seed003", "seed003", "size:10/codec:(none|hex)/", 2, [
        f"seed003/backend:B/cipher:aes-128-ecb/op:encrypt/size:10/codec:{c}/pool:{p}/key:cached/real_time/threads:1"
        for c in ("none", "hex") for p in ("off", "on")]),
]


def check_peer_json(path, backend, names, repetitions, suite):
    run = gbench.load_run(path)  # the tools' own strict loader
    expected = [n.replace("backend:B", f"backend:{backend}") for n in names]
    check(sorted(run.benchmarks) == sorted(expected),
          f"{path}: benchmarks {sorted(run.benchmarks)}, expected {sorted(expected)}")
    for name, b in run.benchmarks.items():
        check(b.error is None, f"{name}: error {b.error}")
        check(len(b.samples["time_ns"]) == repetitions,
              f"{name}: {len(b.samples['time_ns'])} repetitions, expected {repetitions}")
        for metric in ("ops_per_ms", "items_per_second", "bytes_per_second", "alloc_bytes_per_op"):
            check(len(b.samples[metric]) == repetitions, f"{name}: no {metric}")
        check(not b.samples["cycles_per_byte"] and not b.samples["core_ghz"],
              f"{name}: cycles_per_byte or core_ghz, which the peers do not measure")
        check(b.threads == int(b.params["threads"]), f"{name}: threads field disagrees")
        size = int(b.params["size"])
        for t, n, ops, rate in zip(b.samples["time_ns"], b.iterations, b.samples["items_per_second"],
                                   b.samples["bytes_per_second"]):
            # real_time x iterations is the loop's (mean thread's) time: at least about the
            # minimum time (Java re-runs a shorter one; go grows b.N until the run lasts it).
            check(0.5 * MIN_TIME <= t * n / 1e9 <= 60, f"{name}: {t} ns x {n} iterations is not "
                  f"a loop of the minimum time {MIN_TIME} s")
            # Plaintext bytes per operation: the size (seed000: the prefix and the counter's digits).
            per_op = rate / ops
            low, high = (size + 1, size + 20) if b.scenario == "seed000" else (size, size)
            check(low - 1e-6 <= per_op <= high + 1e-6, f"{name}: {per_op} bytes per operation")
        if backend.startswith("java"):
            check(not b.samples["allocs_per_op"], f"{name}: allocs_per_op from the JVM (not counted)")
        else:
            check(len(b.samples["allocs_per_op"]) == repetitions, f"{name}: no allocs_per_op")
    with open(path) as f:
        doc = json.load(f)
    for entry in doc["benchmarks"]:
        check(entry["run_type"] == "iteration" and entry["time_unit"] == "ns"
              and entry["run_name"] == entry["name"], f"{entry['name']}: run_type/time_unit/run_name")
    ctx = run.context
    # The machine as the C++ binary records it: merge's own rule (host, CPU model and count,
    # flags in use, mask) must take the two runs as one machine's.
    cpp = cpp_run()
    if cpp:
        cpp_ctx = gbench.load_run(cpp).context
        difference = merge.machine_difference(ctx, cpp_ctx)
        check(difference is None, f"{path}: another machine than the C++ binary's: {difference}")
        check(ctx.get("cpu_flags") == cpp_ctx.get("cpu_flags"), "cpu_flags differ from the C++ run's")
    check(ctx.get("cpu_mask") == "none", "cpu_mask")
    check(ctx.get("cryptobench_suite") == suite, f"cryptobench_suite {ctx.get('cryptobench_suite')!r}")
    check(ctx.get("repetitions_interleaved") == "false", "repetitions_interleaved")
    b = f"backend.{backend}."
    for key in ("library", "version", "code_path", "codec", "codec_source", "modes", "known_answers",
                "key_handling", "pool", "allocation_counting", "method", "timing"):
        check(isinstance(ctx.get(b + key), str) and ctx[b + key], f"context {b}{key} missing")
    check("60 NIST CAVP AESAVS records" in ctx.get(b + "known_answers", ""), "known_answers count")
    if backend.startswith("java"):
        check(re.search(r"UseAESIntrinsics=(true|false)", ctx.get(b + "hotspot_flags", "")),
              "hotspot_flags has no UseAESIntrinsics")
        check(ctx.get(b + "version", "").startswith("17"), f"{b}version")
        check("OpenJDK 17" in ctx.get(b + "library", ""), f"{b}library")
    else:
        check(ctx.get(b + "version", "").startswith("go1.19"), f"{b}version")
        check("crypto/aes block *aes." in ctx.get(b + "code_path", ""), f"{b}code_path")
        check(ctx.get(b + "goarch") and ctx.get(b + "goamd64"), f"{b}goarch/goamd64")
    # select takes it as a library.
    r = subprocess.run([sys.executable, RESULTS, "select", path, "--markdown"], capture_output=True,
                       text=True)
    # (marked \* where its caveat applies: key:per-op)
    check(r.returncode == 0 and re.search(rf"{re.escape(backend)}(\\\*)? ", r.stdout)
          and "| - |" in r.stdout, f"select on {path}: {r.stderr.strip()}")


def test_peer(peer):
    backend = {"java": "java-17", "go": "go-1.19"}[peer]
    for suite, scenario, pattern, repetitions, names in SLICES:
        out = os.path.join(WORK, suite)
        shutil.rmtree(out, ignore_errors=True)
        r = run_peers(peer, out, f"--suite={suite}", f"--benchmark_filter={pattern}",
                      f"--benchmark_repetitions={repetitions}")
        if r.returncode == 0 and f"{peer} peer: skipped: no" in r.stderr:
            print(r.stderr.strip())
            sys.exit(77)  # no toolchain here: CTest reports the test as skipped
        check(r.returncode == 0, f"{peer} {suite}: run-peers exit {r.returncode}: {r.stderr[-2000:]}")
        if r.returncode != 0:
            continue
        check(f"run-peers: {peer} peer ({backend}): ran {len(names)} benchmark(s) of {scenario}"
              in r.stderr, f"{peer} {suite}: no 'ran' line: {r.stderr[-500:]}")
        check_peer_json(os.path.join(out, f"peer-{peer}.json"), backend, names, repetitions, suite)
        if peer == "go":
            with open(os.path.join(out, "peer-go.txt")) as f:
                raw = f.read()
            check("\ngoos: linux\n" in raw and raw.rstrip().endswith("PASS"),
                  "peer-go.txt is not go test's raw output")
    if peer == "java":
        check_java_cpu_time()


def check_java_cpu_time():
    """Google Benchmark's times from a child's figures: real_time the threads'
    mean loop time, cpu_time their CPU time summed, both over all iterations."""
    classes = os.path.join(WORK, "build", "java", "classes")
    program = os.path.join(WORK, "EntryCheck.java")
    with open(program, "w") as f:
        f.write("public class EntryCheck { public static void main(String[] a) {\n"
                "  System.out.println(cryptobench.peer.JavaPeer.entry(\"n\", 0, 1, 2, \"index=0 "
                "iterations=100 thread_ns=2000 wall_ns=1000 cpu_ns=3000 bytes=100 alloc_bytes=0 "
                "warmup_ms=0\")); } }\n")
    java = os.path.join(os.environ.get("CRYPTOBENCH_JAVA_HOME", "/usr/lib/jvm/java-17-openjdk-amd64"),
                        "bin", "java")
    r = subprocess.run([java, "-cp", classes, program], capture_output=True, text=True)
    check(r.returncode == 0, f"EntryCheck: {r.stderr[-500:]}")
    if r.returncode == 0:
        entry = json.loads(r.stdout)
        check(entry["real_time"] == 10.0, f"real_time {entry['real_time']}, expected 2000 / 2 / 100")
        check(entry["cpu_time"] == 30.0, f"cpu_time {entry['cpu_time']}, expected 3000 / 100")


def test_skip():
    out = os.path.join(WORK, "skip")
    shutil.rmtree(out, ignore_errors=True)
    env = dict(os.environ, CRYPTOBENCH_JAVA_HOME="/nonexistent-jdk", CRYPTOBENCH_GO="/nonexistent/go")
    r = run_peers("java,go", out, "--suite=seed000", env=env)
    lines = [
        "java peer: skipped: no Java 17 JDK in CRYPTOBENCH_JAVA_HOME=/nonexistent-jdk: install "
        "Debian's openjdk-17-jdk-headless (tools/install-deps does)",
        "go peer: skipped: CRYPTOBENCH_GO=/nonexistent/go is not a program: install Debian's "
        "golang-go (tools/install-deps does)"]
    check(r.returncode == 0, f"skip: exit {r.returncode}, expected 0: {r.stderr}")
    check(r.stderr.splitlines() == [f"run-peers: {line}" for line in lines],
          f"skip: stderr {r.stderr!r}")
    with open(os.path.join(out, "peers.txt")) as f:
        check(f.read().splitlines() == lines, "skip: peers.txt does not record the skips")
    check(not [f for f in os.listdir(out) if f.startswith("peer-")], "skip: a peer file was written")
    # A suite without peer cells is a skip too, said so.
    r = run_peers("java", out, "--suite=modes")
    check(r.returncode == 0 and "java peer: skipped: suite modes has no peer cells" in r.stderr,
          f"skip: suite modes: {r.stderr}")


def test_known_answer_failure():
    vectors = os.path.join(WORK, "vectors")
    shutil.rmtree(vectors, ignore_errors=True)
    shutil.copytree(os.path.join(SOURCE, "tests", "vectors", "nist_cavp"),
                    os.path.join(vectors, "nist_cavp"))
    path = os.path.join(vectors, "nist_cavp", "CBC", "CBCMMT128.rsp")
    with open(path) as f:
        text = f.read()
    # COUNT = 1's ciphertext, one digit changed.
    text = text.replace("CIPHERTEXT = c4dc61d9725967a3", "CIPHERTEXT = c4dc61d9725967a4", 1)
    with open(path, "w") as f:
        f.write(text)
    out = os.path.join(WORK, "known-answer-failure")
    shutil.rmtree(out, ignore_errors=True)
    r = run_peers("java,go", out, "--suite=seed000", "--benchmark_filter=threads:1$",
                  f"--vectors={vectors}")
    check(r.returncode == 1, f"known_answer_failure: exit {r.returncode}, expected 1")
    with open(os.path.join(out, "peers.txt")) as f:
        lines = f.read().splitlines()
    check(len(lines) == 2 and all("FAILED" in line and "COUNT = 1" in line and "known-answer" in line
                                  for line in lines),
          f"known_answer_failure: peers.txt {lines}")
    check(not [f for f in os.listdir(out) if f.endswith(".json")],
          "known_answer_failure: JSON written although nothing should be measured")


def test_run_benchmarks():
    build = BUILD
    runs = os.path.join(WORK, "runs")
    shutil.rmtree(runs, ignore_errors=True)
    env = dict(os.environ, CRYPTOBENCH_BUILD_DIR=build, CRYPTOBENCH_RUNS_DIR=runs,
               CRYPTOBENCH_PEERS_WARMUP_TIME="0.2")
    r = subprocess.run([os.path.join(SOURCE, "tools", "run-benchmarks"), "--suite=seed000", "--peers",
                        "--benchmark_filter=backend:(openssl|java-17|go-1.19)/.*threads:[12]$",
                        "--benchmark_min_time=0.005", "--benchmark_repetitions=2"],
                       capture_output=True, text=True, env=env, cwd=SOURCE)
    if r.returncode == 0 and re.search(r"(java|go) peer: skipped: no", r.stderr):
        print(r.stderr.strip())
        sys.exit(77)  # a toolchain is missing here: CTest reports the test as skipped
    check(r.returncode == 0, f"run-benchmarks --peers: exit {r.returncode}: {r.stderr[-3000:]}")
    if r.returncode != 0:
        return
    (run_dir,) = [os.path.join(runs, d) for d in os.listdir(runs)]
    for name in ("benchmark.json", "peer-java.json", "peer-go.txt", "peer-go.json", "peers.txt",
                 "merged.json", "answer.txt", "selection.md", "report.html", "jmh.json"):
        check(os.path.isfile(os.path.join(run_dir, name)), f"run-benchmarks --peers: no {name}")
    raw = gbench.load_run(os.path.join(run_dir, "benchmark.json"))
    check({b.params["backend"] for b in raw.benchmarks.values()} == {"openssl"}
          and "sources" not in raw.context, "benchmark.json is not the C++ run alone")
    merged = gbench.load_run(os.path.join(run_dir, "merged.json"))
    backends = {b.params["backend"] for b in merged.benchmarks.values()}
    check(backends == {"openssl", "java-17", "go-1.19"}, f"merged.json backends {backends}")
    check(merged.context.get("sources") == "3", "merged.json records its three sources")
    with open(os.path.join(run_dir, "selection.md")) as f:
        selection = f.read()
    for pool in ("off", "on"):
        rows = [line for line in selection.splitlines()
                if line.startswith("| Seed-000 roundtrip (AES-128-CBC") and f"| {pool} |" in line]
        check(len(rows) == 2 and all(all(re.search(rf"{re.escape(b)}(\\\*)? ", row.split("|")[6])
                                         for b in backends) for row in rows),
              f"selection.md: the pool-{pool} rows do not rank java-17, go-1.19 and openssl together")
    # The peers' caveats are told, and their verdicts against openssl say they come from
    # separate runs.
    check("- java-17: the JDK does not re-expand a key whose bytes repeat" in selection
          and "separate runs" in selection, "selection.md: no caveat or separate-runs mark")
    with open(os.path.join(run_dir, "report.html")) as f:
        report = f.read()
    for pool in ("off", "on"):
        start = report.find(f"data-chart=\"thread-sweep-pool-{pool}\"")
        chart = report[start:report.find("</figure>", start)]
        check(start >= 0 and all(f">{b}<" in chart for b in backends),
              f"report.html: the pool-{pool} thread sweep lacks a line of {backends}")
    with open(os.path.join(run_dir, "jmh.json")) as f:
        jmh = json.load(f)
    check({e["params"]["backend"] for e in jmh} == backends, "jmh.json lacks a backend")
    with open(os.path.join(run_dir, "peers.txt")) as f:
        peers = f.read()
    check("java peer (java-17): ran 4" in peers and "go peer (go-1.19): ran 4" in peers,
          f"peers.txt: {peers}")


# ---------------------------------------------------------------- M6: faults

GOOD = {"peer-java.json": "good java\n", "peer-go.json": "good go\n", "peer-go.txt": "good text\n"}


def plant_good_files(out):
    """Files a failed or interrupted run must not replace."""
    os.makedirs(out, exist_ok=True)
    for name, text in GOOD.items():
        with open(os.path.join(out, name), "w") as f:
            f.write(text)


def check_good_files(out, what):
    for name, text in GOOD.items():
        with open(os.path.join(out, name)) as f:
            check(f.read() == text, f"{what}: {name} was replaced")
    left = [f for f in os.listdir(out) if f.endswith(".partial")]
    check(not left, f"{what}: temporary files left: {left}")


def peers_missing(r):
    if re.search(r"(java|go) peer: skipped: no", r.stderr):
        print(r.stderr.strip())
        sys.exit(77)  # a toolchain is missing here: CTest reports the test as skipped


def test_fault():
    out = os.path.join(WORK, "fault")
    shutil.rmtree(out, ignore_errors=True)
    plant_good_files(out)
    env = dict(os.environ, CRYPTOBENCH_PEERS_INJECT_FAULT="verify")
    r = run_peers("java,go", out, "--suite=seed000", "--benchmark_filter=threads:1$", env=env)
    peers_missing(r)
    check(r.returncode == 1, f"fault: run-peers exit {r.returncode}, expected 1: {r.stderr[-1500:]}")
    with open(os.path.join(out, "peers.txt")) as f:
        lines = f.read().splitlines()
    check(len(lines) == 2 and all("FAILED" in line for line in lines), f"fault: peers.txt {lines}")
    for pool in ("off", "on"):
        cell = (f"cipher:aes-128-cbc/op:roundtrip/size:100/codec:base64/pool:{pool}/key:per-op")
        # Java: each cell's JVM says which roundtrip failed; go test: each sub-benchmark's FAIL.
        check(re.search(rf"java peer: seed000/backend:java-17/{cell}/real_time/threads:1: "
                        r"verification failed: seed 000 roundtrip of message", r.stderr),
              f"fault: the Java pool-{pool} cell did not fail its roundtrip check")
        check(re.search(rf"--- FAIL: BenchmarkSeed000/{cell}\n\s+\S+: seed 000 roundtrip of "
                        "message", r.stderr),
              f"fault: the Go pool-{pool} cell did not fail its roundtrip check")
    check_good_files(out, "fault")
    # Through run-benchmarks: exit 1, no merged.json, no answer.
    runs = os.path.join(WORK, "fault-runs")
    shutil.rmtree(runs, ignore_errors=True)
    env.update(CRYPTOBENCH_BUILD_DIR=BUILD, CRYPTOBENCH_RUNS_DIR=runs,
               CRYPTOBENCH_PEERS_WARMUP_TIME="0")
    r = subprocess.run([RUN_BENCHMARKS, "--suite=seed000", "--peers",
                        "--benchmark_filter=backend:(openssl|java-17|go-1.19)/.*pool:off/.*threads:1$",
                        f"--benchmark_min_time={MIN_TIME}"],
                       capture_output=True, text=True, env=env, cwd=SOURCE)
    check(r.returncode == 1, f"fault: run-benchmarks exit {r.returncode}, expected 1: {r.stderr[-1500:]}")
    (run_dir,) = [os.path.join(runs, d) for d in os.listdir(runs)] or [None]
    if run_dir:
        with open(os.path.join(run_dir, "peers.txt")) as f:
            text = f.read()
        check(text.count("FAILED") == 2, f"fault: run-benchmarks' peers.txt: {text}")
        for name in ("merged.json", "answer.txt", "peer-java.json", "peer-go.json"):
            check(not os.path.exists(os.path.join(run_dir, name)), f"fault: {name} written")


# ------------------------------------------------------------ M1: interrupts

def descendants(pid):
    """The PIDs of every live process below `pid` (from /proc)."""
    children = {}
    for entry in os.listdir("/proc"):
        if entry.isdigit():
            try:
                with open(f"/proc/{entry}/stat") as f:
                    fields = f.read().rsplit(")", 1)[1].split()
            except OSError:
                continue
            children.setdefault(int(fields[1]), []).append(int(entry))
    out, todo = [], [pid]
    while todo:
        for child in children.get(todo.pop(), []):
            out.append(child)
            todo.append(child)
    return out


def command_line(pid):
    try:
        with open(f"/proc/{pid}/cmdline", "rb") as f:
            return f.read().replace(b"\0", b" ").decode(errors="replace")
    except OSError:
        return ""


def alive(pid):
    """A process that exists and is not a zombie."""
    try:
        with open(f"/proc/{pid}/stat") as f:
            return f.read().rsplit(")", 1)[1].split()[0] != "Z"
    except OSError:
        return False


def wait_for(pid, text, seconds=60):
    """The descendants of pid once one's command line holds `text` (None after `seconds`)."""
    end = time.monotonic() + seconds
    while time.monotonic() < end:
        found = descendants(pid)
        if any(text in command_line(p) for p in found):
            return found
        time.sleep(0.05)
    return None


def interrupt_case(what, command, text, sig, group=False, env=None, out=None, code=None):
    """Starts `command`, waits for a descendant running `text`, sends `sig`
    (to the process group with `group`) and checks the ending; returns the
    CompletedProcess-like (status, stderr)."""
    process = subprocess.Popen(command, stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True,
                               env=env, cwd=SOURCE, start_new_session=True)
    found = wait_for(process.pid, text)
    check(found is not None, f"{what}: '{text}' never ran")
    if found is None:
        os.killpg(process.pid, signal.SIGKILL)
        process.communicate()
        return None, ""
    if group:
        os.killpg(process.pid, sig)
    else:
        os.kill(process.pid, sig)
    _, err = process.communicate(timeout=60)
    # PDEATHSIG and a JVM's end of file take a moment, longer on a busy machine.
    deadline = time.monotonic() + 15
    while any(alive(p) for p in found) and time.monotonic() < deadline:
        time.sleep(0.1)
    left = [p for p in found if alive(p)]
    check(not left, f"{what}: processes left: {[command_line(p)[:120] for p in left]}")
    check("Traceback" not in err, f"{what}: a traceback: {err[-1500:]}")
    expected = -sig if sig == signal.SIGKILL else 128 + sig if code is None else code
    check(process.returncode == expected,
          f"{what}: exit {process.returncode}, expected {expected}: {err[-800:]}")
    return process.returncode, err


def test_interrupt():
    build = os.path.join(WORK, "build")
    base = [RUN_PEERS, f"--build-dir={build}", "--suite=seed000", "--warmup_time=0",
            "--benchmark_filter=pool:on/.*threads:1$", "--benchmark_min_time=30"]
    r = subprocess.run(base + ["--check"], capture_output=True, text=True)
    peers_missing(r)
    cases = [("SIGTERM to run-peers while Go measures", "go", "-test.bench", signal.SIGTERM, False),
             ("Ctrl-C while Java measures", "java", "--child=", signal.SIGINT, True),
             ("SIGKILL to run-peers while Java measures", "java", "--child=", signal.SIGKILL, False)]
    for what, peer, text, sig, group in cases:
        out = os.path.join(WORK, "interrupt", peer + sig.name)
        shutil.rmtree(out, ignore_errors=True)
        plant_good_files(out)
        status, err = interrupt_case(what, base + [f"--out-dir={out}", f"--peers={peer}"], text, sig,
                                     group)
        if status is None or sig == signal.SIGKILL:
            continue
        with open(os.path.join(out, "peers.txt")) as f:
            lines = f.read().splitlines()
        check(lines == [f"{peer} peer: interrupted by {sig.name} while running; nothing of it "
                        "written"], f"{what}: peers.txt {lines}")
        check_good_files(out, what)
    # run-benchmarks passes SIGTERM on to run-peers and answers from the C++ run.
    runs = os.path.join(WORK, "interrupt-runs")
    shutil.rmtree(runs, ignore_errors=True)
    env = dict(os.environ, CRYPTOBENCH_BUILD_DIR=BUILD, CRYPTOBENCH_RUNS_DIR=runs,
               CRYPTOBENCH_PEERS_WARMUP_TIME="30")  # Java warms up long: the signal finds it
    status, err = interrupt_case(
        "SIGTERM to run-benchmarks while the peers run",
        [RUN_BENCHMARKS, "--suite=seed000", "--peers",
         "--benchmark_filter=backend:(openssl|java-17|go-1.19)/.*pool:on/.*threads:1$",
         f"--benchmark_min_time={MIN_TIME}", "--benchmark_repetitions=1"],
        "--child=", signal.SIGTERM, env=env)
    if status is not None:
        (run_dir,) = [os.path.join(runs, d) for d in os.listdir(runs)]
        with open(os.path.join(run_dir, "peers.txt")) as f:
            text = f.read()
        check("java peer: interrupted by SIGTERM" in text and "go peer: not run" in text,
              f"run-benchmarks: peers.txt {text}")
        check("interrupted while the peers ran" in err and os.path.exists(
            os.path.join(run_dir, "answer.txt")), f"run-benchmarks: no answer: {err[-800:]}")


# ----------------------------------------------------------- M2: bad input

def test_bad_input():
    build = os.path.join(WORK, "never-built")
    shutil.rmtree(build, ignore_errors=True)
    out = os.path.join(WORK, "bad")
    shutil.rmtree(out, ignore_errors=True)
    cases = [
        (["--suite=seed00"], {}, "--suite=seed00: unknown suite"),
        (["--warmup_time=-1"], {}, "--warmup_time=-1: a number of seconds >= 0"),
        ([], {"CRYPTOBENCH_PEERS_WARMUP_TIME": "abc"}, "CRYPTOBENCH_PEERS_WARMUP_TIME=abc: a number"),
        (["--vectors=/nonexistent"], {}, "--vectors=/nonexistent: not a folder of cryptobench's"),
        (["--benchmark_repetitions=0"], {}, "--benchmark_repetitions=0: a whole number"),
        (["--benchmark_min_time=abc"], {}, "--benchmark_min_time=abc: a number of seconds"),
        (["--peers=java,rust"], {}, "--peers=java,rust: java, go or both"),
    ]
    for args, extra, message in cases:
        r = subprocess.run([RUN_PEERS, f"--out-dir={out}", f"--build-dir={build}", *args],
                           capture_output=True, text=True, env=dict(os.environ, **extra))
        check(r.returncode == 2 and r.stderr.splitlines() == [r.stderr.strip()]
              and message in r.stderr, f"bad input {args} {extra}: exit {r.returncode}: {r.stderr}")
        check(not os.path.exists(build) and not os.path.exists(out),
              f"bad input {args} {extra}: something was built or written before the error")
    # A filter RE2 takes but Java's regular expressions refuse: nothing measured.
    build = os.path.join(WORK, "build")
    r = subprocess.run([RUN_PEERS, f"--out-dir={out}", f"--build-dir={build}", "--suite=seed000",
                        "--benchmark_filter=(?P<n>openssl)/.*threads:1$"],
                       capture_output=True, text=True)
    peers_missing(r)
    check(r.returncode == 2 and r.stderr.strip().splitlines()[-1:] == [
        "run-peers: the Java peer refuses its arguments: --benchmark_filter: Unknown inline "
        "modifier"], f"bad filter: exit {r.returncode}: {r.stderr}")
    check(not os.path.exists(out), "bad filter: the out folder was written")
    # Through run-benchmarks --peers: exit 2 before the C++ run (no results folder).
    runs = os.path.join(WORK, "bad-runs")
    shutil.rmtree(runs, ignore_errors=True)
    for args, extra in [(["--benchmark_filter=(?P<n>openssl)/.*threads:1$"], {}),
                        (["--benchmark_filter=threads:1$"], {"CRYPTOBENCH_PEERS_WARMUP_TIME": "x"})]:
        env = dict(os.environ, CRYPTOBENCH_BUILD_DIR=BUILD, CRYPTOBENCH_RUNS_DIR=runs, **extra)
        r = subprocess.run([RUN_BENCHMARKS, "--suite=seed000", "--peers", *args],
                           capture_output=True, text=True, env=env, cwd=SOURCE)
        check(r.returncode == 2 and "nothing measured" in r.stderr and not os.path.exists(runs),
              f"run-benchmarks --peers {args} {extra}: exit {r.returncode}: {r.stderr[-800:]}")
    # run-peers knows every suite the binary has.
    r = subprocess.run([BENCH, "--list-suites"], capture_output=True, text=True)
    suites = [line.split()[0] for line in r.stdout.splitlines() if line.strip()]
    with open(RUN_PEERS) as f:
        text = f.read()
    known = re.search(r"CPP_SUITES = \(([^)]*)\)", text).group(1)
    check(suites and suites == re.findall(r'"([^"]+)"', known),
          f"run-peers' CPP_SUITES {known} against --list-suites {suites}")


if __name__ == "__main__":
    mode = sys.argv[1]
    os.makedirs(WORK, exist_ok=True)
    {"java": lambda: test_peer("java"), "go": lambda: test_peer("go"), "skip": test_skip,
     "known_answer_failure": test_known_answer_failure, "run_benchmarks": test_run_benchmarks,
     "fault": test_fault, "interrupt": test_interrupt, "bad_input": test_bad_input}[mode]()
    print(f"peers_test {mode}: {'FAILED' if failures else 'passed'}"
          f"{f' ({len(failures)} checks)' if failures else ''}")
    sys.exit(1 if failures else 0)
