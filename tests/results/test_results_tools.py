"""Tests of the results tools (tools/results) on small committed golden runs:

- golden/run_openssl_aesni.json: a real run (openssl and aesni, 5 repetitions);
- golden/run_openssl_without_aesni.json: the same benchmarks for openssl with
  AES-NI masked (OPENSSL_ia32cap), a genuinely slower build;
- golden/*.expected.*: the outputs the tools must reproduce exactly.

Run: /usr/bin/python3 -m unittest discover -s tests/results
Set CRYPTOBENCH_UPDATE_GOLDEN=1 to rewrite the expected outputs (then review
the diff before committing).
"""
import dataclasses
import copy
import json
import lzma
import math
import os
import subprocess
import sys
import tempfile
import unittest
from html import escape

HERE = os.path.dirname(os.path.abspath(__file__))
ROOT = os.path.dirname(os.path.dirname(HERE))
TOOLS = os.path.join(ROOT, "tools", "results")
sys.path.insert(0, TOOLS)

from cryptobench_results import bounds, compare, gbench, jmh, ratio, report, stats, svg  # noqa: E402
from cryptobench_results import answer, costmodel, noise  # noqa: E402

GOLDEN = os.path.join(HERE, "golden")
FAST = os.path.join(GOLDEN, "run_openssl_aesni.json")
SLOW = os.path.join(GOLDEN, "run_openssl_without_aesni.json")
KEYS = os.path.join(GOLDEN, "run_keys_openssl_aesni.json")
BOUNDS = os.path.join(GOLDEN, "run_bounds.json")
DECISION_A = os.path.join(GOLDEN, "run_decision_a.json.xz")
DECISION_B = os.path.join(GOLDEN, "run_decision_b.json.xz")
# Two default runs of one build back to back (an A/A pair), fields the tools
# do not read removed.
AA_ZEN5_A = os.path.join(GOLDEN, "run_aa_zen5_a.json.xz")
AA_ZEN5_B = os.path.join(GOLDEN, "run_aa_zen5_b.json.xz")
DECISION_MASKED = os.path.join(GOLDEN, "run_decision_masked.json.xz")
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

    def test_benjamini_hochberg(self):
        # By hand: sorted 0.005, 0.01, 0.03, 0.04 times 4/rank is 0.02, 0.02,
        # 0.04, 0.04, each the minimum of itself and those above it.
        q = stats.benjamini_hochberg([0.01, 0.04, math.nan, 0.03, 0.005])
        self.assertTrue(math.isnan(q[2]))
        for got, want in zip([q[0], q[1], q[3], q[4]], [0.02, 0.04, 0.04, 0.02]):
            self.assertAlmostEqual(got, want)
        self.assertEqual(stats.benjamini_hochberg([]), [])
        # The running minimum: 0.01 x 2/1 = 0.02 is above 0.011 x 2/2, so both
        # are 0.011; and q never exceeds 1.
        for got, want in zip(stats.benjamini_hochberg([0.01, 0.011]), [0.011, 0.011]):
            self.assertAlmostEqual(got, want)
        self.assertLessEqual(max(stats.benjamini_hochberg([0.9, 0.95, 0.99])), 1.0)

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
        rows, summary, warnings, _ = compare.compare(run, run)
        self.assertEqual(warnings, [])
        self.assertTrue(rows)
        self.assertTrue(all(r.verdict.startswith("same") for r in rows))
        self.assertAlmostEqual(summary["time_ns"]["geomean_ratio"], 1.0)

    def test_slowed_build_is_significantly_worse(self):
        rows, summary, _, _ = compare.compare(gbench.load_run(FAST), gbench.load_run(SLOW))
        time_rows = [r for r in rows if r.metric == "time_ns"]
        self.assertEqual(len(time_rows), 15)
        for r in time_rows:
            self.assertEqual(r.verdict, "worse", r.name)
            self.assertLess(r.p, 0.05)
            self.assertGreater(r.ci_low, 0)
        self.assertGreater(summary["time_ns"]["geomean_ratio"], 1.2)

    def test_backend_pair_compares_libraries(self):
        run = gbench.load_run(FAST)
        rows, _, _, _ = compare.compare(run, run, ["bytes_per_second"],
                                        backend_pair=("openssl", "aesni"))
        self.assertEqual(len(rows), 15)
        self.assertTrue(all("/backend:aesni/" in r.name for r in rows))

    def test_too_few_repetitions_warns(self):
        doc = json.load(open(FAST))
        doc["benchmarks"] = [b for b in doc["benchmarks"] if b["repetition_index"] < 3]
        with tempfile.TemporaryDirectory() as d:
            run = gbench.load_run(write_json(d, "three.json", doc))
        rows, _, warnings, _ = compare.compare(run, run)
        self.assertTrue(any("too few repetitions" in w for w in warnings))
        # Exact allocation counts need no test; every timed figure does.
        self.assertTrue(all(r.verdict == "n/a" for r in rows if r.metric not in compare.ALLOC_METRICS))

    def test_golden_output(self):
        rows, summary, warnings, floor = compare.compare(gbench.load_run(FAST), gbench.load_run(SLOW),
                                                         ["time_ns", "allocs_per_op"])
        golden_check(self, "compare_fast_slow.expected.md",
                     compare.render(rows, summary, warnings, "base", "new", True, floor) + "\n")

    def test_a_a_pair_flags_nothing(self):
        rows, summary, _, floor = compare.compare(gbench.load_run(DECISION_A),
                                                  gbench.load_run(DECISION_B))
        self.assertTrue(floor.measured)
        self.assertEqual(summary["cells"], 100)
        self.assertEqual(summary["cells_flagged"], 0)

    def test_two_runs_of_one_binary_report_no_change(self):
        """Two default runs of one build, back to back (Zen 5 VM, 10
        repetitions, 490 benchmarks): tested one by one at p < 0.05, 4 of
        them came out beyond the noise floor, one +77%; adjusted over the
        benchmarks, none."""
        rows, summary, _, floor = compare.compare(gbench.load_run(AA_ZEN5_A),
                                                  gbench.load_run(AA_ZEN5_B))
        self.assertEqual(summary["cells"], 490)
        self.assertEqual(summary["cells_flagged"], 0)
        unadjusted = {r.name for r in rows if r.p < 0.05 and abs(r.change) > floor.value
                      and (r.ci_low > 0 or r.ci_high < 0)}
        self.assertGreaterEqual(len(unadjusted), 3, "the pair no longer tests the adjustment")

    def test_a_change_whose_interval_reaches_zero_is_not_called(self):
        """Seen in an A/A pair: +32.7%, p = 0.029, beyond a 24.3% floor, but
        a 95% interval of [-16.3%, +56.7%]: no change is inside it."""
        floor = noise.NoiseFloor(0.243, 490, 10)
        row = compare.Row("b", "cycles_per_byte", 221.39, 293.87, 0.327, -0.163, 0.567, 0.0288,
                          "normal", "", q=0.0288)
        self.assertEqual(compare._verdict(row, 0.05, True, floor), "same")
        row.ci_low = 0.05  # the same change with an interval clear of zero
        self.assertEqual(compare._verdict(row, 0.05, True, floor), "worse")

    def test_a_real_change_among_hundreds_is_still_found(self):
        doc = json.load(lzma.open(AA_ZEN5_A, "rt"))
        names = sorted({b["name"] for b in doc["benchmarks"] if b["run_type"] == "iteration"})
        slowed = {names[0]: 1.3, **{n: 2.0 for n in names[100:130]}}
        changed = copy.deepcopy(doc)
        for b in changed["benchmarks"]:
            b["real_time"] *= slowed.get(b["name"], 1.0)
        with tempfile.TemporaryDirectory() as d:
            new = gbench.load_run(write_json(d, "slowed.json", changed))
        rows, _, _, _ = compare.compare(gbench.load_run(AA_ZEN5_A), new, ["time_ns"])
        worse = {r.name for r in rows if r.verdict == "worse"}
        self.assertEqual(worse, set(slowed))

    def test_a_drift_of_the_whole_run_is_taken_out(self):
        """Two runs of one binary drift apart as a whole (seen: 0.8-2.4%, beyond
        the in-run floor, 93 of 355 benchmarks flagged before): a shift all
        benchmarks share, up to compare.DRIFT, is said and taken out; a change
        of one benchmark beside it is still found."""
        doc = json.load(lzma.open(AA_ZEN5_A, "rt"))
        names = sorted({b["name"] for b in doc["benchmarks"] if b["run_type"] == "iteration"})
        drifted = copy.deepcopy(doc)
        for b in drifted["benchmarks"]:
            b["real_time"] *= 1.025 * (1.3 if b["name"] == names[7] else 1.0)
        with tempfile.TemporaryDirectory() as d:
            new = gbench.load_run(write_json(d, "drifted.json", drifted))
        rows, _, warnings, _ = compare.compare(gbench.load_run(AA_ZEN5_A), new, ["time_ns"])
        self.assertEqual({r.name for r in rows if r.verdict in ("better", "worse")}, {names[7]})
        self.assertTrue(any("x1.025 across the board" in w for w in warnings), warnings)
        # Beyond DRIFT the shift is a change like any other: every benchmark is judged as is.
        for b in drifted["benchmarks"]:
            b["real_time"] *= 1.5
        with tempfile.TemporaryDirectory() as d:
            new = gbench.load_run(write_json(d, "slower.json", drifted))
        rows, _, warnings, _ = compare.compare(gbench.load_run(AA_ZEN5_A), new, ["time_ns"])
        self.assertGreater(sum(r.verdict == "worse" for r in rows), 0.9 * len(rows))
        self.assertFalse(any("across the board" in w for w in warnings))

    def test_change_within_the_noise_floor_is_not_flagged(self):
        doc = json.load(lzma.open(DECISION_A, "rt"))
        base = gbench.load_run(DECISION_A)
        floor = noise.noise_floor(base).value
        for factor, expected in ((1 + floor / 2, {"within noise", "same"}),
                                 (1 + 2 * floor + 0.1, {"worse", "same"})):
            slower = copy.deepcopy(doc)
            for b in slower["benchmarks"]:
                b["real_time"] *= factor
            with tempfile.TemporaryDirectory() as d:
                new = gbench.load_run(write_json(d, "slower.json", slower))
            rows, _, _, _ = compare.compare(base, new, ["time_ns"])
            verdicts = [r.verdict for r in rows]
            self.assertLessEqual(set(verdicts), expected, factor)
            if "worse" in expected:  # all but the noisiest few (their ranges span the factor)
                self.assertGreater(verdicts.count("worse"), 0.9 * len(rows))

    def test_one_time_allocations_are_never_a_change(self):
        doc = json.load(open(FAST))
        other = copy.deepcopy(doc)
        for d_, scale in ((doc, 1), (other, 3)):
            for b in d_["benchmarks"]:
                if "allocs_per_op" in b:  # one allocation (three) per repetition
                    b["allocs_per_op"] = scale / b["iterations"]
                    b["alloc_bytes_per_op"] = 4096 * scale / b["iterations"]
        with tempfile.TemporaryDirectory() as d:
            a = gbench.load_run(write_json(d, "a.json", doc))
            b = gbench.load_run(write_json(d, "b.json", other))
        rows, summary, _, _ = compare.compare(a, b, ["allocs_per_op", "alloc_bytes_per_op"])
        self.assertTrue(rows)
        self.assertTrue(all(r.verdict == "same (one-time)" and r.base == 0 for r in rows))
        self.assertEqual(summary["cells_flagged"], 0)


