"""Replays a recorded noisy-neighbour trace as a cryptobench run in the paired
design, for the tests of the sampled estimator (test_sampled.py).

The trace (tests/fixtures/noise/, a copy of ../shared/noise/'s) is 20 s of
chunk pairs from a 2-vCPU Zen 4 class KVM guest: A, 32 KiB through 8
independent AES streams (throughput-bound), and B, 4 KiB through one CBC
chain (latency-bound), timed alternately. A simulated backend's 0.25 ms
sample slows as the trace's A chunks in it did (throughput-bound code) or as
its B chunks did (a chain); the probe after each sample is the next chunk's
A, never a chunk the sample itself used. Rounds are spread over the whole
trace, a class's backends side by side in each, as the binary runs them.
"""
import json
import lzma
import os

HERE = os.path.dirname(os.path.abspath(__file__))
TRACE = os.path.join(os.path.dirname(HERE), "fixtures", "noise", "zen4-vm-regimes-2026-12-03.txt.xz")
PAIRS_PER_SAMPLE = 18      # 20 s / 1.41 M pairs: about 14 us a pair
SAMPLES_PER_LOOP = 16      # a 4 ms round
ITERATIONS_PER_SAMPLE = 100
SIZE = 16384

_trace = None


def trace():
    """(A, B): the chunk times, in ns."""
    global _trace
    if _trace is None:
        a, b = [], []
        with lzma.open(TRACE, "rt") as f:
            for line in f:
                x, y = line.split()
                a.append(int(x))
                b.append(int(y))
        _trace = (a, b)
    return _trace


def _quiet(xs):
    return sorted(xs)[len(xs) // 20]


def make_run(folder, backends, rounds=40, offset=0, name="run"):
    """Writes folder/NAME.json and folder/NAME.samples.jsonl: a run of the
    paired design over `backends`, a list of (name, ns per operation when
    quiet, "throughput" or "chain"). `offset` starts the rounds that many
    pairs into the trace (another run: another stretch of it). Returns the
    JSON's path."""
    a, b = trace()
    quiet_a, quiet_b = _quiet(a), _quiet(b)
    per_loop = SAMPLES_PER_LOOP * (PAIRS_PER_SAMPLE + 1) + 1
    per_round = len(backends) * per_loop
    spacing = (len(a) - offset - per_round) // rounds
    if spacing < per_round:
        raise ValueError("the trace is too short for that many rounds")
    run_id = f"replay-{offset}"
    benchmarks = []
    lines = [json.dumps({"cryptobench_samples": 1, "run_id": run_id, "sample_seconds": 0.00025})]
    for r in range(rounds):
        at = offset + r * spacing
        # A new order each round, fixed by the round (reproducible).
        order = sorted(range(len(backends)), key=lambda k: (k * 7919 + r * 104729) % 1009)
        for k in order:
            backend, ns, kind = backends[k]
            source, quiet = (a, quiet_a) if kind == "throughput" else (b, quiet_b)
            samples, probes = [], [[round(a[at] / quiet_a * 570)]]
            at += 1
            start = 0
            for _ in range(SAMPLES_PER_LOOP):
                chunk = source[at:at + PAIRS_PER_SAMPLE]
                slow = sum(chunk) / len(chunk) / quiet
                sample_ns = round(ns * slow * ITERATIONS_PER_SAMPLE)
                samples.append([start, sample_ns, ITERATIONS_PER_SAMPLE])
                start += sample_ns + 600
                at += PAIRS_PER_SAMPLE
                probes.append([round(a[at] / quiet_a * 570)])  # the next chunk: not the sample's
                at += 1
            full = (f"grid/backend:{backend}/cipher:aes-128-ctr/op:encrypt/size:{SIZE}/codec:none/"
                    f"pool:on/key:cached/round:{r + 1}/real_time/threads:1")
            iterations = ITERATIONS_PER_SAMPLE * SAMPLES_PER_LOOP
            mean_ns = sum(s[1] for s in samples) / iterations
            lines.append(json.dumps({"name": full, "thread": 0, "threads": 1,
                                     "iterations": iterations, "bytes": SIZE * iterations,
                                     "messages_per_iteration": 1, "start_ns": at,
                                     "samples": samples, "probes": probes}))
            benchmarks.append({"name": full, "run_name": full, "run_type": "iteration",
                               "repetitions": 1, "repetition_index": 0, "threads": 1,
                               "iterations": iterations, "real_time": mean_ns,
                               "cpu_time": mean_ns, "time_unit": "ns",
                               "bytes_per_second": SIZE / mean_ns * 1e9,
                               "items_per_second": 1e9 / mean_ns,
                               "ops_per_ms": 1e6 / mean_ns, "core_ghz": 3.7,
                               "cycles_per_byte": mean_ns * 3.7 / SIZE})
    samples_name = f"{name}.samples.jsonl"
    with open(os.path.join(folder, samples_name), "w", encoding="utf-8") as f:
        f.write("\n".join(lines) + "\n")
    context = {"date": "2026-12-03T09:00:00+00:00", "host_name": "replay", "num_cpus": 2,
               "cpu_model": "replayed Zen 4 class trace", "cryptobench_suite": "decision",
               "repetitions_interleaved": "true", "design": "rounds", "rounds": str(rounds),
               "samples_file": samples_name, "samples_run_id": run_id,
               "library_build_type": "release"}
    path = os.path.join(folder, f"{name}.json")
    with open(path, "w", encoding="utf-8") as f:
        json.dump({"context": context, "benchmarks": benchmarks}, f)
    return path
