"""Reading cryptobench's raw Google Benchmark JSON (the source of truth).

A benchmark's name is a '/'-separated key:value path, e.g.
grid/backend:openssl/cipher:aes-128-cbc/op:encrypt/size:16384/codec:none/
pool:on/key:cached/real_time/threads:2. GCM names have /aad:A (bytes of
additional authenticated data) after the size; batch ops /messages:M. Repetitions of one benchmark share
its run_name and become the samples of each metric.

Every input is taken as hostile: only regular files are read, of bounded
size (decompressed too), JSON of the shape Google Benchmark writes (names
are cryptobench names, numbers are numbers, text is text); each figure the
tools use is a finite number in its range, each repetition is read once. Anything else is a
ResultsError naming the file, the benchmark and the field.
"""
import json
import lzma
import math
import os
import re
import stat
from collections import OrderedDict

# Metrics read from each iteration run; time is normalised to ns per op.
METRICS = ["time_ns", "bytes_per_second", "items_per_second", "ops_per_ms",
           "cycles_per_byte", "allocs_per_op", "alloc_bytes_per_op", "core_ghz"]
# Which direction is better, for comparisons and selection.
HIGHER_IS_BETTER = {"time_ns": False, "bytes_per_second": True, "items_per_second": True,
                    "ops_per_ms": True, "cycles_per_byte": False, "allocs_per_op": False,
                    "alloc_bytes_per_op": False, "core_ghz": True}
# Seed 001's TCP ping-pong (pingpong/driver.py): each ping's round trip, the
# server's memory, the crypto and CPU time per ping; all lower is better.
PINGPONG_METRICS = ["rtt_p50_ns", "rtt_p90_ns", "rtt_p99_ns", "rtt_p999_ns",
                    "server_peak_rss_kib", "server_peak_anon_kib", "client_peak_rss_kib",
                    "crypto_ns_per_ping", "crypto_isolated_ns_per_ping",
                    "server_cpu_ns_per_ping", "client_cpu_ns_per_ping"]
METRICS += PINGPONG_METRICS
HIGHER_IS_BETTER.update({m: False for m in PINGPONG_METRICS})
# The counters that may be 0: allocations, and bytes for benchmarks that
# process none (key setup). Every other figure is a time or a rate of at
# least one operation (cycles_per_byte is written only when bytes > 0): > 0.
MAY_BE_ZERO = {"bytes_per_second", "allocs_per_op", "alloc_bytes_per_op"}
# No real figure comes near these (ns per op, bytes per second, ...); past
# them products and ratios of figures overflow the statistics.
FIGURE_MIN, FIGURE_MAX = 1e-18, 1e18
_TIME_UNIT_NS = {"ns": 1.0, "us": 1e3, "ms": 1e6, "s": 1e9}

# The largest reference run is 7 MB of JSON: nothing real comes near these,
# and they keep /dev/zero or an xz bomb from taking the machine's memory.
MAX_FILE_BYTES = 512 << 20          # the file as stored (.xz or not)
MAX_JSON_BYTES = 512 << 20          # the JSON text, decompressed

# Names: what cryptobench registers (ASCII tokens), so they are safe in
# every output (HTML, Markdown, JMH params, one-line errors); parameters
# every cryptobench benchmark has; parameters that are counts (smallest).
NAME_CHARS = re.compile(r"[A-Za-z0-9_.:+/-]+")
REQUIRED_PARAMS = ("backend", "cipher", "op", "size", "codec", "pool", "key")
COUNT_PARAMS = {"size": 0, "threads": 1, "messages": 1, "aad": 0, "round": 1}
# Context fields the tools read as text (labels, grouping, bounds, clock).
CONTEXT_TEXT = ("host_name", "cpu_model", "cpu_flags", "cpu_flags_in_use", "cpu_mask",
                "aes_limits", "core_clock_ghz", "library_version", "cryptobench_suite")


ITERATIONS = re.compile(r"/iterations:[0-9]+(?=/|$)")

# What the binary reports for a repetition Ctrl-C skipped.
INTERRUPTED = "not run: the run was interrupted"


class ResultsError(Exception):
    """Input that cannot be used, with a message naming the problem."""


def shown(text, limit=120):
    """Text from an input, as an error message may quote it: one line of
    printable characters, cut to `limit`."""
    text = text if isinstance(text, str) else repr(text)
    text = "".join(c if c.isprintable() else repr(c)[1:-1] for c in text)
    return text if len(text) <= limit else text[:limit] + "..."


