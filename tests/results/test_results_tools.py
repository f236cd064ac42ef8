"""Tests of the results tools (tools/results) on small committed golden runs:

- golden/run_openssl_aesni.json: a real run (openssl and aesni, 5 repetitions);
- golden/run_openssl_without_aesni.json: the same benchmarks for openssl with
  AES-NI masked (OPENSSL_ia32cap), a genuinely slower build;
- golden/*.expected.*: the outputs the tools must reproduce exactly.

Run: /usr/bin/python3 -m unittest discover -s tests/results
Set CRYPTOBENCH_UPDATE_GOLDEN=1 to rewrite the expected outputs (then review
the diff before committing).
"""
import copy
import json
import math
import os
import subprocess
import sys
import tempfile
import unittest

HERE = os.path.dirname(os.path.abspath(__file__))
ROOT = os.path.dirname(os.path.dirname(HERE))
TOOLS = os.path.join(ROOT, "tools", "results")
sys.path.insert(0, TOOLS)

from cryptobench_results import bounds, compare, gbench, jmh, ratio, report, stats  # noqa: E402
from cryptobench_results import select as selection  # noqa: E402

GOLDEN = os.path.join(HERE, "golden")
FAST = os.path.join(GOLDEN, "run_openssl_aesni.json")
SLOW = os.path.join(GOLDEN, "run_openssl_without_aesni.json")
KEYS = os.path.join(GOLDEN, "run_keys_openssl_aesni.json")
BOUNDS = os.path.join(GOLDEN, "run_bounds.json")
CLI = os.path.join(TOOLS, "cryptobench-results")
UPDATE = os.environ.get("CRYPTOBENCH_UPDATE_GOLDEN") == "1"


def golden_check(test, name, actual):
    path = os.path.join(GOLDEN, name)
    if UPDATE:
        with open(path, "w", encoding="utf-8") as f:
            f.write(actual)
    with open(path, encoding="utf-8") as f:
        test.assertEqual(actual, f.read(), f"output differs from {name}")


def run_cli(*args):
    return subprocess.run([sys.executable, CLI, *args], capture_output=True, text=True)


def write_json(directory, name, doc):
    path = os.path.join(directory, name)
    with open(path, "w") as f:
        json.dump(doc, f)
    return path


class StatsTest(unittest.TestCase):
    def test_student_t_quantiles(self):
        # Reference values from printed t tables.
        self.assertAlmostEqual(stats.student_t_quantile(0.975, 10), 2.228, places=3)
        self.assertAlmostEqual(stats.student_t_quantile(0.9995, 4), 8.610, places=3)
        self.assertAlmostEqual(stats.student_t_quantile(0.95, 1), 6.314, places=3)

    def test_ci_half_width(self):
        self.assertTrue(math.isnan(stats.ci_half_width([1.0])))
        # n=4, sd=1.2910, t(0.9995, 3) = 12.924: 12.924 * 1.2910 / 2
        self.assertAlmostEqual(stats.ci_half_width([1, 2, 3, 4]), 8.342, places=2)

    def test_mann_whitney_exact(self):
        self.assertAlmostEqual(stats.mann_whitney([1, 2, 3, 4, 5], [6, 7, 8, 9, 10])[1], 2 / 252)
        self.assertAlmostEqual(stats.mann_whitney([1, 2, 3], [4, 5, 6])[1], 0.1)
        # Interleaved samples: no evidence of a difference.
        self.assertAlmostEqual(stats.mann_whitney([1, 3, 5, 7], [2, 4, 6, 8])[1], 0.6857, places=3)

    def test_mann_whitney_ties_and_identical(self):
        self.assertEqual(stats.mann_whitney([0] * 5, [0] * 5)[1], 1.0)
        u, p, method = stats.mann_whitney([0] * 5, [1] * 5)
        self.assertEqual(method, "normal")
        self.assertLess(p, 0.05)

    def test_min_achievable_p(self):
        self.assertEqual(stats.min_achievable_p(3, 3), 0.1)
        self.assertLess(stats.min_achievable_p(4, 4), 0.05)


