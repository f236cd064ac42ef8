"""Tests of the results tools on CTR and GCM results: a synthetic run whose
figures are known lines, time = a + b x size (+ a fixed cost for GCM's AAD),
so that what the tools recover can be checked exactly:

- golden/run_counter_modes.json: written by synthetic_run() below (the test
  checks that the committed file is what it writes);
- golden/select_counter_modes.expected.md: the answer for it.

CRYPTOBENCH_UPDATE_GOLDEN=1 rewrites both (review the diff before committing).
"""
import json
import os
import sys
import tempfile
import unittest

HERE = os.path.dirname(os.path.abspath(__file__))
ROOT = os.path.dirname(os.path.dirname(HERE))
sys.path.insert(0, os.path.join(ROOT, "tools", "results"))
sys.path.insert(0, HERE)

from cryptobench_results import answer, costmodel, gbench, jmh, report  # noqa: E402
from test_results_tools import GOLDEN, UPDATE, golden_check, run_cli, validate_jmh  # noqa: E402

RUN = os.path.join(GOLDEN, "run_counter_modes.json")
GHZ = 4.0
REPETITIONS = 5
SIZES = [16, 64, 256, 1024, 1420, 4096, 16384]
# (backend, library): two libraries and a hand-written kernel.
BACKENDS = [("openssl", "OpenSSL 3.0.19"), ("gcrypt", "libgcrypt 1.10.1"),
            ("aesni", "cryptobench hand-written")]
# Per backend and cipher: (ns per call, ns per byte). gcrypt costs less per
# call and more per byte than openssl, so their lines cross at 100 B (CTR)
# and 300 B (GCM); the AAD adds a fixed cost per call.
LINES = {
    ("openssl", "aes-128-ctr"): (60.0, 0.20), ("gcrypt", "aes-128-ctr"): (40.0, 0.40),
    ("aesni", "aes-128-ctr"): (30.0, 0.15),
    ("openssl", "aes-128-gcm"): (120.0, 0.25), ("gcrypt", "aes-128-gcm"): (60.0, 0.45),
    ("aesni", "aes-128-gcm"): (80.0, 0.20),
}
AAD_NS = {"0": 0.0, "13": 30.0}
# Repetition k's time is the line's times JITTER[k]: a spread for the tests
# of significance, centred so that the median is the line.
JITTER = [0.99, 1.0, 1.01, 0.995, 1.005]


def name(backend, cipher, op, size, aad=None, threads=1):
    aad_part = f"/aad:{aad}" if aad is not None else ""
    return (f"grid/backend:{backend}/cipher:{cipher}/op:{op}/size:{size}{aad_part}/codec:none/"
            f"pool:on/key:cached/real_time/threads:{threads}")


def synthetic_run():
    """The Google Benchmark JSON of a run of CTR and GCM ladders (encrypt;
    GCM without and with 13 B of AAD), and AES-256-GCM with AAD at two sizes
    only (too few for a fit)."""
    context = {"host_name": "synthetic", "cpu_model": "synthetic CPU", "num_cpus": 2,
               "core_clock_ghz": f"{GHZ}", "cryptobench_suite": "modes",
               "library_version": "v1.7.1"}
    for backend, library in BACKENDS:
        context[f"backend.{backend}.library"] = library
        context[f"backend.{backend}.modes"] = "ctr,gcm"
    cells = []
    for backend, _ in BACKENDS:
        for size in SIZES:
            cells.append((backend, "aes-128-ctr", size, None, LINES[(backend, "aes-128-ctr")]))
            for aad in ("0", "13"):
                a, b = LINES[(backend, "aes-128-gcm")]
                cells.append((backend, "aes-128-gcm", size, aad, (a + AAD_NS[aad], b)))
        for size in (64, 1420):
            a, b = LINES[(backend, "aes-128-gcm")]
            cells.append((backend, "aes-256-gcm", size, "13", (a * 1.2 + 30, b * 1.4)))
    benchmarks = []
    for backend, cipher, size, aad, (a, b) in cells:
        n = name(backend, cipher, "encrypt", size, aad)
        for k, jitter in enumerate(JITTER):
            t = (a + b * size) * jitter
            benchmarks.append({key: _short(value) for key, value in {
                "name": n, "run_name": n, "run_type": "iteration", "repetitions": REPETITIONS,
                "repetition_index": k, "threads": 1, "iterations": 1000, "real_time": t,
                "cpu_time": t, "time_unit": "ns", "alloc_bytes_per_op": 0.0, "allocs_per_op": 0.0,
                "bytes_per_second": size / t * 1e9, "cycles_per_byte": t * GHZ / size,
                "items_per_second": 1e9 / t, "ops_per_ms": 1e6 / t, "core_ghz": GHZ}.items()})
    return {"context": context, "benchmarks": benchmarks}


