"""Seed 001's TCP ping-pong (pingpong/driver.py): does the AES choice matter
end to end?

The run's pingpong benchmarks are cells: a stack (C++, Go, Java, Scala) plain, or
with every ping and pong sealed with AES-128-GCM (C++: one cell per
cryptobench backend), on the run's connections; and C++ plain on one
connection, the unloaded loopback round trip. Per cell, medians over
repetitions of: the seed's figure (wall time over pings, µs), the round trip
per ping (p50, p99), the server's peak RSS and anonymous RSS, the crypto
time per ping (both sides' seals and opens, as measured in the run, and
alone in a loop) and the CPU time per ping (each program's own, over the
pings).

The verdict sets the C++ cells side by side: plain, and the fastest and the
slowest library (hand-written kernels are headroom, never a choice): how
much sealing adds to a ping, whether the libraries differ at all (a
Kruskal-Wallis test across every library's cell at alpha, not a test of the
two extremes as if they had been chosen in advance) and by more than the
run's noise floor (the extremes' gap), and what share of a ping's CPU time,
of an unloaded round trip and of the run's round trip the crypto is.
`cryptobench-results pingpong RUN.json` prints it; the report has it as a
section.
"""
import math
from dataclasses import dataclass
from html import escape

from scipy import stats as sps

from . import noise, stats, svg
from .answer import is_hand_written, library

SCENARIO = "pingpong"
# Kruskal-Wallis' chi-squared approximation wants 5 or more per group.
MIN_REPETITIONS = 5
COLUMNS = ["cell", "backend", "us/ping", "min-max", "p50 us", "p99 us", "server RSS MiB",
           "server anon MiB", "crypto ns/ping", "crypto alone ns", "added CPU us/ping",
           "server CPU us/ping", "client CPU us/ping"]


@dataclass
class Cell:
    benchmark: object
    backend: str
    cipher: str
    stack: str           # C++, Go, Java, Scala
    hand_written: bool
    unloaded: bool = False  # one connection, where the run has more: the round trip alone

    @property
    def sealed(self):
        return self.cipher != "none"

    @property
    def title(self):
        if not self.sealed:
            return f"{self.stack} plain" + (", 1 connection" if self.unloaded else "")
        return f"{self.stack} {self.cipher.upper()}" + (f" ({self.backend})" if self.stack == "C++" else "")

    def median(self, metric, scale=1.0):
        v = self.benchmark.value(metric)
        return None if v is None else v * scale

    def samples(self, metric):
        return self.benchmark.samples.get(metric) or []

    def cpu(self):
        """Both processes' CPU time per ping (ns), median; None without it."""
        server, client = self.median("server_cpu_ns_per_ping"), self.median("client_cpu_ns_per_ping")
        return None if server is None or client is None else server + client


def added_cpu(cell, plain):
    """What sealing adds to a ping's CPU time (both processes, ns): the cell's
    median against its stack's plain cell. The one crypto figure that means
    the same for every stack: the in-run timing of the Go, Java and Scala peers (a
    goroutine or thread per connection, 100 of them on the cores) also counts
    the time a timed thread waits for a core."""
    if not cell.sealed or plain is None or cell.cpu() is None or plain.cpu() is None:
        return None
    return cell.cpu() - plain.cpu()


def stack_of(backend):
    if backend.startswith("go-"):
        return "Go"
    if backend.startswith("java-"):
        return "Java"
    if backend.startswith("scala-"):
        return "Scala"
    return "C++"


def _connections(b):
    text = b.params.get("connections", "")
    return int(text) if text.isdigit() else None


def cells(run):
    """Every ping-pong cell; those on one connection where the run's other
    cells have more are `unloaded`."""
    found = [b for b in run.benchmarks.values()
             if not b.error and b.scenario == SCENARIO and b.samples["time_ns"]]
    most = max((_connections(b) or 0 for b in found), default=0)
    out = []
    for b in found:
        backend = b.params["backend"]
        out.append(Cell(b, backend, b.params.get("cipher", "none"), stack_of(backend),
                        is_hand_written(run.context, backend),
                        unloaded=_connections(b) == 1 and most > 1))
    order = {"C++": 0, "Go": 1, "Java": 2, "Scala": 3}
    return sorted(out, key=lambda c: (order[c.stack], c.sealed, c.unloaded, c.hand_written,
                                      c.median("time_ns")))


