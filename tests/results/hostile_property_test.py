#!/usr/bin/python3
"""Property test of the results tools on generated hostile results files
(issue 15): random JSON trees, and slices of the golden runs mutated (wrong
types, NaN, Infinity, negatives, zeros, huge and tiny numbers, duplicated or
missing entries and fields, hostile names and context, deep nesting, non-UTF-8
bytes, truncation, .xz). Every command of the CLI (its main(), in this
process: a new interpreter per command would allow a few examples only) is
run on each file and must either refuse it (exit 2, one line
"cryptobench-results: ...") or give a valid output: the JMH JSON parses with
a strict parser (no NaN or Infinity), the HTML report is written as UTF-8,
no figure shows as nan or inf, and what merge and gotest write loads as a
run.

Deterministic (derandomize: the same examples on every run) and about a
minute. Needs Debian's python3-hypothesis (tools/install-deps installs it);
without it the test exits 77, which CTest reports as skipped.
"""
import atexit
import contextlib
import copy
import io
import json
import lzma
import os
import re
import runpy
import shutil
import sys
import tempfile
import unittest

try:
    from hypothesis import HealthCheck, given, settings, strategies as st
    from hypothesis.configuration import set_hypothesis_home_dir
except ImportError:
    print("SKIPPED: python3-hypothesis is not installed (apt-get install python3-hypothesis, "
          "or tools/install-deps)")
    sys.exit(77)

# Hypothesis caches Unicode tables in ./.hypothesis: not in the source tree.
HYPOTHESIS_HOME = tempfile.mkdtemp(prefix="cryptobench-hypothesis-")
atexit.register(shutil.rmtree, HYPOTHESIS_HOME, True)
set_hypothesis_home_dir(HYPOTHESIS_HOME)

HERE = os.path.dirname(os.path.abspath(__file__))
ROOT = os.path.dirname(os.path.dirname(HERE))
TOOLS = os.path.join(ROOT, "tools", "results")
CLI = os.path.join(TOOLS, "cryptobench-results")
sys.path.insert(0, TOOLS)
GOLDEN = os.path.join(HERE, "golden")
BASES = ["run_openssl_aesni.json", "run_bounds.json", "run_keys_openssl_aesni.json"]
EXAMPLES = int(os.environ.get("CRYPTOBENCH_PROPERTY_EXAMPLES", "300"))

from cryptobench_results import gbench  # noqa: E402

# The CLI's functions, loaded once (not run as __main__).
CLI_MAIN = runpy.run_path(CLI, run_name="cryptobench_results_cli")["main"]
# A figure printed as nan or inf is a misleading output, whatever the exit code.
NON_FINITE = re.compile(r"(?<![\w:.+/-])[-+]?(nan|inf)(?![\w:/+-])", re.IGNORECASE)
SENTINEL = "\u2063deep\u2063"  # replaced by deeply nested brackets in the text


def golden(name):
    with open(os.path.join(GOLDEN, name), encoding="utf-8") as f:
        return json.load(f)


DOCS = {name: golden(name) for name in BASES}

FIELDS = ["name", "run_name", "run_type", "repetitions", "repetition_index", "threads",
          "iterations", "real_time", "cpu_time", "time_unit", "bytes_per_second",
          "items_per_second", "ops_per_ms", "cycles_per_byte", "allocs_per_op",
          "alloc_bytes_per_op", "core_ghz", "error_occurred", "error_message", "family_index"]
CONTEXT_FIELDS = ["aes_limits", "core_clock_ghz", "host_name", "num_cpus", "cpu_model", "cpu_flags",
                  "cpu_mask", "library_version", "cryptobench_suite", "backend.openssl.library",
                  "backend.aesni.library", "backend.aesni.register_bits", "backend.aesni.batch_lanes",
                  "backend.openssl.register_bits", "note"]
PARAMS = ["backend", "cipher", "op", "size", "codec", "pool", "key", "threads", "messages"]

SPECIAL_NUMBERS = st.sampled_from([0, -0.0, -1, 1, 1e-300, 5e-324, 1e300, 1.7e308, 2 ** 64,
                                   10 ** 400, float("nan"), float("inf"), float("-inf")])
TOKENS = st.sampled_from(["", "0", "-1", "1", "16", "99999999999999", "1e3", "x", "a b", "a=b",
                          "nan", "\u00e9", "\n", "\ud800", "<b>", "pbkdf2-sha256-x",
                          "pbkdf2-sha256-99999999999", "aes-128", "aes-1-ecb", "set-key",
                          "encrypt", "none", "on", "cached"])
