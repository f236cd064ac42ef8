"""Tests of the sampled estimator (sampled.py), the paired design's
statistics and contention as a finding, on the recorded noisy-neighbour
trace replayed as runs (replay.py), and on hostile sample records.

Run: /usr/bin/python3 -m unittest discover -s tests/results -p 'test_sampled.py'
"""
import json
import math
import os
import re
import shutil
import subprocess
import sys
import tempfile
import unittest

HERE = os.path.dirname(os.path.abspath(__file__))
ROOT = os.path.dirname(os.path.dirname(HERE))
TOOLS = os.path.join(ROOT, "tools", "results")
sys.path.insert(0, TOOLS)
sys.path.insert(0, HERE)

import replay  # noqa: E402
from cryptobench_results import answer, compare, gbench, health, noise  # noqa: E402
from cryptobench_results import report, sampled, stats, topup  # noqa: E402

CLI = os.path.join(TOOLS, "cryptobench-results")
FAST = ("fast", 1000, "throughput")
CHAIN = ("chain", 1500, "chain")


def slower(percent):
    return (f"fast-slower{percent}", 1000 * (1 + percent / 100), "throughput")


class ReplayTest(unittest.TestCase):
    """The estimator on the recorded Zen 4 trace: 74% of it contended."""

    @classmethod
    def setUpClass(cls):
        cls.folder = tempfile.mkdtemp()
        cls.path = replay.make_run(cls.folder, [FAST, slower(3), CHAIN])

    @classmethod
    def tearDownClass(cls):
        shutil.rmtree(cls.folder)

    def test_floor_and_a_3_percent_difference(self):
        run = gbench.load_run(self.path)
        a = answer.answer(run)
        self.assertLess(a.floor.value, 0.02)
        ranked = [r for r in a.results if r.winner == "fast"]
        self.assertTrue(ranked, [r.winner for r in a.results])
        r = ranked[0]
        self.assertEqual((r.runner_up, r.verdict), ("fast-slower3", "decided"))
        self.assertTrue(r.paired)
        self.assertGreater(r.low, 1.01)
        self.assertLess(r.high, 1.05)
        self.assertAlmostEqual(r.margin, 1.03, delta=0.006)

    def test_whole_repetitions_cannot_tell(self):
        # Today's estimator on the same run: one figure per repetition, both
        # regimes mixed in; its floor swallows the 3%.
        run = gbench.load_run(self.path, samples=False)
        self.assertIsNone(run.sampling)
        floor = noise.noise_floor(run)
        self.assertGreater(floor.value, 0.05)
        r = [r for r in answer.classify(run, floor) if "fast" in (r.winner, r.runner_up)][0]
        self.assertNotEqual((r.winner, r.runner_up, r.verdict), ("fast", "fast-slower3", "decided"))

    def test_contention_is_a_finding(self):
        run = gbench.load_run(self.path)
        a = answer.answer(run)
        c = a.contention
        self.assertGreater(c.share, 0.5)
        slow = {name: value for name, value, _ in c.slowdowns}
        self.assertGreater(slow["fast"], 1.4)   # throughput-bound: the regimes' 1.45-1.8x
        self.assertLess(slow["chain"], 1.03)    # the chain does not see them
        # Quiet, the throughput-bound backend wins; contended, the chain does.
        self.assertEqual([(x.result.winner, x.winner) for x in c.changes], [("fast", "chain")])
        text = "\n".join(answer.render_console(a))
        self.assertIn("under contention", text)
        self.assertIn("chain leads fast", text)

    def test_quiet_figure_is_the_quiet_level(self):
        run = gbench.load_run(self.path)
        b = run.benchmarks["grid/backend:fast/cipher:aes-128-ctr/op:encrypt/size:16384/codec:none/"
                           "pool:on/key:cached/real_time/threads:1"]
        ns = stats.median(b.samples["time_ns"])
        # The trace's quiet level is its 5th percentile; the band keeps quiet
        # samples up to 20% over their quartile, and the trace's faint bumps
        # among them lift the figure by about 1.5%.
        self.assertAlmostEqual(ns, 1000, delta=20)
        raw = stats.median(b.raw_samples["time_ns"])
        self.assertGreater(raw, 1200)                # whole loops: mostly contended


class ReplayPairsTest(unittest.TestCase):
    """A/A pairs and planted differences over other stretches of the trace."""

    def test_a_a_pairs_flag_nothing_and_agree(self):
        folder = tempfile.mkdtemp()
        try:
            flagged = 0
            for k in range(5):
                a = replay.make_run(folder, [FAST, CHAIN], rounds=40, offset=k * 1000, name=f"a{k}")
                b = replay.make_run(folder, [FAST, CHAIN], rounds=40, offset=k * 1000 + 500,
                                    name=f"b{k}")
                rows, _, _, _ = compare.compare(gbench.load_run(a), gbench.load_run(b))
                flagged += sum(1 for r in rows if r.verdict in ("better", "worse"))
                winners = [{r.winner for r in answer.answer(gbench.load_run(p)).results
                            if r.verdict == "decided"} for p in (a, b)]
                self.assertEqual(winners[0], winners[1])
            self.assertEqual(flagged, 0)
        finally:
            shutil.rmtree(folder)

    def test_runs_whose_quiet_probes_differ_compare_within_that(self):
        # The new run's neighbour never left: its probe's quiet level is 30%
        # over the base's and its "quiet" figures 20% slower. Its
        # changes are ties, and compare says why; with the probes alike, the
        # same figures are flagged.
        folder = tempfile.mkdtemp()
        try:
            a = replay.make_run(folder, [FAST, CHAIN], rounds=40, name="a")
            b = replay.make_run(folder, [FAST, CHAIN], rounds=40, offset=500, name="b")
            flagged = {}
            # 1.08: within the probes' own spread between runs (10%): not said.
            for probe_slowdown in (1.0, 1.08, 1.3):
                base, new = gbench.load_run(a), gbench.load_run(b)
                for x in new.benchmarks.values():
                    for metric, values in x.samples.items():
                        factor = 1.2 if metric == "time_ns" else 1 / 1.2
                        x.samples[metric] = [v * factor for v in values]
                new.sampling.probe_quiet_ns = [q * probe_slowdown
                                               for q in base.sampling.probe_quiet_ns]
                rows, _, warnings, floor = compare.compare(base, new, metrics=["time_ns"])
                flagged[probe_slowdown] = sum(r.verdict in ("better", "worse") for r in rows)
                said = [w for w in warnings if "quiet probes differ" in w]
                self.assertEqual(len(said), 1 if probe_slowdown > 1.1 else 0, warnings)
            self.assertEqual(flagged[1.3], 0)
            self.assertGreater(flagged[1.0], 0)
            self.assertEqual(flagged[1.08], flagged[1.0])
            self.assertIn("differ by 30.0% (the probe quiet at 570 ns in the base, 741 ns", said[0])
            self.assertAlmostEqual(floor.value, 0.3, delta=1e-9)
        finally:
            shutil.rmtree(folder)

    def test_planted_slowdowns_are_found(self):
        folder = tempfile.mkdtemp()
        try:
            found = {3: 0, 5: 0}
            for k in range(10):
                for percent in found:
                    p = replay.make_run(folder, [FAST, slower(percent)], rounds=40,
                                        offset=k * 2000 + percent, name=f"s{k}-{percent}")
                    r = answer.answer(gbench.load_run(p)).results[0]
                    found[percent] += (r.winner, r.verdict) == ("fast", "decided")
            self.assertGreaterEqual(found[3], 9)
            self.assertEqual(found[5], 10)
        finally:
            shutil.rmtree(folder)