def _f(value, spec):
    return "-" if value is None or (isinstance(value, float) and math.isnan(value)) else f"{value:{spec}}"


def plain_cells(cs):
    return {c.stack: c for c in cs if not c.sealed and not c.unloaded}


def rows(run):
    """The table: one row of texts per cell."""
    out = []
    cs = cells(run)
    plain = plain_cells(cs)
    for c in cs:
        added = added_cpu(c, plain.get(c.stack))
        per = [t / 1000 for t in c.samples("time_ns")]
        out.append([c.title + (" (hand-written)" if c.hand_written else ""), c.backend,
                    _f(c.median("time_ns", 1e-3), ".3f"),
                    f"{min(per):.3f}-{max(per):.3f}" if len(per) > 1 else "-",
                    _f(c.median("rtt_p50_ns", 1e-3), ".1f"), _f(c.median("rtt_p99_ns", 1e-3), ".1f"),
                    _f(c.median("server_peak_rss_kib", 1 / 1024), ".1f"),
                    _f(c.median("server_peak_anon_kib", 1 / 1024), ".1f"),
                    _f(c.median("crypto_ns_per_ping"), ".0f"),
                    _f(c.median("crypto_isolated_ns_per_ping"), ".0f"),
                    _f(None if added is None else added / 1000, ".2f"),
                    _f(c.median("server_cpu_ns_per_ping", 1e-3), ".2f"),
                    _f(c.median("client_cpu_ns_per_ping", 1e-3), ".2f")])
    return out


@dataclass
class Verdict:
    plain: Cell          # C++ plain, or None
    fastest: Cell        # the fastest C++ library sealed, or None
    slowest: Cell
    gap_ns: float        # slowest - fastest, wall time per ping
    p: float             # Kruskal-Wallis across every library's cell (NaN: untestable)
    floor: object        # noise.NoiseFloor of the run
    verdict: str         # "matters", "noise", "not-significant", "untested", "single", "none"
    lines: list
    libraries: int = 0   # C++ library cells sealed
    unloaded: Cell = None  # C++ plain on one connection, or None


def kruskal_wallis(groups):
    """p of the Kruskal-Wallis H test that every group comes from the same
    distribution (scipy, tie-corrected, chi-squared approximation); 1.0
    when every value is the same."""
    values = {x for g in groups for x in g}
    if len(values) < 2:
        return 1.0
    return float(sps.kruskal(*groups).pvalue)


