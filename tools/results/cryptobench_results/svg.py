"""Minimal SVG charts for the offline report: line charts (optionally with a
log2 x axis) and grouped bar charts, with min-max whiskers. Every data mark
carries a <title>, which browsers show as a tooltip."""
import math
from html import escape

# One distinct colour per backend (the libraries in strong hues, the
# hand-written kernels in purples/oranges); unknown labels take the extras.
PALETTE = {"openssl-aes": "#6baed6", "openssl": "#1f77b4", "cryptopp": "#d62728",
           "botan": "#2ca02c", "gcrypt": "#8c564b", "nettle": "#e377c2", "mbedtls": "#17becf",
           "wolfssl": "#bcbd22", "nss": "#7f7f7f", "ipsecmb": "#393b79", "gnutls": "#637939",
           "sodium": "#e7969c", "aesni": "#9467bd", "vaes256": "#ff7f0e", "vaes512": "#d94801"}
EXTRA = ["#843c39", "#7b4173", "#a55194", "#b5cf6b", "#cedb9c", "#e7ba52", "#ad494a", "#3182bd"]
W, H = 720, 360
LEFT, RIGHT, TOP, BOTTOM = 70, 150, 30, 50


def color(label, index):
    # Longest name first: "openssl-aes" is not "openssl".
    for name in sorted(PALETTE, key=len, reverse=True):
        if label.startswith(name):
            return PALETTE[name]
    return EXTRA[index % len(EXTRA)]


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


def _frame(chart_id, title, y_label, x_label, y_max, body):
    plot_w, plot_h = W - LEFT - RIGHT, H - TOP - BOTTOM
    out = [f'<svg xmlns="http://www.w3.org/2000/svg" viewBox="0 0 {W} {H}" width="{W}" height="{H}" '
           f'role="img" aria-label="{escape(title)}" data-chart="{escape(chart_id)}">',
           f'<text x="{LEFT}" y="18" class="title">{escape(title)}</text>']
    for i in range(6):
        v = y_max * i / 5
        y = TOP + plot_h - plot_h * i / 5
        out.append(f'<line x1="{LEFT}" x2="{LEFT + plot_w}" y1="{y:.1f}" y2="{y:.1f}" class="grid"/>')
        out.append(f'<text x="{LEFT - 6}" y="{y + 4:.1f}" class="tick" text-anchor="end">{fmt(v)}</text>')
    out.append(f'<text transform="translate(16,{TOP + plot_h / 2}) rotate(-90)" class="axis" '
               f'text-anchor="middle">{escape(y_label)}</text>')
    out.append(f'<text x="{LEFT + plot_w / 2}" y="{H - 8}" class="axis" text-anchor="middle">'
               f'{escape(x_label)}</text>')
    out.extend(body)
    out.append("</svg>")
    return "\n".join(out)


def line_chart(chart_id, title, series, x_label, y_label, log_x=False, x_format=str):
    """series: [(label, [(x, y, lo, hi)])]; lo/hi may be None (no whisker)."""
    xs = sorted({p[0] for _, pts in series for p in pts})
    ys = [p[3] if p[3] is not None else p[1] for _, pts in series for p in pts]
    y_max = nice_max(max(ys) if ys else 1)
    plot_w, plot_h = W - LEFT - RIGHT, H - TOP - BOTTOM
    tx = (lambda x: math.log2(x)) if log_x else (lambda x: x)
    x0, x1 = tx(xs[0]), tx(xs[-1])
    span = (x1 - x0) or 1

    def px(x):
        return LEFT + (tx(x) - x0) / span * plot_w if len(xs) > 1 else LEFT + plot_w / 2

    def py(y):
        return TOP + plot_h - y / y_max * plot_h

    body = []
    for x in xs:
        body.append(f'<text x="{px(x):.1f}" y="{TOP + plot_h + 16}" class="tick" '
                    f'text-anchor="middle">{escape(x_format(x))}</text>')
    for i, (label, pts) in enumerate(series):
        c = color(label, i)
        pts = sorted(pts)
        path = " ".join(f"{'M' if k == 0 else 'L'}{px(x):.1f},{py(y):.1f}" for k, (x, y, _, _) in enumerate(pts))
        body.append(f'<path d="{path}" fill="none" stroke="{c}" stroke-width="2" class="series"/>')
        for x, y, lo, hi in pts:
            if lo is not None and hi is not None and hi > lo:
                body.append(f'<line x1="{px(x):.1f}" x2="{px(x):.1f}" y1="{py(lo):.1f}" y2="{py(hi):.1f}" '
                            f'stroke="{c}" class="whisker"/>')
            body.append(f'<circle cx="{px(x):.1f}" cy="{py(y):.1f}" r="3.5" fill="{c}" class="mark">'
                        f'<title>{escape(label)} @ {escape(x_format(x))}: {fmt(y)} {escape(y_label)}</title>'
                        f'</circle>')
        ly = TOP + 14 + i * 18
        body.append(f'<rect x="{W - RIGHT + 12}" y="{ly - 9}" width="12" height="12" fill="{c}"/>'
                    f'<text x="{W - RIGHT + 30}" y="{ly + 1}" class="legend">{escape(label)}</text>')
    return _frame(chart_id, title, y_label, x_label, y_max, body)


def bar_chart(chart_id, title, groups, y_label, x_label=""):
    """groups: [(group label, [(bar label, y, lo, hi)])]; bar labels form the legend."""
    bar_labels = []
    for _, bars in groups:
        for label, *_ in bars:
            if label not in bar_labels:
                bar_labels.append(label)
    ys = [(hi if hi is not None else y) for _, bars in groups for _, y, _, hi in bars]
    y_max = nice_max(max(ys) if ys else 1)
    plot_w, plot_h = W - LEFT - RIGHT, H - TOP - BOTTOM
    group_w = plot_w / max(len(groups), 1)
    bar_w = group_w * 0.8 / max(len(bar_labels), 1)
    body = []

    def py(y):
        return TOP + plot_h - y / y_max * plot_h

    for g, (group, bars) in enumerate(groups):
        gx = LEFT + g * group_w + group_w * 0.1
        body.append(f'<text x="{LEFT + (g + 0.5) * group_w:.1f}" y="{TOP + plot_h + 16}" class="tick" '
                    f'text-anchor="middle">{escape(group)}</text>')
        for label, y, lo, hi in bars:
            k = bar_labels.index(label)
            c = color(label, k)
            x = gx + k * bar_w
            body.append(f'<rect x="{x:.1f}" y="{py(y):.1f}" width="{bar_w * 0.9:.1f}" '
                        f'height="{max(py(0) - py(y), 0.5):.1f}" fill="{c}" class="mark">'
                        f'<title>{escape(group)} / {escape(label)}: {fmt(y)} {escape(y_label)}</title></rect>')
            if lo is not None and hi is not None and hi > lo:
                cx = x + bar_w * 0.45
                body.append(f'<line x1="{cx:.1f}" x2="{cx:.1f}" y1="{py(lo):.1f}" y2="{py(hi):.1f}" '
                            f'class="whisker" stroke="#222"/>')
    for k, label in enumerate(bar_labels):
        ly = TOP + 14 + k * 18
        body.append(f'<rect x="{W - RIGHT + 12}" y="{ly - 9}" width="12" height="12" fill="{color(label, k)}"/>'
                    f'<text x="{W - RIGHT + 30}" y="{ly + 1}" class="legend">{escape(label)}</text>')
    return _frame(chart_id, title, y_label, x_label, y_max, body)
