"""The offline HTML report: one self-contained file (inline CSS and SVG, a
few lines of inline script for the self-check; nothing fetched), built from
one or several raw runs.

It leads with the answer (answer.py), because that is what a reader opens it
for: per machine, the decision table (the library to use per workload,
margin [95% interval], p, verdict; ties as ties, the noise floor stated) and
the verdict for a message-size mix. The evidence follows: time against size
with the cost model's fitted lines, the seed-000 thread sweep, codec and
pool overhead, allocations, cycles per byte against the hardware bound, key
handling (seed 002); the run's context last, collapsed. Several runs give a
section per machine, several runs of one machine one per run, as `select`
does (answer.machine_sections). A part whose benchmarks a run lacks says so.
"""
import math
import re
from collections import OrderedDict
from dataclasses import dataclass
from html import escape

from . import answer as answers
from . import bounds, compare, pingpong, sampled, sources, stats, svg
from .gbench import ResultsError

STYLE = """
body{font-family:system-ui,sans-serif;margin:18px 20px;color:#1a1a1a;max-width:1240px;font-size:15px;
line-height:1.35}
h1{font-size:24px;margin:0 0 4px} h2{font-size:21px;margin:22px 0 4px;padding-bottom:3px;
border-bottom:2px solid #0067a5} h3{font-size:17px;margin:28px 0 6px;border-bottom:1px solid #ddd}
table{border-collapse:collapse;font-size:14px;margin:6px 0}
td,th{border:1px solid #d0d0d0;padding:4px 8px;text-align:right;vertical-align:top}
th{background:#f0f0f0} td.l,th.l{text-align:left} .note{color:#555;font-size:13.5px;margin:4px 0}
table.answer td{font-size:14.5px} table.answer td:first-child{min-width:14em} tr.decided td.use b{font-size:15.5px}
.alert{color:#900;font-weight:bold;border:2px solid #900;padding:6px 10px;margin:8px 0}
tr.tie td{background:#f6f6f6} tr.tie td.verdict{color:#8a5a00}
.nm{white-space:nowrap} .lib{color:#666;font-size:12.5px} .hw{color:#666;font-style:italic}
.sw{display:inline-block;width:10px;height:10px;margin-right:5px;border-radius:2px}
.charts{display:flex;flex-wrap:wrap;gap:4px 12px} figure{margin:6px 0} figcaption{max-width:600px}
details{margin-top:28px} summary{font-size:17px;font-weight:600;cursor:pointer}
svg .title{font-size:15px;font-weight:600} svg .tick{font-size:12px;fill:#444}
svg .axis{font-size:13px;fill:#222} svg .legend{font-size:13px} svg .grid{stroke:#ececec}
svg .frame{fill:none;stroke:#bbb} svg .whisker{stroke-width:1.5}
"""

# Runs in the browser: every chart must have been parsed into an SVG with
# data marks of non-zero size; the result goes into #selfcheck for tests.
SELF_CHECK = """
(function(){var figs=document.querySelectorAll('figure[data-chart]'),ok=0,bad=[];
figs.forEach(function(f){var s=f.querySelector('svg'),m=s?s.querySelectorAll('.mark'):[];
var b=s?s.getBBox():{width:0};if(s&&m.length>0&&b.width>0){ok++;}else{bad.push(f.dataset.chart);}});
var e=document.getElementById('selfcheck');e.textContent='charts rendered: '+ok+' of '+figs.length+
(bad.length?'; empty: '+bad.join(', '):'');e.dataset.ok=String(ok);e.dataset.total=String(figs.length);})();
"""

VERDICTS = {"decided": "decided", "not-significant": "tie: not significant",
            "untested": "untested: too few repetitions",
            "single": "only one library measured"}
TIES = ("noise", "not-significant", "untested")
CODEC_ORDER = ["none", "base64", "hex"]
CODECS = {"none": "no codec", "base64": "Base64", "hex": "hex"}
HAND_WRITTEN_NOTE = ("dashed: hand-written kernels, the hardware's headroom, never a "
                     "recommendation")


@dataclass
class Machine:
    """What one machine section is drawn from: its run and answer, the
    document's backend styles (one per backend across all sections), and the
    prefix that keeps its chart ids unique in the document."""
    run: object
    answer: object
    styles: dict
    prefix: str

    def order(self, backend):
        """Where the backend is in the document's order: legends and tables follow it."""
        return list(self.styles).index(backend)

    def by_order(self, by_backend):
        """A {backend: x} mapping's items in the document's backend order."""
        return sorted(by_backend.items(), key=lambda item: self.order(item[0]))


def summary(samples):
    """(median, min, max), min/max None without repetitions."""
    if not samples:
        return None
    m = stats.median(samples)
    return (m, min(samples), max(samples)) if len(samples) > 1 else (m, None, None)


def matching(run, scenario, **params):
    out = []
    for b in run.benchmarks.values():
        if b.error or b.scenario != scenario:
            continue
        if all(b.params.get(k) == str(v) for k, v in params.items()):
            out.append(b)
    return out


