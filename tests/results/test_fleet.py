#!/usr/bin/python3
"""cryptobench-results fleet (issue 26) on the committed reference runs of the
modes suite on three CPUs (Sapphire Rapids, an AMD EPYC without AVX-512 and
a Zen 5 EPYC with it), and its bad input."""
import json
import lzma
import os
import subprocess
import sys
import tempfile
import unittest

HERE = os.path.dirname(os.path.abspath(__file__))
ROOT = os.path.dirname(os.path.dirname(HERE))
TOOLS = os.path.join(ROOT, "tools", "results")
sys.path.insert(0, TOOLS)

from cryptobench_results import fleet  # noqa: E402

REF = os.path.join(ROOT, "results", "reference")
SPR = os.path.join(REF, "2026-12-02-modes-spr-10x", "benchmark.json.xz")
ZEN4 = os.path.join(REF, "2026-12-02-modes-gcm-ctr", "benchmark.json.xz")
ZEN5 = os.path.join(REF, "2026-12-02-modes-zen5-10x", "benchmark.json.xz")
SEED000 = os.path.join(REF, "2026-12-02-modes-zen5-10x", "seed000-cbc.benchmark.json.xz")
CLI = os.path.join(TOOLS, "cryptobench-results")
THREE = [f"spr={SPR}", f"zen4={ZEN4}", f"zen5={ZEN5}"]


def run_cli(*args):
    return subprocess.run([sys.executable, CLI, *args], capture_output=True, text=True)


def answer(specs, weights=None):
    hosts = fleet.load_hosts(specs)
    fleet.parse_weights(weights, hosts)
    return fleet.fleet(hosts)


def by_class(fa, text):
    return next(fc for fc in fa.classes if fleet.class_text(fc.first).startswith(text))


class FleetTest(unittest.TestCase):
    @classmethod
    def setUpClass(cls):
        cls.fa = answer(THREE)

    def test_three_machine_types(self):
        self.assertEqual([t.name for t in self.fa.types], ["spr", "zen4", "zen5"])
        self.assertIn("avx512f", self.fa.types[0].label)
        self.assertIn("without", self.fa.types[1].label)  # the EPYC without AVX-512

    def test_same_winner_everywhere_is_safe_with_no_loss(self):
        fc = by_class(self.fa, "modes: AES-128-GCM encryption, 64 B, no AAD")
        self.assertEqual({w for _, w, _ in fc.winners}, {"ipsecmb"})
        self.assertEqual(fc.safe[0][:2], ("ipsecmb", 1.0))
        self.assertEqual(fc.weighted.winner, "ipsecmb")
        self.assertEqual(fc.weighted.verdict, "decided")
        self.assertLess(fc.weighted.ns_low, fc.weighted.ns)
        self.assertLess(fc.weighted.ns, fc.weighted.ns_high)

    def test_no_safe_choice_names_the_deciding_machine(self):
        fc = by_class(self.fa, "modes: AES-128-CTR encryption, 16 KiB")
        winners = {t.name: w for t, w, _ in fc.winners}
        self.assertEqual(winners, {"spr": "ipsecmb", "zen4": "gcrypt", "zen5": "ipsecmb"})
        self.assertEqual(fc.safe, [])
        lib, loss, where, deciding = fc.minimax
        self.assertEqual((lib, where, deciding), ("ipsecmb", "zen4", "zen4"))
        self.assertGreater(loss, 1.5)
        self.assertIn("zen4 decides it", fleet.safe_text(fc, self.fa.types))

    def test_weights_move_the_weighted_verdict(self):
        fc = by_class(self.fa, "modes: AES-128-CTR encryption, 16 KiB")
        heavy = by_class(answer(THREE, "spr=0,zen4=0,zen5=1"), "modes: AES-128-CTR encryption, 16 KiB")
        self.assertEqual(heavy.weighted.winner, "ipsecmb")
        self.assertEqual(heavy.weighted.verdict, "decided")
        zen4 = by_class(answer(THREE, "spr=0,zen4=1,zen5=0"), "modes: AES-128-CTR encryption, 16 KiB")
        self.assertEqual(zen4.weighted.winner, "gcrypt")
        self.assertNotEqual(fc.weighted.ns, heavy.weighted.ns)

    def test_cli_answer_and_report(self):
        with tempfile.TemporaryDirectory() as tmp:
            report = os.path.join(tmp, "r.html")
            r = run_cli("fleet", *THREE, "--weights", "spr=6,zen4=3,zen5=1", "--left-out",
                        "zen3=unreachable", "--report", report)
            self.assertEqual(r.returncode, 0, r.stderr)
            self.assertIn("3 hosts, 3 machine types; suite modes", r.stdout)
            self.assertIn("LEFT OUT: host zen3: unreachable", r.stdout)
            self.assertIn("spr (share 6;", r.stdout)
            with open(report) as f:
                self.assertIn("Across the fleet", f.read())

    def test_bad_input_is_one_line_exit_2(self):
        with tempfile.TemporaryDirectory() as tmp:
            with open(SPR, "rb") as f:
                doc = json.loads(lzma.decompress(f.read()))
            copy = os.path.join(tmp, "copy.json")
            with open(copy, "w") as f:
                json.dump(doc, f)
            doc["context"]["design"] = "rounds"  # another design (as its context says)
            doc["context"]["date"] = "2026-12-03T10:00:00+00:00"
            other = os.path.join(tmp, "rounds.json")
            with open(other, "w") as f:
                json.dump(doc, f)
            cases = [
                (["fleet", f"a={SPR}", f"b={SEED000}"], "of suite seed000"),
                (["fleet", f"a={ZEN5}", f"b={other}"], "rounds design"),
                (["fleet", f"a={SPR}", f"a={ZEN5}"], "two runs of host a"),
                (["fleet", SPR, ZEN5], "two runs of host vm"),
                (["fleet", f"a={SPR}", f"b={SPR}"], "given twice"),
                (["fleet", f"a={SPR}", f"b={copy}"], "the same run"),
                (["fleet", *THREE, "--weights", "spr=-1"], "share of 0 or more"),
                (["fleet", *THREE, "--weights", "nosuch=1"], "no run of host"),
                (["fleet", *THREE, "--weights", "spr=0,zen4=0,zen5=0"], "every share is 0"),
                (["fleet", *THREE, "--left-out", "spr=gone"], "a run of that host is given"),
                (["fleet", f"a={os.path.join(tmp, 'none.json')}"], "no such file"),
            ]
            for args, text in cases:
                with self.subTest(args=args[1:3]):
                    r = run_cli(*args)
                    self.assertEqual(r.returncode, 2, r.stderr)
                    self.assertEqual(len(r.stderr.strip().splitlines()), 1, r.stderr)
                    self.assertIn(text, r.stderr)
                    self.assertEqual(r.stdout, "")


if __name__ == "__main__":
    unittest.main()
