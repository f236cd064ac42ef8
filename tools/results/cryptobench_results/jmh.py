"""Export to the JMH JSON that the JMH Visualizer (jmh.morethan.io, 0.9.6)
loads; the rules it imposes are in the project's shared jmh-format notes.

Mapping: one JMH class per comparison a user makes, backends side by side.
  benchmark  cryptobench.<scenario>.<op>_<cipher>_codec-<c>_pool-<p>_key-<k>_threads-<t>.<method>
  params     {"size": ..., "backend": ...}  (groups by size, one bar per backend;
             GCM adds "aad", which is in its class name too: a class holds
             one AAD length, so every result of a class has the same params)
  method     the scenario's primary metric (scenarios.py): throughput (MB/s),
             ops_per_ms (seed000), ops_per_s (seed002), time (ns/op, avgt:
             seed003 like go test), setups_per_s (keysetup)
Scores are medians over repetitions, scoreError the 99.9% Student-t
half-width (JMH's), rawData one fork with one entry per repetition.
Secondary metrics, present on every result of a class (or on none of them:
a class holding a backend that lacks one, a JVM peer's allocation count or a
peer's cycles per byte, leaves it off, and the visualizer then draws that
class for the other metrics only): allocations per op as
"·gc.alloc.rate.norm" (B/op, JMH's name, offered in the drop-down), and
"·allocs.per.op", "·cycles.per.byte", "·time.per.op".
"""
import json
import math

from . import scenarios, stats
from .gbench import ResultsError

PERCENTILES = ["0.0", "50.0", "90.0", "95.0", "99.0", "99.9", "99.99", "99.999", "99.9999", "100.0"]


def _number(x):
    return x if math.isfinite(x) else "NaN"  # JMH's own spelling of a missing error: a string


def dumps(results):
    """The JSON text. A bare NaN or Infinity is not JSON: the visualizer's
    JSON.parse rejects the whole file, so one is never written (the reader
    refuses non-finite figures; this is the last guard)."""
    try:
        return json.dumps(results, indent=1, ensure_ascii=False, allow_nan=False) + "\n"
    except ValueError:
        raise ResultsError("the JMH export would hold a figure that is not a finite number; "
                           "nothing written") from None


def metric_object(samples, unit):
    score = stats.median(samples)
    err = stats.ci_half_width(samples, 0.999)
    confidence = [_number(score - err), _number(score + err)] if math.isfinite(err) else ["NaN", "NaN"]
    return {
        "score": score,
        "scoreError": _number(err),
        "scoreConfidence": confidence,
        "scorePercentiles": {p: stats.percentile(samples, float(p)) for p in PERCENTILES},
        "scoreUnit": unit,
        "rawData": [list(samples)],
    }


def primary(benchmark):
    """(method, mode, unit, samples) for a benchmark's scenario (scenarios.py)."""
    sc = scenarios.of(benchmark)
    return sc.jmh_method, sc.jmh_mode, sc.unit, sc.figures(benchmark)


SECONDARY = [("·gc.alloc.rate.norm", "alloc_bytes_per_op", "B/op"),
             ("·allocs.per.op", "allocs_per_op", "allocs/op"),
             ("·cycles.per.byte", "cycles_per_byte", "cycles/B"),
             ("·time.per.op", "time_ns", "ns/op")]


def class_key(benchmark):
    p = benchmark.params
    rest = "_".join(f"{k}-{v}" for k, v in p.items() if k not in ("backend", "size", "op", "cipher"))
    return f"cryptobench.{benchmark.scenario}.{p.get('op', 'op')}_{p.get('cipher', 'aes')}_{rest}"


def params(benchmark):
    p = benchmark.params
    out = {"size": p.get("size", "0"), "backend": p["backend"]}
    if "aad" in p:
        out["aad"] = p["aad"]
    return out


def export(run):
    """The JMH result list for a run (benchmarks with errors are left out)."""
    ok = [b for b in run.benchmarks.values() if not b.error]
    # A metric appears on every result of a class or on none (the visualizer
    # needs that).
    members = {}
    for b in ok:
        members.setdefault(class_key(b), []).append(b)
    secondaries = {key: [(name, metric, unit) for name, metric, unit in SECONDARY
                         if all(b.samples.get(metric) for b in bs)]
                   for key, bs in members.items()}
    results = []
    for b in ok:
        method, mode, unit, samples = primary(b)
        if not samples:
            continue
        secondary = {name: metric_object(b.samples[metric], sec_unit)
                     for name, metric, sec_unit in secondaries[class_key(b)]}
        results.append({
            "jmhVersion": "n/a (cryptobench)",
            "benchmark": f"{class_key(b)}.{method}",
            "mode": mode,
            "threads": b.threads,
            "forks": 1,
            "jvm": "n/a",
            "jvmArgs": [],
            "jdkVersion": "n/a",
            "vmName": "google-benchmark",
            "vmVersion": run.context.get("library_version", "1.7.1"),
            "warmupIterations": 0,
            "warmupTime": "0 s",
            "warmupBatchSize": 1,
            "measurementIterations": len(samples),
            "measurementTime": "n/a",
            "measurementBatchSize": 1,
            "params": params(b),
            "primaryMetric": metric_object(samples, unit),
            "secondaryMetrics": secondary,
        })
    return results
