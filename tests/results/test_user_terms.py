"""The answer in the user's terms (issue 24): each line's winner with its own
figure, the baseline library (--baseline, default openssl) with its own figure
and how much slower it is wherever it did not win, and no line whose interval
and p tell different stories (a merged line gives each size's own instead).

On the committed golden runs and on small synthetic runs built here, whose
figures are known by construction."""
import json
import math
import os
import re
import sys
import tempfile
import unittest

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
from test_results_tools import (DECISION_A, DECISION_B, DECISION_MASKED, FAST,  # noqa: E402
                                run_cli, write_json)
from cryptobench_results import answer, gbench, report  # noqa: E402

LIBRARIES = {"gcrypt": "libgcrypt 1.10.1", "nettle": "Nettle 3.8.1", "openssl": "OpenSSL 3.0.19"}


def synthetic_run(tmp, rates):
    """A run of AES-128-CBC encryption, 1 thread: rates[(backend, size)] = the
    MB/s of each repetition (10, in order, not interleaved: no noise floor)."""
    with open(FAST) as f:
        doc = json.load(f)
    for backend, lib in LIBRARIES.items():
        doc["context"][f"backend.{backend}.library"] = lib
    doc["benchmarks"] = []
    for (backend, size), values in rates.items():
        name = (f"grid/backend:{backend}/cipher:aes-128-cbc/op:encrypt/size:{size}/codec:none/"
                "pool:on/key:cached/real_time/threads:1")
        for index, rate in enumerate(values):
            doc["benchmarks"].append({
                "name": name, "run_name": name, "run_type": "iteration",
                "repetitions": len(values), "repetition_index": index, "threads": 1,
                "iterations": 1000, "real_time": size / rate * 1e3, "time_unit": "ns",
                "bytes_per_second": rate * 1e6})
    return write_json(tmp, "run.json", doc)


def spread(centre, width=0.02):
    """Ten repetitions around centre, +-width, in a fixed zig-zag order."""
    return [centre * (1 + width * ((i * 7) % 10 - 4.5) / 4.5) for i in range(10)]


FIGURE = re.compile(r" at [0-9][0-9,.]*(-[0-9][0-9,.]*)? (MB/s|ops/ms|ns/op|ops/s|us/ping|setups/s)")