def ladder(run):
    """{(op, cipher, aad): {backend: {size: Benchmark}}}: the size ladder the
    cost model fits (1 thread, no codec, pooled buffers, cached key, one
    message; GCM: one ladder per AAD length, "" for other modes), in run order."""
    out = OrderedDict()
    for b in run.benchmarks.values():
        p = b.params
        if (b.error or b.threads != 1 or p.get("codec") != "none" or p.get("pool") != "on"
                or p.get("key") != "cached" or "messages" in p or "size" not in p):
            continue
        key = (p["op"], p["cipher"], p.get("aad", ""))
        out.setdefault(key, OrderedDict()).setdefault(p["backend"], {})[int(p["size"])] = b
    return out


def num(value, spec, suffix=""):
    """A figure for a cell; '-' where there is none, so NaN never shows."""
    return "-" if value is None or math.isnan(value) else f"{value:{spec}}{suffix}"


def p_text(p):
    return "-" if math.isnan(p) else ("< 0.001" if p < 0.001 else f"{p:.2g}")


def margin_text(margin, low, high):
    if math.isnan(margin):
        return "-"
    interval = "" if math.isnan(low) or math.isnan(high) else f" [{low:.2f}, {high:.2f}]"
    return f"{margin:.2f}x{interval}"


def verdict_text(verdict, floor, separate=False, untested_why=""):
    text = f"tie: within the {100 * floor.value:.1f}% noise floor" if verdict == "noise" \
        else f"untested: {untested_why}" if verdict == "untested" and untested_why \
        else VERDICTS[verdict]
    return f"{text}; {answers.SEPARATE_RUNS}" if separate else text


def name_html(m, backend, library=True, params_list=()):
    """A backend as the tables show it: its chart colour, its name (marked *
    when it has a caveat for these classes' params), whose code it is."""
    style = m.styles[backend]
    lib = answers.library(m.run.context, backend)
    extra = f" <span class='lib'>{escape(lib)}</span>" if library and lib else ""
    mark = answers.mark(m.run.context, backend, params_list)
    return (f"<span class='nm'><span class='sw' style='background:{style.colour}'></span>"
            f"<b>{escape(backend)}{mark}</b>{extra}</span>")


def runs_note(m, backends):
    """For a chart of a merged run whose backends different runs measured:
    which run measured which (their gaps hold the drift between the runs)."""
    ctx = m.run.context
    by_run = OrderedDict()
    for backend in backends:
        by_run.setdefault(tuple(sorted(sources.of_backend(ctx, backend))), []).append(backend)
    if len(sources.sources(ctx)) < 2 or len(by_run) < 2:
        return ""
    parts = [f"{', '.join(bs)} (run {', '.join(map(str, numbers))})"
             for numbers, bs in by_run.items()]
    return (f"<p class='note'>{escape(answers.SEPARATE_RUNS.capitalize())}: "
            f"{escape('; '.join(parts))}; the machine's drift between them is in the gaps "
            "between their lines (sources.N.* in the context).</p>")


def notes_html(notes):
    """The caveats of the backends a table marks, under it."""
    return "".join(f"<p class='note caveat'>{escape(answers.CAVEAT_MARK)} <b>{escape(b)}</b>: "
                   f"{escape(text)}</p>" for b, text in notes)


def figure(chart_id, svg_text, caption):
    return (f'<figure data-chart="{escape(chart_id)}">{svg_text}'
            f'<figcaption class="note">{escape(caption)}</figcaption></figure>')


def charts(figures):
    return f"<div class='charts'>{''.join(figures)}</div>"


def absent(heading, why="Not in this run."):
    return f"<h3>{escape(heading)}</h3><p class='note'>{escape(why)}</p>"


def per_size_html(cells):
    """Each size's margin on a line of its own."""
    return "<br>".join(f"<span class='nm'>{escape(label)} {escape(answers.pair_text(f))}"
                       "</span>" for label, f in cells)


def figure_html(figure):
    """'9,850 MB/s', or '480 ops/ms' over '(2,083 ns/op)': each part unbroken."""
    text = answers.figure_text(figure)
    main, _, rest = text.partition(" (")
    return f"<span class='nm'>{escape(main)}</span>" + (
        f"<br><span class='nm'>({escape(rest)}</span>" if rest else "")


def baseline_html(view):
    """The baseline's figure, then how it stands against the winner, on lines of their own."""
    figure = figure_html(view.figure)
    if view.per_size:
        return f"{figure}<br>the winner over it by size:<br>" + per_size_html(view.per_size)
    rest = answers.baseline_text(view, with_name=False)
    rest = rest[len(answers.figure_text(view.figure)):].lstrip(", ").strip()
    return figure + (f"<br>{escape(rest)}" if rest else "")


