"""Minimal SVG charts for the offline report: line charts on linear or
logarithmic axes (measured points with min-max whiskers, and a line per
series: a fitted model or the points joined) and grouped bar charts.

A series is drawn in a Style that the report gives each backend once for
the whole document, so a backend looks the same in every chart and every
machine's section: a colour from a fixed palette of 20, a marker shape from
five (colour never has to be the only cue: 100 backends before a pair
repeats), and a dash pattern for hand-written kernels, which are headroom,
not candidates. Every data mark carries a <title> (the browser's tooltip)
and the class "mark" that the report's self-check counts."""
import math
from dataclasses import dataclass
from html import escape

# Kelly's colours of maximum contrast, reordered so that the first few (most
# runs have few backends) differ most; the pale yellows, hard to see on
# white, come last.
PALETTE = ["#0067a5", "#be0032", "#008856", "#f38400", "#875692", "#882d17", "#e68fac",
           "#848482", "#8db600", "#604e97", "#f6a600", "#b3446c", "#2b3d26", "#a1caf1",
           "#e25822", "#654522", "#c2b280", "#f99379", "#dcd300", "#f3c300"]
MARKERS = ["circle", "square", "triangle", "diamond", "triangle-down"]
HAND_WRITTEN_DASH = "7,4"
BOUND_DASH = "2,3"
BOUND_COLOURS = ["#222222", "#777777"]

W, H = 610, 380
LEFT, RIGHT, TOP, BOTTOM = 66, 200, 34, 58
LEGEND_ROW = 19
MARKER_R = 4.5


@dataclass(frozen=True)
class Style:
    label: str        # the legend's text
    colour: str
    marker: str       # one of MARKERS, or "" for a line without points (a bound)
    dash: str = ""    # SVG stroke-dasharray; "" is solid