class Benchmark:
    def __init__(self, name, scenario, params, threads):
        self.name = name          # run_name without repetition suffixes
        self.scenario = scenario  # grid, seed000, ...
        self.params = params      # OrderedDict key -> value (strings), threads included
        self.threads = threads
        self.samples = {m: [] for m in METRICS}  # in repetition order
        self.iterations = []                      # per repetition, all threads
        self.indices = []                         # per repetition: its index (round - 1)
        self.run_names = []                       # per repetition: its name in the JSON
        # sampled.py: the JSON's figures before sampling, and the figures
        # under contention (with their repetitions' indices).
        self.raw_samples = None
        self.contended = {}
        self.contended_indices = []
        self.contention_included = False          # its workload had no quiet figure somewhere
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
        self.sampling = None          # sampled.Sampling, when the run has a record

    @property
    def repetitions(self):
        counts = [len(b.samples["time_ns"]) for b in self.benchmarks.values() if b.error is None]
        return min(counts) if counts else 0


def parse_name(name):
    """Splits a benchmark name into (scenario, OrderedDict of params)."""
    if not isinstance(name, str) or not NAME_CHARS.fullmatch(name):
        raise ResultsError(f"benchmark name '{shown(name)}' is not a cryptobench name (letters, "
                           "digits and _.:+/- only)")
    parts = name.split("/")
    scenario = parts[0]
    params = OrderedDict()
    for part in parts[1:]:
        if part == "real_time":
            continue
        key, sep, value = part.partition(":")
        if not sep or not key or not value:
            raise ResultsError(f"benchmark name '{shown(name)}': segment '{shown(part)}' is not key:value")
        if key in params:
            raise ResultsError(f"benchmark name '{shown(name)}' gives {key} twice")
        # Counts are plain decimal numbers below 10^12 (int() alone takes
        # '1_000' or 10^400, which overflows the floats downstream).
        if key in COUNT_PARAMS and not (re.fullmatch(r"[0-9]{1,12}", value)
                                        and int(value) >= COUNT_PARAMS[key]):
            raise ResultsError(f"benchmark name '{shown(name)}': {key} '{shown(value, 20)}' is not "
                               f"a whole number from {COUNT_PARAMS[key]} to 10^12")
        params[key] = value
    if "backend" not in params:
        raise ResultsError(f"benchmark name '{shown(name)}' has no backend: not a cryptobench benchmark")
    missing = [k for k in REQUIRED_PARAMS if k not in params]
    if not scenario or missing:
        raise ResultsError(f"benchmark name '{shown(name)}' has no {', '.join(missing) or 'scenario'}: "
                           "not a cryptobench benchmark")
    return scenario, params


def _size_text(n):
    return f"{n >> 20} MiB" if n >= 1 << 20 else f"{n >> 10} KiB"


def _read_bounded(path):
    """The file's bytes, if it is a regular file of at most MAX_FILE_BYTES.
    O_NONBLOCK: opening a FIFO never waits for a writer; fstat then refuses
    it, a folder or a device (/dev/zero) before anything is read."""
    try:
        fd = os.open(path, os.O_RDONLY | os.O_NONBLOCK | os.O_CLOEXEC)
    except FileNotFoundError:
        raise ResultsError(f"{path}: no such file") from None
    except OSError as e:
        raise ResultsError(f"{path}: cannot read ({e.strerror})") from None
    too_large = f"{path}: larger than {_size_text(MAX_FILE_BYTES)}: not a results file"
    try:
        info = os.fstat(fd)
        if not stat.S_ISREG(info.st_mode):
            raise ResultsError(f"{path}: not a regular file (a folder, device or FIFO): give a "
                               "results file")
        if info.st_size > MAX_FILE_BYTES:
            raise ResultsError(too_large)
        with open(fd, "rb", closefd=False) as f:
            data = f.read(MAX_FILE_BYTES + 1)  # bounded even if the file grows meanwhile
    except OSError as e:
        raise ResultsError(f"{path}: cannot read ({e.strerror})") from None
    finally:
        os.close(fd)
    if len(data) > MAX_FILE_BYTES:
        raise ResultsError(too_large)
    return data


def _unxz(path, data):
    """Decompresses .xz data (one stream or several, as xz concatenates them),
    never past MAX_JSON_BYTES: an xz bomb is refused after that much output,
    not after the memory."""
    out, size = [], 0
    while data:
        d = lzma.LZMADecompressor()
        chunk = d.decompress(data, max_length=MAX_JSON_BYTES - size + 1)
        size += len(chunk)
        if size > MAX_JSON_BYTES:
            raise ResultsError(f"{path}: decompresses to more than {_size_text(MAX_JSON_BYTES)}: "
                               "not a results file")
        if not d.eof:
            raise ResultsError(f"{path}: the .xz data is truncated")
        out.append(chunk)
        data = d.unused_data.lstrip(b"\0")  # stream padding, then maybe another stream
    return b"".join(out)


