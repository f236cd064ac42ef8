#!/usr/bin/python3
"""A failed or partial run never reads as a clean answer (issue 23, the
results tools' side of points 3, 4, 5, 6, 9 and 12): a verification failure
and an interrupt are said on the first line of select, report, jmh and
compare, no class lacking a backend's figures is ranked, compare across
machines says so first, a mix whose weights overflow is refused and no view
prints nan, a mix CSV with a UTF-8 byte order mark is read and UTF-16 is
refused by name.

Each class is its own CTest (tools.results.partial.*):
  /usr/bin/python3 tests/results/partial_test.py VerificationFailureTest [...]
"""
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

from cryptobench_results import answer, gbench  # noqa: E402

GOLDEN = os.path.join(HERE, "golden")
DECISION = os.path.join(GOLDEN, "run_decision_a.json.xz")
MASKED = os.path.join(GOLDEN, "run_decision_masked.json.xz")
CLI = os.path.join(TOOLS, "cryptobench-results")
FAILED = ("grid/backend:openssl/cipher:aes-128-cbc/op:encrypt/size:16384/codec:none/pool:on/"
          "key:cached/real_time/threads:1")


def decision():
    return json.loads(lzma.open(DECISION).read())


def run_cli(*args, timeout=120):
    return subprocess.run([sys.executable, CLI, *args], capture_output=True, text=True,
                          timeout=timeout)


class Case(unittest.TestCase):
    def setUp(self):
        self._dir = tempfile.TemporaryDirectory()
        self.dir = self._dir.name

    def tearDown(self):
        self._dir.cleanup()

    def write(self, name, doc):
        path = os.path.join(self.dir, name)
        with open(path, "w", encoding="utf-8") as f:
            json.dump(doc, f)
        return path

    def assert_no_class_lacks_a_backend(self, path):
        """Every ranked class holds every backend that has an entry in it."""
        run = gbench.load_run(path)
        a = answer.answer(run)
        asked = {}
        for b in run.benchmarks.values():
            fixed, dims = answer.class_parts(b)
            asked.setdefault(fixed + tuple(dims.values()), set()).add(b.params["backend"])
        for r in a.results:
            key = r.fixed + tuple(r.dims.values())
            ranked = {b for b, _ in r.ranking} | {b for b, _ in r.hand_written}
            self.assertEqual(ranked, asked[key], f"class {key} ranked without every backend")
        return a


class VerificationFailureTest(Case):
    """Point 3: openssl fails verification at 16 KiB; it must not be
    recommended there (nor for a mix its ladder feeds), and every view says
    so first."""

    def setUp(self):
        super().setUp()
        doc = decision()
        hit = 0
        for b in doc["benchmarks"]:
            if b.get("run_name", b["name"]) == FAILED:
                b["error_occurred"] = True
                b["error_message"] = "verification failed: ciphertext (openssl vs reference nettle)"
                hit += 1
        self.assertGreater(hit, 0)
        self.path = self.write("bad.json", doc)

    def test_select_says_it_first_and_ranks_nothing_without_openssl(self):
        r = run_cli("select", self.path)
        self.assertEqual(r.returncode, 0, r.stderr)
        first = r.stdout.splitlines()[0]
        self.assertTrue(first.startswith("FAILED:"), first)
        self.assertIn("openssl", first)
        self.assertIn("verification failed", first)
        self.assertIn("AES-128-CBC encryption: not answered: openssl failed verification",
                      r.stdout)
        self.assertIn("openssl failed verification at 16 KiB", r.stdout)
        a = self.assert_no_class_lacks_a_backend(self.path)
        self.assertFalse(any(v.what == "AES-128-CBC encryption" for v in a.mix_verdicts))

    def test_markdown_report_jmh_compare_say_it_first(self):
        md = run_cli("select", self.path, "--markdown")
        self.assertEqual(md.returncode, 0, md.stderr)
        self.assertTrue(md.stdout.startswith("**FAILED:"), md.stdout[:200])
        out = os.path.join(self.dir, "r.html")
        rep = run_cli("report", self.path, "-o", out)
        self.assertEqual(rep.returncode, 0, rep.stderr)
        with open(out, encoding="utf-8") as f:
            html = f.read()
        body = html[html.index("<body>"):]
        self.assertLess(body.index("FAILED:"), body.index("<section"))
        jmh = run_cli("jmh", self.path, "-o", os.path.join(self.dir, "j.json"))
        self.assertEqual(jmh.returncode, 0, jmh.stderr)
        self.assertIn("FAILED:", jmh.stderr.splitlines()[0])
        cmp = run_cli("compare", DECISION, self.path)
        self.assertEqual(cmp.returncode, 0, cmp.stderr)
        self.assertIn("FAILED:", cmp.stdout.splitlines()[0])
        for view in ("bounds", "console"):  # bounds.txt and console.txt too
            r = run_cli(view, self.path)
            self.assertIn(r.returncode, (0, 1), r.stderr)
            self.assertTrue(r.stdout.startswith("FAILED:"), f"{view}: {r.stdout[:200]}")


