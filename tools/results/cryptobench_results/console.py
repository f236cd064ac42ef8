"""The console table of a run, in an order and no wider than it needs to be.

Google Benchmark's console output (what the binary prints) has a row per
repetition in the order they ran, interleaved at random across benchmarks,
every name padded to the longest name of the run and a column for every
counter any benchmark has. This table has one section per scenario (the
name's first part: grid, seed000, ...), its rows sorted by name with sizes
and thread counts in numeric order, one row per benchmark (the medians over
its repetitions and their count n), and only the columns the section has,
each as wide as its widest cell.
"""
import re
from collections import OrderedDict

from .gbench import METRICS

# How each figure is shown: its column head and how it is scaled.
COLUMNS = [("time_ns", "time ns"), ("bytes_per_second", "MB/s"), ("ops_per_ms", "ops/ms"),
           ("items_per_second", "ops/s"), ("cycles_per_byte", "c/B"),
           ("allocs_per_op", "allocs/op"), ("alloc_bytes_per_op", "B alloc/op"),
           ("core_ghz", "GHz")]
COLUMNS += [(m, m) for m in METRICS if m not in dict(COLUMNS)]
SCALE = {"bytes_per_second": 1e-6}


def natural(text):
    """Sort key: digit runs as numbers ('size:16' before 'size:1024')."""
    return [int(p) if p.isdigit() else p for p in re.split(r"([0-9]+)", text)]


def number(x):
    """Four significant digits, thousands separated: '1,234', '12.35', '0.003117'."""
    if x == 0:
        return "0"
    if abs(x) >= 1000:
        return f"{x:,.0f}"
    return f"{x:.4g}"


def render(run):
    sections = OrderedDict()
    for b in sorted(run.benchmarks.values(), key=lambda b: natural(b.name)):
        sections.setdefault(b.scenario, []).append(b)
    out = [f"{len(run.benchmarks)} benchmarks, medians over each one's repetitions (n); "
           "one section per scenario, sorted by name"]
    for scenario, benchmarks in sections.items():
        metrics = [(m, head) for m, head in COLUMNS
                   if any(b.samples.get(m) for b in benchmarks if not b.error)]
        header = ["benchmark", "n"] + [head for _, head in metrics]
        rows = []
        for b in benchmarks:
            if b.error:
                rows.append([b.name, f"ERROR: {b.error}"])
                continue
            n = len(b.samples["time_ns"])
            cells = [b.name, str(n) + (f" ({b.interrupted} not run)" if b.interrupted else "")]
            for m, _ in metrics:
                value = b.value(m)
                cells.append("-" if value is None else number(value * SCALE.get(m, 1.0)))
            rows.append(cells)
        widths = [max(len(header[i]), *(len(r[i]) for r in rows if i < len(r)))
                  for i in range(len(header))]

        def line(cells):
            text = cells[0].ljust(widths[0])
            if len(cells) == 2 and cells[1].startswith("ERROR"):
                return (text + "  " + cells[1]).rstrip()
            for i, cell in enumerate(cells[1:], 1):
                text += "  " + cell.rjust(widths[i])
            return text.rstrip()

        out += ["", f"== {scenario} ({len(benchmarks)} benchmarks)", line(header)]
        out += [line(r) for r in rows]
    return "\n".join(out) + "\n"
