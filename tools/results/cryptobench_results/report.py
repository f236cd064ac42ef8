"""The offline HTML report: one self-contained file (inline CSS and SVG, a
few lines of inline script for the self-check; nothing fetched), built from
one raw run. Sections: the answer (answer.py), seed-000 thread sweep,
throughput against payload size per operation, codec and pool overhead,
allocations per operation, cycles per byte across sizes, key handling (seed
002), and the context. A section whose benchmarks the run lacks says so."""
import math
from collections import OrderedDict
from html import escape

from . import answer as answers
from . import stats, svg

STYLE = """
body{font-family:system-ui,sans-serif;margin:24px;color:#222;max-width:1100px}
h1{font-size:22px} h2{font-size:18px;margin-top:32px;border-bottom:1px solid #ddd}
table{border-collapse:collapse;font-size:13px;margin:8px 0}
td,th{border:1px solid #ddd;padding:3px 8px;text-align:right} th{background:#f4f4f4}
td.l,th.l{text-align:left} .note{color:#555;font-size:13px}
svg .title{font-size:14px;font-weight:600} svg .tick{font-size:11px;fill:#444}
svg .axis{font-size:12px;fill:#222} svg .legend{font-size:12px} svg .grid{stroke:#eee}
svg .whisker{stroke-width:1.5}
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


def most_common(values):
    counts = OrderedDict()
    for v in values:
        counts[v] = counts.get(v, 0) + 1
    return max(counts, key=counts.get) if counts else None


def closest_size(benchmarks, target=4096):
    sizes = sorted({int(b.params["size"]) for b in benchmarks})
    return min(sizes, key=lambda s: abs(math.log2(s) - math.log2(target))) if sizes else None


def figure(chart_id, svg_text, caption):
    return (f'<figure data-chart="{escape(chart_id)}">{svg_text}'
            f'<figcaption class="note">{escape(caption)}</figcaption></figure>')


def section_context(run):
    rows = "".join(f'<tr><th class="l">{escape(str(k))}</th><td class="l">{escape(str(v))}</td></tr>'
                   for k, v in run.context.items() if not isinstance(v, (list, dict)))
    return f"<h2>Context</h2><table>{rows}</table>"


def section_thread_sweep(run):
    parts = []
    for pool in ("off", "on"):
        bs = matching(run, "seed000", pool=pool)
        if not bs:
            continue
        series = OrderedDict()
        for b in bs:
            s = summary(b.samples["ops_per_ms"])
            series.setdefault(b.params["backend"], []).append((b.threads, *s))
        chart = svg.line_chart(f"thread-sweep-pool-{pool}",
                               f"Seed 000 roundtrip: ops/ms against threads (pool {pool})",
                               list(series.items()), "threads", "ops/ms")
        parts.append(figure(f"thread-sweep-pool-{pool}", chart,
                            "AES-128-CBC, 100-character message + counter, Base64, new key schedule "
                            "per operation; all threads together; whiskers: min-max of repetitions."))
    if not parts:
        return "<h2>Seed 000 thread sweep</h2><p class='note'>Not in this run (suite seed000 or quick).</p>"
    return "<h2>Seed 000 thread sweep</h2>" + "".join(parts)


def grid_baseline(run):
    """The slice most charts use: the run's most common cipher, key cached."""
    grid = matching(run, "grid")
    cipher = most_common(b.params.get("cipher") for b in grid)
    return [b for b in grid if b.params.get("cipher") == cipher and b.params.get("key") == "cached"], cipher