class InterruptedTest(Case):
    """Point 4: Ctrl-C left wolfssl's decryptions unmeasured and openssl with
    some repetitions; the answer says so on its first line, with the counts,
    and ranks no decryption class (they lack wolfssl)."""

    def setUp(self):
        super().setUp()
        doc = decision()
        for b in doc["benchmarks"]:
            name = b.get("run_name", b["name"])
            if b.get("run_type") != "iteration":
                continue
            if ("backend:wolfssl/" in name and "op:decrypt" in name) or (
                    "backend:openssl/" in name and b.get("repetition_index", 0) >= 3):
                for k in [k for k in b if k not in ("name", "run_name", "run_type", "repetitions",
                                                   "repetition_index", "threads", "family_index",
                                                   "per_family_instance_index")]:
                    del b[k]
                b["error_occurred"] = True
                b["error_message"] = gbench.INTERRUPTED
        self.path = self.write("interrupted.json", doc)

    def test_first_line_says_what_finished(self):
        run = gbench.load_run(self.path)
        total = len(run.benchmarks)
        none = sum(1 for b in run.benchmarks.values()
                   if b.params["backend"] == "wolfssl" and b.params["op"] == "decrypt")
        some = sum(1 for b in run.benchmarks.values() if b.params["backend"] == "openssl")
        r = run_cli("select", self.path)
        self.assertEqual(r.returncode, 0, r.stderr)
        first = r.stdout.splitlines()[0]
        self.assertTrue(first.startswith("INTERRUPTED:"), first)
        self.assertIn(f"{total - none - some} of {total} benchmarks finished every repetition, "
                      f"{some} only some, {none} none", first)
        self.assertIn("wolfssl not measured (the run was interrupted)", r.stdout)
        a = self.assert_no_class_lacks_a_backend(self.path)
        self.assertFalse([r for r in a.results if r.fixed[1] == "decrypt"])
        self.assertTrue([r for r in a.results if r.fixed[1] == "encrypt"])
        # Nothing left to rank: the one-line error says why.
        doc = decision()
        for b in doc["benchmarks"]:
            if "backend:wolfssl/" in b.get("run_name", b["name"]):
                b["error_occurred"], b["error_message"] = True, gbench.INTERRUPTED
        r = run_cli("select", self.write("none.json", doc))
        self.assertEqual(r.returncode, 2)
        self.assertIn("no workload in which every backend asked for was measured (INTERRUPTED:",
                      r.stderr)

    def test_every_view_says_it_first(self):
        md = run_cli("select", self.path, "--markdown")
        self.assertTrue(md.stdout.startswith("**INTERRUPTED:"), md.stdout[:200])
        jmh = run_cli("jmh", self.path, "-o", os.path.join(self.dir, "j.json"))
        self.assertIn("INTERRUPTED:", jmh.stderr.splitlines()[0])
        cmp = run_cli("compare", DECISION, self.path)
        self.assertIn("INTERRUPTED:", cmp.stdout.splitlines()[0])
        out = os.path.join(self.dir, "r.html")
        self.assertEqual(run_cli("report", self.path, "-o", out).returncode, 0)
        with open(out, encoding="utf-8") as f:
            html = f.read()
        self.assertLess(html.index("INTERRUPTED:"), html.index("<section"))


class MachinesTest(Case):
    """Point 5: compare across machines says so on its first line, and still compares."""

    def test_different_host_cpu_and_count(self):
        doc = decision()
        doc["context"].update(host_name="other", cpu_model="Intel Xeon", num_cpus=8)
        other = self.write("other.json", doc)
        r = run_cli("compare", DECISION, other)
        self.assertEqual(r.returncode, 0, r.stderr)
        first = r.stdout.splitlines()[0]
        self.assertTrue(first.startswith("DIFFERENT MACHINES:"), first)
        for field in ("host_name vm -> other", "cpu_model", "num_cpus 2 -> 8"):
            self.assertIn(field, first)
        self.assertIn("summary", r.stdout)

    def test_same_machine_is_quiet(self):
        r = run_cli("compare", DECISION, DECISION)
        self.assertNotIn("DIFFERENT MACHINES", r.stdout)
        self.assertIn("DIFFERENT MACHINES", run_cli("compare", DECISION, MASKED).stdout)