def verdict(run, alpha=0.05):
    cs = cells(run)
    plain = next((c for c in cs if c.stack == "C++" and not c.sealed and not c.unloaded), None)
    unloaded = next((c for c in cs if c.stack == "C++" and not c.sealed and c.unloaded), None)
    libs = sorted((c for c in cs if c.stack == "C++" and c.sealed and not c.hand_written),
                  key=lambda c: c.median("time_ns"))
    floor = noise.noise_floor(run)
    if not libs:
        return Verdict(plain, None, None, math.nan, math.nan, floor, "none",
                       ["No C++ cell sealed by a library: nothing to say about the AES choice."],
                       0, unloaded)
    fast, slow = libs[0], libs[-1]
    p = math.nan
    if fast is slow:
        kind = "single"
    elif min(len(c.samples("time_ns")) for c in libs) < MIN_REPETITIONS:
        kind = "untested"
    else:
        # One test of "do the libraries differ at all", across every one of
        # them: the fastest and the slowest of n are the extremes of n, not
        # two cells chosen in advance, and a test of those two alone would
        # find a difference where there is none.
        p = kruskal_wallis([c.samples("time_ns") for c in libs])
        ratio = slow.median("time_ns") / fast.median("time_ns")
        if p >= alpha:
            kind = "not-significant"
        elif floor.measured and ratio - 1 <= floor.value:
            kind = "noise"
        else:
            kind = "matters"
    b = fast.benchmark
    connections = b.params.get("connections", "?")
    pings = b.params.get("pings", "?")
    lines = [f"Does the AES choice matter end to end? C++ server and client on 127.0.0.1, "
             f"{connections} connections, {int(pings):,} pings of {b.params.get('size', '4')} B "
             f"(medians of {len(b.samples['time_ns'])} repetitions)" if pings.isdigit() else
             "Does the AES choice matter end to end?"]
    base = plain.median("time_ns") if plain else None
    if base:
        lines.append(f"  plain: {base / 1000:.3f} us per ping (wall time / pings), round trip p50 "
                     f"{plain.median('rtt_p50_ns') / 1000:.1f} us, p99 "
                     f"{plain.median('rtt_p99_ns') / 1000:.1f} us")
    if unloaded:
        u_pings = unloaded.benchmark.params.get("pings", "?")
        lines.append(f"  unloaded (plain, 1 connection"
                     f"{f', {int(u_pings):,} pings' if u_pings.isdigit() else ''}): round trip "
                     f"p50 {unloaded.median('rtt_p50_ns') / 1000:.1f} us, p99 "
                     f"{unloaded.median('rtt_p99_ns') / 1000:.1f} us: the loopback and the two "
                     "processes, nothing queued")
    plains = plain_cells(cs)
    for tag, c in (("fastest", fast), ("slowest", slow)) if fast is not slow else (("only", fast),):
        t = c.median("time_ns")
        over = f" ({100 * (t / base - 1):+.0f}% against plain)" if base else ""
        added, cpu = added_cpu(c, plain), c.cpu()
        adds = (f"sealing adds {added / 1000:.2f} us of CPU per ping (both processes; "
                f"{100 * added / cpu:.0f}% of a ping's CPU); " if added is not None and cpu else "")
        lines.append(f"  {tag} library sealed, {c.backend} ({library(run.context, c.backend)}): "
                     f"{t / 1000:.3f} us per ping{over}; {adds}crypto "
                     f"{_f(c.median('crypto_ns_per_ping'), '.0f')} ns per ping timed in the run "
                     f"({_f(c.median('crypto_isolated_ns_per_ping'), '.0f')} ns alone); round trip "
                     f"p50 {c.median('rtt_p50_ns') / 1000:.1f} us")
    if fast is not slow:
        gap = slow.median("time_ns") - fast.median("time_ns")
        rtt = fast.median("rtt_p50_ns")
        p_text = ("-" if math.isnan(p) else
                  f"Kruskal-Wallis across the {len(libs)} libraries: " +
                  ("p < 0.001" if p < 0.001 else f"p = {p:.2g}"))
        floor_text = f", noise floor {100 * floor.value:.1f}%" if floor.measured else ""
        answer = {
            "matters": "yes: the libraries differ significantly, and the fastest and the slowest "
                       "by more than the run's noise floor",
            "noise": "no measurable difference: the libraries differ significantly, but the "
                     "fastest and the slowest by no more than the run's noise floor",
            "not-significant": "no measurable difference: not significant",
            "untested": f"untested: too few repetitions (run {MIN_REPETITIONS} or more)",
        }[kind]
        lines.append(f"  the choice: {gap:.0f} ns per ping of wall time between the fastest and "
                     f"the slowest of {len(libs)} libraries "
                     f"({100 * gap / fast.median('time_ns'):.0f}%; {p_text}{floor_text}). "
                     f"{answer[0].upper()}{answer[1:]}.")
        fast_crypto = fast.median("crypto_ns_per_ping") or 0
        slow_crypto = slow.median("crypto_ns_per_ping") or 0
        crypto = f"their crypto takes {fast_crypto:.0f} and {slow_crypto:.0f} ns per ping"
        if unloaded:
            idle = unloaded.median("rtt_p50_ns")
            crypto += (f": {100 * fast_crypto / idle:.1f}% and {100 * slow_crypto / idle:.1f}% of "
                       f"an unloaded round trip (1 connection, p50 {idle / 1000:.1f} us), "
                       f"{100 * fast_crypto / rtt:.1f}% and {100 * slow_crypto / rtt:.1f}% of a "
                       f"round trip with {connections} connections")
        else:
            crypto += (f", {100 * fast_crypto / rtt:.1f}% and {100 * slow_crypto / rtt:.1f}% of a "
                       "round trip")
        lines.append(f"  next to the round trip: {crypto} (p50 {rtt / 1000:.0f} us, mostly the "
                     f"wait behind the other connections' pings); where the cores are busy, it is "
                     f"the CPU per ping, the throughput, that the library moves")
    for stack in ("Go", "Java", "Scala"):  # the peers: their stack and their AES together
        mine = {c.sealed: c for c in cs if c.stack == stack}
        if not mine:
            continue
        parts = []
        if False in mine:
            parts.append(f"plain {mine[False].median('time_ns') / 1000:.3f} us per ping")
        if True in mine:
            c = mine[True]
            added = added_cpu(c, plains.get(stack))
            parts.append(f"sealed {c.median('time_ns') / 1000:.3f} us per ping" +
                         (f", sealing adds {added / 1000:.2f} us of CPU per ping" if added is not None
                          else ""))
        lines.append(f"  {stack} peer: " + "; ".join(parts))
    return Verdict(plain, fast, slow, slow.median("time_ns") - fast.median("time_ns"), p, floor,
                   kind, lines, len(libs), unloaded)