class RecordTest(unittest.TestCase):
    """The record is input like any other: checked, and its absence said."""

    def setUp(self):
        self.folder = tempfile.mkdtemp()
        self.path = replay.make_run(self.folder, [FAST, slower(5)], rounds=8)
        self.record = os.path.join(self.folder, "run.samples.jsonl")

    def tearDown(self):
        shutil.rmtree(self.folder)

    def rewrite(self, edit):
        with open(self.record, encoding="utf-8") as f:
            lines = f.read().splitlines()
        with open(self.record, "w", encoding="utf-8") as f:
            f.write("\n".join(edit(lines)) + "\n")

    def cli(self, *args):
        return subprocess.run([sys.executable, CLI, *args], capture_output=True, text=True)

    def test_missing_record_is_said(self):
        os.remove(self.record)
        run = gbench.load_run(self.path)
        self.assertEqual(run.sampling.status, "missing")
        out = self.cli("select", self.path)
        self.assertEqual(out.returncode, 0, out.stderr)
        self.assertIn("run.samples.jsonl is missing", out.stdout)

    def test_another_runs_record_is_refused(self):
        self.rewrite(lambda lines: [lines[0].replace("replay-0", "replay-9")] + lines[1:])
        out = self.cli("select", self.path)
        self.assertEqual(out.returncode, 2)
        self.assertIn("the record of another run", out.stderr)
        self.assertEqual(len(out.stderr.strip().splitlines()), 1, out.stderr)

    def test_malformed_lines_are_refused(self):
        for bad in ("{", "[]", '{"name": "x/../y", "samples": [], "probes": []}',
                    '{"name": "grid/backend:a", "thread": 0, "threads": 1, "iterations": 1, '
                    '"samples": [[0, -5, 1]], "probes": []}',
                    '{"name": "grid/backend:a", "thread": 0, "threads": 1, "iterations": 1, '
                    '"samples": [[0, 5, 1]], "probes": ["x"]}'):
            self.rewrite(lambda lines: lines[:2] + [bad] + lines[2:])
            with self.assertRaises(gbench.ResultsError, msg=bad):
                gbench.load_run(self.path)
            self.rewrite(lambda lines: lines[:2] + lines[3:])

    def test_record_name_must_stay_beside(self):
        with open(self.path, encoding="utf-8") as f:
            doc = json.load(f)
        doc["context"]["samples_file"] = "../etc/passwd"
        with open(self.path, "w", encoding="utf-8") as f:
            json.dump(doc, f)
        with self.assertRaisesRegex(gbench.ResultsError, "not a file name beside the results"):
            gbench.load_run(self.path)

    def test_a_backend_never_quiet_keeps_its_workload_whole(self):
        # fast-slower5's probes all read contended: its workload is ranked from
        # every backend's whole loops (contention included), and said so.
        def contend(lines):
            out = lines[:1]
            for line in lines[1:]:
                loop = json.loads(line)
                if "backend:fast-slower5/" in loop["name"]:
                    loop["probes"] = [[p[0] * 3] for p in loop["probes"]]
                out.append(json.dumps(loop))
            return out
        self.rewrite(contend)
        run = gbench.load_run(self.path)
        self.assertEqual([run.benchmarks[n].params["backend"] for n in run.sampling.never_quiet],
                         ["fast-slower5"])
        for b in run.benchmarks.values():
            self.assertTrue(b.contention_included, b.name)
            self.assertIsNone(b.error)
            self.assertEqual(b.samples["time_ns"], b.raw_samples["time_ns"])
        r = answer.answer(run).results[0]
        self.assertEqual({r.winner, r.runner_up}, {"fast", "fast-slower5"})
        out = self.cli("select", self.path)
        self.assertEqual(out.returncode, 0, out.stderr)
        self.assertTrue(out.stdout.startswith("CONTENDED: 1 benchmark of fast-slower5 ran beside a "
                                              "noisy neighbour in every round"), out.stdout[:300])
        first = out.stdout.splitlines()[0]
        self.assertTrue(first.endswith("(whole loops); run more rounds for quiet figures"), first)
        # What to run says the second stage where the run could have had one.
        for context, said in (({"round_parts": "8"}, "run more rounds for quiet figures "
                               "(a new run with tools/run-benchmarks --top-up runs the classes "
                               "contention leaves short again)"),
                              ({"round_parts": "16", "stages": "2"}, "even its second stage of "
                               "rounds had none quiet: run again in a quieter spell or with more "
                               "rounds")):
            self.assertEqual(health.more_rounds(context), said)

    def test_untested_says_contention_left_too_few_quiet_rounds(self):
        # 8 rounds ran, enough for the sign test; contention in 5 of them
        # leaves 3 in common: the line says that, not "run 6 or more".
        def contend(lines):
            out = lines[:1]
            for line in lines[1:]:
                loop = json.loads(line)
                late = int(loop["name"].split("/round:")[1].split("/")[0]) > 3
                loop["probes"] = [[570 * (3 if late else 1)] for _ in loop["probes"]]
                out.append(json.dumps(loop))
            return out
        self.rewrite(contend)
        r = answer.answer(gbench.load_run(self.path)).results[0]
        self.assertEqual(r.verdict, "untested")
        self.assertTrue(r.untested_why.startswith("only 3 of 8 rounds quiet for both"),
                        r.untested_why)
        out = self.cli("select", self.path)
        self.assertEqual(out.returncode, 0, out.stderr)
        self.assertIn("untested (only 3 of 8 rounds quiet for both: the host was contended)",
                      out.stdout)
        self.assertNotIn("run 6 or more", out.stdout)
        # The answer says first what to run for them, where the run could have
        # a second stage (tools/run-benchmarks --top-up) and where it had one.
        self.assertTrue(out.stdout.startswith(
            "UNTESTED: 1 of the 1 answers below had too few rounds quiet (the host was "
            "contended) to test their margin; run more rounds for quiet figures\n"),
            out.stdout[:300])
        # The report says it first too (the line untested says only why).
        html = report.render([gbench.load_run(self.path)])
        self.assertIn("UNTESTED: 1 of the 1 answers below had too few rounds quiet", html)
        self.assertLess(html.index("UNTESTED:"), html.index("untested: only 3 of 8"))
        run = gbench.load_run(self.path)
        for context, said in (({"round_parts": "8"}, "tools/run-benchmarks --top-up runs the "
                               "classes contention leaves short again"),
                              ({"round_parts": "16", "stages": "2"}, "a second stage of rounds "
                               "ran and still left them short: run again in a quieter spell")):
            run.context.update(context)
            status = answer.answer(run).status
            self.assertEqual(len(status), 1, status)
            self.assertIn(said, status[0])

    def test_untested_with_too_few_rounds_asks_for_more(self):
        folder = tempfile.mkdtemp()
        try:
            path = replay.make_run(folder, [FAST, slower(5)], rounds=4)
            r = answer.answer(gbench.load_run(path, samples=False)).results[0]
        finally:
            shutil.rmtree(folder)
        self.assertEqual(r.verdict, "untested")
        self.assertEqual(r.untested_why, "too few repetitions: run 6 or more")

    def test_untested_reason_finds_each_tests_least(self):
        self.assertEqual(answer.untested_reason(5, 5, 0.05, True),
                         "too few repetitions: run 6 or more")
        self.assertEqual(answer.untested_reason(3, 3, 0.05, False),
                         "too few repetitions: run 4 or more")  # 2 / C(8, 4) < 0.05
        self.assertIn("only 3 of 10 repetitions quiet:", answer.untested_reason(3, 10, 0.05, False))

    def test_rounds_are_repetitions(self):
        run = gbench.load_run(self.path, samples=False)
        self.assertEqual(run.repetitions, 8)
        b = next(iter(run.benchmarks.values()))
        self.assertEqual(b.indices, list(range(8)))
        self.assertNotIn("round", b.params)