def _short(value):
    """Figures to 6 significant digits: a small file, and what a real run's precision shows."""
    return float(f"{value:.6g}") if isinstance(value, float) else value


def synthetic_text():
    """The run as committed: one benchmark per line, to keep the file small."""
    doc = synthetic_run()
    lines = ",\n".join(json.dumps(b) for b in doc["benchmarks"])
    return f'{{"context": {json.dumps(doc["context"], indent=1)},\n"benchmarks": [\n{lines}\n]}}\n'


class SyntheticRunTest(unittest.TestCase):
    def test_committed_run_is_the_synthetic_one(self):
        if UPDATE:
            with open(RUN, "w", encoding="utf-8") as f:
                f.write(synthetic_text())
        with open(RUN, encoding="utf-8") as f:
            self.assertEqual(f.read(), synthetic_text(), "regenerate with CRYPTOBENCH_UPDATE_GOLDEN=1")


class ReaderTest(unittest.TestCase):
    def test_aad_is_a_count_parameter(self):
        scenario, params = gbench.parse_name(name("openssl", "aes-128-gcm", "encrypt", 64, "13"))
        self.assertEqual((scenario, params["aad"], params["size"]), ("grid", "13", "64"))
        for bad in ("-1", "x", "1_3", "1" * 13):
            with self.assertRaises(gbench.ResultsError, msg=bad):
                gbench.parse_name(name("openssl", "aes-128-gcm", "encrypt", 64, bad))
        with self.assertRaises(gbench.ResultsError):  # given twice
            gbench.parse_name(name("openssl", "aes-128-gcm", "encrypt", 64, "13") + "/aad:0")


class CounterModeAnswerTest(unittest.TestCase):
    def setUp(self):
        self.run = gbench.load_run(RUN)
        self.answer = answer.answer(self.run)

    def test_aad_lengths_are_different_workloads(self):
        gcm = [r for r in self.answer.results if r.fixed[2] == "aes-128-gcm"]
        self.assertEqual({r.fixed[5] for r in gcm}, {"0", "13"})
        tiny = [r for r in gcm if r.dims["size_class"] == "tiny"]
        self.assertEqual(len(tiny), 2)  # 16 B and 64 B, once with AAD and once without
        ctr = [r for r in self.answer.results if r.fixed[2] == "aes-128-ctr"]
        self.assertEqual({r.fixed[5] for r in ctr}, {""})

    def test_the_text_names_mode_and_aad(self):
        lines = [answer.sentence_text(s, self.run.context)
                 for s in self.answer.sentences]
        text = "\n".join(lines)
        self.assertIn("AES-128-GCM encryption, 16 B - 64 B + 13 B AAD, 1 thread: gcrypt", text)
        self.assertIn("AES-128-GCM encryption, 16 B - 64 B, no AAD, 1 thread: gcrypt", text)
        self.assertIn("AES-256-GCM encryption, 64 B + 13 B AAD, 1 thread: gcrypt", text)
        self.assertIn("AES-256-GCM encryption, 1420 B + 13 B AAD, 1 thread: openssl", text)
        self.assertIn("AES-128-CTR encryption, 16 B - 64 B, 1 thread: gcrypt", text)
        self.assertNotIn("aesni", "".join(line.split(":")[1] for line in lines))  # headroom only

    def test_fits_per_cipher_op_and_aad(self):
        fits = {(f.backend, f.cipher, f.aad): f for f in self.answer.fits}
        # AES-256-GCM was measured at two sizes: no line through it.
        self.assertEqual(set(fits), {(b, c, aad) for b, _ in BACKENDS
                                     for c, aad in (("aes-128-ctr", ""), ("aes-128-gcm", "0"),
                                                    ("aes-128-gcm", "13"))})
        for (backend, cipher, aad), f in fits.items():
            a, b = LINES[(backend, cipher)]
            a += AAD_NS.get(aad, 0.0)
            self.assertAlmostEqual(f.a_ns / a, 1, delta=0.02, msg=(backend, cipher, aad))
            self.assertAlmostEqual(f.b_ns / b, 1, delta=0.02, msg=(backend, cipher, aad))
            self.assertAlmostEqual(f.cycles_per_byte, b * GHZ, delta=0.02 * b * GHZ)
            self.assertEqual(f.sizes, SIZES)

    def test_crossovers_and_mix_per_aad(self):
        cross = answer.crossover_lines(self.run, self.answer.fits)
        self.assertEqual([line.split(":")[0].strip() for line in cross],
                         ["AES-128-CTR encryption", "AES-128-GCM encryption, no AAD",
                          "AES-128-GCM encryption with 13 B AAD"])
        # gcrypt's line is cheaper per call, openssl's per byte: they cross
        # at (a_openssl - a_gcrypt) / (b_gcrypt - b_openssl).
        self.assertRegex(cross[0], r"gcrypt below ~10\d B, openssl from ~10\d B")
        self.assertRegex(cross[1], r"gcrypt below ~30\d B, openssl from ~30\d B")
        self.assertEqual([v.what for v in self.answer.mix_verdicts],
                         ["AES-128-CTR encryption", "AES-128-GCM encryption, no AAD",
                          "AES-128-GCM encryption with 13 B AAD"])
        for v in self.answer.mix_verdicts:
            self.assertEqual(v.scores[0].fit.backend, "openssl")  # the mix is mostly long records
            self.assertEqual(v.hand_written.fit.backend, "aesni")

    def test_golden_output(self):
        golden_check(self, "select_counter_modes.expected.md",
                     answer.render_markdown(self.answer).replace(ROOT + os.sep, ""))