class InterruptedRunTest(unittest.TestCase):
    def test_finished_repetitions_of_an_interrupted_run_are_kept(self):
        doc = json.load(open(FAST))
        names = []
        for b in doc["benchmarks"]:
            if b.get("run_type") == "iteration" and b["repetition_index"] >= 3:
                b["error_occurred"] = True
                b["error_message"] = "not run: the run was interrupted"
            if b.get("run_type") == "iteration" and b["repetition_index"] == 0 and not names:
                names.append(b["run_name"])
        for b in doc["benchmarks"]:  # one benchmark skipped altogether
            if b.get("run_name") == names[0] and b.get("run_type") == "iteration":
                b["error_occurred"] = True
                b["error_message"] = "not run: the run was interrupted"
        with tempfile.TemporaryDirectory() as d:
            run = gbench.load_run(write_json(d, "interrupted.json", doc))
        skipped = run.benchmarks[names[0]]
        self.assertEqual(skipped.error, "not run: the run was interrupted")
        kept = [b for b in run.benchmarks.values() if b is not skipped]
        self.assertTrue(kept)
        for b in kept:
            self.assertIsNone(b.error)
            self.assertEqual(len(b.samples["time_ns"]), 3)
            self.assertEqual(b.interrupted, 2)


class NoiseTest(unittest.TestCase):
    def test_floor_is_the_split_half_change(self):
        doc = json.load(open(FAST))
        for b in doc["benchmarks"]:  # the late repetitions 10% slower
            if b.get("run_type") == "iteration" and b["repetition_index"] >= 3:
                for k in ("bytes_per_second", "ops_per_ms", "items_per_second"):
                    b[k] /= 1.10
        with tempfile.TemporaryDirectory() as d:
            run = gbench.load_run(write_json(d, "drift.json", doc))
        floor = noise.noise_floor(run)
        self.assertGreater(floor.value, 0.08)  # 1 - 1/1.1 = 9.1%, plus the run's own noise
        self.assertLess(floor.value, 0.14)
        self.assertIn("noise floor", floor.describe())

    def test_too_few_repetitions_is_said(self):
        doc = json.load(open(FAST))
        doc["benchmarks"] = [b for b in doc["benchmarks"] if b["repetition_index"] < 3]
        with tempfile.TemporaryDirectory() as d:
            floor = noise.noise_floor(gbench.load_run(write_json(d, "three.json", doc)))
        self.assertFalse(floor.measured)
        self.assertIn("not measured", floor.describe())