class CodePathTest(Case):
    """Point 6: a code path the figures contradict is said first."""

    def bounds_run(self, **context):
        with open(os.path.join(GOLDEN, "run_bounds.json"), encoding="utf-8") as f:
            doc = json.load(f)
        doc["context"].update(context)
        return doc

    def test_tables_claimed_at_aesni_speed(self):
        path = self.write("tables.json", self.bounds_run(**{
            "backend.openssl.register_bits": "0",
            "backend.openssl.code_path": "aes_core (C tables, no AES-NI), per CPUID and "
                                         "OPENSSL_ia32cap=:0"}))
        r = run_cli("bounds", path)
        first = run_cli("select", path).stdout.splitlines()
        self.assertTrue(first and first[0].startswith("MISMATCH: openssl says its code path is "
                                                      "'aes_core"), first[:2])
        self.assertIn("only AES instructions are that fast", first[0])
        self.assertIn(r.returncode, (0, 1))

    def test_aesni_claimed_at_vpaes_speed(self):
        doc = self.bounds_run()
        for b in doc["benchmarks"]:
            if "backend:openssl/" in b["name"] and "op:decrypt" in b["name"]:
                for k in ("cycles_per_byte",):
                    if k in b:
                        b[k] *= 20
        first = run_cli("select", self.write("slow.json", doc)).stdout.splitlines()
        self.assertTrue(first and first[0].startswith("MISMATCH: openssl says its code path is "
                                                      "'aesni"), first[:2])
        self.assertIn("AES instructions are faster", first[0])

    def test_consistent_paths_are_quiet(self):
        for path in (os.path.join(GOLDEN, "run_bounds.json"), DECISION):
            self.assertNotIn("MISMATCH", run_cli("select", path).stdout)


class MixTest(Case):
    """Points 9 and 12: weights that overflow are refused; no view prints
    nan; a UTF-8 BOM is read past; UTF-16 is refused by name."""

    def mix(self, name, data):
        path = os.path.join(self.dir, name)
        with open(path, "wb") as f:
            f.write(data)
        return path

    def test_huge_weights_refused(self):
        path = self.mix("big.csv", b"64,1e308\n1500,1e308\n")
        for args in (["mix", path], ["select", DECISION, f"--mix={path}"]):
            r = run_cli(*args)
            self.assertEqual(r.returncode, 2, r.stdout)
            self.assertIn("weights are too large", r.stderr)
            self.assertEqual(len(r.stderr.splitlines()), 1)
        one = self.mix("one.csv", b"16384,1e308\n")  # finite weight, bytes overflow
        self.assertEqual(run_cli("mix", one).returncode, 2)

    def test_no_view_prints_nan(self):
        path = self.mix("tiny.csv", b"64,1e-300\n1500,3e-300\n")
        for args in (["select", DECISION, f"--mix={path}"],
                     ["select", DECISION, f"--mix={path}", "--markdown"]):
            r = run_cli(*args)
            self.assertEqual(r.returncode, 0, r.stderr)
            self.assertNotIn("nan", r.stdout.lower().replace("nanosec", ""))
        self.assertEqual(answer._p_text(float("nan")), "no p-value (no spread to test)")

    def test_byte_order_marks(self):
        bom = self.mix("bom.csv", b"\xef\xbb\xbfsize,weight\n64,70\n1500,30\n")
        r = run_cli("mix", bom)
        self.assertEqual(r.returncode, 0, r.stderr)
        self.assertIn("2 sizes", r.stdout)
        u16 = self.mix("u16.csv", "size,weight\n64,1\n".encode("utf-16"))
        r = run_cli("mix", u16)
        self.assertEqual(r.returncode, 2)
        self.assertIn("is UTF-16 text", r.stderr)
        latin = self.mix("latin.csv", "size,weight # caf\xe9\n64,1\n".encode("latin-1"))
        r = run_cli("mix", latin)
        self.assertEqual(r.returncode, 2)
        self.assertIn("is not UTF-8 text", r.stderr)


if __name__ == "__main__":
    unittest.main()
