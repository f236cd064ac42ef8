#!/usr/bin/python3
"""The peers (tools/run-peers, peers/java, peers/go) run for real, with tiny
budgets, their JSON checked with the results tools' own loader.

  peers_test.py java|go|skip|known_answer_failure|run_benchmarks SOURCE_DIR WORK_DIR [BUILD_DIR]

java, go: the peer builds (into WORK_DIR) and runs a slice of each of
  seed000, seed002 and seed003; its JSON must load (gbench.load_run), hold
  exactly the expected names, repetitions, figures and context (the machine
  as /proc describes it, the backend's library, version and code path), and
  select must rank it as a library.
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
import subprocess
import sys

SOURCE, WORK = sys.argv[2], sys.argv[3]
sys.path.insert(0, os.path.join(SOURCE, "tools", "results"))
from cryptobench_results import gbench  # noqa: E402

RUN_PEERS = os.path.join(SOURCE, "tools", "run-peers")
RESULTS = os.path.join(SOURCE, "tools", "results", "cryptobench-results")
failures = []


def check(condition, message):
    if not condition:
        failures.append(message)
        print(f"FAIL: {message}", file=sys.stderr)


def run_peers(peer, out, *args, env=None):
    command = [RUN_PEERS, f"--out-dir={out}", f"--peers={peer}",
               f"--build-dir={os.path.join(WORK, 'build')}", "--warmup_time=0",
               "--benchmark_min_time=0.005", *args]
    return subprocess.run(command, capture_output=True, text=True, env=env)


def machine():
    """The machine as /proc describes it (what the C++ binary reads through
    CPUID, and Google Benchmark's count of processor entries)."""
    with open("/proc/sys/kernel/hostname") as f:
        host = f.read().strip()
    model = flags = None
    processors = 0
    with open("/proc/cpuinfo") as f:
        for line in f:
            key, _, value = line.partition(":")
            processors += key.strip() == "processor"
            if key.strip() == "model name" and model is None:
                model = value.strip()
            if key.strip() == "flags" and flags is None:
                flags = value.split()
    names = ["sse4_1", "ssse3", "aes", "pclmulqdq", "avx", "avx2", "vaes", "vpclmulqdq",
             "avx512f", "avx512bw", "avx512vl", "sha_ni"]
    return host, model, " ".join(n for n in names if n in flags), processors


# The slice of each suite the peer tests run, and the names it must give
# (BACKEND is filled in).
SLICES = [
    ("seed000", "pool:on/.*threads:[12]$", 2, [
        "seed000/backend:B/cipher:aes-128-cbc/op:roundtrip/size:100/codec:base64/pool:on/key:per-op/real_time/threads:1",
        "seed000/backend:B/cipher:aes-128-cbc/op:roundtrip/size:100/codec:base64/pool:on/key:per-op/real_time/threads:2"]),
    ("seed002", "threads:1$", 1, [
        "seed002/backend:B/cipher:aes-256-cbc/op:roundtrip/size:1048576/codec:none/pool:off/key:cached/real_time/threads:1"]),
    ("seed003", "size:10/codec:(none|hex)/", 2, [
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
        for t, ops in zip(b.samples["time_ns"], b.samples["items_per_second"]):
            # real_time is per operation of all threads; the rate is over the wall time.
            check(0.2 < t * ops / 1e9 < 5, f"{name}: time {t} ns and {ops} ops/s disagree")
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
    host, model, flags, processors = machine()
    check(ctx.get("host_name") == host, f"host_name {ctx.get('host_name')!r}, expected {host!r}")
    check(ctx.get("cpu_model") == model, f"cpu_model {ctx.get('cpu_model')!r}, expected {model!r}")
    check(ctx.get("cpu_flags") == flags and ctx.get("cpu_flags_in_use") == flags,
          f"cpu_flags {ctx.get('cpu_flags')!r}, expected {flags!r}")
    check(ctx.get("num_cpus") == processors, f"num_cpus {ctx.get('num_cpus')!r}, expected {processors}")
    check(ctx.get("cpu_mask") == "none", "cpu_mask")
    check(ctx.get("cryptobench_suite") == suite, f"cryptobench_suite {ctx.get('cryptobench_suite')!r}")
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
    check(r.returncode == 0 and f"{backend} " in r.stdout and "| - |" in r.stdout,
          f"select on {path}: {r.stderr.strip()}")


def test_peer(peer):
    backend = {"java": "java-17", "go": "go-1.19"}[peer]
    for suite, pattern, repetitions, names in SLICES:
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
        check(f"run-peers: {peer} peer ({backend}): ran {len(names)} benchmark(s) of {suite}" in r.stderr,
              f"{peer} {suite}: no 'ran' line: {r.stderr[-500:]}")
        check_peer_json(os.path.join(out, f"peer-{peer}.json"), backend, names, repetitions, suite)
        if peer == "go":
            with open(os.path.join(out, "peer-go.txt")) as f:
                raw = f.read()
            check("\ngoos: linux\n" in raw and raw.rstrip().endswith("PASS"),
                  "peer-go.txt is not go test's raw output")


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
    build = sys.argv[4]
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
        check(len(rows) == 2 and all(all(f"{b} " in row.split("|")[6] for b in backends) for row in rows),
              f"selection.md: the pool-{pool} rows do not rank java-17, go-1.19 and openssl together")
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


if __name__ == "__main__":
    mode = sys.argv[1]
    os.makedirs(WORK, exist_ok=True)
    {"java": lambda: test_peer("java"), "go": lambda: test_peer("go"), "skip": test_skip,
     "known_answer_failure": test_known_answer_failure, "run_benchmarks": test_run_benchmarks}[mode]()
    print(f"peers_test {mode}: {'FAILED' if failures else 'passed'}"
          f"{f' ({len(failures)} checks)' if failures else ''}")
    sys.exit(1 if failures else 0)