class CostModelTest(unittest.TestCase):
    def test_exact_line_is_recovered(self):
        sizes = [16, 64, 256, 1024, 4096, 16384] * 3
        a, b, cov, r2 = costmodel.fit_line(sizes, [40 + 0.25 * s for s in sizes])
        self.assertAlmostEqual(a, 40, places=6)
        self.assertAlmostEqual(b, 0.25, places=9)
        self.assertAlmostEqual(r2, 1.0, places=9)

    def test_noisy_line_interval_covers_the_truth(self):
        import random
        rng = random.Random(7)
        sizes = [16, 64, 256, 1024, 4096, 16384] * 5
        times = [(100 + 0.5 * s) * (1 + rng.gauss(0, 0.02)) for s in sizes]
        a, b, cov, r2 = costmodel.fit_line(sizes, times)
        self.assertLess(abs(a - 100), 2.5 * math.sqrt(cov[0, 0]) + 1e-9)
        self.assertLess(abs(b - 0.5), 2.5 * math.sqrt(cov[1, 1]) + 1e-12)
        self.assertGreater(r2, 0.99)

    def test_envelope_finds_the_crossover(self):
        cheap_call = costmodel.Fit("x", "encrypt", "aes-128-cbc", 10, 0, 1.0, 0, None, 3, 1, [], 0)
        cheap_byte = costmodel.Fit("y", "encrypt", "aes-128-cbc", 110, 0, 0.5, 0, None, 3, 1, [], 0)
        segments = costmodel.envelope([cheap_call, cheap_byte], 16, 16384)
        self.assertEqual([s[0] for s in segments], ["x", "y"])
        self.assertAlmostEqual(segments[0][2], 200)

    def test_fits_of_a_real_run(self):
        fits = costmodel.fits(gbench.load_run(DECISION_A))
        self.assertEqual({(f.backend, f.op) for f in fits},
                         {(b, op) for b in ("openssl", "wolfssl", "nettle", "aesni")
                          for op in ("encrypt", "decrypt")})
        for f in fits:
            self.assertEqual(f.sizes, [16, 64, 256, 1024, 4096, 16384])
            self.assertGreater(f.cycles_per_byte, 0)
            self.assertGreater(f.r2, 0.5, f.backend)
        wolf = next(f for f in fits if f.backend == "wolfssl" and f.op == "encrypt")
        ni = next(f for f in fits if f.backend == "openssl" and f.op == "encrypt")
        self.assertGreater(wolf.cycles_per_byte, 2 * ni.cycles_per_byte)  # tables against AES-NI

    def test_mixes(self):
        self.assertEqual(costmodel.load_mix("imix")[1], [(40, 7), (576, 4), (1500, 1)])
        with tempfile.TemporaryDirectory() as d:
            good = os.path.join(d, "mine.csv")
            with open(good, "w") as f:
                f.write("size,weight\n# my traffic\n64,3\n1500, 1\n")
            self.assertEqual(costmodel.load_mix(good), ("mine.csv", [(64, 3.0), (1500, 1.0)]))
            for text in ("64\n", "0,1\n", "64,-1\n", "64,nan\n", "x,1\n", "64,0\n", "1,2,3\n"):
                bad = os.path.join(d, "bad.csv")
                with open(bad, "w") as f:
                    f.write(text)
                with self.assertRaises(gbench.ResultsError, msg=text):
                    costmodel.load_mix(bad)
        with self.assertRaises(gbench.ResultsError):
            costmodel.load_mix("no-such-preset")


def answer_size(text):
    """The bytes of '16 KiB', '64 B'."""
    number, unit = text.split()
    return int(number) << {"B": 0, "KiB": 10, "MiB": 20}[unit]