def render_console(run, alpha=0.05):
    rs = rows(run)
    if not rs:
        return None
    widths = [max(len(h), *(len(r[i]) for r in rs)) for i, h in enumerate(COLUMNS)]
    fmt = "  ".join(f"{{:<{w}}}" if i < 2 else f"{{:>{w}}}" for i, w in enumerate(widths))
    out = [fmt.format(*COLUMNS)] + [fmt.format(*r) for r in rs]
    out += [""] + verdict(run, alpha).lines
    skipped = run.context.get("pingpong.skipped")
    if skipped:
        out += [""] + [f"skipped: {s}" for s in str(skipped).split("; ")]
    return "\n".join(out)


def render_markdown(run, alpha=0.05):
    rs = rows(run)
    if not rs:
        return None
    out = ["| " + " | ".join(COLUMNS) + " |", "|" + "|".join("---" for _ in COLUMNS) + "|"]
    out += ["| " + " | ".join(r) + " |" for r in rs]
    return "\n".join(verdict(run, alpha).lines + [""] + out)


def section(m, alpha=0.05):
    """The report's section for one machine (report.Machine); "" when the
    run has no ping-pong."""
    cs = cells(m.run)
    if not cs:
        return ""
    v = verdict(m.run, alpha)
    head = ("<h3>Seed 001: TCP ping-pong on 127.0.0.1. Does the AES choice matter end to "
            "end?</h3>")
    text = "".join(f"<p class='note'>{escape(line.strip())}</p>" for line in v.lines)
    table = ("<table><tr>" + "".join(f"<th class='l'>{escape(h)}</th>" if i < 2 else
                                     f"<th>{escape(h)}</th>" for i, h in enumerate(COLUMNS)) + "</tr>"
             + "".join("<tr>" + "".join(f"<td class='l'>{escape(x)}</td>" if i < 2 else
                                         f"<td>{escape(x)}</td>" for i, x in enumerate(r)) + "</tr>"
                       for r in rows(m.run)) + "</table>")

    parts = []
    chart_id = f"{m.prefix}pingpong-wall"
    parts.append(_figure(chart_id, hbar_chart(
        chart_id, "Wall time per ping (the seed's figure)", "us per ping",
        [(c.title, m.styles[c.backend], [x / 1000 for x in c.samples("time_ns")], None)
         for c in cs if not c.unloaded]),
        "The run's wall time over its pings, median of repetitions, whiskers min-max; dashed: "
        "hand-written kernels (headroom, not a choice). The 1-connection cell is in the table."))
    chart_id = f"{m.prefix}pingpong-cpu"
    plain = plain_cells(cs)
    parts.append(_figure(chart_id, hbar_chart(
        chart_id, "CPU time per ping, client + server: what sealing adds", "us of CPU per ping",
        [(c.title, m.styles[c.backend],
          [(a + b) / 1000 for a, b in zip(c.samples("server_cpu_ns_per_ping"),
                                          c.samples("client_cpu_ns_per_ping"))],
          None if added_cpu(c, plain.get(c.stack)) is None
          else max(added_cpu(c, plain.get(c.stack)), 0) / 1000) for c in cs if not c.unloaded]),
        "Both processes' user + system time over the pings, as each measures its own from its "
        "first connect or accept to its last pong (medians, whiskers min-max); dark: "
        "what sealing adds, against the same stack plain. The rest is the system calls, the "
        "loopback TCP stack and the runtime."))
    note = ("<p class='note'>us/ping: wall time over pings (seed 001's figure: with many "
            "connections in flight it is the inverse of the throughput, not a round trip); "
            "p50/p99: each ping's round trip, timed in the client (the 1-connection cell: the "
            "loopback round trip with nothing queued); server RSS: its peak (VmHWM), "
            "anon: its peak anonymous memory (heap, stacks; without the libraries' mapped code); "
            "crypto: both sides' seal and open time per ping as timed in the run (for Go, Java "
            "and Scala, a goroutine or thread per connection, it also counts a timed thread's "
            "waits for a "
            "core), and the same four operations alone in a loop; added CPU: what sealing adds to "
            "both processes' CPU time per ping, against the same stack plain; server and client "
            "CPU: each process's own user + system time over the pings.</p>")
    return head + text + note + table + f"<div class='charts'>{''.join(parts)}</div>"