class QuietLevelTest(unittest.TestCase):
    """A round's quiet figure: its quiet samples at most 20% slower than
    their first quartile, as one rate; uneven work at the scale of a sample
    and a stall every loop has are kept, a faint neighbour's samples slowed
    by more than 20% are not."""

    @staticmethod
    def figures(per_iteration_ns, iterations=250):
        import numpy as np
        ns = [t * iterations for t in per_iteration_ns]
        samples = np.array([[0, x, iterations, x] for x in ns], dtype=float)
        probes = np.full((len(ns) + 1, 1), 500.0)
        sampling = sampled.Sampling("x")
        return sampled._loop_figures({"samples": samples, "probes": probes}, [625.0],
                                     sampling, 250e3)

    def test_uneven_work_is_averaged_not_dodged(self):
        # A copy doing about 2.7% more work runs one extra operation in every
        # third sample: its fastest sample, and its median one, would read
        # no difference at all.
        _, level, _ = self.figures([1000, 1000, 1080] * 6)
        self.assertAlmostEqual(level, 1026.7, delta=0.5)

    def test_a_stall_every_loop_has_is_kept_alike(self):
        # The Zen 5 VM's host stalls the vCPU about 20 us a millisecond: a
        # quarter of the samples read 9% slow in every loop. A copy doing
        # 2.5% more work (an extra operation in every other sample) has the
        # stall on top of its extra operation in some samples (14.5%): a
        # 10% band cut those and read the copy 0.6% faster.
        _, original, _ = self.figures([1000, 1000, 1000, 1090] * 5)
        _, copy, _ = self.figures([1000, 1050, 1000, 1050 * 1.09] * 5)
        self.assertAlmostEqual(copy / original, 1.025, delta=0.002)

    def test_a_faint_neighbours_slow_samples_are_left_out(self):
        # Four of ten quiet samples slowed 25-40% by what the probes could not
        # see: the median sample (1002) and the mean (1124) both move.
        _, level, _ = self.figures([1000, 1300, 1002, 1250, 1001, 1400, 999, 1280, 1003, 1001])
        self.assertAlmostEqual(level, 1001, delta=1)

    def test_the_band_starts_from_the_quartile_not_the_middle(self):
        # Six of ten quiet samples slowed 25-40%: the middle is among them,
        # the first quartile is not.
        _, level, _ = self.figures([1000, 1250, 1001, 1300, 1350, 1002, 1400, 1280, 1003, 1320])
        self.assertAlmostEqual(level, 1001.5, delta=1)

    def test_a_loop_mostly_contended_has_no_quiet_figure(self):
        # The probes call 4 of 20 samples quiet, beside contention (their
        # readings under the line, the neighbour's edges): on the Zen 4 VM
        # such loops gave most rounds read 20-50% off their class. A quarter
        # of the loop quiet is needed; its contended figure still stands.
        import numpy as np
        per = [1000] * 4 + [1500] * 16
        samples = np.array([[0, t * 250, 250, t * 250] for t in per], dtype=float)
        for quiet in (4, 5):
            probes = np.array([[500.0]] * (quiet + 1) + [[700.0]] * (20 - quiet), dtype=float)
            _, level, contended = sampled._loop_figures(
                {"samples": samples, "probes": probes}, [625.0], sampled.Sampling("x"), 250e3)
            self.assertEqual(level is None, quiet < 5, quiet)
            self.assertEqual(contended, 1500)

    def test_the_figure_does_not_follow_the_number_of_quiet_samples(self):
        # Samples spread 3% by themselves: a figure anchored at the fastest
        # would be faster with more of them (contention decides how many).
        import random
        rng = random.Random(5)
        few, many = ([stats.median([self.figures([1000 * rng.gauss(1, 0.03) for _ in range(n)])[1]
                                    for _ in range(200)]) for n in (6, 40)])
        self.assertAlmostEqual(few / many, 1, delta=0.003)