def read_text(path):
    """The JSON text of a results file (.json, or .json.xz), bounded in size."""
    data = _read_bounded(path)
    try:
        if str(path).endswith(".xz"):
            data = _unxz(path, data)
        elif len(data) > MAX_JSON_BYTES:
            raise ResultsError(f"{path}: larger than {_size_text(MAX_JSON_BYTES)}: not a results file")
        return data.decode("utf-8")
    except (lzma.LZMAError, UnicodeDecodeError) as e:
        raise ResultsError(f"{path}: cannot read ({e})") from None


def _is_number(x):
    return isinstance(x, (int, float)) and not isinstance(x, bool)


def _is_text(x):
    """A string that can be written out as UTF-8 (JSON's \\ud800 escapes
    give lone surrogates, which cannot)."""
    if not isinstance(x, str):
        return False
    try:
        x.encode("utf-8")
    except UnicodeEncodeError:
        return False
    return True


def figure(entry, field, may_be_zero, where):
    """A figure the tools use: a finite number in range, > 0 (>= 0 for counts)."""
    value = entry[field]
    if not _is_number(value):
        raise ResultsError(f"{where}: {field} is {shown(repr(value), 40)}, not a number")
    try:
        value = float(value)
    except OverflowError:  # an integer of hundreds of digits
        value = math.inf
    if not math.isfinite(value):
        raise ResultsError(f"{where}: {field} is {value}, not a finite number")
    if value < 0 or (value == 0 and not may_be_zero):
        raise ResultsError(f"{where}: {field} is {value:g}; it must be "
                           f"{'>= 0' if may_be_zero else '> 0'}")
    if value > FIGURE_MAX or 0 < value < FIGURE_MIN:
        raise ResultsError(f"{where}: {field} is {value:g}, outside {FIGURE_MIN:g}..{FIGURE_MAX:g}: "
                           "no real figure is")
    return value


def _whole(entry, field, low, where, default=None):
    """An integer field (not a bool, not a float), at least `low`."""
    if field not in entry:
        return default
    value = entry[field]
    if not isinstance(value, int) or isinstance(value, bool) or not low <= value < 1 << 63:
        raise ResultsError(f"{where}: {field} is {shown(repr(value), 40)}, not a whole number >= {low}")
    return value


def check_context(path, context):
    """The context is an object; its text can be written out (the report
    shows it); the fields the tools read as text are strings."""
    if not isinstance(context, dict):
        raise ResultsError(f"{path}: 'context' is not an object")
    for key, value in context.items():
        if not _is_text(key) or (isinstance(value, str) and not _is_text(value)):
            raise ResultsError(f"{path}: context field '{shown(key)}' is not valid Unicode text")
        if (key in CONTEXT_TEXT or key.startswith("backend.")) and not isinstance(value, str):
            raise ResultsError(f"{path}: context field '{shown(key)}' is {shown(value, 40)}, "
                               "not a string")
    _whole(context, "num_cpus", 0, f"{path}: context")


def parse_json(path, text):
    try:
        return json.loads(text)
    except json.JSONDecodeError as e:
        hint = " (truncated: was the run interrupted?)" if e.pos >= len(text.rstrip()) - 1 else ""
        raise ResultsError(f"{path}: not valid JSON at line {e.lineno}{hint}") from None
    except RecursionError:
        raise ResultsError(f"{path}: JSON nested too deeply: not a results file") from None
    except ValueError as e:  # an integer of more digits than Python converts
        raise ResultsError(f"{path}: not usable JSON ({shown(str(e), 80)})") from None


def rounds_of(path, context):
    """The paired design's round count (context 'rounds')."""
    value = context.get("rounds")
    if not isinstance(value, str) or not re.fullmatch(r"[1-9][0-9]{0,3}", value):
        raise ResultsError(f"{path}: benchmarks name rounds, but the context's 'rounds' is "
                           f"{shown(repr(value), 40)}, not a count from 1 to 9999")
    return int(value)


def load_run(path, samples=True):
    """The run in a results file; with `samples`, its figures formed from the
    per-sample record beside it, where there is one (sampled.py)."""
    run = run_from_doc(path, parse_json(path, read_text(path)))
    if samples:
        from . import sampled  # sampled reads gbench's names: imported late
        sampled.apply(run)
    return run