def section_size_scaling(run):
    base, cipher = grid_baseline(run)
    parts = []
    for op in ("encrypt", "decrypt", "roundtrip"):
        bs = [b for b in base if b.params.get("op") == op and b.params.get("codec") == "none"
              and b.params.get("pool") == "on" and b.threads == 1]
        if len({b.params["size"] for b in bs}) < 2:
            continue
        series = OrderedDict()
        for b in bs:
            s = summary([x / 1e6 for x in b.samples["bytes_per_second"]])
            series.setdefault(b.params["backend"], []).append((int(b.params["size"]), *s))
        chart = svg.line_chart(f"size-scaling-{op}", f"{op} {cipher}: throughput against payload size",
                               list(series.items()), "payload size (log scale)", "MB/s", log_x=True,
                               x_format=svg.size_label)
        parts.append(figure(f"size-scaling-{op}", chart,
                            "codec none, pool on, cached key, 1 thread; MB/s of plaintext."))
    if not parts:
        return "<h2>Throughput against payload size</h2><p class='note'>Not in this run.</p>"
    return "<h2>Throughput against payload size</h2>" + "".join(parts)


def _overhead_slice(run):
    base, cipher = grid_baseline(run)
    bs = [b for b in base if b.params.get("op") == "roundtrip" and b.threads == 1]
    size = closest_size(bs)
    return [b for b in bs if int(b.params["size"]) == size], cipher, size


def section_codec_pool(run):
    bs, cipher, size = _overhead_slice(run)
    if not bs:
        return "<h2>Codec and pool overhead</h2><p class='note'>Not in this run.</p>"
    groups = OrderedDict()
    for b in bs:
        s = summary([x / 1e6 for x in b.samples["bytes_per_second"]])
        label = f"{b.params['codec']}, pool {b.params['pool']}"
        groups.setdefault(b.params["backend"], []).append((label, *s))
    chart = svg.bar_chart("codec-pool", f"Roundtrip {cipher}, {svg.size_label(size)}: codec and pool",
                          list(groups.items()), "MB/s", "backend")
    return ("<h2>Codec and pool overhead</h2>" +
            figure("codec-pool", chart, "Encrypt, encode, decode, decrypt, compare; 1 thread, cached key. "
                                        "Each backend encodes with its own library's codec."))


def section_allocations(run):
    bs, cipher, size = _overhead_slice(run)
    if not bs or not all(b.samples["allocs_per_op"] for b in bs):
        return ("<h2>Allocations per operation</h2><p class='note'>Not counted in this run "
                "(sanitizer build) or not in this run.</p>")
    groups = OrderedDict()
    rows = []
    for b in bs:
        a = stats.median(b.samples["allocs_per_op"])
        nbytes = stats.median(b.samples["alloc_bytes_per_op"])
        label = f"{b.params['codec']}, pool {b.params['pool']}"
        groups.setdefault(b.params["backend"], []).append((label, a, None, None))
        rows.append(f"<tr><td class='l'>{escape(b.params['backend'])}</td><td class='l'>{escape(label)}</td>"
                    f"<td>{a:.2f}</td><td>{nbytes:,.0f}</td></tr>")
    chart = svg.bar_chart("allocations", f"Roundtrip {cipher}, {svg.size_label(size)}: allocations per operation",
                          list(groups.items()), "allocations/op", "backend")
    table = ("<table><tr><th class='l'>backend</th><th class='l'>codec, pool</th><th>allocs/op</th>"
             f"<th>bytes/op</th></tr>{''.join(rows)}</table>")
    return ("<h2>Allocations per operation</h2>" +
            figure("allocations", chart, "Counted per thread inside the timed loop by interposing malloc "
                                         "(the libraries' own allocations included), like go test -benchmem.")
            + table)