class AnswerTest(unittest.TestCase):
    def setUp(self):
        self.answer = answer.answer(gbench.load_run(DECISION_A))

    def test_hand_written_kernels_are_headroom_not_a_recommendation(self):
        for r in self.answer.results:
            self.assertNotIn("aesni", [b for b, _ in r.ranking])
            self.assertEqual([b for b, _ in r.hand_written], ["aesni"])
        self.assertTrue(self.answer.headroom)
        for h in self.answer.headroom:
            self.assertEqual(h.hand_written[0], "aesni")
            self.assertGreater(h.library[1], 0)
            self.assertLessEqual(h.library[1], 1.05)  # nothing beats the hardware

    def test_verdicts_follow_significance_and_the_floor(self):
        kinds = set()
        for r in self.answer.results:
            # Each class against the floor of its own kind of workload.
            member = next(iter(next(iter(r.members.values())).values()))
            floor = self.answer.floor.of(noise.kind_of(member)).value
            self.assertEqual(r.floor.value, floor)
            kinds.add(r.verdict)
            self.assertGreaterEqual(r.margin, 1.0)
            self.assertLessEqual(r.low, r.margin * 1.0001)
            self.assertGreaterEqual(r.high, r.margin * 0.9999)
            if r.verdict == "decided":
                self.assertLess(r.p, 0.05)
                self.assertGreater(r.margin - 1, floor)
            elif r.verdict == "noise":
                self.assertLess(r.p, 0.05)
                self.assertLessEqual(r.margin - 1, floor)
            else:
                self.assertEqual(r.verdict, "not-significant")
                self.assertGreaterEqual(r.p, 0.05)
        self.assertIn("decided", kinds)

    def test_sentences_cover_every_class_once(self):
        members = [id(m) for s in self.answer.sentences for m in s.members]
        self.assertEqual(sorted(members), sorted(id(r) for r in self.answer.results))
        for s in self.answer.sentences:
            self.assertEqual({(m.fixed, m.verdict == "decided") for m in s.members},
                             {(s.first.fixed, s.first.verdict == "decided")})
        self.assertLess(len(self.answer.sentences), len(self.answer.results))  # some merged

    def test_console_answer_fits_one_screen_and_every_line_is_tested(self):
        for path in (DECISION_A, DECISION_MASKED, FAST):
            lines = answer.render_console(answer.answer(gbench.load_run(path)))
            self.assertLessEqual(len(lines), answer.CONSOLE_LINES, path)
            verdicts = lines[lines.index(answer.HEADING.format(baseline="openssl")) + 1:]
            verdicts = verdicts[:verdicts.index("")] if "" in verdicts else verdicts[:-1]
            for line in verdicts:
                self.assertRegex(line, r"\(p [<=] [0-9.]+\)|tie|only .* was measured", line)

    def test_mix_verdict_and_crossovers(self):
        text = "\n".join(answer.render_console(self.answer))
        self.assertIn("Traffic mix tls-records", text)
        self.assertIn("Cost model", text)
        a = answer.answer(gbench.load_run(DECISION_A), "seed000")
        self.assertEqual(a.mix, [(107, 1)])
        for v in a.mix_verdicts:
            self.assertNotIn(v.scores[0].fit.backend, ("aesni",))

    def test_many_headroom_lines_leave_the_mix_and_crossovers_on_screen(self):
        # With CTR and GCM a run has a headroom line per mode; they must not
        # push the mix verdict and the crossovers off the 40-line screen.
        full = answer.render_console(self.answer)
        crowded = dataclasses.replace(self.answer, headroom=self.answer.headroom * 20)
        lines = answer.render_console(crowded)
        self.assertLessEqual(len(lines), answer.CONSOLE_LINES)
        self.assertNotIn("  ... (cut to fit one screen)", lines)
        later = full[full.index(next(l for l in full if l.startswith("Traffic mix"))):]
        self.assertEqual(lines[-len(later):], later)
        more = len(crowded.headroom) - sum(1 for l in lines if l.startswith("  ") and "the hardware allows" in l)
        self.assertIn(f"  ({more} more in selection.md)", lines)

    def test_size_ranges_never_span_another_sentences_sizes(self):
        ladder = [16, 64, 256, 1024, 4096, 16384]
        self.assertEqual(answer._size_ranges([16, 64, 16384], ladder), "16 B - 64 B and 16 KiB")
        self.assertEqual(answer._size_ranges([256, 1024, 4096], ladder), "256 B - 4 KiB")
        self.assertEqual(answer._size_ranges([16, 1024, 16384], ladder), "16 B, 1 KiB and 16 KiB")
        for s in self.answer.sentences:  # every size of a range is one of the sentence's
            sizes = sorted({size for m in s.members for size in m.sizes})
            text = answer._size_ranges(sizes, s.ladder)
            for piece in text.replace(" and ", ", ").split(", "):
                ends = [s.ladder.index(answer_size(e)) for e in piece.split(" - ")]
                self.assertTrue(set(s.ladder[ends[0]:ends[-1] + 1]) <= set(sizes), text)

    def test_a_winner_needs_an_interval_above_one(self):
        # Mann-Whitney p = 0.029 but the bootstrap interval of the margin is
        # [0.999, 1.51]: not an answer, a tie that says why.
        fast = [129.7, 98.6, 109.8, 109.3, 95.8, 76.7, 114.5, 93.9, 110.8, 80.4]
        slow = [78.4, 103.9, 106.5, 65.5, 65.0, 84.3, 95.9, 87.4, 89.6, 70.2]
        with open(FAST) as f:
            doc = json.load(f)
        doc["context"]["backend.cryptopp.library"] = "Crypto++ 8.7.0"
        doc["benchmarks"] = []
        for backend, rates in (("openssl", fast), ("cryptopp", slow)):
            name = (f"grid/backend:{backend}/cipher:aes-128-cbc/op:encrypt/size:16384/codec:none/"
                    "pool:on/key:cached/real_time/threads:1")
            for index, rate in enumerate(rates):
                doc["benchmarks"].append({
                    "name": name, "run_name": name, "run_type": "iteration", "repetitions": 10,
                    "repetition_index": index, "threads": 1, "iterations": 1000,
                    "real_time": 16384 / rate * 1e3, "time_unit": "ns",
                    "bytes_per_second": rate * 1e6})
        with tempfile.TemporaryDirectory() as tmp:
            a = answer.answer(gbench.load_run(write_json(tmp, "run.json", doc)))
        [r] = a.results
        self.assertLess(r.p, 0.05)
        self.assertLessEqual(r.low, 1.0)
        self.assertEqual(r.verdict, "not-significant")
        text = answer.sentence_text(a.sentences[0], {})
        self.assertIn("openssl at 104 MB/s and cryptopp tie", text)
        self.assertIn("but the 95% interval reaches 1.00", text)

    def test_golden_output(self):
        golden_check(self, "select_decision.expected.txt",
                     "\n".join(answer.render_console(self.answer)) + "\n")
        # The run's path, relative to the checkout: the expected output holds in any clone.
        golden_check(self, "select_decision.expected.md",
                     answer.render_markdown(self.answer).replace(ROOT + os.sep, ""))

    def test_one_answer_per_machine(self):
        r = run_cli("select", DECISION_A, DECISION_MASKED)
        self.assertEqual(r.returncode, 0, r.stderr)
        headers = [line for line in r.stdout.splitlines() if line.startswith("== Which AES library")]
        self.assertEqual(len(headers), 2)
        self.assertNotIn("CRYPTOBENCH_CPU_MASK", headers[0])
        self.assertIn("CRYPTOBENCH_CPU_MASK=vaes,avx2", headers[1])
        r = run_cli("select", DECISION_A, DECISION_B)  # one machine, two runs: both said
        headers = [line for line in r.stdout.splitlines() if line.startswith("== Which AES library")]
        self.assertEqual(len(headers), 2)
        self.assertTrue(all("(run " in h for h in headers))