def section_decisions(m):
    """The answer's sentences as a table: one row per sentence."""
    a = m.answer
    rows = []
    ctx = m.run.context
    for s in a.sentences:
        r = s.first
        params = answers.sentence_params(s)
        margin, low, high, p = answers.sentence_figures(s)
        tie = r.verdict in TIES
        winner = name_html(m, r.winner, params_list=params)
        use = f"{winner} or {name_html(m, r.runner_up, params_list=params)}" if tie else winner
        figure = figure_html(s.figure) if s.figure else "-"
        over = name_html(m, r.runner_up, library=False, params_list=params) if r.runner_up else "-"
        separate = bool(r.runner_up) and sources.separate(ctx, r.winner, r.runner_up)
        if s.per_size:  # one interval and one p would disagree: each size's own
            margin_cell = "by size:<br>" + per_size_html(s.per_size)
            margin_class = "l"
            p_cell = "by size"
        else:
            margin_cell = escape(margin_text(margin, low, high))
            margin_class = "nm"
            p_cell = escape(p_text(p))
        base = baseline_html(s.baseline) if s.baseline else (
            "(the winner)" if r.winner == a.baseline else "-")
        rows.append(f"<tr class='{'tie' if tie else r.verdict}'>"
                    f"<td class='l'>{escape(answers.workload_text(s))}</td><td class='l use'>{use}</td>"
                    f"<td>{figure}</td>"
                    f"<td class='{margin_class}'>{margin_cell}</td><td class='l'>{over}</td>"
                    f"<td class='nm'>{p_cell}</td>"
                    f"<td class='l verdict'>"
                    f"{escape(verdict_text(r.verdict, s.floor, separate, r.untested_why))}</td>"
                    f"<td class='l'>{base}</td></tr>")
    baseline_head = f"baseline: {escape(a.baseline)}" if a.baseline else "baseline"
    return ("<table class='answer'><tr><th class='l'>workload</th><th class='l'>library to use</th>"
            "<th>its figure</th><th>margin [95% interval]</th><th class='l'>over</th><th>p</th>"
            f"<th class='l'>verdict</th><th class='l'>{baseline_head}</th>"
            f"</tr>{''.join(rows)}</table>{notes_html(answers.answer_notes(a))}")


def section_mix(m):
    """The verdict for the size mix, per op, with the hand-written figure as headroom."""
    a = m.answer
    total = sum(w for _, w in a.mix)
    mean = sum(s * w for s, w in a.mix) / total
    weights = ", ".join(f"{answers.size_text(s)} x {w:g}" for s, w in a.mix)
    head = (f"<h3>Traffic mix {escape(a.mix_name)}: mean {mean:,.0f} B per message</h3>"
            f"<p class='note'>Sizes x weights (message counts): {escape(weights)}. Time per message "
            "from the cost model (1 thread, no codec, pooled buffers, cached key); margin: the "
            "runner-up's time over the winner's.</p>")
    if not a.mix_verdicts:
        return head + ("<p class='note'>No cost model fit in this run: it needs a size ladder of 3 "
                       "or more sizes (1 thread, no codec, pooled buffers, cached key).</p>")
    rows = []
    for v in a.mix_verdicts:
        first = v.scores[0]
        second = v.scores[1] if len(v.scores) > 1 else None
        ratio, low, high, p = v.ratio
        tie = v.verdict in TIES
        params = answers.mix_params(v)
        use = name_html(m, first.fit.backend, params_list=params)
        rates = f"{first.mb_per_s:,.0f}"
        if second:
            rates += f" vs {second.mb_per_s:,.0f}"
            if tie:
                use += f" or {name_html(m, second.fit.backend, params_list=params)}"
        over = name_html(m, second.fit.backend, library=False, params_list=params) if second else "-"
        separate = bool(second) and sources.separate(m.run.context, first.fit.backend,
                                                     second.fit.backend)
        headroom = "-"
        if v.hand_written:
            hw = v.hand_written
            headroom = (f"{name_html(m, hw.fit.backend, library=False)} {hw.mb_per_s:,.0f} MB/s "
                        f"<span class='hw'>({hw.mb_per_s / first.mb_per_s:.2f}x the fastest "
                        "library)</span>")
        rows.append(f"<tr class='{'tie' if tie else v.verdict}'><td class='l'>{escape(v.what)}</td>"
                    f"<td class='l use'>{use}</td><td class='nm'>{rates}</td>"
                    f"<td class='nm'>{escape(margin_text(ratio, low, high))}</td><td class='l'>{over}</td>"
                    f"<td class='nm'>{escape(p_text(p))}</td>"
                    f"<td class='l verdict'>{escape(verdict_text(v.verdict, v.floor, separate))}</td>"
                    f"<td class='l'>{headroom}</td></tr>")
    return (head + "<table class='answer'><tr><th class='l'>operation</th><th class='l'>library to use</th>"
            "<th>MB/s</th><th>margin [95% interval]</th><th class='l'>over</th><th>p</th>"
            "<th class='l'>verdict</th><th class='l'>hand-written (headroom)</th></tr>"
            f"{''.join(rows)}</table>{notes_html(answers.mix_notes(a))}")


def fit_points(fit, low, high, steps=48):
    """The fitted a + b x as a polyline, evenly spaced on a log size axis."""
    return [(x, fit.time_ns(x)) for x in (low * (high / low) ** (k / steps) for k in range(steps + 1))]