SCALARS = st.one_of(st.none(), st.booleans(), st.integers(-2 ** 70, 2 ** 70),
                    st.floats(allow_nan=True, allow_infinity=True), SPECIAL_NUMBERS,
                    st.text(max_size=12), TOKENS,
                    st.sampled_from(["xmm:3/2", "xmm:3/2,zmm:3/1", "xmm:nan/2", "xmm:0/2",
                                     "xmm:3/2,ymm:1e-300/1", "ns", "us", "s", "iteration",
                                     "aggregate", "not run: the run was interrupted", SENTINEL]))
TREES = st.recursive(SCALARS, lambda children: st.one_of(
    st.lists(children, max_size=4), st.dictionaries(st.text(max_size=8), children, max_size=4)),
    max_leaves=12)
VALUES = st.one_of(SCALARS, TREES)


@st.composite
def mutated_run(draw):
    """A slice of a golden run (a few benchmarks, every repetition), mutated."""
    base = DOCS[draw(st.sampled_from(BASES))]
    names = list(dict.fromkeys(b["run_name"] for b in base["benchmarks"]))
    keep = set(draw(st.lists(st.sampled_from(names), min_size=1, max_size=6, unique=True)))
    doc = {"context": copy.deepcopy(base["context"]),
           "benchmarks": [copy.deepcopy(b) for b in base["benchmarks"] if b["run_name"] in keep]}
    entries = doc["benchmarks"]
    for _ in range(draw(st.integers(0, 3))):
        kind = draw(st.sampled_from(["set"] * 8 + ["delete"] * 2 + ["duplicate"] * 2 +
                                    ["rename"] * 4 + ["context"] * 3 + ["top"]))
        entry = entries[draw(st.integers(0, len(entries) - 1))] if entries else {}
        if kind == "set":
            entry[draw(st.sampled_from(FIELDS))] = draw(VALUES)
        elif kind == "delete":
            entry.pop(draw(st.sampled_from(FIELDS)), None)
        elif kind == "duplicate" and entries:
            entries.append(copy.deepcopy(entry))
        elif kind == "rename" and isinstance(entry.get("run_name"), str):
            # One parameter of one benchmark, in every one of its entries.
            old = entry["run_name"]
            key, value = draw(st.sampled_from(PARAMS)), draw(TOKENS)
            new = re.sub(rf"(^|/){key}:[^/]*", lambda m: f"{m.group(1)}{key}:{value}", old)
            if new == old:
                new = f"{old}/{key}:{value}"
            for e in entries:
                if e.get("run_name") == old:
                    e["run_name"] = e["name"] = new
        elif kind == "context":
            if isinstance(doc.get("context"), dict):
                doc["context"][draw(st.sampled_from(CONTEXT_FIELDS))] = draw(VALUES)
        elif kind == "top":
            doc[draw(st.sampled_from(["context", "benchmarks"]))] = draw(VALUES)
    return doc


@st.composite
def hostile_file(draw):
    """(suffix, bytes) of a results file."""
    source = draw(st.sampled_from(["mutated"] * 8 + ["tree", "envelope"]))
    if source == "mutated":
        doc = draw(mutated_run())
    elif source == "tree":
        doc = draw(TREES)
    else:  # the right top level around random entries
        doc = {"context": draw(TREES), "benchmarks": draw(st.lists(TREES, max_size=4))}
    text = json.dumps(doc)  # NaN and Infinity as Python and Google Benchmark write them
    depth = draw(st.sampled_from([0] * 12 + [50, 999, 3000, 100000]))
    text = text.replace(json.dumps(SENTINEL), "[" * depth + "]" * depth)
    if depth and draw(st.integers(0, 3)) == 0:
        text = "[" * depth + text + "]" * depth
    data = text.encode("utf-8")
    damage = draw(st.sampled_from(["none"] * 12 + ["truncate", "bytes"]))
    if damage == "truncate":
        data = data[:draw(st.integers(0, len(data)))]
    elif damage == "bytes":
        at = draw(st.integers(0, len(data)))
        data = data[:at] + draw(st.sampled_from([b"\xff", b"\xc3", b"\xed\xa0\x80", b"\0"])) + data[at:]
    if draw(st.integers(0, 6)) == 0:
        data = lzma.compress(data, preset=0)
        if draw(st.integers(0, 3)) == 0:
            data = data[:draw(st.integers(0, len(data)))]
        return ".json.xz", data
    return ".json", data