EXPECTED_CHARTS = ["size-time-encrypt-aes-128-cbc", "size-time-decrypt-aes-128-cbc",
                   "size-time-roundtrip-aes-128-cbc", "thread-sweep-pool-off", "thread-sweep-pool-on",
                   "codec-pool", "allocations", "cycles-encrypt-aes-128-cbc", "cycles-decrypt-aes-128-cbc"]
# The report's parts in the order a reader meets them: the answer first, the context last.
SECTION_ORDER = ["<h2>Which AES library: ", "<table class='answer'>", "<h3>Traffic mix ",
                 "<h3>Time against size: the cost model</h3>", "<h3>Seed 000 thread sweep</h3>",
                 "<h3>Codec and pool overhead</h3>", "<h3>Allocations per operation</h3>",
                 "<h3>Cycles per byte against the hardware bound</h3>", "<h3>Key handling</h3>",
                 "<details><summary>Context</summary>"]


def machine_sections(html):
    """The report's machine sections, each from its <section> to the next."""
    return html.split("<section id=")[1:]


class ReportTest(unittest.TestCase):
    def check_clean(self, html):
        self.assertNotIn("http://", html.replace('xmlns="http://www.w3.org/2000/svg"', ""))
        self.assertNotIn("https://", html)
        self.assertNotRegex(html, r"(?i)\bnan\b|undefined|\binf\b")

    def test_every_chart_and_table(self):
        html = report.render([gbench.load_run(FAST)])
        for chart in EXPECTED_CHARTS:
            self.assertIn(f'<figure data-chart="{chart}">', html)
        self.assertEqual(html.count("<figure data-chart="), len(EXPECTED_CHARTS))
        self.assertEqual(len(machine_sections(html)), 1)
        self.check_clean(html)

    def test_the_answer_comes_first(self):
        run = gbench.load_run(DECISION_A)
        a = answer.answer(run)
        html = report.render([run])
        self.check_clean(html)
        positions = [html.index(part) for part in SECTION_ORDER]
        self.assertEqual(positions, sorted(positions))
        self.assertLess(html.index("<table class='answer'>"), html.index("<figure"))
        decisions = html[html.index("<table class='answer'>"):html.index("<h3>Traffic mix ")]
        self.assertEqual(decisions.count("<tr class="), len(a.sentences))
        # The floor of each kind of workload in bold, and each row's tie
        # within the floor of its own classes' kinds (the largest).
        bold = html[html.index("<b>Noise floor "):]
        bold = bold[:bold.index("</b>")]
        self.assertGreater(len(a.floor.kinds), 1)
        for kind, floor in a.floor.kinds.items():
            self.assertIn(f"{100 * floor.value:.1f}% ({noise.kind_text(kind)})", bold)
        ties = [s for s in a.sentences if s.first.verdict in ("noise", "not-significant")]
        self.assertTrue(ties)
        rows = decisions.split("<tr class=")[1:]
        self.assertEqual(len(rows), len(a.sentences))
        for s, row in zip(a.sentences, rows):
            if s.first.verdict == "not-significant":
                self.assertIn("tie: not significant", row)
            elif s.first.verdict == "noise":
                floor = max(a.floor.of(noise.kind_of(b)).value for m in s.members
                            for per_size in m.members.values() for b in per_size.values())
                self.assertIn(f"tie: within the {100 * floor:.1f}% noise floor", row)
        for s in a.sentences:
            self.assertIn(escape(answer.workload_text(s)), decisions)
        self.assertNotIn("<b>aesni</b>", decisions)  # hand-written: never the library to use
        mix = html[html.index("<h3>Traffic mix "):html.index("<h3>Time against size")]
        self.assertIn("Traffic mix tls-records: mean 5,799 B per message", mix)
        self.assertEqual(mix.count("<tr class="), len(a.mix_verdicts))
        self.assertIn("<b>aesni</b></span> 6,680 MB/s", mix)  # the hand-written figure as headroom
        self.assertIn(escape("lines: the cost model's fit, a + b x bytes"), html)
        self.assertIn("hardware bound", html)

    def test_mix_is_passed_to_the_answer(self):
        html = report.render([gbench.load_run(DECISION_A)], mix="imix")
        self.assertIn("Traffic mix imix: mean ", html)

    def test_every_backend_keeps_one_distinct_style(self):
        names = [f"backend{i}" for i in range(100)]
        styles = svg.backend_styles(names, {"backend3"})
        self.assertEqual(len({styles[n].colour for n in names[:20]}), 20)
        self.assertEqual(len({(s.colour, s.marker) for s in styles.values()}), 100)
        self.assertEqual(styles["backend3"].label, "backend3 (hand-written)")
        self.assertTrue(styles["backend3"].dash)
        self.assertFalse(any(s.dash for n, s in styles.items() if n != "backend3"))
        html = report.render([gbench.load_run(DECISION_A), gbench.load_run(DECISION_MASKED)])
        for section in machine_sections(html):  # the same colours in every machine's section
            self.assertIn("<span class='sw' style='background:#0067a5'></span><b>nettle</b>", section)
            self.assertIn("<span class='sw' style='background:#f38400'></span><b>aesni</b>", section)
        self.assertIn("aesni (hand-written)", html)

    def test_text_is_escaped(self):
        with open(FAST) as f:
            doc = json.load(f)
        doc["context"]["host_name"] = "<i>vm</i>"
        doc["context"]["backend.openssl.library"] = "Open<SSL> & co"
        with tempfile.TemporaryDirectory() as d:
            html = report.render([gbench.load_run(write_json(d, "<run>.json", doc))])
        self.assertNotIn("<i>vm</i>", html)
        self.assertIn("host &lt;i&gt;vm&lt;/i&gt;", html)
        self.assertIn("Open&lt;SSL&gt; &amp; co", html)
        self.assertNotIn("<run>", html)