def section_size_time(m):
    """Time per call against size, log-log: medians as points, the fit as lines."""
    heading = "Time against size: the cost model"
    fits = {(f.backend, f.op, f.cipher, f.aad): f for f in m.answer.fits}
    parts = []
    for (op, cipher, aad), by_backend in ladder(m.run).items():
        sizes = sorted({s for per in by_backend.values() for s in per})
        if len(sizes) < 2:
            continue
        series = []
        for backend, per_size in m.by_order(by_backend):
            points = [(s, *summary(b.samples["time_ns"])) for s, b in sorted(per_size.items())]
            fit = fits.get((backend, op, cipher, aad))
            line = fit_points(fit, min(per_size), max(per_size)) if fit else None
            series.append(svg.Series(m.styles[backend], points, line))
        chart_id = f"{m.prefix}size-time-{op}-{cipher}" + (f"-aad-{aad}" if aad else "")
        what = answers.operation_text(cipher, op, aad)
        chart = svg.line_chart(chart_id, f"{what}: time per call against size", series,
                               "payload size (log scale)", "ns per call (log scale)",
                               log_x=True, log_y=True, x_format=svg.size_label)
        unfitted = [b for b, _ in m.by_order(by_backend) if (b, op, cipher, aad) not in fits]
        if not unfitted:
            lines = "lines: the cost model's fit, a + b x bytes"
        elif len(unfitted) == len(by_backend):
            lines = ("lines join the medians (the cost model fits encryption and decryption over "
                     "3 or more sizes)")
        else:
            lines = f"lines: the cost model's fit, a + b x bytes; medians joined for {', '.join(unfitted)}"
        caption = ("1 thread, no codec, pooled buffers, cached key. Points: medians of repetitions, "
                   f"whiskers min-max; {lines}")
        parts.append(figure(chart_id, chart, caption + "; " + HAND_WRITTEN_NOTE + "."))
    if not parts:
        return absent(heading)
    out = [f"<h3>{heading}</h3>", charts(parts)]
    cross = answers.crossover_lines(m.run, m.answer.fits)
    if cross:
        out.append("<p class='note'>Cheapest library along the size ladder (from the fits):</p><ul>" +
                   "".join(f"<li>{escape(line.strip())}</li>" for line in cross) + "</ul>")
    if m.answer.fits:
        rows = "".join(f"<tr><td class='l'>{name_html(m, f.backend, library=False)}</td>"
                       f"<td class='l'>{escape(f.op)}</td><td class='l'>{escape(answers.fit_cipher_text(f))}</td>"
                       f"<td>{num(f.a_ns, ',.1f')} ± {num(f.a_half, ',.1f')}</td>"
                       f"<td>{num(f.cycles_per_byte, '.3f')} ± {num(f.b_half * f.ghz, '.3f')}</td>"
                       f"<td>{num(f.r2, '.4f')}</td></tr>"
                       for f in sorted(m.answer.fits, key=lambda f: (f.cipher, f.op, m.order(f.backend))))
        out.append("<p class='note'>The fits: time per call = a + b x bytes, weighted least squares "
                   "(weights 1/time²) over every repetition; 95% intervals.</p>"
                   "<table><tr><th class='l'>backend</th><th class='l'>op</th><th class='l'>cipher</th>"
                   f"<th>a (ns per call)</th><th>b (cycles per byte)</th><th>R²</th></tr>{rows}</table>")
    return "".join(out)


# The seed-000 sweeps: (scenario, chart id part, title, what the operation is).
SEED000_SWEEPS = [
    ("seed000", "", "Seed 000 roundtrip", "AES-128-CBC"),
    ("seed000-gcm", "gcm-", "Seed 000 roundtrip in AES-128-GCM",
     "AES-128-GCM (fresh nonce per operation, no AAD, Base64 of ciphertext and tag)"),
]


def section_thread_sweep(m):
    parts = []
    notes, drawn = [], []
    for scenario, id_part, title, cipher in SEED000_SWEEPS:
        for pool in ("off", "on"):
            bs = matching(m.run, scenario, pool=pool)
            if not bs:
                continue
            by_backend = OrderedDict()
            for b in bs:
                point = (b.threads, *summary(b.samples["ops_per_ms"]))
                by_backend.setdefault(b.params["backend"], []).append(point)
                notes.append((b.params["backend"], [b.params]))
                if b.params["backend"] not in drawn:
                    drawn.append(b.params["backend"])
            series = [svg.Series(m.styles[backend], points)
                      for backend, points in m.by_order(by_backend)]
            chart_id = f"{m.prefix}thread-sweep-{id_part}pool-{pool}"
            chart = svg.line_chart(chart_id, f"{title}: ops/ms against threads (pool {pool})",
                                   series, "threads", "ops/ms")
            parts.append(figure(chart_id, chart,
                                f"{cipher}, 100-character message + counter, Base64, new key "
                                "schedule per operation; all threads together; whiskers: min-max "
                                "of repetitions; " + HAND_WRITTEN_NOTE + "."))
    if not parts:
        return absent("Seed 000 thread sweep", "Not in this run (suite seed000, quick or decision).")
    return ("<h3>Seed 000 thread sweep</h3>" + charts(parts) + runs_note(m, drawn)
            + notes_html(answers.caveat_notes(m.run.context, notes)))