def run_from_doc(path, doc):
    """The Run of a parsed results document, checked as load_run checks a file."""
    if not isinstance(doc, dict) or "benchmarks" not in doc or "context" not in doc:
        raise ResultsError(f"{path}: not Google Benchmark JSON (no 'context' and 'benchmarks')")
    if not isinstance(doc["benchmarks"], list):
        raise ResultsError(f"{path}: 'benchmarks' is not a list")
    check_context(path, doc["context"])
    benchmarks = OrderedDict()
    entries = [e for e in doc["benchmarks"] if isinstance(e, dict)]
    if len(entries) != len(doc["benchmarks"]):
        raise ResultsError(f"{path}: a benchmark entry is not an object")
    for entry in entries:
        if "name" not in entry:
            raise ResultsError(f"{path}: a benchmark entry has no name")
        for field in ("name", "run_name", "run_type", "error_message", "time_unit"):
            value = entry.get(field, "")
            if not isinstance(value, str):
                raise ResultsError(f"{path}: a benchmark's {field} is {shown(value, 40)}, not a string")
            if not _is_text(value):
                raise ResultsError(f"{path}: a benchmark's {field} '{shown(value)}' is not valid "
                                   "Unicode text")
    # Repetitions in the order they ran (interleaved runs report each
    # benchmark's repetitions together, but say which came first).
    def order(entry):
        name = entry.get("run_name", entry.get("name"))
        found = re.search(r"/round:([0-9]{1,6})(?=/|$)", name) if isinstance(name, str) else None
        if found:
            return int(found.group(1)) - 1
        index = entry.get("repetition_index", 0)
        return index if isinstance(index, int) else 0
    seen = {}  # run_name -> (repetitions, repetition indices read)
    for entry in sorted(entries, key=order):
        if entry.get("run_type", "iteration") != "iteration":
            continue  # aggregates are recomputed from the samples
        # Google Benchmark names a fixed iteration count in the name (the
        # paired design sets it): its decoration, like /real_time.
        run_name = ITERATIONS.sub("", entry.get("run_name", entry["name"]))
        try:
            scenario, params = parse_name(run_name)
        except ResultsError as e:
            raise ResultsError(f"{path}: {e}") from None
        where = f"{path}: benchmark '{run_name}'"
        # Each repetition once: a name repeated beyond its repetitions (a
        # backend given twice registers every benchmark twice) would
        # otherwise count as extra samples and fake significance. Google
        # Benchmark numbers each iteration run's repetition, interrupted
        # ones too; without a number an entry is a run's only repetition.
        index = _whole(entry, "repetition_index", 0, where, default=0)
        repetitions = _whole(entry, "repetitions", 1, where)
        if "round" in params:
            # The paired design: round R of a benchmark is its repetition R.
            round_name = run_name
            index, repetitions = int(params.pop("round")) - 1, rounds_of(path, doc["context"])
            run_name = re.sub(r"/round:[0-9]+(?=/|$)", "", run_name)
            where = f"{path}: benchmark '{round_name}'"
        expected, indices = seen.setdefault(run_name, (repetitions, set()))
        if repetitions != expected:
            raise ResultsError(f"{where}: its entries disagree on repetitions ({expected} and "
                               f"{repetitions})")
        if index in indices:
            raise ResultsError(f"{where} appears more than once (repetition {index} twice): each "
                               "benchmark must be in a run once (was a backend given twice?)")
        if repetitions is not None and index >= repetitions:
            raise ResultsError(f"{where}: repetition_index {index} is beyond its {repetitions} "
                               "repetitions")
        indices.add(index)
        b = benchmarks.get(run_name)
        if b is None:
            threads = int(params.get("threads", _whole(entry, "threads", 1, where, default=1)))
            b = benchmarks[run_name] = Benchmark(run_name, scenario, params, threads)
        if entry.get("error_occurred"):
            message = entry.get("error_message", "error")
            if message == INTERRUPTED:
                b.interrupted += 1  # a repetition Ctrl-C skipped: the others stand
            else:
                b.error = message
            continue
        if "real_time" not in entry:
            raise ResultsError(f"{where} has no real_time")
        unit = entry.get("time_unit", "ns")
        if unit not in _TIME_UNIT_NS:
            raise ResultsError(f"{where}: time_unit '{shown(unit, 20)}' is not one of "
                               f"{', '.join(_TIME_UNIT_NS)}")
        time_ns = figure(entry, "real_time", False, where) * _TIME_UNIT_NS[unit]
        if time_ns > FIGURE_MAX:
            raise ResultsError(f"{where}: real_time is {time_ns:g} ns, over {FIGURE_MAX:g}: "
                               "no real figure is")
        b.samples["time_ns"].append(time_ns)
        b.iterations.append(_whole(entry, "iterations", 1, where, default=0))
        b.indices.append(index)
        b.run_names.append(ITERATIONS.sub("", entry.get("run_name", entry["name"])))
        for metric in METRICS[1:]:
            if metric in entry:
                b.samples[metric].append(figure(entry, metric, metric in MAY_BE_ZERO, where))
    for b in benchmarks.values():
        if b.error is None and not b.samples["time_ns"]:
            b.error = INTERRUPTED  # every repetition was skipped
    if not benchmarks:
        raise ResultsError(f"{path}: the run has no benchmark results (empty or only aggregates)")
    return Run(str(path), doc["context"], benchmarks)