class MachinesReportTest(unittest.TestCase):
    def test_one_section_per_machine_each_with_its_answer(self):
        runs = [gbench.load_run(DECISION_A), gbench.load_run(DECISION_MASKED)]
        html = report.render(runs)
        sections = machine_sections(html)
        self.assertEqual(len(sections), 2)
        for section, run in zip(sections, runs):
            label = answer.machine_label(run.context)
            self.assertIn(f"<h2>Which AES library: {escape(label)}</h2>", section)
            self.assertIn(escape(run.path), section)
            decisions = section[section.index("<table class='answer'>"):section.index("<h3>Traffic mix ")]
            self.assertEqual(decisions.count("<tr class="), len(answer.answer(run).sentences))
            self.assertEqual(section.count("<h3>Traffic mix tls-records"), 1)
            positions = [section.index(part) for part in SECTION_ORDER]
            self.assertEqual(positions, sorted(positions))
        self.assertIn("CRYPTOBENCH_CPU_MASK=vaes,avx2", sections[1])
        self.assertNotIn("CRYPTOBENCH_CPU_MASK=vaes,avx2</h2>", sections[0])
        charts = [c for c in html.split('<figure data-chart="')[1:]]
        ids = [c[:c.index('"')] for c in charts]
        self.assertEqual(len(ids), len(set(ids)))  # unique in the document
        self.assertEqual(len(ids), 2 * len(EXPECTED_CHARTS) - 2)  # no roundtrip ladder in these runs
        self.assertIn("<a href='#machine-2'>", html)

    def test_runs_of_one_machine_are_each_labelled_with_their_path(self):
        html = report.render([gbench.load_run(DECISION_A), gbench.load_run(DECISION_B)])
        sections = machine_sections(html)
        self.assertEqual(len(sections), 2)
        self.assertIn(f"(run {escape(DECISION_A)})</h2>", sections[0])
        self.assertIn(f"(run {escape(DECISION_B)})</h2>", sections[1])

    def test_the_cli_takes_several_runs_and_a_mix(self):
        with tempfile.TemporaryDirectory() as d:
            out = os.path.join(d, "r.html")
            r = run_cli("report", DECISION_A, DECISION_MASKED, "-o", out, "--mix", "imix")
            self.assertEqual(r.returncode, 0, r.stderr)
            with open(out, encoding="utf-8") as f:
                html = f.read()
        self.assertEqual(len(machine_sections(html)), 2)
        self.assertEqual(html.count("Traffic mix imix"), 2)


class OneTimeAllocationReportTest(unittest.TestCase):
    def test_an_allocation_per_repetition_is_one_time(self):
        doc = json.load(open(FAST))
        for b in doc["benchmarks"]:
            if "allocs_per_op" in b and "backend:openssl/" in b["name"]:
                b["allocs_per_op"] = 1 / b["iterations"]
                b["alloc_bytes_per_op"] = 4096 / b["iterations"]
        with tempfile.TemporaryDirectory() as d:
            html = report.render([gbench.load_run(write_json(d, "once.json", doc))])
        section = html[html.index("<h3>Allocations per operation</h3>"):]
        self.assertIn("0 (one-time: 1 per repetition)", section)