def backend_styles(backends, hand_written):
    """{backend: Style}: palette colour and marker by position in `backends`
    (a stable order, e.g. first appearance in the runs), dashed and labelled
    for the hand-written ones."""
    out = {}
    for i, name in enumerate(backends):
        hand = name in hand_written
        # Past the palette the colours repeat with the next marker along.
        shape = MARKERS[(i + i // len(PALETTE)) % len(MARKERS)]
        out[name] = Style(f"{name} (hand-written)" if hand else name, PALETTE[i % len(PALETTE)],
                          shape, HAND_WRITTEN_DASH if hand else "")
    return out


def bound_style(index, label):
    return Style(label, BOUND_COLOURS[index % len(BOUND_COLOURS)], "", BOUND_DASH)


@dataclass
class Series:
    style: Style
    points: list          # [(x, y, lo, hi)]; lo/hi None: no whisker
    line: list = None     # [(x, y)] drawn as the series' line; None joins the points


def nice_max(v):
    if v <= 0:
        return 1.0
    exp = 10 ** math.floor(math.log10(v))
    for m in (1, 1.2, 1.5, 2, 2.5, 3, 4, 5, 6, 8, 10):
        if m * exp >= v:
            return m * exp
    return 10 * exp


def fmt(v):
    if v == 0:
        return "0"
    if abs(v) >= 1e9:
        return f"{v / 1e9:g}G"
    if abs(v) >= 1e6:
        return f"{v / 1e6:g}M"
    if abs(v) >= 1e4:
        return f"{v / 1e3:g}k"
    if abs(v) >= 100:
        return f"{v:,.0f}"
    return f"{v:.3g}"


def size_label(v):
    v = int(v)
    if v >= 1 << 20 and v % (1 << 20) == 0:
        return f"{v >> 20} MiB"
    if v >= 1 << 10 and v % (1 << 10) == 0:
        return f"{v >> 10} KiB"
    return f"{v} B"


def _one_two_five(lo, hi):
    """The values 1, 2 and 5 x 10^k from the largest <= lo to the smallest >= hi."""
    out = []
    for k in range(math.floor(math.log10(lo)) - 1, math.ceil(math.log10(hi)) + 1):
        out += [m * 10.0 ** k for m in (1, 2, 5)]
    below = [v for v in out if v <= lo * (1 + 1e-9)]
    above = [v for v in out if v >= hi * (1 - 1e-9)]
    return [v for v in out if below[-1] <= v <= above[0]]


def _log_y(values):
    """(domain low, domain high, ticks) of a log axis through 1-2-5 steps;
    only powers of ten are labelled once the axis spans many decades."""
    lo, hi = min(values), max(values)
    steps = _one_two_five(lo, hi) if hi > lo else _one_two_five(lo / 2, hi * 2)
    lo, hi = steps[0], steps[-1]
    ticks = steps if math.log10(hi / lo) <= 3 else \
        [v for v in steps if abs(math.log10(v) - round(math.log10(v))) < 1e-9]
    return lo, hi, ticks


def marker(shape, x, y, colour, title, r=MARKER_R, mark=True):
    """One marker symbol; with mark=True it is a data mark with a tooltip."""
    cls = ' class="mark"' if mark else ""
    tip = f"<title>{escape(title)}</title>" if title else ""
    if shape == "circle":
        return f'<circle cx="{x:.1f}" cy="{y:.1f}" r="{r:.1f}" fill="{colour}"{cls}>{tip}</circle>'
    corners = {"square": [(-0.9, -0.9), (0.9, -0.9), (0.9, 0.9), (-0.9, 0.9)],
               "triangle": [(0, -1.2), (1.1, 0.8), (-1.1, 0.8)],
               "triangle-down": [(0, 1.2), (1.1, -0.8), (-1.1, -0.8)],
               "diamond": [(0, -1.3), (1, 0), (0, 1.3), (-1, 0)]}[shape]
    d = "M" + "L".join(f"{x + dx * r:.1f},{y + dy * r:.1f}" for dx, dy in corners) + "z"
    return f'<path d="{d}" fill="{colour}"{cls}>{tip}</path>'


def _legend(styles, plot_right):
    out = []
    x = plot_right + 14
    for k, s in enumerate(styles):
        y = TOP + 10 + k * LEGEND_ROW
        dash = f' stroke-dasharray="{s.dash}"' if s.dash else ""
        out.append(f'<line x1="{x}" x2="{x + 26}" y1="{y}" y2="{y}" stroke="{s.colour}" '
                   f'stroke-width="2.5"{dash}/>')
        if s.marker:
            out.append(marker(s.marker, x + 13, y, s.colour, "", mark=False))
        out.append(f'<text x="{x + 32}" y="{y + 4.5}" class="legend">{escape(s.label)}</text>')
    return out


def _y_grid(ticks, py, plot_w):
    return [f'<line x1="{LEFT}" x2="{LEFT + plot_w}" y1="{py(y):.1f}" y2="{py(y):.1f}" class="grid"/>'
            f'<text x="{LEFT - 6}" y="{py(y) + 4:.1f}" class="tick" text-anchor="end">{fmt(y)}</text>'
            for y in ticks]


def _height(legend_rows):
    return max(H, TOP + 20 + legend_rows * LEGEND_ROW + BOTTOM)


def _frame(chart_id, title, height, x_label, y_label, body):
    plot_h = height - TOP - BOTTOM
    return "\n".join([
        f'<svg xmlns="http://www.w3.org/2000/svg" viewBox="0 0 {W} {height}" width="{W}" '
        f'height="{height}" role="img" aria-label="{escape(title)}" data-chart="{escape(chart_id)}">',
        f'<text x="{LEFT}" y="20" class="title">{escape(title)}</text>',
        f'<text transform="translate(16,{TOP + plot_h / 2:.1f}) rotate(-90)" class="axis" '
        f'text-anchor="middle">{escape(y_label)}</text>',
        f'<text x="{LEFT + (W - LEFT - RIGHT) / 2:.1f}" y="{height - 8}" class="axis" '
        f'text-anchor="middle">{escape(x_label)}</text>',
        *body, "</svg>"])


def line_chart(chart_id, title, series, x_label, y_label, log_x=False, log_y=False,
               x_format=str):
    """series: [Series]. Ticks on x at every measured x; y from 0 (linear) or
    through 1-2-5 steps (log). Non-positive values cannot sit on a log axis
    and are left out."""
    height = _height(len(series))
    plot_w, plot_h = W - LEFT - RIGHT, height - TOP - BOTTOM
    xs = sorted({p[0] for s in series for p in s.points})
    ys = [v for s in series for x, y, lo, hi in s.points for v in (y, lo, hi) if v is not None]
    ys += [y for s in series for _, y in (s.line or [])]
    if log_y:
        ys = [y for y in ys if y > 0]
        y_lo, y_hi, y_ticks = _log_y(ys)
    else:
        y_lo, y_hi = 0.0, nice_max(max(ys))
        y_ticks = [y_hi * i / 5 for i in range(6)]
    tx = math.log2 if log_x else float
    ty = math.log10 if log_y else float
    x0, x1 = tx(xs[0]), tx(xs[-1])

    def px(x):
        return LEFT + (tx(x) - x0) / (x1 - x0) * plot_w if x1 > x0 else LEFT + plot_w / 2

    def py(y):
        return TOP + plot_h - (ty(y) - ty(y_lo)) / (ty(y_hi) - ty(y_lo)) * plot_h

    def drawable(y):
        return y is not None and (y > 0 or not log_y)

    body = _y_grid(y_ticks, py, plot_w)
    every = math.ceil(len(xs) / 8)  # at most 8 labels: they must not overlap
    for k, x in enumerate(xs):
        body.append(f'<line x1="{px(x):.1f}" x2="{px(x):.1f}" y1="{TOP}" y2="{TOP + plot_h}" class="grid"/>')
        if k % every == 0:
            body.append(f'<text x="{px(x):.1f}" y="{TOP + plot_h + 17}" class="tick" '
                        f'text-anchor="middle">{escape(x_format(x))}</text>')
    body.append(f'<rect x="{LEFT}" y="{TOP}" width="{plot_w}" height="{plot_h}" class="frame"/>')
    for s in series:
        st = s.style
        line = s.line if s.line is not None else [(x, y) for x, y, _, _ in sorted(s.points)]
        line = [(x, y) for x, y in line if drawable(y)]
        if len(line) > 1:
            dash = f' stroke-dasharray="{st.dash}"' if st.dash else ""
            path = "M" + "L".join(f"{px(x):.1f},{py(y):.1f}" for x, y in line)
            body.append(f'<path d="{path}" fill="none" stroke="{st.colour}" stroke-width="2"{dash} '
                        f'class="series"/>')
        for x, y, lo, hi in s.points:
            if not drawable(y):
                continue
            if drawable(lo) and drawable(hi) and hi > lo:
                body.append(f'<line x1="{px(x):.1f}" x2="{px(x):.1f}" y1="{py(lo):.1f}" y2="{py(hi):.1f}" '
                            f'stroke="{st.colour}" class="whisker"/>')
            spread = f" (min {fmt(lo)}, max {fmt(hi)})" if drawable(lo) and drawable(hi) else ""
            body.append(marker(st.marker or "circle", px(x), py(y), st.colour,
                               f"{st.label} @ {x_format(x)}: {fmt(y)} {y_label}{spread}"))
    body += _legend([s.style for s in series], LEFT + plot_w)
    return _frame(chart_id, title, height, x_label, y_label, body)


def bar_chart(chart_id, title, groups, y_label, x_label=""):
    """groups: [(group label, [(Style, y, lo, hi)])]: one bar per style in
    each group, its marker on top, whiskers min-max; hand-written (dashed)
    styles drawn as outlined, lighter bars. A newline in a group label
    breaks it in two: narrow groups cannot hold long labels on one line."""
    styles = []
    for _, bars in groups:
        for st, *_ in bars:
            if st not in styles:
                styles.append(st)
    height = _height(len(styles))
    plot_w, plot_h = W - LEFT - RIGHT, height - TOP - BOTTOM
    ys = [(hi if hi is not None else y) for _, bars in groups for _, y, _, hi in bars]
    y_max = nice_max(max(ys) if ys else 1)
    group_w = plot_w / max(len(groups), 1)
    bar_w = group_w * 0.8 / max(len(styles), 1)

    def py(y):
        return TOP + plot_h - y / y_max * plot_h

    body = _y_grid([y_max * i / 5 for i in range(6)], py, plot_w)
    for g, (group, bars) in enumerate(groups):
        gx = LEFT + g * group_w + group_w * 0.1
        lines = "".join(f'<tspan x="{LEFT + (g + 0.5) * group_w:.1f}" dy="{0 if k == 0 else 14}">'
                        f'{escape(line)}</tspan>' for k, line in enumerate(group.split("\n")))
        body.append(f'<text y="{TOP + plot_h + 17}" class="tick" text-anchor="middle">{lines}</text>')
        for st, y, lo, hi in bars:
            x = gx + styles.index(st) * bar_w
            w = bar_w * 0.9
            look = (f'fill="{st.colour}" fill-opacity="0.35" stroke="{st.colour}" stroke-width="1.5" '
                    f'stroke-dasharray="{st.dash}"') if st.dash else f'fill="{st.colour}"'
            tip = f"{group.replace(chr(10), ', ')} / {st.label}: {fmt(y)} {y_label}"
            body.append(f'<rect x="{x:.1f}" y="{py(y):.1f}" width="{w:.1f}" '
                        f'height="{max(py(0) - py(y), 0.5):.1f}" {look} class="mark">'
                        f'<title>{escape(tip)}</title></rect>')
            top = py(hi) if hi is not None else py(y)
            if lo is not None and hi is not None and hi > lo:
                body.append(f'<line x1="{x + w / 2:.1f}" x2="{x + w / 2:.1f}" y1="{py(lo):.1f}" '
                            f'y2="{py(hi):.1f}" class="whisker" stroke="#222"/>')
            r = min(MARKER_R, w / 2.2)
            body.append(marker(st.marker, x + w / 2, top - r * 1.6, st.colour, "", r=r, mark=False))
    body += _legend(styles, LEFT + plot_w)
    return _frame(chart_id, title, height, x_label, y_label, body)