def overhead_slice(run):
    """(benchmarks, op, size, cipher): the benchmarks that differ only in codec
    and pool (1 thread, cached key), at the op, size and cipher with the most
    such variants; the roundtrip first, then the size nearest 4 KiB."""
    groups = OrderedDict()
    for b in run.benchmarks.values():
        p = b.params
        if b.error or b.threads != 1 or p.get("key") != "cached" or "messages" in p \
                or not {"codec", "pool", "size"} <= set(p):
            continue
        # GCM's AAD lengths are different workloads, never variants of one.
        groups.setdefault((p["op"], int(p["size"]), p["cipher"], p.get("aad", "")), []).append(b)

    def rank(item):
        (op, size, _, _), bs = item
        return (len({(b.params["codec"], b.params["pool"]) for b in bs}), op == "roundtrip",
                -abs(math.log2(max(size, 1) / 4096)))  # size 0: a key setup's

    best = max(groups.items(), key=rank, default=None)
    if best is None or rank(best)[0] < 2:
        return [], None, None, None
    (op, size, cipher, _), bs = best
    return bs, op, size, cipher


def variant_label(b):
    """'Base64\npool off': a codec/pool variant as a chart group (two lines) or a column."""
    codec = b.params["codec"]
    return f"{CODECS.get(codec, codec)}\npool {b.params['pool']}"


def variant_groups(m, bs, value):
    """[(codec/pool label, [(Style, y, lo, hi)])] in codec then pool order, bars by backend."""
    def order(b):
        codec = b.params["codec"]
        return (CODEC_ORDER.index(codec) if codec in CODEC_ORDER else len(CODEC_ORDER), codec,
                b.params["pool"] != "on")
    groups = OrderedDict()
    for b in sorted(bs, key=lambda b: (order(b), m.order(b.params["backend"]))):
        label = variant_label(b)
        groups.setdefault(label, []).append((m.styles[b.params["backend"]], *value(b)))
    return list(groups.items())


def section_codec_pool(m):
    bs, op, size, cipher = overhead_slice(m.run)
    if not bs:
        return absent("Codec and pool overhead")
    groups = variant_groups(m, bs, lambda b: summary([x / 1e6 for x in b.samples["bytes_per_second"]]))
    chart_id = f"{m.prefix}codec-pool"
    chart = svg.bar_chart(chart_id, f"{cipher.upper()} {op}, {svg.size_label(size)}: codec and pool",
                          groups, "MB/s", "codec, buffer pool")
    return ("<h3>Codec and pool overhead</h3>" +
            figure(chart_id, chart, f"{op.capitalize()} with the codec named (encode after encrypting, "
                                    "decode before decrypting) and pooled or fresh buffers; 1 thread, "
                                    "cached key; MB/s of plaintext, whiskers min-max. Each backend "
                                    "encodes with its own library's codec; " + HAND_WRITTEN_NOTE + "."))


def allocation_cell(b):
    """'2.00 (512 B)' per operation; allocations made less than once per
    100 operations are set up once per repetition: per operation 0, and
    said so (compare never calls them a change). A runtime that reports
    bytes only (the JVM) gets 'n/a (512 B)'; none at all, 'not counted'."""
    if not b.samples["allocs_per_op"]:
        if b.samples["alloc_bytes_per_op"]:
            return f"n/a ({stats.median(b.samples['alloc_bytes_per_op']):,.0f} B)"
        return "not counted"
    allocs = stats.median(b.samples["allocs_per_op"])
    if compare.one_time_allocations(b):
        once = stats.median([a * n for a, n in zip(b.samples["allocs_per_op"], b.iterations)])
        return f"0 (one-time: {once:.0f} per repetition)"
    return f"{allocs:.2f} ({stats.median(b.samples['alloc_bytes_per_op']):,.0f} B)"