class KeyHandlingReportTest(unittest.TestCase):
    def test_every_key_mode_with_its_ratio_to_cached(self):
        html = report.render([gbench.load_run(KEYS)])
        section = html[html.index("<h3>Key handling</h3>"):html.index("<details><summary>Context")]
        for key in ("cached", "per-op", "hmac-sha256", "pbkdf2-sha256-1000", "pbkdf2-sha256-10000"):
            self.assertIn(f"<th>{key}</th>", section)
        self.assertIn("(x1)", section)           # cached against itself
        self.assertEqual(section.count("<td class='l'>openssl</td>"), 2)  # data and key setup tables
        self.assertIn("key schedules), time per setup", section)

    def test_absent_section_says_so(self):
        html = report.render([gbench.load_run(FAST)])
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
        lines = r.stdout.splitlines()
        group = next(i for i, x in enumerate(lines) if x.startswith("aes-128-cbc encrypt, "))
        line = next(x for x in lines[group + 1:] if x.startswith("  aesni "))
        self.assertIn("beaten: short operations overlap", line)
        self.assertIn(" ok ", line)

    def test_the_text_table_is_in_groups_sorted_by_cipher_op_size_then_share(self):
        run = gbench.load_run(BOUNDS)
        lines = bounds.render(bounds.rows(run), run.context, False).splitlines()
        self.assertTrue(lines[2].startswith("  backend "))
        groups, shares = [], {}
        for line in lines[3:]:
            if not line.startswith("  "):  # a group's line: what, and its absolute bound
                self.assertRegex(line, r"^aes-(128|256)-[a-z]+ [a-z-]+, [0-9]+ (B|KiB|MiB)"
                                       r"(, [0-9]+ messages per call)?: absolute bound [0-9.]+ c/B$")
                what = line.split(":")[0]
                cipher, op = what.split(",")[0].split(" ")
                size = answer_size(what.split(", ")[1])
                messages = int(what.split(", ")[2].split()[0]) if what.count(", ") > 1 else 1
                groups.append((cipher, bounds.OP_ORDER.index(op), size, messages))
                shares[groups[-1]] = []
            else:
                shares[groups[-1]].append(int(line.split("%")[0].split()[-1]))
        self.assertEqual(groups, sorted(groups))
        self.assertEqual(len(groups), len(set(groups)))
        self.assertGreater(len(groups), 5)
        for key, values in shares.items():
            self.assertTrue(values, key)
            self.assertEqual(values, sorted(values, reverse=True), key)
        self.assertEqual(sum(len(v) for v in shares.values()), len(bounds.rows(run)))

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


def counter_mode_run(clmul="xmm:4/0.5,ymm:4/1", cells=None):
    """run_bounds.json's context (AES xmm:3/2, ymm:3/2, zmm:3/1; openssl and
    aesni 128-bit, vaes512 512-bit) with CTR and GCM cells named as the grid
    names them, 3 repetitions each. cells: {(backend, mode, op, size, aad): c/B}."""
    with open(BOUNDS) as f:
        doc = json.load(f)
    if clmul is not None:
        doc["context"]["clmul_limits"] = clmul
    if cells is None:
        cells = {}
        for backend in ("openssl", "vaes512"):
            for op in ("encrypt", "decrypt", "roundtrip"):
                cells[backend, "ctr", op, 16384, None] = 2.0
                cells[backend, "gcm", op, 16384, 13] = 2.0
            cells[backend, "ctr", "encrypt", 100, None] = 2.0
            cells[backend, "gcm", "encrypt", 16, 65536] = 2000.0
    benchmarks = []
    for (backend, mode, op, size, aad), cpb in cells.items():
        name = (f"grid/backend:{backend}/cipher:aes-128-{mode}/op:{op}/size:{size}/" +
                ("" if aad is None else f"aad:{aad}/") +
                "codec:none/pool:on/key:cached/real_time/threads:1")
        for index in range(3):
            benchmarks.append({"name": name, "run_name": name, "run_type": "iteration",
                               "repetitions": 3, "repetition_index": index, "threads": 1,
                               "iterations": 1000, "real_time": cpb * size / 3.5,
                               "time_unit": "ns", "core_ghz": 3.5, "cycles_per_byte": cpb})
    doc["benchmarks"] = benchmarks
    return doc


