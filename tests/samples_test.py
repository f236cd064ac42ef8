"""The benchmark binary's side of the paired design (issue 22): the per-sample
record, the contention probes, the rounds, the injected noisy neighbour and
the test-only slower copy of a backend, and their bad input.

  samples_test.py BINARY RESULTS_TOOL

The figures here are never timed against a limit: the checks are on the
record's structure and on what the tools make of an injected neighbour
(which slows probes and samples alike, so it is seen on any machine).
"""
import json
import os
import re
import subprocess
import sys
import tempfile

BINARY, RESULTS = sys.argv[1:3]
SLICE = "cipher:aes-128-(cbc|ctr)/op:encrypt/size:16384/codec:none/pool:on/key:cached/real_time/threads:[12]$"


def fail(message):
    print(f"FAIL: {message}")
    sys.exit(1)


def run(args, folder, name):
    out = os.path.join(folder, f"{name}.json")
    samples = os.path.join(folder, f"{name}.samples.jsonl")
    p = subprocess.run([BINARY, *args, f"--benchmark_out={out}", "--benchmark_out_format=json",
                        f"--samples_out={samples}"], capture_output=True, text=True)
    if p.returncode != 0:
        fail(f"{args}: exit {p.returncode}\n{p.stderr[-1500:]}")
    return out, samples


