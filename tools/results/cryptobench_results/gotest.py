"""`go test -bench -benchmem` output as Google Benchmark JSON (the Go peer's,
peers/go, or any benchmark written the same way).

The input is go test's text: configuration lines ("key: value", benchfmt's
form: go test's own goos, goarch, pkg and cpu, and the peer's
"cryptobench.key: value" context), one line per benchmark run

  BenchmarkSeed000/cipher:aes-128-cbc/op:roundtrip/size:100/codec:base64/pool:on/key:per-op-4 \\
      123456   1012 ns/op   105.4 plaintext-B/op   1120 B/op   14 allocs/op

and PASS. Several runs of the binary may be concatenated (tools/run-peers
runs it once per thread count); their configuration must agree, but for the
date (the first is kept).

Mapping: Benchmark<Scenario>/<params>[-P] is
<scenario>/backend:<B>/<params>/real_time/threads:<P> (P, go test's
GOMAXPROCS suffix, is absent for 1; B is the cryptobench.backend line);
each line of one name is a repetition, in order. real_time is ns/op;
iterations is b.N; items_per_second and ops_per_ms follow from ns/op;
bytes_per_second from plaintext-B/op (or MB/s, from b.SetBytes);
alloc_bytes_per_op and allocs_per_op are B/op and allocs/op, the whole
numbers go test prints. Any other b.ReportMetric unit is kept as "go.<unit>".
"""
import re
from collections import OrderedDict

from .gbench import ResultsError, shown

BENCHMARK = re.compile(r"(Benchmark[A-Za-z0-9_]+)/(\S+?)(?:-([0-9]+))?")
CONFIG = re.compile(r"([a-z][^\s:]*): (.*)")
# Go's own configuration lines, and where they go in the context.
GO_CONFIG = {"cpu": "cpu_model", "goos": None, "goarch": None, "pkg": None}
FIRST_WINS = {"cryptobench.date", "cryptobench.executable"}


def _number(text, where):
    try:
        value = float(text)
    except ValueError:
        raise ResultsError(f"{where}: '{shown(text, 40)}' is not a number") from None
    if not value == value or value in (float("inf"), float("-inf")):
        raise ResultsError(f"{where}: '{shown(text, 40)}' is not a finite number")
    return value


def parse(path, text):
    """(config, [(go name, iterations, {unit: value}, line number)]) of go test's output."""
    config = OrderedDict()
    runs = []
    last = ""
    for number, raw in enumerate(text.splitlines(), 1):
        line = raw.rstrip()
        if not line.strip():
            continue
        last = line
        where = f"{path}:{number}"
        if line.startswith(("--- FAIL", "FAIL", "panic:")):
            raise ResultsError(f"{where}: the go test run failed: '{shown(line)}'")
        if line.startswith("Benchmark"):
            fields = line.split()
            if len(fields) < 4 or len(fields) % 2 != 0:
                raise ResultsError(f"{where}: not a benchmark result line: '{shown(line)}'")
            try:
                iterations = int(fields[1])
            except ValueError:
                raise ResultsError(f"{where}: iterations '{shown(fields[1], 20)}' is not a whole "
                                   "number") from None
            metrics = OrderedDict()
            for value, unit in zip(fields[2::2], fields[3::2]):
                if unit in metrics:
                    raise ResultsError(f"{where}: {unit} given twice")
                metrics[unit] = _number(value, where)
            if "ns/op" not in metrics:
                raise ResultsError(f"{where}: no ns/op: '{shown(line)}'")
            runs.append((fields[0], iterations, metrics, number))
            continue
        m = CONFIG.fullmatch(line)
        if m and not line.startswith((" ", "\t")):
            key, value = m.group(1), m.group(2).strip()
            if key in config and config[key] != value and key not in FIRST_WINS:
                raise ResultsError(f"{where}: '{key}' is '{shown(value, 60)}' here and "
                                   f"'{shown(config[key], 60)}' before: the runs disagree")
            config.setdefault(key, value)
    if not runs:
        raise ResultsError(f"{path}: no benchmark result line (go test -bench output expected)")
    if last != "PASS" and not last.startswith("ok"):
        raise ResultsError(f"{path}: the output does not end with PASS (was the run interrupted?)")
    return config, runs


def convert(path, text):
    """The Google Benchmark document of go test's output."""
    config, runs = parse(path, text)
    backend = config.get("cryptobench.backend")
    if not backend or not re.fullmatch(r"[A-Za-z0-9_.+-]+", backend):
        raise ResultsError(f"{path}: no usable 'cryptobench.backend: NAME' line: not the output "
                           "of cryptobench's Go peer (peers/go)")
    context = OrderedDict()
    for key, value in config.items():
        if key.startswith("cryptobench.backend."):
            context[f"backend.{backend}.{key[len('cryptobench.backend.'):]}"] = value
        elif key.startswith("cryptobench.") and key != "cryptobench.backend":
            context[key[len("cryptobench."):]] = value
    for key, target in GO_CONFIG.items():
        if key in config:
            context.setdefault(target or f"backend.{backend}.go_test_{key}", config[key])
    if "num_cpus" in context:
        if not re.fullmatch(r"[0-9]{1,6}", context["num_cpus"]):
            raise ResultsError(f"{path}: num_cpus '{shown(context['num_cpus'], 20)}' is not a count")
        context["num_cpus"] = int(context["num_cpus"])
    context["peer_source"] = ("go test -bench -benchmem output, converted by "
                              "cryptobench-results gotest")
    entries, repetitions = [], OrderedDict()
    for go_name, iterations, metrics, number in runs:
        m = BENCHMARK.fullmatch(go_name)
        if not m:
            raise ResultsError(f"{path}:{number}: '{shown(go_name)}' is not "
                               "Benchmark<Scenario>/<key:value params>[-P]")
        scenario = m.group(1)[len("Benchmark"):].lower()
        threads = int(m.group(3) or 1)
        name = f"{scenario}/backend:{backend}/{m.group(2)}/real_time/threads:{threads}"
        if iterations < 1:
            raise ResultsError(f"{path}:{number}: {iterations} iterations")
        ns = metrics["ns/op"]
        if ns <= 0:
            raise ResultsError(f"{path}:{number}: {ns:g} ns/op")
        index = repetitions.get(name, 0)
        repetitions[name] = index + 1
        e = OrderedDict([("name", name), ("run_name", name), ("run_type", "iteration"),
                         ("repetitions", None), ("repetition_index", index), ("threads", threads),
                         ("iterations", iterations), ("real_time", ns), ("time_unit", "ns")])
        if "plaintext-B/op" in metrics:
            e["bytes_per_second"] = metrics["plaintext-B/op"] * 1e9 / ns
        elif "MB/s" in metrics:
            e["bytes_per_second"] = metrics["MB/s"] * 1e6
        e["items_per_second"] = 1e9 / ns
        e["ops_per_ms"] = 1e6 / ns
        if "B/op" in metrics:
            e["alloc_bytes_per_op"] = metrics["B/op"]
        if "allocs/op" in metrics:
            e["allocs_per_op"] = metrics["allocs/op"]
        for unit, value in metrics.items():
            if unit not in ("ns/op", "plaintext-B/op", "MB/s", "B/op", "allocs/op"):
                e[f"go.{unit}"] = value
        entries.append(e)
    for e in entries:
        e["repetitions"] = repetitions[e["name"]]
    return {"context": context, "benchmarks": entries}
