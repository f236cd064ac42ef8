"""console.txt from the JSON (cryptobench-results console): a section per
scenario, rows sorted by name in numeric order, one row per benchmark with
the medians of its repetitions, only the columns a section has, no row wider
than its widest cell needs."""
import os
import re
import sys
import tempfile
import unittest

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
from test_results_tools import DECISION_A, FAST, KEYS, run_cli  # noqa: E402
from cryptobench_results import console, gbench  # noqa: E402


def sections(text):
    """{scenario: (header line, [row lines])}."""
    out, current = {}, None
    for line in text.splitlines()[1:]:
        if line.startswith("== "):
            current = line[3:].split(" (")[0]
            out[current] = (None, [])
        elif line and current is not None:
            if out[current][0] is None:
                out[current] = (line, [])
            else:
                out[current][1].append(line)
    return out


class ConsoleTest(unittest.TestCase):
    def test_sections_sorted_rows_and_medians(self):
        run = gbench.load_run(DECISION_A)
        text = console.render(run)
        parts = sections(text)
        self.assertEqual(set(parts), {b.scenario for b in run.benchmarks.values()})
        rows = [r for _, rs in parts.values() for r in rs]
        self.assertEqual(len(rows), len(run.benchmarks))
        for scenario, (header, lines) in parts.items():
            names = [line.split()[0] for line in lines]
            self.assertEqual(names, sorted(names, key=console.natural), scenario)
            self.assertTrue(all(n.startswith(scenario + "/") for n in names))
            # No wider than needed: the name column is the longest name, and every
            # other column (right-aligned, two spaces apart) is as wide as its
            # widest cell or its head.
            spans = [[m.span() for m in re.finditer(r"\S+(?: \S+)*", line)]
                     for line in [header] + lines]
            self.assertTrue(all(len(s) == len(spans[0]) for s in spans), scenario)
            self.assertEqual(spans[0][1][0] - 2, max(len(n) for n in names))
            for i in range(1, len(spans[0])):
                start = (max(len(n) for n in names) if i == 1 else spans[0][i - 1][1]) + 2
                self.assertTrue(all(s[i][1] == spans[0][i][1] for s in spans))  # aligned
                self.assertIn(spans[0][i][1] - start, [s[i][1] - s[i][0] for s in spans])
        # A row holds the benchmark's medians.
        b = next(b for b in run.benchmarks.values() if not b.error and b.scenario == "grid")
        line = next(line for line in parts["grid"][1] if line.split()[0] == b.name)
        self.assertEqual(line.split()[1], str(len(b.samples["time_ns"])))
        self.assertEqual(line.split()[2], console.number(b.value("time_ns")))
        self.assertEqual(line.split()[3], console.number(b.value("bytes_per_second") / 1e6))

    def test_only_the_columns_a_section_has(self):
        text = console.render(gbench.load_run(KEYS))
        for scenario, (header, _) in sections(text).items():
            self.assertNotIn("c/B", header.split() if scenario == "keysetup" else [])
        fast = sections(console.render(gbench.load_run(FAST)))
        for header, lines in fast.values():
            self.assertNotIn(" - ", " ".join(lines) + " ")  # no column of dashes padded in

    def test_cli_writes_the_file(self):
        with tempfile.TemporaryDirectory() as d:
            out = os.path.join(d, "console.txt")
            r = run_cli("console", FAST, "-o", out)
            self.assertEqual(r.returncode, 0, r.stderr)
            with open(out) as f:
                self.assertEqual(f.read(), console.render(gbench.load_run(FAST)))


if __name__ == "__main__":
    unittest.main()