class CounterModeExportTest(unittest.TestCase):
    def test_jmh_params_and_classes_carry_the_aad(self):
        results = jmh.export(gbench.load_run(RUN))
        validate_jmh(self, results)
        by_name = {}
        for r in results:
            by_name.setdefault(r["benchmark"], []).append(r["params"])
        gcm = {b: ps for b, ps in by_name.items() if "aes-128-gcm" in b}
        self.assertEqual(len(gcm), 2, list(gcm))  # one class per AAD length
        for benchmark, ps in gcm.items():
            aad = "13" if "aad-13" in benchmark else "0"
            self.assertTrue(all(p["aad"] == aad for p in ps), benchmark)
        for benchmark, ps in by_name.items():
            if "-ctr_" in benchmark:
                self.assertTrue(all("aad" not in p for p in ps), benchmark)

    def test_report_draws_one_ladder_per_aad(self):
        with tempfile.TemporaryDirectory() as d:
            out = os.path.join(d, "report.html")
            r = run_cli("report", RUN, "--out", out)
            self.assertEqual(r.returncode, 0, r.stderr)
            with open(out, encoding="utf-8") as f:
                html = f.read()
        for chart in ("size-time-encrypt-aes-128-gcm-aad-0", "size-time-encrypt-aes-128-gcm-aad-13",
                      "size-time-encrypt-aes-128-ctr"):
            self.assertTrue(f"data-chart='{chart}'" in html.replace('"', "'"), chart)
        self.assertTrue("AES-128-GCM encryption with 13 B AAD: time per call against size" in html)
        self.assertTrue("aes-128-gcm, 13 B AAD" in html)  # the fits' table

    def test_select_names_the_mode(self):
        r = run_cli("select", RUN)
        self.assertEqual(r.returncode, 0, r.stderr)
        self.assertIn("AES-128-GCM encryption, 16 B - 64 B + 13 B AAD", r.stdout)


class SeedGcmScenarioTest(unittest.TestCase):
    def test_seed000_gcm_ranks_by_ops_per_ms_reads_as_the_seed_and_has_its_sweep(self):
        doc = synthetic_run()
        seed = []
        for backend, ops in (("openssl", 900.0), ("gcrypt", 700.0)):
            n = (f"seed000-gcm/backend:{backend}/cipher:aes-128-gcm/op:roundtrip/size:100/aad:0/"
                 "codec:base64/pool:on/key:per-op/real_time/threads:1")
            for k, jitter in enumerate(JITTER):
                t = 1e6 / (ops * jitter)
                seed.append({"name": n, "run_name": n, "run_type": "iteration",
                             "repetitions": REPETITIONS, "repetition_index": k, "threads": 1,
                             "iterations": 1000, "real_time": t, "cpu_time": t, "time_unit": "ns",
                             "bytes_per_second": 107 / t * 1e9, "cycles_per_byte": t * GHZ / 107,
                             "items_per_second": 1e9 / t, "ops_per_ms": ops * jitter})
        doc["benchmarks"] += seed
        with tempfile.TemporaryDirectory() as d:
            path = os.path.join(d, "run.json")
            with open(path, "w") as f:
                json.dump(doc, f)
            a = answer.answer(gbench.load_run(path))
            out = os.path.join(d, "report.html")
            r = run_cli("report", path, "--out", out)
            self.assertEqual(r.returncode, 0, r.stderr)
            with open(out, encoding="utf-8") as f:
                html = f.read().replace('"', "'")
        self.assertTrue("data-chart='thread-sweep-gcm-pool-on'" in html)
        self.assertTrue("Seed 000 roundtrip in AES-128-GCM: ops/ms against threads" in html)
        texts = [answer.sentence_text(s, {}) for s in a.sentences
                 if s.fixed[0] == "seed000-gcm"]
        self.assertEqual(len(texts), 1)
        self.assertTrue(texts[0].startswith("Seed-000 roundtrip in AES-128-GCM (Base64, new key "
                                            "per op), 1 thread: openssl at 900 ops/ms (1,111 ns/op), "
                                            "1.29x"), texts[0])


if __name__ == "__main__":
    unittest.main()