class UserTermsTest(unittest.TestCase):
    def answers(self):
        for path in (DECISION_A, DECISION_B, DECISION_MASKED):
            a = answer.answer(gbench.load_run(path))
            yield path, a, [answer.sentence_text(s, {}) for s in a.sentences]

    def test_every_line_gives_the_winners_figure(self):
        for path, a, texts in self.answers():
            for s, text in zip(a.sentences, texts):
                self.assertRegex(text.split(": ", 1)[1], FIGURE, f"{path}: {text}")
                # The figure is the winner's own: its medians' range over the line's sizes.
                medians = [b.value("bytes_per_second") / 1e6 for b in a.run.benchmarks.values()
                           if b.params.get("backend") == s.first.winner
                           and answer.class_of(b) in {answer.result_key(m) for m in s.members}
                           and int(b.params["size"]) in {n for m in s.members for n in m.sizes}]
                if medians and s.figure.unit == "MB/s":
                    self.assertAlmostEqual(s.figure.low, min(medians), delta=min(medians) * 1e-9)
                    self.assertAlmostEqual(s.figure.high, max(medians), delta=max(medians) * 1e-9)

    def test_the_baseline_is_on_every_line_it_did_not_win(self):
        seen = 0
        for path, a, texts in self.answers():
            self.assertEqual(a.baseline, "openssl")
            for s, text in zip(a.sentences, texts):
                if s.first.winner == "openssl":
                    self.assertNotIn("; openssl: ", text)
                    continue
                seen += 1
                self.assertRegex(text, r"; openssl: [0-9][0-9,.]*(-[0-9][0-9,.]*)? MB/s|"
                                       r"; openssl: [0-9][0-9,.]*(-[0-9][0-9,.]*)? ops/ms", text)
                if s.first.runner_up != "openssl" and s.baseline.versus is not None:
                    f = s.baseline.versus
                    self.assertGreaterEqual(f.margin, 1.0, text)  # the winner is the faster
                    if f.verdict == "decided":
                        self.assertIn(f"openssl: {answer.figure_text(s.baseline.figure)}, "
                                      f"{f.margin:.2f}x slower [{f.low:.2f}, {f.high:.2f}]", text)
        self.assertGreater(seen, 10)

    def test_another_baseline(self):
        a = answer.answer(gbench.load_run(DECISION_A), baseline="nettle")
        lines = answer.render_console(a)
        self.assertLessEqual(len(lines), answer.CONSOLE_LINES)
        self.assertIn(answer.HEADING.format(baseline="nettle"), lines)
        for s in a.sentences:
            text = answer.sentence_text(s, {})
            self.assertEqual("; nettle: " in text, s.first.winner != "nettle", text)
            self.assertNotIn("; openssl: ", text)
        r = run_cli("select", DECISION_A, "--baseline=nettle")
        self.assertEqual(r.returncode, 0, r.stderr)
        self.assertIn("; nettle: ", r.stdout)

    def test_a_baseline_the_run_lacks_or_a_kernel_is_one_line_and_exit_2(self):
        for baseline, words in (("nss", "has no benchmark of that backend"),
                                ("aesni", "a hand-written kernel, not a library")):
            out = os.path.join(tempfile.mkdtemp(), "report.html")
            for command in (["select", DECISION_A], ["report", DECISION_A, "-o", out]):
                r = run_cli(*command, f"--baseline={baseline}")
                self.assertEqual(r.returncode, 2, r.stderr)
                self.assertEqual(len(r.stderr.splitlines()), 1, r.stderr)
                self.assertIn(words, r.stderr)
                self.assertFalse(os.path.exists(out))
        # The default baseline may be absent: no baseline words, no error.
        with tempfile.TemporaryDirectory() as tmp:
            path = synthetic_run(tmp, {("gcrypt", 256): spread(1400), ("nettle", 256): spread(1000)})
            a = answer.answer(gbench.load_run(path))
        self.assertEqual(a.baseline, "")
        self.assertNotIn("openssl", "\n".join(answer.render_console(a)).split("Fastest", 1)[1]
                         .split("\n", 1)[1])

    def test_no_merged_line_shows_an_interval_and_a_p_that_disagree(self):
        # The case: one class (256 B and 1 KiB, both "small"), gcrypt
        # 1.4x ahead at 256 B and level at 1 KiB: the largest p says no
        # difference while the class's interval leaves out 1.00.
        rates = {("gcrypt", 256): spread(1400), ("nettle", 256): spread(1000),
                 ("gcrypt", 1024): spread(1500, 0.2), ("nettle", 1024): spread(1500, 0.2)[::-1],
                 ("openssl", 256): spread(700), ("openssl", 1024): spread(750)}
        with tempfile.TemporaryDirectory() as tmp:
            a = answer.answer(gbench.load_run(synthetic_run(tmp, rates)))
        [s] = a.sentences
        margin, low, high, p = answer.sentence_figures(s)
        self.assertFalse(answer.agrees(low, high, p, 0.05), (low, high, p))  # what is not shown
        text = answer.sentence_text(s, {})
        self.assertIn("gcrypt at 1,400-1,500 MB/s and nettle tie, not significant over the sizes "
                      "together; by size: 256 B 1.40x [", text)
        self.assertRegex(text, r"256 B 1\.40x \[1\.[0-9]{2}, 1\.[0-9]{2}\] \(p < 0\.001\), "
                               r"1 KiB 1\.00x \[0\.[0-9]{2}, 1\.[0-9]{2}\] \(p = ")
        for _, f in s.per_size:
            self.assertTrue(answer.agrees(f.low, f.high, f.p, 0.05), f)
        # openssl: slower at both sizes, one interval and one p that agree.
        self.assertIsNotNone(s.baseline.versus)
        self.assertIn("; openssl: 700-750 MB/s, 2.", text)
        self.assertIn("x slower [", text)
        # The report's table says the same.
        html = report.render([gbench.load_run(synthetic_run(tempfile.mkdtemp(), rates))])
        self.assertIn("by size:<br><span class='nm'>256 B 1.40x", html)
        self.assertIn("700-750 MB/s</span><br>2.00x slower", html)

    def test_every_shown_interval_and_p_agree_in_the_golden_runs(self):
        checked = 0
        for path, a, texts in self.answers():
            for s, text in zip(a.sentences, texts):
                if s.per_size:
                    cells = s.per_size
                else:
                    margin, low, high, p = answer.sentence_figures(s)
                    if "noise floor" in text.split(";")[0] or math.isnan(p):
                        continue  # a tie within the floor shows no p
                    if answer.agrees(low, high, p, 0.05):
                        checked += 1
                        continue
                    # One class at one size: the two tests of one sample, said in words.
                    self.assertEqual(answer._cells(s), 1, text)
                    self.assertRegex(text, "but the 95% interval reaches 1.00|though the 95% "
                                           "interval leaves out 1.00")
                    continue
                for _, f in cells:
                    checked += 1
                    if not answer.agrees(f.low, f.high, f.p, 0.05):
                        self.assertRegex(answer.pair_text(f), "reaches 1.00|leaves out")
        self.assertGreater(checked, 10)


if __name__ == "__main__":
    unittest.main()