class PairedStatsTest(unittest.TestCase):
    def test_paired_ratios_follow_rounds(self):
        self.assertEqual(stats.paired_ratios([2, 4, 9], [0, 1, 3], [1, 2, 3], [0, 1, 2]), [2, 2])

    def test_sign_test(self):
        self.assertEqual(stats.sign_test_p([1, 1, 1]), 1.0)
        self.assertLess(stats.sign_test_p([1.03] * 4 + [1.02] * 4), 0.01)
        # A misjudged round counts once, however far off.
        self.assertLess(stats.sign_test_p([1.03] * 15 + [0.5, 0.6, 0.7]), 0.01)
        self.assertAlmostEqual(stats.min_paired_p(6), 2 / 64)

    def test_paired_interval(self):
        low, high = stats.paired_ratio_ci([[1.02, 1.03, 1.04, 1.03, 1.03, 1.05, 1.01, 1.03]])
        self.assertLessEqual(low, 1.03)
        self.assertGreaterEqual(high, 1.03)
        self.assertGreater(low, 1.0)
        self.assertTrue(all(math.isnan(x) for x in stats.paired_ratio_ci([[1.0]])))
        # Five rounds: the sign test cannot reach p < 0.05 (2 / 32), so no
        # value is left out and no interval is claimed.
        self.assertTrue(all(math.isnan(x) for x in stats.paired_ratio_ci([[1.03] * 5])))

    def test_one_size_interval_and_sign_test_never_disagree(self):
        # The interval inverts the sign test: 1.00 lies outside it exactly
        # when p < 0.05, whatever the sample (the bootstrap it replaces
        # disagreed on 256 B in a default run: 0.98x [0.96, 1.00], p = 0.065).
        import random
        rng = random.Random(7)
        checked = 0
        for _ in range(2000):
            n = rng.randint(2, 45)
            centre = rng.uniform(0.97, 1.03)
            ratios = [centre * rng.lognormvariate(0, rng.choice((0.005, 0.02, 0.1)))
                      for _ in range(n)]
            # Ties, and rounds whose ratio is exactly 1 (the sign test leaves
            # those out): the interval must agree with it there too.
            if rng.random() < 0.3:
                ratios[0] = 1.0
            if rng.random() < 0.2:
                ratios = [round(r, 2) for r in ratios]
            low, high = stats.paired_ratio_ci([ratios])
            p = stats.sign_test_p(ratios)
            if math.isnan(low):
                self.assertGreaterEqual(p, 0.05)
                continue
            checked += 1
            self.assertEqual(p < 0.05, not low <= 1 <= high, (ratios, low, high, p))
            m = stats.median(ratios)  # inside, or on an end the test rejects
            self.assertTrue(low * (1 - 1e-12) <= m <= high * (1 + 1e-12), (ratios, low, high))
        self.assertGreater(checked, 1000)