def section_cycles(run):
    base, cipher = grid_baseline(run)
    bs = [b for b in base if b.params.get("codec") == "none" and b.params.get("pool") == "on"
          and b.threads == 1 and b.samples["cycles_per_byte"]]
    if not bs:
        return "<h2>Cycles per byte</h2><p class='note'>Not in this run.</p>"
    sizes = sorted({int(b.params["size"]) for b in bs})
    table = OrderedDict()
    for b in bs:
        table.setdefault((b.params["backend"], b.params["op"]), {})[int(b.params["size"])] = \
            stats.median(b.samples["cycles_per_byte"])
    head = "".join(f"<th>{escape(svg.size_label(s))}</th>" for s in sizes)
    rows = []
    for (backend, op), per in table.items():
        cells = "".join(f"<td>{per[s]:.2f}</td>" if s in per else "<td>-</td>" for s in sizes)
        rows.append(f"<tr><td class='l'>{escape(backend)}</td><td class='l'>{escape(op)}</td>{cells}</tr>")
    clock = run.context.get("core_clock_ghz", "?")
    return ("<h2>Cycles per byte</h2>"
            f"<p class='note'>{escape(cipher)}, codec none, pool on, 1 thread; median cycles per plaintext "
            f"byte (SUPERCOP style) at the core clock each benchmark measured right after its loop "
            f"(the run started at {escape(str(clock))} GHz).</p>"
            f"<table><tr><th class='l'>backend</th><th class='l'>op</th>{head}</tr>{''.join(rows)}</table>")


KEY_ORDER = ["cached", "per-op", "hmac-sha256"]


def duration(ns):
    for unit, scale in (("s", 1e9), ("ms", 1e6), ("us", 1e3)):
        if ns >= scale:
            return f"{ns / scale:.3g} {unit}"
    return f"{ns:.3g} ns"


def _key_sort(key):
    if key in KEY_ORDER:
        return (KEY_ORDER.index(key), 0)
    if key.startswith("pbkdf2-sha256-"):
        return (len(KEY_ORDER), int(key.rsplit("-", 1)[1]))
    return (len(KEY_ORDER) + 1, 0)


def section_key_handling(run):
    """Seed 002's question: what does deriving a key per operation cost, and
    at which message size does it stop mattering?"""
    bs = [b for b in matching(run, "seed002") if b.threads == 1 and "key" in b.params]
    keys = sorted({b.params["key"] for b in bs}, key=_key_sort)
    if len(keys) < 2:
        return ("<h2>Key handling</h2><p class='note'>Not in this run (suite seed002-keys).</p>")
    parts = ["<h2>Key handling</h2><p class='note'>AES roundtrips (encrypt and verified decrypt) "
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


def section_answer(run, alpha, mix):
    """The decision first: the answer's sentences, headroom, the mix verdict."""
    a = answers.answer(run, mix, alpha)
    items = "".join(f"<li>{escape(answers.sentence_text(s, run.context, a.floor))}</li>"
                    for s in a.sentences)
    parts = [f"<h2>The answer</h2><p class='note'>{escape(a.machine)}; "
             f"{escape(a.floor.describe())}.</p><ul>{items}</ul>"]
    if a.headroom:
        parts.append("<p class='note'>Headroom, 1 thread:</p><ul>" + "".join(
            f"<li>{escape(answers.headroom_text(h, run.context))}</li>" for h in a.headroom) + "</ul>")
    if a.mix_verdicts:
        parts.append(f"<p class='note'>Traffic mix {escape(a.mix_name)}:</p><ul>" + "".join(
            f"<li>{escape(answers.mix_text(v, run.context, a.floor).strip())}</li>"
            for v in a.mix_verdicts) + "</ul>")
    return "".join(parts)


def render(run, alpha=0.05, mix="tls-records"):
    reps = run.repetitions
    title = f"cryptobench report: {run.context.get('cryptobench_suite', '?')} suite"
    body = [f"<h1>{escape(title)}</h1>",
            f"<p class='note'>From {escape(run.path)}; {len(run.benchmarks)} benchmarks, {reps} "
            f"repetition(s) each. Figures are medians of repetitions.</p>",
            "<p id='selfcheck' class='note'>charts not checked (scripts off)</p>",
            section_answer(run, alpha, mix), section_thread_sweep(run), section_size_scaling(run),
            section_codec_pool(run), section_allocations(run), section_cycles(run),
            section_key_handling(run), section_context(run)]
    return ("<!DOCTYPE html>\n<html lang='en'><head><meta charset='utf-8'>"
            f"<title>{escape(title)}</title><style>{STYLE}</style></head><body>"
            + "\n".join(body) + f"<script>{SELF_CHECK}</script></body></html>\n")