def section_allocations(m):
    heading = "Allocations per operation"
    bs, op, size, cipher = overhead_slice(m.run)
    if not bs:
        return absent(heading)
    counted = [b for b in bs if b.samples["allocs_per_op"]]
    if not counted and not any(b.samples["alloc_bytes_per_op"] for b in bs):
        return absent(heading, "Not counted in this run (sanitizer build).")
    # The chart counts allocations; a backend whose runtime reports bytes only
    # (or nothing) is in the table alone.
    groups = variant_groups(m, counted, lambda b: (0.0 if compare.one_time_allocations(b) else
                                                   stats.median(b.samples["allocs_per_op"]), None,
                                                   None))
    variants = [label for label, _ in variant_groups(m, bs, lambda b: (0.0, None, None))]
    table = OrderedDict()  # backend -> {variant: (allocs, bytes)}
    for b in bs:
        table.setdefault(b.params["backend"], {})[variant_label(b)] = allocation_cell(b)
    head = "".join(f"<th>{escape(v.replace(chr(10), ', '))}</th>" for v in variants)
    rows = "".join(f"<tr><td class='l'>{name_html(m, backend, library=False)}</td>" + "".join(
        f"<td>{per[v]}</td>" if v in per else "<td>-</td>" for v in variants)
        + "</tr>" for backend, per in m.by_order(table))
    chart_id = f"{m.prefix}allocations"
    chart = ""
    if groups:
        chart = figure(chart_id, svg.bar_chart(
            chart_id, f"{cipher.upper()} {op}, {svg.size_label(size)}: allocations per operation",
            groups, "allocations/op", "codec, buffer pool"),
            "Counted per thread inside the timed loop by interposing malloc (the libraries' own "
            "allocations included), like go test -benchmem; a backend measured by another "
            "program as its context's allocation_counting says.")
    bytes_only = sorted({b.params["backend"] for b in bs if not b.samples["allocs_per_op"]},
                        key=m.order)
    note = (f" {', '.join(bytes_only)}: the runtime does not count allocations (n/a: bytes only, "
            "or not counted)." if bytes_only else "")
    return (f"<h3>{heading}</h3>" + chart
            + f"<p class='note'>Allocations per operation (bytes per operation):{escape(note)}</p>"
            f"<table><tr><th class='l'>backend</th>{head}</tr>{rows}</table>")


def headroom_table(m):
    """answer.headroom: per op at the largest size, the bound and how near the best come."""
    rows = []
    for h in m.answer.headroom:
        rate = f" ({h.ghz / h.bound_cpb:.1f} GB/s at {h.ghz:.2f} GHz)" if h.ghz > 0 else ""
        best = f"{name_html(m, h.library[0], library=False)} {100 * h.library[1]:.0f}%"
        hand = (f"{name_html(m, h.hand_written[0], library=False)} {100 * h.hand_written[1]:.0f}%"
                if h.hand_written else "-")
        rows.append(f"<tr><td class='l'>{escape(h.what)}, {escape(answers.size_text(h.size))}</td>"
                    f"<td>{h.bound_cpb:.3f}{escape(rate)}</td>"
                    f"<td class='l'>{best}</td>"
                    f"<td class='l'>{hand}</td></tr>")
    return ("<table><tr><th class='l'>workload, 1 thread</th><th>what the hardware allows, "
            "cycles/byte (widest AES)</th>"
            "<th class='l'>best library: share of the bound</th><th class='l'>best hand-written</th></tr>"
            f"{''.join(rows)}</table>")


def section_cycles(m):
    """Cycles per byte against size for encryption and decryption, each
    backend's measured medians with the bounds (bounds.py) that limit them."""
    heading = "Cycles per byte against the hardware bound"
    try:
        bound_rows = [r for r in bounds.rows(m.run) if r["messages"] == 1]
        why = ""
    except ResultsError as e:
        bound_rows, why = [], f"No bounds drawn: {e}."
    # Keyed like ladder(): GCM's AAD length as text, "" for the other modes.
    bound_of = {(r["backend"], r["cipher"], r["op"], r["size"],
                 "" if r.get("aad") is None else str(r["aad"])): r for r in bound_rows}
    parts, tables = [], []
    for (op, cipher, aad), by_backend in ladder(m.run).items():
        if op not in ("encrypt", "decrypt"):
            continue
        by_backend = OrderedDict((backend, {s: b for s, b in per.items() if b.samples["cycles_per_byte"]})
                                 for backend, per in m.by_order(by_backend))
        sizes = sorted({s for per in by_backend.values() for s in per})
        if len(sizes) < 2:
            continue
        series = [svg.Series(m.styles[backend], [(s, *summary(b.samples["cycles_per_byte"]))
                                                 for s, b in sorted(per.items())])
                  for backend, per in by_backend.items() if per]
        kinds = OrderedDict()  # one line per kind of bound: equal kinds have equal bounds
        for backend, per in by_backend.items():
            for s in per:
                r = bound_of.get((backend, cipher, op, s, aad))
                if r:
                    kinds.setdefault(r["kind"].split(" (")[0], {})[s] = r["bound"]
        names = ["hardware bound"] if len(kinds) == 1 else [f"bound {i}" for i in range(1, len(kinds) + 1)]
        series += [svg.Series(svg.bound_style(i, name), [], sorted(line.items()))
                   for i, (name, line) in enumerate(zip(names, kinds.values()))]
        bound_note = ("; ".join(f"{name}: {kind}" for name, kind in zip(names, kinds)) if kinds
                      else "no bound")
        what = answers.operation_text(cipher, op, aad)
        chart_id = f"{m.prefix}cycles-{op}-{cipher}" + (f"-aad-{aad}" if aad else "")
        chart = svg.line_chart(chart_id, f"{what}: cycles per byte against size", series,
                               "payload size (log scale)", "cycles/byte (log scale)",
                               log_x=True, log_y=True, x_format=svg.size_label)
        parts.append(figure(chart_id, chart, "1 thread, no codec, pooled buffers, cached key; medians, "
                                             "whiskers min-max; dotted: the bound per byte, padding block "
                                             f"included ({bound_note}); " + HAND_WRITTEN_NOTE + "."))
        top = sizes[-1]
        rows = [(backend, per[top].value("cycles_per_byte"), bound_of.get((backend, cipher, op, top, aad)))
                for backend, per in by_backend.items() if top in per]
        tables.append(f"<p class='note'>{escape(what)}, {escape(svg.size_label(top))}: measured against "
                      "the bound per backend.</p><table><tr><th class='l'>backend</th><th>measured c/B</th>"
                      "<th>bound c/B</th><th>share of the bound</th><th class='l'>limited by</th></tr>" +
                      "".join(f"<tr><td class='l'>{name_html(m, backend, library=False)}</td>"
                              f"<td>{measured:.3f}</td>"
                              f"<td>{num(r['bound'] if r else None, '.3f')}</td>"
                              f"<td>{num(100 * r['share'] if r else None, '.0f', '%')}</td>"
                              f"<td class='l'>{escape(r['kind'] if r else '-')}</td></tr>"
                              for backend, measured, r in rows) + "</table>")
    if not parts and not m.answer.headroom:
        return absent(heading)
    clock = m.run.context.get("core_clock_ghz", "?")
    out = [f"<h3>{heading}</h3><p class='note'>Median cycles per plaintext byte (SUPERCOP style) at "
           f"the core clock each benchmark measured around its loop (the run started at "
           f"{escape(str(clock))} GHz), against the bound the AES instructions set "
           f"(cryptobench-results bounds). {escape(why)}</p>"]
    if m.answer.headroom:
        out.append(headroom_table(m))
    return "".join(out + [charts(parts)] + tables)