class MarginFloorTest(unittest.TestCase):
    """The answer's floor is the margins' A/A: a change two backends of a
    class share between the halves moves no margin; one backend drifting
    alone does."""

    @staticmethod
    def run_with(drift_all, drift_one, rounds=20, backends="abcd", sizes=(16384,)):
        series = {}
        for backend, size in ((b, z) for b in backends for z in sizes):
            name = (f"grid/backend:{backend}/cipher:aes-128-cbc/op:encrypt/size:{size}/codec:none/"
                    "pool:on/key:cached/real_time/threads:1")
            series[name] = {}
            for k in range(rounds):
                late = k >= rounds // 2
                slow = (1 + drift_all if late else 1) * (1 + drift_one if late and backend == "a"
                                                         else 1)
                series[name][k] = 10000 * slow * (1 + 0.001 * (k % 3))
        return MarginFloorTest.run_of(series, rounds)

    def test_a_shift_the_class_shares_is_taken_out(self):
        run = self.run_with(0.05, 0, backends="abcde")
        self.assertGreater(noise.noise_floor(run).value, 0.045)
        floor = noise.noise_floor(run, within="margins")
        self.assertLess(floor.value, 0.005)
        self.assertEqual(floor.cells, 10)  # the pairs of five backends
        self.assertIn("the margin between two backends of a workload moved by less",
                      floor.describe())
        self.assertIn("5.0% slower in its late half", floor.describe())

    def test_a_run_over_processes_says_its_halves_hold_half_of_them(self):
        # The floor is the halves' own (not divided by sqrt(2): measured,
        # that fell short of the change between two runs); the header says
        # how many processes each half held where they split by process: not
        # for an odd count, a run some parts of which never ran, or peers'
        # back-to-back halves.
        plain = noise.noise_floor(self.run_with(0.05, 0.04, backends="abcde"), "margins")
        for processes, parts, said in (("8", "8", "(4 of its 8 processes each)"),
                                       ("9", "9", None), ("3", "8", None), ("1", None, None)):
            run = self.run_with(0.05, 0.04, backends="abcde")
            run.context.update({"processes": processes, "rounds": str(run.repetitions)})
            if parts:
                run.context["round_parts"] = parts
            floor = noise.noise_floor(run, "margins")
            self.assertLess(abs(floor.value - plain.value), 0.01, processes)
            self.assertEqual(said in floor.describe() if said else "processes each" in
                             floor.describe(), bool(said), floor.describe())
        run = self.run_with(0.05, 0.04, backends="abcde")
        run.context.update({"processes": "8", "round_parts": "8", "rounds": str(run.repetitions),
                            "repetitions_interleaved": "false"})
        self.assertNotIn("processes each", noise.noise_floor(run, "margins").describe())

    def test_a_run_over_processes_splits_its_halves_where_the_processes_do(self):
        # 20 rounds in 4 processes (5 rounds each); in the third (rounds
        # 11-15) b runs 10% slower (its memory layout); a's first process
        # was contended. Split by count, the 15 common rounds' halves would
        # each hold two of that process's rounds and cancel it; split where
        # the processes do, the late half holds all five of its ten.
        series = {}
        for size in (16, 32, 64, 128, 256, 512, 1024, 2048, 4096, 8192, 16384):
            for backend, base in (("a", 1000), ("b", 2000)):
                name = (f"grid/backend:{backend}/cipher:aes-128-cbc/op:encrypt/size:{size}/"
                        "codec:none/pool:on/key:cached/real_time/threads:1")
                series[name] = {k: base * (1.1 if backend == "b" and 10 <= k < 15 else 1)
                                for k in range(20) if backend == "b" or k >= 5}
        run = self.run_of(series)
        self.assertLess(noise.noise_floor(run, within="margins").value, 1e-9)
        run.context.update({"round_parts": "4", "processes": "4", "rounds": "20"})
        late = (1 + 1 / 1.1) / 2  # a / b over 2 in the late half: the median of 1 and 1 / 1.1
        self.assertAlmostEqual(noise.noise_floor(run, within="margins").value, 1 / late - 1,
                               delta=1e-9)
        # Each benchmark's own halves (compare's floor) split there too.
        context = {"round_parts": "4", "rounds": "20"}
        values, rounds = list(range(15)), list(range(5, 20))
        self.assertEqual(noise.halves(context, values, rounds), (values[:5], values[5:]))
        self.assertEqual(noise.halves({}, values, rounds), (values[:7], values[-7:]))
        self.assertEqual(noise.halves(context, values[:8], rounds[:8]), (values[:4], values[4:8]))

    def test_a_class_of_two_is_its_one_margin(self):
        sizes = (16, 32, 64, 128, 256, 512, 1024, 2048, 4096, 8192, 16384)  # 11 pairs
        run = self.run_with(0.05, 0, backends="ab", sizes=sizes)
        self.assertLess(noise.noise_floor(run, within="margins").value, 0.005)
        run = self.run_with(0.05, 0.04, backends="ab", sizes=sizes)
        self.assertAlmostEqual(noise.noise_floor(run, within="margins").value, 0.04, delta=0.002)

    def test_a_backend_drifting_alone_stays_in_the_floor(self):
        run = self.run_with(0.05, 0.04, backends="abcde")
        self.assertAlmostEqual(noise.noise_floor(run, within="margins").value, 0.04, delta=0.002)

    def test_backends_of_separate_merged_runs_are_no_pair(self):
        # Four backends, two from each of two merged runs: only the pair
        # inside each run is a margin the floor can speak for.
        run = self.run_with(0.05, 0.04, sizes=(16, 64, 256, 1024, 4096, 16384))
        run.context.update({"sources": "2", "sources.1.backends": "a,b",
                            "sources.1.repetitions_interleaved": "true",
                            "sources.2.backends": "c,d",
                            "sources.2.repetitions_interleaved": "true"})
        floor = noise.noise_floor(run, within="margins")
        self.assertEqual(floor.cells, 12)  # (a, b) and (c, d) at six sizes
        self.assertAlmostEqual(floor.value, 0.04, delta=0.002)

    def test_too_few_pairs_fall_back_to_each_benchmark(self):
        floor = noise.noise_floor(self.run_with(0.05, 0, backends="ab"), within="margins")
        self.assertEqual((floor.within, floor.cells), ("", 2))
        self.assertIn("5.0% slower in its late half", floor.describe())

    @staticmethod
    def run_of(series, rounds=20):
        """A paired-design run from {name: {round: ns}} (rounds missing: not quiet)."""
        doc = {"context": {"design": "rounds", "num_cpus": 2}, "benchmarks": []}
        for name, figures in series.items():
            for k, ns in sorted(figures.items()):
                doc["benchmarks"].append({
                    "name": name, "run_name": name, "run_type": "iteration",
                    "repetitions": rounds, "repetition_index": k, "threads": 1,
                    "iterations": 100, "real_time": ns, "time_unit": "ns",
                    "bytes_per_second": 1e12 / ns, "ops_per_ms": 1e6 / ns})
        folder = tempfile.mkdtemp()
        path = os.path.join(folder, "run.json")
        with open(path, "w") as f:
            json.dump(doc, f)
        run = gbench.load_run(path)
        shutil.rmtree(folder)
        return run

    @staticmethod
    def shared_rounds(step=0.0):
        """Two backends, a and b (twice as slow), at 11 sizes: each round
        slows both alike, by up to 60%; b lacks the late half's slowest
        rounds (contended for it alone) and is `step` slower in that half."""
        series = {}
        for size in (16, 32, 64, 128, 256, 512, 1024, 2048, 4096, 8192, 16384):
            for backend, base in (("a", 1000), ("b", 2000)):
                name = (f"grid/backend:{backend}/cipher:aes-128-cbc/op:encrypt/size:{size}/"
                        "codec:none/pool:on/key:cached/real_time/threads:1")
                series[name] = {
                    k: base * (1 + step if backend == "b" and k >= 10 else 1)
                    * (1 + 0.6 * ((k * 7) % 10) / 10) for k in range(20)
                    if backend == "a" or k < 10 or (k * 7) % 10 < 5}
        return series

    def test_the_margin_is_paired_round_by_round_as_the_answer_pairs_it(self):
        # Their margin is 2.00 in every round both have: no change. Set
        # apart, each one's halves would differ (b's late half is its fast
        # rounds).
        series = self.shared_rounds()
        floor = noise.noise_floor(self.run_of(series), within="margins")
        self.assertEqual((floor.within, floor.cells), ("margins", 11))
        self.assertLess(floor.value, 1e-9)
        # The margin as each one's late / early set apart (the floor's
        # earlier form) moved by 5% or more.
        ratios = noise._late_over_early(self.run_of(series), None)
        apart = [abs(ratios[name] / ratios[name.replace("backend:a", "backend:b")] - 1)
                 for name in ratios if "backend:a/" in name]
        self.assertGreater(min(apart), 0.05)

    def test_a_margin_that_steps_moves_the_floor_by_its_step(self):
        # The margin steps from 2.00 to 2.10 at round 10 (b 5% slower).
        series = self.shared_rounds(0.05)
        floor = noise.noise_floor(self.run_of(series), within="margins")
        self.assertAlmostEqual(floor.value, 0.05, delta=1e-9)
        # Which of the two is named first does not matter.
        swapped = {n.replace("backend:a", "backend:x").replace("backend:b", "backend:a")
                   .replace("backend:x", "backend:b"): v for n, v in series.items()}
        self.assertAlmostEqual(noise.noise_floor(self.run_of(swapped), within="margins").value,
                               0.05, delta=1e-9)

    GRID = ("grid/backend:{}/cipher:aes-128-cbc/op:encrypt/size:{}/codec:none/pool:on/"
            "key:cached/real_time/threads:1")
    ROUNDTRIP = ("seed000/backend:{}/cipher:aes-128-cbc/op:roundtrip/size:{}/codec:base64/"
                 "pool:on/key:per-op/real_time/threads:1")

    def kinds_run(self, kinds):
        """A run of [(name form, backends, sizes, the drift of backend c)]:
        backend c alone is slower by the drift in the late half."""
        series = {}
        for form, backends, sizes, drift in kinds:
            for size in sizes:
                for backend in backends:
                    base = {"a": 1000, "b": 1040}.get(backend, 1500)
                    series[form.format(backend, size)] = {
                        k: base * (1 + (drift if backend == "c" and k >= 10 else 0))
                        * (1 + 0.001 * (k % 3)) for k in range(20)}
        return self.run_of(series)

    def test_each_kind_of_workload_has_its_own_floor(self):
        # The grid's margins move by 1% (50 pairs over 5 workloads: its own
        # floor), the roundtrips' by 8% (15 pairs: too few to be judged below
        # the run, and above it anyway): a 4% margin is a decision in the
        # grid and a tie among roundtrips.
        sizes = (64, 256, 1024, 4096, 16384)
        run = self.kinds_run([(self.GRID, "abcde", sizes, 0.01),
                              (self.ROUNDTRIP, "abc", sizes, 0.08)])
        floor = noise.noise_floor(run, within="margins")
        self.assertEqual(set(floor.kinds), {("grid", 1), ("seed000", 1)})
        self.assertEqual(floor.pooled, [("seed000", 1)])
        self.assertAlmostEqual(floor.of(("grid", 1)).value, 0.01, delta=0.002)
        self.assertAlmostEqual(floor.of(("seed000", 1)).value, 0.08, delta=0.005)
        self.assertIs(floor.of(("grid", 2)), floor)  # a kind without pairs: the run's
        self.assertIn("1.0% (grid at 1 thread), 8.0% (seed000 at 1 thread)*", floor.describe())
        verdicts = {r.fixed[0]: (r.winner, r.runner_up, r.verdict)
                    for r in answer.classify(run, floor)}
        self.assertEqual(verdicts["grid"], ("a", "b", "decided"))
        self.assertEqual(verdicts["seed000"], ("a", "b", "noise"))
        # Two runs compared (compare --backend-pair) keep each kind's floor.
        combined = noise.combined(floor, floor)
        self.assertAlmostEqual(combined.of(("grid", 1)).value, 0.01, delta=0.002)
        self.assertAlmostEqual(combined.of(("seed000", 1)).value, 0.08, delta=0.005)
        # A kind with little of its own in one run (the roundtrips here, 8%)
        # stays no lower than the two runs' floor (the other's, 12%), even
        # where the other run measured it well and low (1%).
        other = noise.noise_floor(self.kinds_run([(self.GRID, "abcde", sizes, 0.12),
                                                  (self.ROUNDTRIP, "abcde", sizes, 0.01)]),
                                  within="margins")
        self.assertAlmostEqual(other.of(("seed000", 1)).value, 0.01, delta=0.002)
        both = noise.combined(floor, other)
        self.assertAlmostEqual(both.value, 0.12, delta=0.005)
        self.assertEqual(both.of(("seed000", 1)).value, both.value)
        self.assertAlmostEqual(both.of(("grid", 1)).value, 0.12, delta=0.005)
        # A run without a margins floor: one floor for every kind.
        self.assertEqual(noise.combined(floor, noise.noise_floor(run)).kinds, {})

    def test_compare_judges_a_backend_pair_by_its_kinds_floor(self):
        # b is 4% slower than a in both kinds: beyond the grid's 1% floor,
        # within the roundtrips' 8%.
        sizes = (64, 256, 1024, 4096, 16384)
        run = self.kinds_run([(self.GRID, "abcde", sizes, 0.01),
                              (self.ROUNDTRIP, "abc", sizes, 0.08)])
        rows, _, _, _ = compare.compare(run, run, metrics=["time_ns"], backend_pair=("a", "b"))
        verdicts = {(r.name.split("/")[0], r.verdict) for r in rows}
        self.assertEqual(verdicts, {("grid", "worse"), ("seed000", "within noise")})

    def test_a_kind_with_little_of_its_own_is_never_below_the_run(self):
        # One roundtrip workload of three steady backends: its own floor is
        # nearly 0, but three pairs say little; it gets the run's.
        run = self.kinds_run([(self.GRID, "abcde", (64, 256, 1024, 4096, 16384), 0.02),
                              (self.ROUNDTRIP, "abd", (100,), 0.0)])
        floor = noise.noise_floor(run, within="margins")
        self.assertAlmostEqual(floor.of(("grid", 1)).value, 0.02, delta=0.002)
        self.assertEqual(floor.of(("seed000", 1)).value, floor.value)
        self.assertGreater(floor.value, 0.015)
        self.assertIn("(seed000 at 1 thread)*", floor.describe())
        self.assertIn("* fewer than 5 workloads or 40 pairs of its own: no lower than the run's",
                      floor.describe())

    def test_compare_takes_out_only_a_shift_that_is_drift(self):
        sizes = (16, 64, 256, 1024, 4096, 16384)  # 24 benchmarks: a run's median to speak of
        self.assertLess(noise.noise_floor(self.run_with(0.05, 0, sizes=sizes), within="run").value,
                        0.005)
        self.assertGreater(noise.noise_floor(self.run_with(0.08, 0, sizes=sizes),
                                             within="run").value, 0.075)


