"""The results tools and the peers' runs: the Go converter (gotest) on a
recorded `go test -bench -benchmem` output, merge, and select, report and
jmh on a C++ run merged with the Java and Go peers' runs of the same
machine (golden/run_seed000_cpp.json, peer_java_seed000.json,
peer_go_seed000.txt; how they were made: golden/README.md).

Run: /usr/bin/python3 -m unittest discover -s tests/results
"""
import copy
import json
import os
import sys
import tempfile
import unittest

HERE = os.path.dirname(os.path.abspath(__file__))
sys.path.insert(0, os.path.join(os.path.dirname(os.path.dirname(HERE)), "tools", "results"))
sys.path.insert(0, HERE)

from cryptobench_results import answer, gbench, gotest, jmh, merge, noise, report, sources  # noqa: E402
from test_results_tools import GOLDEN, golden_check, run_cli  # noqa: E402

CPP = os.path.join(GOLDEN, "run_seed000_cpp.json")
JAVA = os.path.join(GOLDEN, "peer_java_seed000.json")
GO_TEXT = os.path.join(GOLDEN, "peer_go_seed000.txt")
FAST = os.path.join(GOLDEN, "run_openssl_aesni.json")


def read(path):
    with open(path, encoding="utf-8") as f:
        return f.read()


class GoConverterTest(unittest.TestCase):
    def test_recorded_output_converts_to_the_expected_json(self):
        with tempfile.TemporaryDirectory() as d:
            out = os.path.join(d, "go.json")
            r = run_cli("gotest", GO_TEXT, "-o", out)
            self.assertEqual(r.returncode, 0, r.stderr)
            golden_check(self, "peer_go_seed000.expected.json", read(out))

    def test_names_figures_and_context(self):
        doc = gotest.convert(GO_TEXT, read(GO_TEXT))
        run = gbench.run_from_doc(GO_TEXT, doc)
        prefix = "seed000/backend:go-1.19/cipher:aes-128-cbc/op:roundtrip/size:100/codec:base64"
        self.assertEqual(sorted(run.benchmarks), sorted(
            f"{prefix}/pool:{p}/key:per-op/real_time/threads:{t}" for p in ("off", "on") for t in (1, 2)))
        # go test's first line of the recording, and its entry.
        line = next(x for x in read(GO_TEXT).splitlines() if x.startswith("Benchmark"))
        fields = line.split()
        first = doc["benchmarks"][0]
        self.assertEqual(first["iterations"], int(fields[1]))
        ns = float(fields[2])
        self.assertEqual(first["real_time"], ns)
        self.assertAlmostEqual(first["ops_per_ms"], 1e6 / ns)
        self.assertAlmostEqual(first["items_per_second"], 1e9 / ns)
        self.assertAlmostEqual(first["bytes_per_second"], float(fields[4]) * 1e9 / ns)
        self.assertEqual(first["alloc_bytes_per_op"], float(fields[6]))
        self.assertEqual(first["allocs_per_op"], float(fields[8]))
        for b in run.benchmarks.values():
            self.assertEqual(len(b.samples["time_ns"]), 5)  # -test.count=5: five repetitions
            self.assertEqual(b.threads, int(b.params["threads"]))  # "-2" is threads:2
        ctx = run.context
        self.assertEqual(ctx["cpu_model"], "Intel(R) Xeon(R) Processor")  # go test's cpu: line
        self.assertEqual(ctx["num_cpus"], 2)
        self.assertTrue(ctx["backend.go-1.19.code_path"].startswith("crypto/aes block *aes."))
        self.assertEqual(ctx["backend.go-1.19.go_test_pkg"], "cryptobench/peers/go")

    def test_a_reported_metric_without_a_mapping_is_kept(self):
        text = read(GO_TEXT).replace("plaintext-B/op", "plaintext-B/op\t 3.5 widgets/op", 1)
        doc = gotest.convert("x.txt", text)
        self.assertEqual(doc["benchmarks"][0]["go.widgets/op"], 3.5)

    def test_broken_outputs_are_refused_in_one_line(self):
        text = read(GO_TEXT)
        line = next(x for x in text.splitlines() if x.startswith("Benchmark"))
        cases = {
            "a failure": (text.replace("PASS", "--- FAIL: BenchmarkSeed000\nFAIL", 1), "run failed"),
            "no PASS at the end": (text.rstrip()[:-len("PASS")], "does not end with PASS"),
            "no backend line": (text.replace("cryptobench.backend: go-1.19\n", ""), "cryptobench.backend"),
            "runs that disagree": (text + "\ncryptobench.host_name: elsewhere\nPASS\n", "disagree"),
            "a bad figure": (text.replace(line, line.replace(" ns/op", "x ns/op"), 1), "is not a number"),
            "a bad number": (text.replace(line, line.replace("ns/op", "ns/op 1e999 B/s"), 1),
                             "not a finite number"),
            "no result": ("goos: linux\nPASS\n", "no benchmark result line"),
            "a name that is not key:value": (text.replace("/key:per-op", "/perop"), "go.txt: benchmark "
                                             "name 'seed000/backend:go-1.19/cipher:aes-128-cbc"),
        }
        for what, (broken, message) in cases.items():
            with self.subTest(what), tempfile.TemporaryDirectory() as d:
                path = os.path.join(d, "go.txt")
                with open(path, "w") as f:
                    f.write(broken)
                r = run_cli("gotest", path, "-o", os.path.join(d, "go.json"))
                self.assertEqual(r.returncode, 2, r.stderr)
                self.assertIn(message, r.stderr)
                self.assertEqual(len(r.stderr.strip().splitlines()), 1)
                self.assertFalse(os.path.exists(os.path.join(d, "go.json")))


