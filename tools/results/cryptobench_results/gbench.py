"""Reading cryptobench's raw Google Benchmark JSON (the source of truth).

A benchmark's name is a '/'-separated key:value path, e.g.
grid/backend:openssl/cipher:aes-128-cbc/op:encrypt/size:16384/codec:none/
pool:on/key:cached/real_time/threads:2. Repetitions of one benchmark share
its run_name and become the samples of each metric.
"""
import json
import lzma
import math
from collections import OrderedDict

# Metrics read from each iteration run; time is normalised to ns per op.
METRICS = ["time_ns", "bytes_per_second", "items_per_second", "ops_per_ms",
           "cycles_per_byte", "allocs_per_op", "alloc_bytes_per_op", "core_ghz"]
# Which direction is better, for comparisons and selection.
HIGHER_IS_BETTER = {"time_ns": False, "bytes_per_second": True, "items_per_second": True,
                    "ops_per_ms": True, "cycles_per_byte": False, "allocs_per_op": False,
                    "alloc_bytes_per_op": False, "core_ghz": True}
_TIME_UNIT_NS = {"ns": 1.0, "us": 1e3, "ms": 1e6, "s": 1e9}


# What the binary reports for a repetition Ctrl-C skipped.
INTERRUPTED = "not run: the run was interrupted"


class ResultsError(Exception):
    """Input that cannot be used, with a message naming the problem."""


class Benchmark:
    def __init__(self, name, scenario, params, threads):
        self.name = name          # run_name without repetition suffixes
        self.scenario = scenario  # grid, seed000, ...
        self.params = params      # OrderedDict key -> value (strings), threads included
        self.threads = threads
        self.samples = {m: [] for m in METRICS}  # in repetition order
        self.iterations = []                      # per repetition, all threads
        self.interrupted = 0                      # repetitions skipped by Ctrl-C
        self.error = None

    def value(self, metric):
        """The median of the metric's samples, or None when absent."""
        xs = self.samples.get(metric) or []
        if not xs:
            return None
        s = sorted(xs)
        mid = len(s) // 2
        return s[mid] if len(s) % 2 else (s[mid - 1] + s[mid]) / 2


class Run:
    def __init__(self, path, context, benchmarks):
        self.path = path
        self.context = context
        self.benchmarks = benchmarks  # OrderedDict name -> Benchmark

    @property
    def repetitions(self):
        counts = [len(b.samples["time_ns"]) for b in self.benchmarks.values() if b.error is None]
        return min(counts) if counts else 0


def parse_name(name):
    """Splits a benchmark name into (scenario, OrderedDict of params)."""
    parts = name.split("/")
    scenario = parts[0]
    params = OrderedDict()
    for part in parts[1:]:
        if part == "real_time":
            continue
        key, sep, value = part.partition(":")
        if not sep or not key or not value:
            raise ResultsError(f"benchmark name '{name}': segment '{part}' is not key:value")
        params[key] = value
    if "backend" not in params:
        raise ResultsError(f"benchmark name '{name}' has no backend: not a cryptobench benchmark")
    return scenario, params


def read_text(path):
    try:
        if str(path).endswith(".xz"):
            with lzma.open(path, "rt", encoding="utf-8") as f:
                return f.read()
        with open(path, encoding="utf-8") as f:
            return f.read()
    except FileNotFoundError:
        raise ResultsError(f"{path}: no such file") from None
    except (OSError, lzma.LZMAError, UnicodeDecodeError) as e:
        raise ResultsError(f"{path}: cannot read ({e})") from None


def load_run(path):
    text = read_text(path)
    try:
        doc = json.loads(text)
    except json.JSONDecodeError as e:
        hint = " (truncated: was the run interrupted?)" if e.pos >= len(text.rstrip()) - 1 else ""
        raise ResultsError(f"{path}: not valid JSON at line {e.lineno}{hint}") from None
    if not isinstance(doc, dict) or "benchmarks" not in doc or "context" not in doc:
        raise ResultsError(f"{path}: not Google Benchmark JSON (no 'context' and 'benchmarks')")
    if not isinstance(doc["benchmarks"], list):
        raise ResultsError(f"{path}: 'benchmarks' is not a list")
    benchmarks = OrderedDict()
    entries = [e for e in doc["benchmarks"] if isinstance(e, dict)]
    if len(entries) != len(doc["benchmarks"]):
        raise ResultsError(f"{path}: a benchmark entry is not an object")
    # Repetitions in the order they ran (interleaved runs report each
    # benchmark's repetitions together, but say which came first).
    def order(entry):
        index = entry.get("repetition_index", 0)
        return index if isinstance(index, int) else 0
    for entry in sorted(entries, key=order):
        if not isinstance(entry, dict) or "name" not in entry:
            raise ResultsError(f"{path}: a benchmark entry has no name")
        if entry.get("run_type", "iteration") != "iteration":
            continue  # aggregates are recomputed from the samples
        run_name = entry.get("run_name", entry["name"])
        scenario, params = parse_name(run_name)
        b = benchmarks.get(run_name)
        if b is None:
            threads = int(params.get("threads", entry.get("threads", 1)))
            b = benchmarks[run_name] = Benchmark(run_name, scenario, params, threads)
        if entry.get("error_occurred"):
            message = entry.get("error_message", "error")
            if message == INTERRUPTED:
                b.interrupted += 1  # a repetition Ctrl-C skipped: the others stand
            else:
                b.error = message
            continue
        try:
            unit = _TIME_UNIT_NS[entry.get("time_unit", "ns")]
            b.samples["time_ns"].append(float(entry["real_time"]) * unit)
            b.iterations.append(int(entry.get("iterations", 0)))
            for metric in METRICS[1:]:
                if metric in entry:
                    value = float(entry[metric])
                    if not math.isfinite(value):
                        raise ValueError(metric)
                    b.samples[metric].append(value)
        except (KeyError, TypeError, ValueError) as e:
            raise ResultsError(f"{path}: benchmark '{run_name}' has a missing or bad field ({e})") from None
    for b in benchmarks.values():
        if b.error is None and not b.samples["time_ns"]:
            b.error = INTERRUPTED  # every repetition was skipped
    if not benchmarks:
        raise ResultsError(f"{path}: the run has no benchmark results (empty or only aggregates)")
    return Run(str(path), doc["context"], benchmarks)