KEY_ORDER = ["cached", "per-op", "hmac-sha256"]


def duration(ns):
    for unit, scale in (("s", 1e9), ("ms", 1e6), ("us", 1e3)):
        if ns >= scale:
            return f"{ns / scale:.3g} {unit}"
    return f"{ns:.3g} ns"


def _key_sort(key):
    """Known modes first, PBKDF2 by its rounds, the rest by name (a key name
    is any token of the benchmark name: never int() it unchecked)."""
    if key in KEY_ORDER:
        return (KEY_ORDER.index(key), 0, key)
    rounds = re.fullmatch(r"pbkdf2-sha256-([0-9]{1,9})", key)
    if rounds:
        return (len(KEY_ORDER), int(rounds.group(1)), key)
    return (len(KEY_ORDER) + 1, 0, key)


def section_key_handling(m):
    """Seed 002's question: what does deriving a key per operation cost, and
    at which message size does it stop mattering?"""
    run = m.run
    bs = [b for b in matching(run, "seed002") if b.threads == 1 and "key" in b.params]
    keys = sorted({b.params["key"] for b in bs}, key=_key_sort)
    if len(keys) < 2:
        return absent("Key handling", "Not in this run (suite seed002-keys).")
    parts = ["<h3>Key handling</h3><p class='note'>AES roundtrips (encrypt and verified decrypt) "
             "with the key handled per operation as named; operations per second, and the ratio "
             "to a cached key schedule. Each library derives with its own HMAC/PBKDF2; the "
             "hand-written backend uses a library's (see the context).</p>"]
    for size in sorted({int(b.params["size"]) for b in bs}):
        rows = []
        for backend in OrderedDict((b.params["backend"], None) for b in bs):
            by_key = {b.params["key"]: b.value("items_per_second") for b in bs
                      if b.params["backend"] == backend and int(b.params["size"]) == size}
            cached = by_key.get("cached")
            cells = []
            for k in keys:
                v = by_key.get(k)
                if v is None:
                    cells.append("<td>-</td>")
                else:
                    ratio = f" (x{v / cached:.3g})" if cached else ""
                    cells.append(f"<td>{svg.fmt(v)}{ratio}</td>")
            rows.append(f"<tr><td class='l'>{escape(backend)}</td>{''.join(cells)}</tr>")
        cipher = bs[0].params.get("cipher", "")
        head = "".join(f"<th>{escape(k)}</th>" for k in keys)
        parts.append(f"<p class='note'>{escape(cipher)}, {escape(svg.size_label(size))} per operation, "
                     f"ops/s (ratio to cached):</p><table><tr><th class='l'>backend</th>{head}</tr>"
                     f"{''.join(rows)}</table>")
    setup = [b for b in matching(run, "keysetup") if b.threads == 1]
    if setup:
        setup_keys = sorted({b.params["key"] for b in setup}, key=_key_sort)
        rows = []
        for backend in OrderedDict((b.params["backend"], None) for b in setup):
            by_key = {b.params["key"]: b.value("time_ns") for b in setup if b.params["backend"] == backend}
            cells = "".join(f"<td>{duration(by_key[k])}</td>" if k in by_key else "<td>-</td>"
                            for k in setup_keys)
            rows.append(f"<tr><td class='l'>{escape(backend)}</td>{cells}</tr>")
        head = "".join(f"<th>{escape(k)}</th>" for k in setup_keys)
        parts.append("<p class='note'>The key setup alone (derivation, if any, and both key "
                     "schedules), time per setup:</p>"
                     f"<table><tr><th class='l'>backend</th>{head}</tr>{''.join(rows)}</table>")
    return "".join(parts)