ROW, LABEL_W, CHART_W = 22, 230, 820


def hbar_chart(chart_id, title, x_label, rows):
    """Horizontal bars, one row per cell: (label, Style, samples, dark part or
    None). The bar is the samples' median, whiskers min-max; the dark part
    is drawn from 0 over the bar. Hand-written styles are outlined and dashed."""
    rows = [r for r in rows if r[2]]
    top, plot_w = 34, CHART_W - LABEL_W - 70
    height = top + ROW * len(rows) + 46
    x_max = svg.nice_max(max(max(r[2]) for r in rows) if rows else 1)

    def px(x):
        return LABEL_W + x / x_max * plot_w
    body = [f'<text x="{LABEL_W}" y="20" class="title">{escape(title)}</text>']
    for k in range(6):
        x = x_max * k / 5
        body.append(f'<line x1="{px(x):.1f}" x2="{px(x):.1f}" y1="{top - 4}" '
                    f'y2="{top + ROW * len(rows)}" class="grid" stroke="#ececec"/>'
                    f'<text x="{px(x):.1f}" y="{top + ROW * len(rows) + 16}" class="tick" '
                    f'text-anchor="middle">{escape(svg.fmt(x))}</text>')
    for i, (label, st, xs, dark) in enumerate(rows):
        y = top + i * ROW
        value = stats.median(xs)
        look = (f'fill="{st.colour}" fill-opacity="0.35" stroke="{st.colour}" stroke-width="1.5" '
                f'stroke-dasharray="{st.dash}"') if st.dash else f'fill="{st.colour}" fill-opacity="0.55"'
        tip = f"{label}: {svg.fmt(value)} {x_label}"
        if dark is not None:
            tip += f"; crypto {svg.fmt(dark)} ({100 * dark / value:.0f}%)" if value > 0 else ""
        body.append(f'<text x="{LABEL_W - 6}" y="{y + ROW * 0.68:.1f}" class="tick" '
                    f'text-anchor="end">{escape(label)}</text>')
        body.append(f'<rect x="{LABEL_W}" y="{y + 3}" width="{max(px(value) - LABEL_W, 0.5):.1f}" '
                    f'height="{ROW - 6}" {look} class="mark"><title>{escape(tip)}</title></rect>')
        if dark:
            body.append(f'<rect x="{LABEL_W}" y="{y + 3}" width="{max(px(min(dark, value)) - LABEL_W, 0.5):.1f}" '
                        f'height="{ROW - 6}" fill="#1a1a1a"><title>{escape(tip)}</title></rect>')
        if len(xs) > 1 and max(xs) > min(xs):
            body.append(f'<line x1="{px(min(xs)):.1f}" x2="{px(max(xs)):.1f}" y1="{y + ROW / 2}" '
                        f'y2="{y + ROW / 2}" class="whisker" stroke="#222"/>')
        body.append(f'<text x="{px(max(xs)) + 5:.1f}" y="{y + ROW * 0.68:.1f}" class="tick">'
                    f'{escape(svg.fmt(value))}</text>')
    body.append(f'<text x="{LABEL_W + plot_w / 2:.1f}" y="{height - 8}" class="axis" '
                f'text-anchor="middle">{escape(x_label)}</text>')
    return "\n".join([f'<svg xmlns="http://www.w3.org/2000/svg" viewBox="0 0 {CHART_W} {height}" '
                      f'width="{CHART_W}" height="{height}" role="img" aria-label="{escape(title)}" '
                      f'data-chart="{escape(chart_id)}">', *body, "</svg>"])


def _figure(chart_id, svg_text, caption):
    return (f'<figure data-chart="{escape(chart_id)}">{svg_text}'
            f'<figcaption class="note">{escape(caption)}</figcaption></figure>')