class CounterModeBoundsTest(unittest.TestCase):
    """CTR and GCM cells (grid names, synthetic figures) against their bounds."""

    def rows(self, doc):
        with tempfile.TemporaryDirectory() as d:
            run = gbench.load_run(write_json(d, "run.json", doc))
        return {(r["backend"], r["cipher"], r["op"], r["size"]): r for r in bounds.rows(run)}

    def test_ctr_is_bound_like_ecb_without_padding(self):
        rows = self.rows(counter_mode_run())
        # 10 rounds at 2 AESENC a cycle (xmm) and 1 VAESENC of 4 blocks (zmm).
        self.assertAlmostEqual(rows["openssl", "aes-128-ctr", "encrypt", 16384]["bound"], 10 / 2 / 16)
        self.assertAlmostEqual(rows["vaes512", "aes-128-ctr", "decrypt", 16384]["bound"], 10 / 4 / 16)
        self.assertAlmostEqual(rows["openssl", "aes-128-ctr", "encrypt", 16384]["absolute"],
                               10 / 4 / 16)
        self.assertEqual(rows["openssl", "aes-128-ctr", "encrypt", 16384]["kind"],
                         "AES throughput, xmm")
        # 100 bytes: 7 counter blocks, the last one partly used.
        self.assertAlmostEqual(rows["openssl", "aes-128-ctr", "encrypt", 100]["bound"],
                               7 * 10 / 2 / 100)
        # Roundtrip: encrypt then decrypt, twice the work.
        self.assertAlmostEqual(rows["vaes512", "aes-128-ctr", "roundtrip", 16384]["bound"],
                               2 * 10 / 4 / 16)
        self.assertIsNone(rows["openssl", "aes-128-ctr", "encrypt", 16384]["aad"])

    def test_gcm_takes_the_larger_of_the_aes_and_ghash_bounds(self):
        rows = self.rows(counter_mode_run())
        # openssl, 128-bit: AES 10 / 2 = 5 cycles a block, GHASH 3 / 0.5 = 6 on
        # PCLMULQDQ xmm: GHASH binds, over 1 AAD block + 1024 + the lengths block.
        r = rows["openssl", "aes-128-gcm", "encrypt", 16384]
        self.assertAlmostEqual(r["bound"], 6 * 1026 / 16384)
        self.assertEqual(r["kind"], "GHASH, xmm: 3 CLMULs a block")
        self.assertEqual(r["aad"], 13)
        # vaes512: AES 10 / 4 = 2.5 a block on zmm; no zmm CLMUL measured, so
        # VPCLMULQDQ ymm: 3 / (1 x 2) = 1.5. AES binds, 1024 blocks + the tag's.
        r = rows["vaes512", "aes-128-gcm", "decrypt", 16384]
        self.assertAlmostEqual(r["bound"], 2.5 * 1025 / 16384)
        self.assertEqual(r["kind"], "AES throughput, zmm")
        # The absolute bound: the larger of the widest AES and the widest GHASH.
        self.assertAlmostEqual(rows["openssl", "aes-128-gcm", "encrypt", 16384]["absolute"],
                               2.5 * 1025 / 16384)
        self.assertAlmostEqual(rows["openssl", "aes-128-gcm", "roundtrip", 16384]["bound"],
                               2 * 6 * 1026 / 16384)
        # AAD is hashed too: 16 bytes with 64 KiB of AAD is 4096 + 1 + 1 GHASH
        # blocks, against 2 AES blocks; per plaintext byte.
        r = rows["vaes512", "aes-128-gcm", "encrypt", 16]
        self.assertAlmostEqual(r["bound"], 1.5 * 4098 / 16)
        self.assertAlmostEqual(r["absolute"], 1.5 * 4098 / 16)
        self.assertIn("GHASH, ymm", r["kind"])
        self.assertFalse(any(r["above"] for r in rows.values()))

    def test_a_wider_clmul_unit_moves_the_bound(self):
        # With zmm CLMUL at 1 a cycle: 3 / 4 per block for vaes512; AES binds.
        rows = self.rows(counter_mode_run(clmul="xmm:4/0.5,ymm:4/1,zmm:4/1"))
        r = rows["vaes512", "aes-128-gcm", "encrypt", 16]
        self.assertAlmostEqual(r["bound"], 0.75 * 4098 / 16)
        self.assertIn("GHASH, zmm", r["kind"])

    def test_without_clmul_limits_gcm_is_bound_by_aes_and_says_so(self):
        for clmul in (None, ""):  # an older run; a CPU without PCLMULQDQ
            with self.subTest(clmul=clmul):
                rows = self.rows(counter_mode_run(clmul=clmul))
                r = rows["openssl", "aes-128-gcm", "encrypt", 16384]
                self.assertAlmostEqual(r["bound"], 5 * 1025 / 16384)
                self.assertIn("no clmul_limits: GHASH not bounded", r["kind"])

    def test_a_gcm_figure_faster_than_the_hardware_is_flagged(self):
        # 0.12 c/B is under the absolute 2.5 x 1025 / 16384 = 0.156 by over 10%.
        cells = {("openssl", "gcm", "encrypt", 16384, 13): 0.12,
                 ("openssl", "gcm", "decrypt", 16384, 13): 0.5,
                 ("openssl", "ctr", "encrypt", 16384, None): 0.5}
        with tempfile.TemporaryDirectory() as d:
            r = run_cli("bounds", write_json(d, "fast.json", counter_mode_run(cells=cells)),
                        "--markdown")
        self.assertEqual(r.returncode, 1, r.stderr)
        self.assertIn("1 figure(s) faster than the hardware bound", r.stderr)
        lines = r.stdout.splitlines()
        self.assertIn("CLMUL limits: xmm:4/0.5,ymm:4/1", lines[0])
        self.assertIn("| backend | cipher | op | size | aad | msgs |", lines[2])
        flagged = [x for x in lines if "ABOVE THE BOUND" in x]
        self.assertEqual(len(flagged), 1)
        self.assertIn("| aes-128-gcm | encrypt | 16384 | 13 |", flagged[0])
        self.assertTrue(any("| aes-128-ctr | encrypt | 16384 | - |" in x for x in lines))

    def test_bad_aad_and_limits_are_refused(self):
        with tempfile.TemporaryDirectory() as d:
            doc = counter_mode_run(cells={("openssl", "gcm", "encrypt", 16384, "x1"): 1.0})
            r = run_cli("bounds", write_json(d, "aad.json", doc))
            self.assertEqual(r.returncode, 2)
            self.assertIn("aad 'x1' is not a whole number", r.stderr)
            for clmul in ("xmm:4", "xmm:4/0", "qmm:4/1", 3):
                doc = counter_mode_run(clmul=clmul)
                r = run_cli("bounds", write_json(d, "clmul.json", doc))
                self.assertEqual(r.returncode, 2, clmul)
                self.assertIn("clmul_limits", r.stderr)


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
        r = run_cli("select", DECISION_A, "--mix", "imix")
        self.assertEqual(r.returncode, 0)
        self.assertIn("Traffic mix imix", r.stdout)
        r = run_cli("select", DECISION_A, "--markdown")
        self.assertEqual(r.returncode, 0)
        self.assertIn("## Every workload class", r.stdout)

    def test_alpha_is_a_probability(self):
        for alpha in ("-1", "2", "nan", "0", "1", "x"):
            r = run_cli("select", DECISION_A, "--alpha", alpha)
            self.assertEqual(r.returncode, 2, alpha)
            self.assertIn("must be a number between 0 and 1", r.stderr)

    def test_bad_input_never_replaces_good_output(self):
        with tempfile.TemporaryDirectory() as d:
            out = os.path.join(d, "jmh.json")
            with open(out, "w") as f:
                f.write("GOOD")
            truncated = os.path.join(d, "t.json")
            with open(FAST) as src, open(truncated, "w") as f:
                f.write(src.read()[:1000])
            for args in (["jmh", truncated, "-o", out], ["report", truncated, "-o", out],
                         ["report", FAST, "-o", out, "--mix", "no-such-mix"],
                         ["compare", FAST, truncated], ["select", os.path.join(d, "none.json")],
                         ["select", FAST, "--mix", "no-such-mix"],
                         ["compare", FAST, FAST, "--metrics", "speed"]):
                r = run_cli(*args)
                self.assertEqual(r.returncode, 2, args)
                self.assertEqual(len(r.stderr.strip().splitlines()), 1, r.stderr)
                self.assertTrue(r.stderr.startswith("cryptobench-results: "), r.stderr)
            with open(out) as f:
                self.assertEqual(f.read(), "GOOD")


if __name__ == "__main__":
    unittest.main()