def run_main(*args):
    """The CLI's main() in this process: (exit code, stdout, stderr)."""
    out = io.TextIOWrapper(io.BytesIO(), encoding="utf-8")
    err = io.TextIOWrapper(io.BytesIO(), encoding="utf-8")
    argv = sys.argv
    sys.argv = ["cryptobench-results", *args]
    try:
        with contextlib.redirect_stdout(out), contextlib.redirect_stderr(err):
            code = CLI_MAIN()
    finally:
        sys.argv = argv
    out.seek(0), err.seek(0)
    return code, out.read(), err.read()


class HostileFilesProperty(unittest.TestCase):
    def setUp(self):
        # main() re-raises unexpected exceptions: hypothesis shows where.
        os.environ["CRYPTOBENCH_RESULTS_TRACEBACK"] = "1"
        self._dir = tempfile.TemporaryDirectory()

    def tearDown(self):
        self._dir.cleanup()

    def check(self, args, code, out, err, output=None):
        what = " ".join(a if len(a) < 80 else a[:80] + "..." for a in args)
        if code == 2:
            lines = err.splitlines()
            self.assertEqual(len(lines), 1, f"{what}: not one line: {err!r}")
            self.assertTrue(lines[0].startswith("cryptobench-results: "), f"{what}: {err!r}")
            return
        if code == 1 and args[0] == "bounds":  # a figure over the hardware bound: said
            self.assertIn("faster than the hardware bound", err, what)
        else:
            self.assertEqual(code, 0, f"{what}: exit {code}: {err!r}")
        text = out
        if output:
            with open(output, encoding="utf-8") as f:  # strict UTF-8
                text = f.read()
        self.assertIsNone(NON_FINITE.search(text), f"{what}: a non-finite figure in {text[:2000]}")
        if args[0] == "jmh":
            results = json.loads(text, parse_constant=lambda c: self.fail(f"{what}: bare {c}"))
            self.assertIsInstance(results, list)
        if args[0] == "report":
            self.assertTrue(text.startswith("<!DOCTYPE html>") and text.endswith("</html>\n"), what)

    def check_run_output(self, args, code, err, output):
        """merge and gotest: refused in one line, or a run every command reads
        (merge keeps its inputs' entries as written: an aggregate's NaN too)."""
        what = " ".join(a if len(a) < 80 else a[:80] + "..." for a in args)
        if code == 2:
            lines = err.splitlines()
            self.assertEqual(len(lines), 1, f"{what}: not one line: {err!r}")
            self.assertTrue(lines[0].startswith("cryptobench-results: "), f"{what}: {err!r}")
            return
        self.assertEqual(code, 0, f"{what}: exit {code}: {err!r}")
        gbench.load_run(output)

    @settings(max_examples=EXAMPLES, deadline=None, derandomize=True, database=None,
              suppress_health_check=[HealthCheck.too_slow, HealthCheck.data_too_large,
                                     HealthCheck.filter_too_much])
    @given(hostile_file(), st.sampled_from(BASES))
    def test_every_command_refuses_or_gives_a_valid_output(self, generated, other):
        suffix, data = generated
        path = os.path.join(self._dir.name, "run" + suffix)
        with open(path, "wb") as f:
            f.write(data)
        report = os.path.join(self._dir.name, "report.html")
        if os.path.exists(report):
            os.unlink(report)
        # The names ratio picks: the file's first two benchmark names, if any.
        names = re.findall(rb'"run_name": "([A-Za-z0-9_.:+/-]+)"', data)[:2] or [b"openssl", b"aesni"]
        a, b = (re.escape(n.decode()) + "$" for n in (names * 2)[:2])
        commands = [(["select", path], None), (["select", path, "--markdown"], None),
                    (["jmh", path], None), (["report", path, "-o", report], report),
                    (["bounds", path], None), (["bounds", path, "--markdown"], None),
                    (["compare", os.path.join(GOLDEN, other), path], None),
                    (["compare", path, path, "--markdown"], None),
                    (["ratio", path, a, b, "--metric", "time_ns"], None)]
        for args, output in commands:
            code, out, err = run_main(*args)
            self.check(args, code, out, err, output if code == 0 else None)
        # The commands that write runs: merge (with a golden run) and gotest.
        written = os.path.join(self._dir.name, "written.json")
        for args in (["merge", os.path.join(GOLDEN, other), path, "-o", written],
                     ["gotest", path, "-o", written]):
            if os.path.exists(written):
                os.unlink(written)
            code, out, err = run_main(*args)
            self.check_run_output(args, code, err, written)


if __name__ == "__main__":
    unittest.main()