class MergeTest(unittest.TestCase):
    @classmethod
    def setUpClass(cls):
        cls.tmp = tempfile.TemporaryDirectory()
        cls.go = os.path.join(cls.tmp.name, "peer-go.json")
        with open(cls.go, "w") as f:
            json.dump(gotest.convert(GO_TEXT, read(GO_TEXT)), f)
        cls.merged_path = os.path.join(cls.tmp.name, "merged.json")
        r = run_cli("merge", CPP, JAVA, cls.go, "-o", cls.merged_path)
        assert r.returncode == 0, r.stderr
        cls.merged = gbench.load_run(cls.merged_path)

    @classmethod
    def tearDownClass(cls):
        cls.tmp.cleanup()

    def write(self, name, doc):
        path = os.path.join(self.tmp.name, name)
        with open(path, "w") as f:
            json.dump(doc, f)
        return path

    def test_every_benchmark_of_every_run_once(self):
        parts = [gbench.load_run(p) for p in (CPP, JAVA, self.go)]
        self.assertEqual(sorted(self.merged.benchmarks), sorted(n for p in parts for n in p.benchmarks))
        for name, b in self.merged.benchmarks.items():
            source = next(p for p in parts if name in p.benchmarks)
            self.assertEqual(b.samples, source.benchmarks[name].samples)

    def test_context_keeps_each_source_and_every_backend(self):
        ctx = self.merged.context
        self.assertEqual(ctx["sources"], "3")
        self.assertEqual(ctx["sources.1.path"], CPP)
        self.assertEqual(ctx["sources.2.path"], JAVA)
        self.assertEqual(ctx["sources.2.backends"], "java-17")
        self.assertEqual(ctx["sources.3.date"], gbench.load_run(self.go).context["date"])
        cpp = gbench.load_run(CPP).context
        self.assertEqual(ctx["date"], cpp["date"])  # the first run's values stay
        self.assertEqual(ctx["sources.2.executable"], gbench.load_run(JAVA).context["executable"])
        for backend in ("openssl", "gcrypt", "aesni", "java-17", "go-1.19"):
            self.assertTrue(ctx[f"backend.{backend}.library"])
        self.assertEqual(answer.machine_key(ctx), answer.machine_key(cpp))

    def test_a_backends_facts_come_from_the_run_that_measured_it(self):
        with open(CPP) as f:
            cpp = json.load(f)
        cpp["context"]["backend.java-17.library"] = "not what ran"
        path = self.write("cpp_claiming_java.json", cpp)
        merged = merge.merge([path, JAVA])
        self.assertTrue(merged["context"]["backend.java-17.library"].startswith("Debian OpenJDK 17"))
        self.assertEqual(merged["context"]["sources.1.backend.java-17.library"], "not what ran")

    def test_a_merged_run_merges_again_with_its_sources_renumbered(self):
        first = self.write("cpp_java.json", merge.merge([CPP, JAVA]))
        again = merge.merge([first, self.go])
        self.assertEqual(again["context"]["sources"], "3")
        self.assertEqual(again["context"]["sources.2.path"], JAVA)
        self.assertEqual(again["context"]["sources.3.path"], self.go)

    def test_runs_of_other_machines_or_shared_benchmarks_are_refused(self):
        with open(JAVA) as f:
            other = json.load(f)
        other["context"]["host_name"] = "elsewhere"
        elsewhere = self.write("elsewhere.json", other)
        for args, message in [
                ((CPP, elsewhere), "another machine than"),
                ((CPP, os.path.join(GOLDEN, "run_decision_a.json.xz")), "another machine than"),
                ((CPP, CPP), "is in"),
                ((CPP,), "two or more runs")]:
            with self.subTest(message=message, runs=args):
                out = os.path.join(self.tmp.name, "refused.json")
                r = run_cli("merge", *args, "-o", out)
                self.assertEqual(r.returncode, 2, r.stderr)
                self.assertIn(message, r.stderr)
                self.assertFalse(os.path.exists(out))
        r = run_cli("merge", CPP, elsewhere, "-o", os.path.join(self.tmp.name, "x.json"))
        self.assertIn("host_name 'elsewhere' against 'vm'", r.stderr)

    def test_select_ranks_the_peers_with_the_libraries(self):
        a = answer.answer(self.merged)
        seed = [r for r in a.results if r.fixed[0] == "seed000"]
        self.assertEqual(len(seed), 4)  # 1 and 2 threads, pool off and on
        for r in seed:
            ranked = {b for b, _ in r.ranking}
            self.assertEqual(ranked, {"openssl", "gcrypt", "java-17", "go-1.19"})
            self.assertEqual([b for b, _ in r.hand_written], ["aesni"])
        r = run_cli("select", self.merged_path, "--markdown")
        self.assertEqual(r.returncode, 0, r.stderr)
        golden_check(self, "select_peers.expected.md",
                     r.stdout.replace(self.merged_path, "MERGED.json"))

    def test_report_draws_the_peers_in_the_thread_sweep(self):
        html = report.render([self.merged])
        for pool in ("off", "on"):
            start = html.index(f'data-chart="thread-sweep-pool-{pool}"')
            chart = html[start:html.index("</figure>", start)]
            for backend in ("openssl", "gcrypt", "java-17", "go-1.19", "aesni (hand-written)"):
                self.assertIn(f">{backend}<", chart)
        self.assertIn("backend.java-17.code_path", html)

    def test_jmh_exports_the_peers_like_any_backend(self):
        results = jmh.export(self.merged)
        self.assertEqual({r["params"]["backend"] for r in results},
                         {"openssl", "gcrypt", "aesni", "java-17", "go-1.19"})
        # The JVM counts bytes only: allocations per op are left off the classes
        # with a Java result (the visualizer needs a metric on every result of a
        # class), bytes per op stay; classes without peers keep every metric.
        self.assertIn("·gc.alloc.rate.norm", results[0]["secondaryMetrics"])
        self.assertNotIn("·allocs.per.op", results[0]["secondaryMetrics"])

    def test_jmh_keeps_every_metric_where_no_peer_lacks_it(self):
        with tempfile.TemporaryDirectory() as d:
            path = os.path.join(d, "fast_java.json")
            with open(path, "w") as f:
                json.dump(merge.merge([FAST, JAVA]), f)
            results = jmh.export(gbench.load_run(path))
        for r in results:
            has_java = any(o["params"]["backend"] == "java-17" for o in results
                           if o["benchmark"] == r["benchmark"])
            self.assertEqual("·allocs.per.op" in r["secondaryMetrics"], not has_java, r["benchmark"])
            self.assertEqual("·cycles.per.byte" in r["secondaryMetrics"], not has_java, r["benchmark"])
            self.assertIn("·gc.alloc.rate.norm", r["secondaryMetrics"])

    def test_compare_pairs_the_peers_by_name(self):
        r = run_cli("compare", self.merged_path, self.merged_path)
        self.assertEqual(r.returncode, 0, r.stderr)
        self.assertIn("benchmarks with a change in any metric: 0 of 20", r.stdout)