def check_record(out, samples, rounds):
    doc = json.load(open(out))
    context = doc["context"]
    if (context.get("design"), context.get("rounds")) != ("rounds", str(rounds)):
        fail(f"context: design {context.get('design')!r}, rounds {context.get('rounds')!r}")
    if context.get("samples_file") != os.path.basename(samples):
        fail(f"context samples_file is {context.get('samples_file')!r}")
    lines = open(samples).read().splitlines()
    header = json.loads(lines[0])
    if header.get("run_id") != context.get("samples_run_id"):
        fail("the record's run_id is not the JSON's")
    loops, counts = {}, []
    for line in lines[1:]:
        loop = json.loads(line)
        loops.setdefault(loop["name"], []).append(loop)
    for b in doc["benchmarks"]:
        found = re.fullmatch(r"(.*/round:[0-9]+)/iterations:([0-9]+)(/real_time/threads:([0-9]+))",
                             b["name"])
        if not found:
            fail(f"{b['name']}: not a round with its iterations fixed")
        name, iterations, threads = found.group(1) + found.group(3), int(found.group(2)), \
            int(found.group(4))
        mine = loops.get(name, [])
        if len(mine) != threads:  # one timed call per round (no sizing runs), a loop per thread
            fail(f"{name}: {len(mine)} loops recorded, expected {threads}")
        for loop in mine:
            if loop["iterations"] != iterations:
                fail(f"{name}: {loop['iterations']} iterations recorded, the JSON ran {iterations}")
            if sum(s[2] for s in loop["samples"]) != iterations:
                fail(f"{name}: the samples' iterations do not add up to the loop's")
            if len(loop["probes"]) != len(loop["samples"]) + 1:
                fail(f"{name}: {len(loop['probes'])} probes for {len(loop['samples'])} samples")
            for start, ns, _, cpu in loop["samples"]:
                # CPU time comes from per-CPU clocks: a migration can make it run ahead a little.
                if ns <= 0 or cpu < 0 or cpu > ns * 2 + 1_000_000:
                    fail(f"{name}: a sample of {ns} ns wall and {cpu} ns CPU")
            if any(len(p) != 3 or p[1] <= 0 for p in loop["probes"]):
                fail(f"{name}: a probe without its parts: {loop['probes'][:2]}")
            if not loop["samples"]:
                fail(f"{name}: no sample recorded")
            counts.append(len(loop["samples"]))
    # A 4 ms loop holds about 16 samples of 0.25 ms; a loaded machine (the
    # calibration preempted) may size some loops short, not most of them.
    counts.sort()
    if counts[len(counts) // 2] < 4:
        fail(f"the median loop has {counts[len(counts) // 2]} samples; expected about 16")
    return doc


def main():
    folder = tempfile.mkdtemp()
    common = ["--backends=openssl,aesni", f"--benchmark_filter={SLICE}",
              "--benchmark_repetitions=6", "--benchmark_min_time=0.004"]

    # The record of a plain run, every loop matched to its JSON entry.
    out, samples = run(common, folder, "plain")
    per_round = len(check_record(out, samples, 6)["benchmarks"]) // 6

    # The injected neighbour is seen by the probes, and said by the answer;
    # the slower copy is named, registered and measured in every round.
    # Seed 5's regimes: quiet 0.21 s, contended 0.75 s, quiet 0.36 s, ...: the
    # run's half a second of loops sees both.
    out, samples = run(common + ["--benchmark_repetitions=10", "--inject-noise=5",
                                 "--inject-slower=openssl:5"], folder, "noisy")
    doc = check_record(out, samples, 10)
    if doc["context"].get("inject_noise") != "5" or \
            doc["context"].get("inject_slower") != "openssl:5":
        fail("the context does not say what was injected")
    if not any("backend:openssl-slower5/" in b["name"] for b in doc["benchmarks"]):
        fail("no benchmark of the slower copy")
    answer = subprocess.run([RESULTS, "select", out], capture_output=True, text=True)
    if answer.returncode != 0:
        fail(f"select: {answer.stderr}")
    found = re.search(r"Contention: ([0-9]+)% of the sampled time", answer.stdout)
    if not found or not 10 <= int(found.group(1)) <= 99:
        fail(f"the injected neighbour's contention is not reported:\n{answer.stdout}")
    if "time per operation under contention" not in answer.stdout:
        fail(f"no slowdown under contention:\n{answer.stdout}")

    # A run's rounds over processes: each part runs its own rounds, named as
    # in the whole run, and cryptobench-results join makes them that run.
    parts = []
    for k in (1, 2, 3):
        out, samples = run(common + ["--benchmark_repetitions=7", f"--round-part={k}/3"], folder,
                           f"part-{k}")
        doc = check_record(out, samples, 7)
        if doc["context"].get("round_part") != f"{k}/3":
            fail(f"part {k}: context round_part {doc['context'].get('round_part')!r}")
        rounds = sorted({int(re.search(r"/round:([0-9]+)/", b["name"]).group(1))
                         for b in doc["benchmarks"]})
        if rounds != [[1, 2], [3, 4], [5, 6, 7]][k - 1]:
            fail(f"part {k} of 3 of 7 rounds ran rounds {rounds}")
        parts.append(out)
    joined = os.path.join(folder, "joined.json")
    p = subprocess.run([RESULTS, "join", *parts, "-o", joined], capture_output=True, text=True)
    if p.returncode != 0:
        fail(f"join: {p.stderr}")
    doc = check_record(joined, os.path.join(folder, "joined.samples.jsonl"), 7)
    if (doc["context"].get("processes"), len(doc["benchmarks"])) != ("3", 7 * per_round):
        fail(f"joined: {doc['context'].get('processes')} processes, "
             f"{len(doc['benchmarks'])} benchmarks")

    # Bad input: one line, exit 2, nothing written.
    for args, said in (
            (["--round-part=0/2"], "--round-part takes K/N"),
            (["--round-part=3/2"], "--round-part takes K/N"),
            (["--round-part=1/2x"], "--round-part takes K/N"),
            (["--round-part=1/7"], "more parts than the 6 rounds"),
            (["--round-part=1/2", "--design=interleaved"], "--round-part needs the rounds design"),
            (["--round-part=1/2", "--benchmark_repetitions=1"],
             "--round-part needs the rounds design"),
            (["--design=sideways"], "--design takes 'rounds' or 'interleaved'"),
            (["--design=rounds", "--benchmark_enable_random_interleaving=true"],
             "leave out --benchmark_enable_random_interleaving"),
            (["--inject-slower=openssl"], "--inject-slower takes BACKEND:PERCENT"),
            (["--inject-slower=openssl:0"], "--inject-slower takes BACKEND:PERCENT"),
            (["--inject-slower=botan:3"], "no selected benchmark runs backend 'botan'"),
            (["--inject-noise=-1"], "--inject-noise takes a seed"),
            ([f"--samples_out={folder}"], "--samples_out:")):
        p = subprocess.run([BINARY, *common, *args], capture_output=True, text=True)
        if p.returncode != 2 or said not in p.stderr or len(p.stderr.strip().splitlines()) != 1:
            fail(f"{args}: exit {p.returncode}, {p.stderr!r}")

    # Today's design stays available: Google Benchmark's interleaving, no rounds.
    p = subprocess.run([BINARY, *common, "--design=interleaved", "--benchmark_list_tests"],
                       capture_output=True, text=True)
    if p.returncode != 0 or "round:" in p.stdout:
        fail(f"--design=interleaved lists {p.stdout[:200]!r}")
    print("samples: record matched to every round, probes and CPU time present, injected "
          "neighbour reported, slower copy measured, bad flags refused")


if __name__ == "__main__":
    main()