def section_context(run):
    rows = "".join(f'<tr><th class="l">{escape(str(k))}</th><td class="l">{escape(str(v))}</td></tr>'
                   for k, v in run.context.items() if not isinstance(v, (list, dict)))
    return f"<details><summary>Context</summary><table>{rows}</table></details>"


def contention_html(a):
    """What the noisy neighbour did (answer.contention_lines), as a note."""
    lines = answers.contention_lines(a, a.run.context)
    if not lines:
        return ""
    items = "".join(f"<li>{escape(line.strip())}</li>" for line in lines[2:])
    return f"<p class='note'>{escape(lines[1])}</p><ul class='note'>{items}</ul>"


def floor_html(floor):
    """The noise floor's description, its figure in bold: every tie depends on it."""
    text = floor.describe()
    head, colon, rest = text.partition(":")
    if floor.measured and colon:
        return f"<b>{escape(head[:1].upper() + head[1:])}</b>:{escape(rest)}"
    return escape(text)


def alerts_html(runs, machines=()):
    """What failed, was interrupted or ran beside (health.header), and where
    contention left a machine's answers untested: first in the report."""
    lines = [(run.path, line) for run in runs for line in answers.health.header(run)]
    lines += [(m.run.path, line) for m in machines for line in m.answer.status
              if line.startswith("UNTESTED:")]
    return "".join(f"<p class='alert'>{escape(path)}: {escape(line)}</p>" for path, line in lines)


def section_unranked(m):
    """The workloads not ranked, and the mix verdicts not made, because a
    backend the run asked for has no figures there."""
    items = answers.unranked_lines(m.answer.unranked)
    items += [line.strip() for line in answers.unfitted_lines(m.answer)]
    if not items:
        return ""
    return ("<p class='alert'>Not ranked (a backend the run asked for has no figures there):</p>"
            "<ul>" + "".join(f"<li>{escape(i)}</li>" for i in items) + "</ul>")


def section_machine(m, label, anchor):
    """One machine's answer first, then the charts behind it, its context last."""
    a = m.answer
    run = m.run
    return "".join([
        f"<section id='{escape(anchor)}'><h2>Which AES library: {escape(label)}</h2>",
        f"<p class='note'>{escape(run.path)}: {escape(sampled.size_text(run))}.</p>"
        f"<p class='note'>{floor_html(a.floor)}.</p>"
        f"{contention_html(a)}",
        section_decisions(m), section_unranked(m), pingpong.section(m), section_mix(m),
        section_size_time(m),
        section_thread_sweep(m),
        section_codec_pool(m), section_allocations(m), section_cycles(m), section_key_handling(m),
        section_context(run), "</section>"])


def document_styles(runs):
    """One style per backend for the whole document: palette order is the
    order backends first appear in the runs, so a backend keeps its colour
    and marker in every chart and every machine's section."""
    names, hand_written = OrderedDict(), set()
    for run in runs:
        for b in run.benchmarks.values():
            backend = b.params["backend"]
            names.setdefault(backend, None)
            if answers.is_hand_written(run.context, backend):
                hand_written.add(backend)
    return svg.backend_styles(list(names), hand_written)


def render(runs, alpha=0.05, mix="tls-records", baseline=None, lead=""):
    """The report of a list of runs: one machine section per machine (per run
    where a machine has several); `lead` (HTML, e.g. the fleet answer) first."""
    sections = answers.machine_sections(runs)
    styles = document_styles(runs)
    several = len(sections) > 1
    suites = list(OrderedDict.fromkeys(str(run.context.get("cryptobench_suite", "?")) for run in runs))
    title = f"cryptobench report: {', '.join(suites)} suite{'s' if len(suites) > 1 else ''}"
    machines = [Machine(run, answers.answer(run, mix, alpha, baseline), styles,
                        f"m{i}-" if several else "")
                for i, (_, run) in enumerate(sections, 1)]
    body = [f"<h1>{escape(title)}</h1>", alerts_html(runs, machines),
            "<p class='note'>Figures are medians of repetitions. Hand-written kernels (dashed, "
            "marked hand-written) show what the hardware allows: headroom, never a "
            "recommendation. <span id='selfcheck'>charts not checked (scripts off)</span></p>", lead]
    if several:
        body.append("<nav><p class='note'>One answer per machine:</p><ul>" + "".join(
            f"<li><a href='#machine-{i}'>{escape(label)}</a></li>"
            for i, (label, _) in enumerate(sections, 1)) + "</ul></nav>")
    for i, ((label, _), m) in enumerate(zip(sections, machines), 1):
        body.append(section_machine(m, label, f"machine-{i}"))
    return ("<!DOCTYPE html>\n<html lang='en'><head><meta charset='utf-8'>"
            f"<title>{escape(title)}</title><style>{STYLE}</style></head><body>"
            + "\n".join(body) + f"<script>{SELF_CHECK}</script></body></html>\n")