class SeparateRunsTest(unittest.TestCase):
    """The merged run's provenance in the answer: the noise floor from the
    interleaved run only, verdicts across runs said so, caveats shown."""

    @classmethod
    def setUpClass(cls):
        cls.tmp = tempfile.TemporaryDirectory()
        go = os.path.join(cls.tmp.name, "peer-go.json")
        with open(go, "w") as f:
            json.dump(gotest.convert(GO_TEXT, read(GO_TEXT)), f)
        cls.path = os.path.join(cls.tmp.name, "merged.json")
        with open(cls.path, "w") as f:
            json.dump(merge.merge([CPP, JAVA, go]), f)
        cls.merged = gbench.load_run(cls.path)

    @classmethod
    def tearDownClass(cls):
        cls.tmp.cleanup()

    def test_merge_records_each_sources_interleaving(self):
        ctx = self.merged.context
        self.assertEqual([ctx[f"sources.{n}.repetitions_interleaved"] for n in (1, 2, 3)],
                         ["true", "false", "false"])
        self.assertIs(sources.interleaved(ctx, "openssl"), True)
        self.assertIs(sources.interleaved(ctx, "java-17"), False)

    def test_the_floor_leaves_out_back_to_back_repetitions(self):
        floor = noise.noise_floor(self.merged)
        self.assertEqual(floor.left_out, ["go-1.19", "java-17"])
        self.assertEqual(floor.cells, 12)  # the C++ run's 12 benchmarks, not the peers' 8
        cpp = [b for b in self.merged.benchmarks.values() if b.params["backend"] in
               ("openssl", "gcrypt", "aesni")]
        self.assertEqual(floor.value, noise.noise_floor(gbench.load_run(CPP)).value)
        self.assertLess(len(cpp), len(self.merged.benchmarks))
        self.assertIn("go-1.19, java-17 left out (repetitions back to back", floor.describe())

    def test_a_run_of_back_to_back_repetitions_only_says_so(self):
        floor = noise.noise_floor(gbench.load_run(JAVA))
        self.assertTrue(floor.measured and floor.back_to_back)
        self.assertIn("drift over minutes is not in it", floor.describe())

    def test_verdicts_across_runs_say_so(self):
        ctx = self.merged.context
        self.assertTrue(sources.separate(ctx, "gcrypt", "java-17"))
        self.assertTrue(sources.separate(ctx, "java-17", "go-1.19"))
        self.assertFalse(sources.separate(ctx, "gcrypt", "openssl"))
        self.assertFalse(sources.separate(gbench.load_run(CPP).context, "gcrypt", "openssl"))
        a = answer.answer(self.merged)
        for s in a.sentences:
            text = answer.sentence_text(s, ctx)
            across = sources.separate(ctx, s.first.winner, s.first.runner_up)
            self.assertEqual(answer.SEPARATE_RUNS in text, across, text)
        # Two C++ backends of one run: no mark.
        only_cpp = {k: v for k, v in self.merged.benchmarks.items()
                    if v.params["backend"] in ("openssl", "gcrypt")}
        run = gbench.Run(self.path, ctx, only_cpp)
        for s in answer.answer(run).sentences:
            self.assertNotIn(answer.SEPARATE_RUNS, answer.sentence_text(s, ctx))

    def test_caveats_apply_where_their_parameter_does(self):
        ctx = self.merged.context
        self.assertEqual(sources.caveats(ctx, "java-17", {"key": "per-op"}), [
            "the JDK does not re-expand a key whose bytes repeat: key:per-op runs no key schedule"])
        self.assertEqual(sources.caveats(ctx, "java-17", {"key": "cached"}), [])
        self.assertEqual(sources.caveats(ctx, "gcrypt", {"key": "per-op"}), [])
        everywhere = dict(ctx, **{"backend.gcrypt.caveat": "a note for every benchmark"})
        self.assertEqual(sources.caveats(everywhere, "gcrypt", {"key": "cached"}),
                         ["a note for every benchmark"])

    def test_console_and_report_show_the_caveat_next_to_the_backend(self):
        lines = answer.render_console(answer.answer(self.merged))
        self.assertTrue(any("java-17*" in line for line in lines))
        self.assertIn("  * java-17: the JDK does not re-expand a key whose bytes repeat: key:per-op "
                      "runs no key schedule", lines)
        self.assertLessEqual(len(lines), answer.CONSOLE_LINES)
        html = report.render([self.merged])
        self.assertIn("<b>java-17*</b>", html)
        self.assertIn("* <b>java-17</b>: the JDK does not re-expand", html)
        self.assertIn("tie: not significant; measured in separate runs", html)
        self.assertIn("Measured in separate runs: gcrypt, openssl, aesni (run 1); java-17 (run 2); "
                      "go-1.19 (run 3)", html)

    def test_merge_takes_the_facts_of_a_dotted_backend_name_from_its_run(self):
        with open(CPP) as f:
            cpp = json.load(f)
        cpp["context"]["backend.go-1.19.library"] = "not what ran"
        path = os.path.join(self.tmp.name, "cpp_claiming_go.json")
        with open(path, "w") as f:
            json.dump(cpp, f)
        go = os.path.join(self.tmp.name, "peer-go.json")
        merged = merge.merge([path, go])
        self.assertTrue(merged["context"]["backend.go-1.19.library"].startswith("Go 1.19"))
        self.assertEqual(merged["context"]["sources.1.backend.go-1.19.library"], "not what ran")


class AllocationsWithoutCountsTest(unittest.TestCase):
    def test_a_backend_that_reports_bytes_only_is_shown_so(self):
        with open(FAST) as f:
            doc = json.load(f)
        for entry in doc["benchmarks"]:
            if "/backend:aesni/" in entry["name"]:
                entry.pop("allocs_per_op", None)
        run = gbench.run_from_doc("bytes-only.json", copy.deepcopy(doc))
        html = report.render([run])
        start = html.index("<h3>Allocations per operation</h3>")
        section = html[start:html.index("<h3>", start + 10)]
        self.assertIn("aesni: the runtime does not count allocations", section)
        self.assertIn("n/a (", section)
        self.assertIn("data-chart=\"allocations\"", section)  # the others' counts are still drawn


if __name__ == "__main__":
    unittest.main()