def split_into_parts(path, parts, folder, stages=1, again=lambda name: True):
    """The replayed run at `path` cut into `parts` parts by round, as
    cryptobench --round-part=K/N writes them (each its own record and run
    id); their JSON paths. stages=2: the first half of the parts a run of
    half the parts and rounds, the second half its second stage (parts N/2+1
    to N of N), of the benchmarks `again` keeps (tools/run-benchmarks' more
    rounds)."""
    with open(path, encoding="utf-8") as f:
        doc = json.load(f)
    with open(os.path.join(os.path.dirname(path), doc["context"]["samples_file"]),
              encoding="utf-8") as f:
        header, *loops = f.read().splitlines()
    rounds = int(doc["context"]["rounds"])

    def part_of(name):
        r = int(name.split("/round:")[1].split("/")[0])
        return next(k for k in range(1, parts + 1) if r <= k * rounds // parts)
    out = []
    for k in range(1, parts + 1):
        first = stages > 1 and k <= parts // stages
        context = dict(doc["context"], round_part=f"{k}/{parts // stages if first else parts}",
                       samples_run_id=f"part-{k}", samples_file=f"part-{k}.samples.jsonl",
                       date=f"2026-12-03T09:0{k}:00+00:00",
                       rounds=str(rounds // stages if first else rounds))

        def kept(name):
            return part_of(name) == k and (first or stages == 1 or again(name))
        benchmarks = [b for b in doc["benchmarks"] if kept(b["name"])]
        with open(os.path.join(folder, f"part-{k}.samples.jsonl"), "w", encoding="utf-8") as f:
            f.write("\n".join([json.dumps(dict(json.loads(header), run_id=f"part-{k}"))] +
                              [x for x in loops if kept(json.loads(x)["name"])]) + "\n")
        out.append(os.path.join(folder, f"part-{k}.json"))
        with open(out[-1], "w", encoding="utf-8") as f:
            json.dump({"context": context, "benchmarks": benchmarks}, f)
    return out


class JoinPartsTest(unittest.TestCase):
    """A run's rounds spread over processes (cryptobench --round-part,
    tools/run-benchmarks) join into the run they are parts of."""

    def setUp(self):
        self.folder = tempfile.mkdtemp()
        self.whole = replay.make_run(self.folder, [FAST, slower(5), CHAIN], rounds=12)
        self.parts = split_into_parts(self.whole, 4, self.folder)

    def tearDown(self):
        shutil.rmtree(self.folder)

    def cli(self, *args):
        return subprocess.run([sys.executable, CLI, *args], capture_output=True, text=True)

    def test_joined_parts_are_the_run_they_were_cut_from(self):
        out = os.path.join(self.folder, "joined.json")
        # In any order: joined in round order.
        r = self.cli("join", *reversed(self.parts), "-o", out)
        self.assertEqual(r.returncode, 0, r.stderr)
        whole, joined = gbench.load_run(self.whole), gbench.load_run(out)
        self.assertEqual(joined.sampling.status, "applied")
        self.assertEqual(joined.context["samples_file"], "joined.samples.jsonl")
        self.assertEqual((joined.context["processes"], joined.context["round_parts"]), ("4", "4"))
        self.assertEqual(joined.context["parts.3.date"], "2026-12-03T09:03:00+00:00")
        self.assertNotIn("round_part", joined.context)
        for name, b in whole.benchmarks.items():
            self.assertEqual(joined.benchmarks[name].indices, b.indices)
            self.assertEqual(joined.benchmarks[name].samples["time_ns"], b.samples["time_ns"])
        self.assertEqual([(x.winner, x.runner_up, x.margin) for x in answer.answer(joined).results],
                         [(x.winner, x.runner_up, x.margin) for x in answer.answer(whole).results])
        said = self.cli("select", out)
        self.assertIn("x 12 rounds in 4 processes (quiet", said.stdout)

    def test_a_run_whose_last_parts_never_ran_says_so(self):
        out = os.path.join(self.folder, "joined.json")
        r = self.cli("join", *self.parts[:2], "-o", out)
        self.assertEqual(r.returncode, 0, r.stderr)
        with open(out, encoding="utf-8") as f:
            entries = json.load(f)["benchmarks"]

        def rounds(measured):
            return sorted({int(b["name"].split("/round:")[1].split("/")[0]) for b in entries
                           if bool(b.get("error_occurred")) != measured})
        self.assertEqual(rounds(measured=True), list(range(1, 7)))
        # The rounds of the parts that never ran are marked as an interruption marks them.
        self.assertEqual(rounds(measured=False), list(range(7, 13)))
        said = self.cli("select", out).stdout
        self.assertIn("x 12 rounds in 2 processes (of 4: the rest never ran)", said)
        self.assertTrue(said.startswith("INTERRUPTED: the run was stopped: 0 of 3 benchmarks "
                                        "finished every repetition, 3 only some"), said)

    def test_a_second_stage_joins_as_more_rounds_of_its_classes(self):
        # 24 rounds: 12 in 4 processes, and 12 more in 4 more for fast and
        # its copy only (tools/run-benchmarks' more rounds).
        whole = replay.make_run(self.folder, [FAST, slower(5), CHAIN], rounds=24, name="whole24")
        parts = split_into_parts(whole, 8, self.folder, stages=2,
                                 again=lambda name: "backend:chain/" not in name)
        out = os.path.join(self.folder, "joined.json")
        r = self.cli("join", *parts, "-o", out)
        self.assertEqual(r.returncode, 0, r.stderr)
        joined, full = gbench.load_run(out), gbench.load_run(whole)
        self.assertEqual([joined.context[k] for k in ("processes", "round_parts", "rounds",
                                                      "stages")], ["8", "8", "24", "2"])
        for name, b in full.benchmarks.items():
            mine = joined.benchmarks[name]
            if "backend:chain/" in name:
                self.assertEqual(mine.indices, [i for i in b.indices if i < 12])
            else:
                self.assertEqual(mine.indices, b.indices)
                self.assertEqual(mine.samples["time_ns"], b.samples["time_ns"])
        said = self.cli("select", out).stdout
        self.assertIn(" x 12 rounds in 4 processes, and 12 more in 4 more processes for the 2 "
                      "whose classes had too few quiet (quiet in ", said)
        self.assertIn("(2 of its 4 processes each; 4 of 8 for the classes run again)", said)
        # Each benchmark's halves split where its own processes do.
        context = joined.context
        self.assertEqual(noise.halves(context, list(range(12)), list(range(12))),
                         (list(range(6)), list(range(6, 12))))
        self.assertEqual(noise.halves(context, list(range(24)), list(range(24))),
                         (list(range(12)), list(range(12, 24))))
        # Quiet in 8 rounds of the first stage and 5 of the second: split
        # where the stages do (by count it would be 6 and 6).
        rounds = list(range(8)) + list(range(12, 17))
        self.assertEqual(noise.halves(context, rounds, rounds), (rounds[:8], rounds[8:]))
        rounds = list(range(4)) + list(range(6, 12))  # the first stage's alone: 4 and 6
        self.assertEqual(noise.halves(context, rounds, rounds), (rounds[:4], rounds[4:]))
        # A second stage stopped after its first process: the rest of its
        # rounds are marked as not run, for its own benchmarks only.
        r = self.cli("join", *parts[:5], "-o", out)
        self.assertEqual(r.returncode, 0, r.stderr)
        with open(out, encoding="utf-8") as f:
            entries = json.load(f)["benchmarks"]
        never = {(b["name"].split("/")[1], int(b["name"].split("/round:")[1].split("/")[0]))
                 for b in entries if b.get("error_occurred")}
        self.assertEqual(never, {(backend, r) for backend in ("backend:fast",
                                                             "backend:fast-slower5")
                                 for r in range(16, 25)})
        said = self.cli("select", out).stdout
        self.assertTrue(said.startswith("INTERRUPTED"), said[:300])
        self.assertIn("(of 8: the rest never ran)", said)
        # A second stage of other rounds than twice the first's is not the run's.
        with open(parts[5], encoding="utf-8") as f:
            doc = json.load(f)
        doc["context"]["rounds"] = "20"
        with open(parts[5], "w", encoding="utf-8") as f:
            json.dump(doc, f)
        r = self.cli("join", *parts, "-o", out)
        self.assertEqual(r.returncode, 2, r.stderr)
        self.assertIn("its rounds '20' are not 2 x", r.stderr)

    def test_classes_short_of_quiet_rounds_are_run_again_exactly(self):
        # The replayed trace is 74% contended: fewer than half of the
        # rounds are quiet for both backends of a pair.
        joined = os.path.join(self.folder, "joined.json")
        self.assertEqual(self.cli("join", *self.parts, "-o", joined).returncode, 0)
        run = gbench.load_run(joined)
        [(workload, quiet, rounds)] = topup.short_classes(run)
        self.assertEqual(rounds, 12)
        self.assertLess(quiet, 6)
        more_rounds, more_parts, regex = topup.plan(run)
        self.assertEqual((more_rounds, more_parts), (24, 8))
        # The filter selects each benchmark by its whole name; a test-only
        # slower copy comes with its original (the binary makes it from it).
        for name in run.benchmarks:
            self.assertEqual(bool(re.search(regex, name)), "-slower5" not in name, name)
            self.assertFalse(re.search(regex, name.replace("size:16384", "size:1638")), name)
            self.assertFalse(re.search(regex, name.replace("size:16384", "size:163840")), name)
        fast = next(n for n in run.benchmarks if "backend:fast/" in n)
        self.assertFalse(re.search(regex, fast.replace("backend:fast/", "backend:other/")))
        printed = self.cli("top-up", joined).stdout.splitlines()
        self.assertEqual(printed[:2], ["24 8", regex])
        self.assertIn("1 of 1 classes had a pair of backends quiet together in fewer than 50% "
                      "of the 12 rounds (the least quiet pair: ", printed[2])
        # Quiet together in half the rounds or more, but in fewer than the
        # sign test needs to call a margin (6): still short (a run of
        # 6-10 rounds can leave that, and its UNTESTED line names --top-up).
        self.assertEqual(topup.least_tested(), 6)
        kept, least = topup.QUIET_SHARE, topup.least_tested
        topup.QUIET_SHARE = quiet / rounds
        try:
            self.assertEqual(topup.short_classes(run), [(workload, quiet, rounds)])
            printed = subprocess.run([sys.executable, CLI, "top-up", joined], capture_output=True,
                                     text=True, env=dict(os.environ, CRYPTOBENCH_TOP_UP_SHARE=str(
                                         quiet / rounds))).stdout.splitlines()
            self.assertIn(f"fewer than 6 of the 12 rounds, the fewest the sign test can decide "
                          f"a margin on (the least quiet pair: {quiet})", printed[2])
            # A run of fewer rounds than that is held to its share alone
            # (no second stage could reach 6 for it).
            run.context["rounds"] = "5"
            topup.QUIET_SHARE = 0.01
            self.assertEqual(topup.short_classes(run), [])
            run.context["rounds"] = "12"
            topup.QUIET_SHARE = quiet / rounds
            # Nothing to run again where the pairs were quiet enough, nor for a
            # run that was not in parts, nor for one already in two stages.
            topup.least_tested = lambda alpha=topup.ALPHA: quiet
            self.assertIsNone(topup.plan(run))
        finally:
            topup.QUIET_SHARE, topup.least_tested = kept, least
        # A class one of whose backends was never quiet keeps its whole
        # figures, every round counted (sampled.apply): it is short, quiet in 0.
        for b in run.benchmarks.values():
            b.indices, b.contention_included = list(range(12)), True
        self.assertEqual(topup.short_classes(run), [(workload, 0, 12)])
        self.assertEqual(topup.short_classes(gbench.load_run(self.whole)), [])
        self.assertEqual(self.cli("top-up", self.whole).stdout, "")
        run.context["stages"] = "2"
        self.assertEqual(topup.short_classes(run), [])

    def test_a_joined_run_merged_with_a_run_of_one_process_is_not_scaled(self):
        joined = os.path.join(self.folder, "joined.json")
        self.assertEqual(self.cli("join", *self.parts, "-o", joined).returncode, 0)
        other = replay.make_run(self.folder, [("other", 1200, "throughput")], rounds=12,
                                name="other")
        out = os.path.join(self.folder, "merged.json")
        r = self.cli("merge", joined, other, "-o", out)
        self.assertEqual(r.returncode, 0, r.stderr)
        merged = gbench.load_run(out)
        self.assertNotIn("processes", merged.context)
        self.assertEqual(merged.context["sources.1.processes"], "4")

    def test_a_joined_run_merged_with_a_peers_run_keeps_its_processes(self):
        # A run without rounds (the Java and Go peers' back-to-back
        # repetitions) spreads none over processes: the merged run's
        # header and floor keep the C++ run's processes and stages.
        whole = replay.make_run(self.folder, [FAST, slower(5), CHAIN], rounds=24, name="whole24")
        parts = split_into_parts(whole, 8, self.folder, stages=2,
                                 again=lambda name: "backend:chain/" not in name)
        joined = os.path.join(self.folder, "joined.json")
        self.assertEqual(self.cli("join", *parts, "-o", joined).returncode, 0)
        other = replay.make_run(self.folder, [("peer", 1200, "throughput")], rounds=12,
                                name="peer")
        with open(other, encoding="utf-8") as f:
            doc = json.load(f)
        for key in ("rounds", "design", "samples_file", "samples_run_id"):
            doc["context"].pop(key, None)
        doc["context"]["repetitions_interleaved"] = "false"
        seen = {}
        for entry in doc["benchmarks"]:
            for field in ("name", "run_name"):
                if field in entry:
                    entry[field] = re.sub(r"/round:[0-9]+", "", entry[field])
            entry["repetitions"] = 12
            entry["repetition_index"] = seen.setdefault(entry["run_name"], 0)
            seen[entry["run_name"]] += 1
        with open(other, "w", encoding="utf-8") as f:
            json.dump(doc, f)
        out = os.path.join(self.folder, "merged.json")
        r = self.cli("merge", joined, other, "-o", out)
        self.assertEqual(r.returncode, 0, r.stderr)
        merged = gbench.load_run(out)
        self.assertEqual([merged.context.get(k) for k in ("processes", "round_parts", "stages")],
                         ["8", "8", "2"])
        said = self.cli("select", out).stdout
        self.assertIn(" x 12 rounds in 4 processes, and 12 more in 4 more processes for the ",
                      said)

    def test_a_warning_any_part_raised_is_the_runs(self):
        with open(self.parts[2], encoding="utf-8") as f:
            doc = json.load(f)
        doc["context"]["concurrent_cryptobench_runs"] = "pid 4242 (cryptobench)"
        with open(self.parts[2], "w", encoding="utf-8") as f:
            json.dump(doc, f)
        out = os.path.join(self.folder, "joined.json")
        self.assertEqual(self.cli("join", *self.parts, "-o", out).returncode, 0)
        self.assertIn("CONCURRENT: another cryptobench run was measuring on this machine as this "
                      "one started (pid 4242 (cryptobench))", self.cli("select", out).stdout)

    def test_what_is_not_parts_of_one_run_is_refused_in_one_line(self):
        out = os.path.join(self.folder, "joined.json")

        def edit(path, change):
            with open(path, encoding="utf-8") as f:
                doc = json.load(f)
            change(doc["context"])
            edited = os.path.join(self.folder, f"edited-{len(os.listdir(self.folder))}.json")
            with open(edited, "w", encoding="utf-8") as f:
                json.dump(doc, f)
            return edited
        with open(os.path.join(self.folder, "part-2.samples.jsonl"), encoding="utf-8") as f:
            lines = f.read().splitlines()
        with open(os.path.join(self.folder, "broken.samples.jsonl"), "w", encoding="utf-8") as f:
            f.write("\n".join(lines[:2] + ['{"name": "grid/../x"}'] + lines[2:]) + "\n")
        cases = [
            ([self.parts[0], edit(self.parts[1], lambda c: c.update(
                samples_file="broken.samples.jsonl"))], "broken.samples.jsonl: line 3: "),
            ([self.parts[0], self.parts[0]], "part 1 is also"),
            ([self.whole], "not a part of a run"),
            ([self.parts[0], edit(self.parts[1], lambda c: c.update(round_part="2/5"))],
             "a part of 5"),
            ([self.parts[0], edit(self.parts[1], lambda c: c.update(host_name="other"))],
             "another machine"),
            ([self.parts[0], edit(self.parts[1], lambda c: c.update(rounds="40"))],
             "its rounds '40'"),
            ([self.parts[0], edit(self.parts[1], lambda c: c.update(git_commit="0123abc"))],
             "its git_commit '0123abc'"),
            ([self.parts[0], edit(self.parts[1], lambda c: c.pop("samples_file"))],
             "has no per-sample record, and other parts have"),
            ([self.parts[0], edit(self.parts[1], lambda c: c.update(samples_run_id="part-3"))],
             "not the per-sample record of"),
        ]
        for inputs, message in cases:
            r = self.cli("join", *inputs, "-o", out)
            self.assertEqual(r.returncode, 2, (message, r.stderr))
            self.assertIn(message, r.stderr)
            self.assertEqual(len(r.stderr.strip().splitlines()), 1, r.stderr)
            self.assertFalse(os.path.exists(out), message)


if __name__ == "__main__":
    unittest.main()