class LoaderTest(unittest.TestCase):
    def test_reads_golden_run(self):
        run = gbench.load_run(FAST)
        self.assertEqual(run.repetitions, 5)
        b = next(iter(run.benchmarks.values()))
        self.assertEqual(set(b.params), {"backend", "cipher", "op", "size", "codec", "pool", "key", "threads"})
        self.assertEqual(len(b.samples["time_ns"]), 5)

    def test_bad_inputs_are_clear_errors(self):
        with open(FAST) as f:
            text = f.read()
        with tempfile.TemporaryDirectory() as d:
            truncated = os.path.join(d, "truncated.json")
            with open(truncated, "w") as f:
                f.write(text[: len(text) // 2])
            with self.assertRaisesRegex(gbench.ResultsError, "truncated"):
                gbench.load_run(truncated)
            empty = write_json(d, "empty.json", {"context": {}, "benchmarks": []})
            with self.assertRaisesRegex(gbench.ResultsError, "no benchmark results"):
                gbench.load_run(empty)
            foreign = write_json(d, "foreign.json", [1, 2])
            with self.assertRaisesRegex(gbench.ResultsError, "not Google Benchmark JSON"):
                gbench.load_run(foreign)
            with self.assertRaisesRegex(gbench.ResultsError, "no such file"):
                gbench.load_run(os.path.join(d, "missing.json"))
            alien = write_json(d, "alien.json", {"context": {}, "benchmarks": [
                {"name": "BM_Foo/64", "run_type": "iteration", "real_time": 1, "time_unit": "ns"}]})
            with self.assertRaisesRegex(gbench.ResultsError, "not key:value"):
                gbench.load_run(alien)

    def test_unknown_fields_are_ignored_and_errors_recorded(self):
        doc = json.load(open(FAST))
        doc["benchmarks"][0]["some_future_field"] = {"x": 1}
        doc["unknown_top_level"] = True
        doc["benchmarks"][1] = dict(doc["benchmarks"][1], error_occurred=True,
                                    error_message="verification failed")
        with tempfile.TemporaryDirectory() as d:
            run = gbench.load_run(write_json(d, "x.json", doc))
        errors = [b for b in run.benchmarks.values() if b.error]
        self.assertEqual(len(errors), 1)
        self.assertEqual(errors[0].error, "verification failed")


def validate_jmh(test, results):
    """The rules of the JMH Visualizer 0.9.6, from the project's jmh-format notes."""
    test.assertIsInstance(results, list)
    classes = {}
    for r in results:
        test.assertIn(".", r["benchmark"])
        cls, method = r["benchmark"].rsplit(".", 1)
        test.assertTrue(method)
        test.assertIn(r["mode"], ("thrpt", "avgt", "sample", "ss"))
        for k, v in r["params"].items():
            test.assertIsInstance(v, str)
            for bad in (" ", "="):
                test.assertNotIn(bad, k)
                test.assertNotIn(bad, v)
        for metric in [r["primaryMetric"], *r["secondaryMetrics"].values()]:
            test.assertIsInstance(metric["score"], (int, float))
            test.assertTrue(math.isfinite(metric["score"]))
            test.assertTrue(metric["scoreUnit"])
            test.assertTrue(metric["scoreError"] == "NaN" or math.isfinite(metric["scoreError"]))
            test.assertEqual(len(metric["rawData"]), 1)
            test.assertTrue(metric["rawData"][0])
            test.assertTrue(all(isinstance(x, (int, float)) and math.isfinite(x)
                                for x in metric["rawData"][0]))
        shape = (tuple(r["params"]), tuple(sorted(r["secondaryMetrics"])), r["mode"])
        test.assertEqual(classes.setdefault(cls, shape), shape, f"class {cls} mixes shapes")
        for name in r["secondaryMetrics"]:
            test.assertTrue(name.startswith("\u00b7"), name)
    return classes


class JmhTest(unittest.TestCase):
    def test_golden_export(self):
        results = jmh.export(gbench.load_run(FAST))
        golden_check(self, "run_openssl_aesni.expected.jmh.json",
                     json.dumps(results, indent=1, ensure_ascii=False) + "\n")

    def test_follows_visualizer_rules(self):
        results = jmh.export(gbench.load_run(FAST))
        classes = validate_jmh(self, results)
        self.assertIn("·gc.alloc.rate.norm", results[0]["secondaryMetrics"])
        self.assertEqual(results[0]["secondaryMetrics"]["·gc.alloc.rate.norm"]["scoreUnit"], "B/op")
        # Backends side by side: each class holds both backends.
        for cls in classes:
            backends = {r["params"]["backend"] for r in results if r["benchmark"].startswith(cls + ".")}
            self.assertEqual(backends, {"openssl", "aesni"}, cls)
        # The 99.9% half-width from 5 repetitions is a number.
        self.assertIsInstance(results[0]["primaryMetric"]["scoreError"], float)

    def test_two_runs_share_names(self):
        fast = {r["benchmark"] + json.dumps(r["params"]) for r in jmh.export(gbench.load_run(FAST))}
        slow = {r["benchmark"] + json.dumps(r["params"]) for r in jmh.export(gbench.load_run(SLOW))}
        self.assertTrue(slow)
        self.assertLessEqual(slow, fast, "the same benchmark must export to the same JMH key")


class CompareTest(unittest.TestCase):
    def test_self_comparison_finds_no_change(self):
        run = gbench.load_run(FAST)
        rows, summary, warnings = compare.compare(run, run)
        self.assertEqual(warnings, [])
        self.assertTrue(rows)
        self.assertTrue(all(r.verdict == "same" for r in rows))
        self.assertAlmostEqual(summary["time_ns"]["geomean_ratio"], 1.0)

    def test_slowed_build_is_significantly_worse(self):
        rows, summary, _ = compare.compare(gbench.load_run(FAST), gbench.load_run(SLOW))
        time_rows = [r for r in rows if r.metric == "time_ns"]
        self.assertEqual(len(time_rows), 15)
        for r in time_rows:
            self.assertEqual(r.verdict, "worse", r.name)
            self.assertLess(r.p, 0.05)
            self.assertGreater(r.ci_low, 0)
        self.assertGreater(summary["time_ns"]["geomean_ratio"], 1.2)

    def test_backend_pair_compares_libraries(self):
        run = gbench.load_run(FAST)
        rows, _, _ = compare.compare(run, run, ["bytes_per_second"], backend_pair=("openssl", "aesni"))
        self.assertEqual(len(rows), 15)
        self.assertTrue(all("/backend:aesni/" in r.name for r in rows))

    def test_too_few_repetitions_warns(self):
        doc = json.load(open(FAST))
        doc["benchmarks"] = [b for b in doc["benchmarks"] if b["repetition_index"] < 3]
        with tempfile.TemporaryDirectory() as d:
            run = gbench.load_run(write_json(d, "three.json", doc))
        rows, _, warnings = compare.compare(run, run)
        self.assertTrue(any("too few repetitions" in w for w in warnings))
        self.assertTrue(all(r.verdict == "n/a" for r in rows))

    def test_golden_output(self):
        rows, summary, warnings = compare.compare(gbench.load_run(FAST), gbench.load_run(SLOW),
                                                  ["time_ns", "allocs_per_op"])
        golden_check(self, "compare_fast_slow.expected.md",
                     compare.render(rows, summary, warnings, "base", "new", markdown=True) + "\n")


class SelectTest(unittest.TestCase):
    def test_winner_per_class_with_margin(self):
        sels = selection.select(gbench.load_run(FAST))
        self.assertTrue(sels)
        for s in sels:
            self.assertIn(s.winner, ("openssl", "aesni"))
            self.assertEqual(len(s.ranking), 2)
            self.assertGreaterEqual(s.margin, 0)
            self.assertIn(s.significant, (True, False))
            self.assertIn(s.winner, s.recommendation())

    def test_golden_output(self):
        golden_check(self, "select_fast.expected.txt",
                     selection.render(selection.select(gbench.load_run(FAST))) + "\n")


EXPECTED_CHARTS = ["thread-sweep-pool-off", "thread-sweep-pool-on", "size-scaling-encrypt",
                   "size-scaling-decrypt", "size-scaling-roundtrip", "codec-pool", "allocations"]


class ReportTest(unittest.TestCase):
    def test_every_chart_and_table(self):
        html = report.render(gbench.load_run(FAST))
        for chart in EXPECTED_CHARTS:
            self.assertIn(f'<figure data-chart="{chart}">', html)
        for heading in ("Context", "Cycles per byte", "Library selection", "Allocations per operation"):
            self.assertIn(f"<h2>{heading}</h2>", html)
        self.assertNotIn("http://", html.replace('xmlns="http://www.w3.org/2000/svg"', ""))
        self.assertNotIn("https://", html)
        self.assertNotIn("NaN", html)


class KeyHandlingReportTest(unittest.TestCase):
    def test_every_key_mode_with_its_ratio_to_cached(self):
        html = report.render(gbench.load_run(KEYS))
        section = html[html.index("<h2>Key handling</h2>"):html.index("<h2>Library selection</h2>")]
        for key in ("cached", "per-op", "hmac-sha256", "pbkdf2-sha256-1000", "pbkdf2-sha256-10000"):
            self.assertIn(f"<th>{key}</th>", section)
        self.assertIn("(x1)", section)           # cached against itself
        self.assertEqual(section.count("<td class='l'>openssl</td>"), 2)  # data and key setup tables
        self.assertIn("key schedules), time per setup", section)

    def test_absent_section_says_so(self):
        html = report.render(gbench.load_run(FAST))
        self.assertIn("Not in this run (suite seed002-keys)", html)


class BoundsTest(unittest.TestCase):
    def test_every_figure_has_its_bound(self):
        run = gbench.load_run(BOUNDS)
        rows = bounds.rows(run)
        # 3 backends x (ECB enc/dec, CBC enc/dec, 2 batches), AES-128.
        self.assertEqual(len(rows), 18)
        by = {(r["backend"], r["cipher"], r["op"], r["size"]): r for r in rows}
        # CBC encryption: 10 rounds x 3 cycles / 16 bytes, plus the padding block.
        self.assertAlmostEqual(by["aesni", "aes-128-cbc", "encrypt", 16384]["bound"],
                               30 / 16 * 1025 / 1024)
        # Parallel modes at each implementation's width; the absolute bound is VAES's.
        self.assertAlmostEqual(by["openssl", "aes-128-ecb", "decrypt", 16384]["bound"],
                               10 / 2 / 16 * 1025 / 1024)
        self.assertAlmostEqual(by["vaes512", "aes-128-cbc", "decrypt", 16384]["bound"],
                               10 / 4 / 16 * 1025 / 1024)
        self.assertEqual(by["openssl", "aes-128-ecb", "decrypt", 16384]["absolute"],
                         by["vaes512", "aes-128-cbc", "decrypt", 16384]["bound"])
        # A library's batch is a loop of chains; the hand-written ones interleave.
        self.assertIn("serial", by["openssl", "aes-128-cbc", "encrypt-batch", 1024]["kind"])
        self.assertIn("zmm", by["vaes512", "aes-128-cbc", "encrypt-batch", 1024]["kind"])
        self.assertFalse(any(r["above"] for r in rows))
        # The absolute bound is the widest throughput for every figure.
        self.assertTrue(all(r["absolute"] <= r["bound"] for r in rows))

    def test_a_chain_beaten_by_overlapping_operations_is_said_not_flagged(self):
        doc = json.load(open(BOUNDS))
        for b in doc["benchmarks"]:
            if "backend:aesni/cipher:aes-128-cbc/op:encrypt/" in b["name"]:
                b["cycles_per_byte"] = 1.5  # under the chain's 1.877, over the 0.156 floor
        with tempfile.TemporaryDirectory() as d:
            r = run_cli("bounds", write_json(d, "overlap.json", doc))
        self.assertEqual(r.returncode, 0, r.stderr)
        line = next(x for x in r.stdout.splitlines() if x.startswith("aesni") and "cbc  encrypt " in x)
        self.assertIn("beaten: short operations overlap", line)
        self.assertIn(" ok", line)

    def test_batches_are_bound_by_their_lanes(self):
        run = gbench.load_run(BOUNDS)
        rows = {(r["backend"], r["op"], r["size"]): r for r in bounds.rows(run)}
        # 16 messages: aesni's 8 lanes are throughput-bound at 128 bits; vaes512's
        # 16 lanes (4 zmm) at 4 blocks a cycle.
        self.assertIn("8 lanes, xmm: AES throughput", rows["aesni", "encrypt-batch", 1024]["kind"])
        self.assertIn("16 lanes, zmm: AES throughput",
                      rows["vaes512", "encrypt-batch", 1024]["kind"])
        self.assertAlmostEqual(rows["vaes512", "encrypt-batch", 16384]["bound"],
                               10 * 4 / (16 * 16) * 1025 / 1024)

    def test_width_and_lanes_come_from_the_structured_facts(self):
        doc = json.load(open(BOUNDS))
        # Declared facts, not code-path prose: a 256-bit backend with 4 lanes.
        doc["context"]["backend.aesni.register_bits"] = "256"
        doc["context"]["backend.aesni.batch_lanes"] = "4"
        doc["context"]["backend.openssl.register_bits"] = "0"
        doc["context"]["backend.aesni.register_bits.ecb"] = "128"  # a mode's own width
        with tempfile.TemporaryDirectory() as d:
            run = gbench.load_run(write_json(d, "facts.json", doc))
            rows = {(r["backend"], r["cipher"], r["op"], r["size"]): r for r in bounds.rows(run)}
            self.assertIn("4 lanes, ymm",
                          rows["aesni", "aes-128-cbc", "encrypt-batch", 1024]["kind"])
            self.assertAlmostEqual(rows["aesni", "aes-128-cbc", "decrypt", 16384]["bound"],
                                   10 / 4 / 16 * 1025 / 1024)
            self.assertAlmostEqual(rows["aesni", "aes-128-ecb", "decrypt", 16384]["bound"],
                                   10 / 2 / 16 * 1025 / 1024)
            self.assertIn("no AES instructions",
                          rows["openssl", "aes-128-ecb", "decrypt", 16384]["kind"])
            del doc["context"]["backend.aesni.batch_lanes"]
            r = run_cli("bounds", write_json(d, "old.json", doc))
            self.assertEqual(r.returncode, 2)
            self.assertIn("backend.aesni.register_bits / batch_lanes", r.stderr)

    def test_a_figure_faster_than_the_hardware_is_flagged(self):
        doc = json.load(open(BOUNDS))
        target = "backend:aesni/cipher:aes-128-cbc/op:encrypt/"
        for b in doc["benchmarks"]:
            if target in b["name"]:
                # 0.1 cycles/byte is 1.6 cycles a block: 4 blocks a cycle at most
                # allow 2.5 for 10 rounds.
                b["cycles_per_byte"] = 0.1
        with tempfile.TemporaryDirectory() as d:
            r = run_cli("bounds", write_json(d, "fast.json", doc))
            self.assertEqual(r.returncode, 1, r.stderr)
            flagged = [line for line in r.stdout.splitlines() if "ABOVE THE BOUND" in line]
            self.assertEqual(len(flagged), 1)
            self.assertIn("aesni", flagged[0])
            self.assertIn("1 figure(s) faster than the hardware bound", r.stderr)

    def test_runs_without_limits_are_refused(self):
        doc = json.load(open(BOUNDS))
        with tempfile.TemporaryDirectory() as d:
            del doc["context"]["aes_limits"]
            r = run_cli("bounds", write_json(d, "old.json", doc))
            self.assertEqual(r.returncode, 2)
            self.assertIn("no aes_limits context", r.stderr)
            doc["context"]["aes_limits"] = "xmm:3"
            r = run_cli("bounds", write_json(d, "bad.json", doc))
            self.assertEqual(r.returncode, 2)
            self.assertIn("malformed", r.stderr)
            r = run_cli("bounds", KEYS)  # no encrypt/decrypt at 1 thread without codec
            self.assertEqual(r.returncode, 2)

    def test_golden_output(self):
        r = run_cli("bounds", BOUNDS, "--markdown")
        self.assertEqual(r.returncode, 0, r.stderr)
        golden_check(self, "bounds.expected.md", r.stdout)


class RatioTest(unittest.TestCase):
    def test_ratio_of_medians_with_interval(self):
        run = gbench.load_run(BOUNDS)
        r = ratio.ratio(run, "backend:openssl/.*aes-128-ecb/op:encrypt/",
                        "backend:vaes512/.*aes-128-ecb/op:encrypt/", "bytes_per_second")
        a = stats.median(run.benchmarks[r["a"]].samples["bytes_per_second"])
        b = stats.median(run.benchmarks[r["b"]].samples["bytes_per_second"])
        self.assertAlmostEqual(r["ratio"], b / a)
        self.assertLessEqual(r["low"], r["ratio"])
        self.assertGreaterEqual(r["high"], r["ratio"])
        res = run_cli("ratio", BOUNDS, "openssl/.*ecb/op:decrypt/", "aesni/.*ecb/op:decrypt/",
                      "--metric", "cycles_per_byte")
        self.assertEqual(res.returncode, 0, res.stderr)
        self.assertIn("B/A = ", res.stdout)

    def test_each_side_must_be_one_benchmark(self):
        for args, message in ((["ecb/op:encrypt/", "openssl/.*ecb/op:decrypt/"], "matches 3"),
                              (["no-such", "openssl/.*ecb/op:decrypt/"], "matches 0"),
                              (["size:[", "x"], "not a valid regular expression"),
                              (["openssl/.*ecb/op:encrypt/", "aesni/.*ecb/op:encrypt/",
                                "--metric", "speed"], "unknown metric")):
            r = run_cli("ratio", BOUNDS, *args)
            self.assertEqual(r.returncode, 2, args)
            self.assertIn(message, r.stderr)


class CliTest(unittest.TestCase):
    def test_subcommands(self):
        with tempfile.TemporaryDirectory() as d:
            out = os.path.join(d, "jmh.json")
            self.assertEqual(run_cli("jmh", FAST, "-o", out).returncode, 0)
            self.assertTrue(json.load(open(out)))
            html = os.path.join(d, "r.html")
            self.assertEqual(run_cli("report", FAST, "-o", html).returncode, 0)
        r = run_cli("compare", FAST, SLOW, "--markdown")
        self.assertEqual(r.returncode, 0)
        self.assertIn("| worse |", r.stdout)
        r = run_cli("select", FAST)
        self.assertEqual(r.returncode, 0)
        self.assertIn("use ", r.stdout)

    def test_bad_input_never_replaces_good_output(self):
        with tempfile.TemporaryDirectory() as d:
            out = os.path.join(d, "jmh.json")
            with open(out, "w") as f:
                f.write("GOOD")
            truncated = os.path.join(d, "t.json")
            with open(FAST) as src, open(truncated, "w") as f:
                f.write(src.read()[:1000])
            for args in (["jmh", truncated, "-o", out], ["report", truncated, "-o", out],
                         ["compare", FAST, truncated], ["select", os.path.join(d, "none.json")],
                         ["compare", FAST, FAST, "--metrics", "speed"]):
                r = run_cli(*args)
                self.assertEqual(r.returncode, 2, args)
                self.assertEqual(len(r.stderr.strip().splitlines()), 1, r.stderr)
                self.assertTrue(r.stderr.startswith("cryptobench-results: "), r.stderr)
            with open(out) as f:
                self.assertEqual(f.read(), "GOOD")


if __name__ == "__main__":
    unittest.main()
