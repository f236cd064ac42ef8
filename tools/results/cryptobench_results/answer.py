"""The answer: for each workload class of a run, which library to use, by
how much, and how sure; the hand-written kernels as the hardware's headroom,
never as a recommendation; the cost model's crossovers; and a verdict for a
message-size mix.

A workload class is a run's benchmarks that differ only in backend and in
size within a size class (GCM's AAD length is part of the workload: 64 B +
13 B of AAD is another class than 64 B alone). A backend's score in a class is the geometric mean
over the class's sizes of the median of its scenario's figure
(scenarios.py). Libraries are ranked by score; the margin of the winner over
the runner-up comes with a 95% bootstrap interval (each repetition sample
resampled on its own) and the largest two-sided Mann-Whitney p-value over
the class's sizes. The winner is named only when that p is below alpha, the
interval lies above 1.00 and the margin is above the noise floor of its kind
(noise.py); otherwise the two tie.
Classes with the same verdict that differ only in size, threads, codec or
buffer pool are told in one sentence; its interval spans theirs.

A merged run's verdict between two backends that different runs measured
says "measured in separate runs" (the drift between the runs is in its
margin, and no floor covers it); a backend with a caveat for the class
(backend.<name>.caveat[.<param>=<value>] in the context) is marked "*" and
the caveat is told below the sentences (sources.py).
"""
import math
from collections import OrderedDict
from dataclasses import dataclass, field

from . import bounds as hardware_bounds
from . import contention, costmodel, health, noise, sampled, scenarios, sources, stats
from .gbench import ResultsError

HAND_WRITTEN = "cryptobench hand-written"
SIZE_CLASSES = [(64, "tiny"), (1024, "small"), (65536, "medium"), (math.inf, "large")]
MERGED = ("size_class", "threads", "codec", "pool")  # dimensions one sentence may span
OPS = {"encrypt": "encryption", "decrypt": "decryption", "roundtrip": "roundtrip",
       "encrypt-log": "encryption with a log line", "set-key": "key setup",
       "encrypt-batch": "multi-buffer encryption", "roundtrip-batch": "multi-buffer roundtrip"}
KEYS = {"cached": "", "per-op": ", new key schedule per op", "hmac-sha256": ", HMAC-derived key per op"}
CODECS = {"none": "no codec", "base64": "Base64", "hex": "hex"}
CONSOLE_LINES = 40
HEADING = ("Fastest library per workload (its own figure; margin over the runner-up "
           "[95% interval]; {baseline}, the baseline, where it lost):")
SEED000 = {"seed000": "Seed-000 roundtrip (AES-128-CBC, Base64, new key per op)",
           "seed000-gcm": "Seed-000 roundtrip in AES-128-GCM (Base64, new key per op)"}
# Seed 001's TCP ping-pong (cipher none: plain; else every ping and pong sealed).
PINGPONG = "pingpong"


def aad_text(aad):
    """A GCM cell's additional authenticated data: 'no AAD', '13 B AAD'; ''
    for modes without (no aad parameter)."""
    if not aad:
        return ""
    return "no AAD" if aad == "0" else f"{aad} B AAD"


def operation_text(cipher, op, aad=""):
    """'AES-128-GCM encryption with 13 B AAD', 'AES-128-CBC decryption': an
    operation over a size ladder, as the fits and the charts name it."""
    what = f"{cipher.upper()} {OPS.get(op, op)}"
    if aad == "0":
        return f"{what}, no AAD"
    return f"{what} with {aad_text(aad)}" if aad else what


def _aad_rank(aad):
    return int(aad) if aad else -1


def size_class(size):
    for limit, label in SIZE_CLASSES:
        if size <= limit:
            return label
    return SIZE_CLASSES[-1][1]


def size_text(n):
    if n >= 1 << 20 and n % (1 << 20) == 0:
        return f"{n >> 20} MiB"
    if n >= 1024 and n % 1024 == 0:
        return f"{n >> 10} KiB"
    return f"{n} B"


def library(context, backend):
    return context.get(f"backend.{backend}.library", "")


def is_hand_written(context, backend):
    return library(context, backend).startswith(HAND_WRITTEN)


def label(context, backend, mark=""):
    """'gcrypt (libgcrypt 1.10.1)': the backend name a user passes (and its
    caveat mark), and whose code it is."""
    lib = library(context, backend)
    return f"{backend}{mark} ({lib})" if lib and not lib.startswith(HAND_WRITTEN) \
        else f"{backend}{mark}"


CAVEAT_MARK = "*"
SEPARATE_RUNS = "measured in separate runs"


def class_params(r):
    """The name parameters a workload class's benchmarks share (what a
    scoped caveat, caveat.<param>=<value>, is matched against)."""
    _, op, cipher, key, messages, aad = r.fixed
    params = {"op": op, "cipher": cipher, "key": key, "messages": messages, "aad": aad,
              "codec": r.dims["codec"], "pool": r.dims["pool"], "threads": str(r.dims["threads"])}
    return {k: v for k, v in params.items() if v != ""}


def caveats_of(context, backend, params_list):
    """The backend's caveats that apply to any of the classes (their params), once each."""
    out = []
    for params in params_list:
        for text in sources.caveats(context, backend, params):
            if text not in out:
                out.append(text)
    return out


def mark(context, backend, params_list):
    return CAVEAT_MARK if backend and caveats_of(context, backend, params_list) else ""


def caveat_notes(context, pairs):
    """[(backend, text)]: the caveats of the (backend, params_list) pairs shown, in order."""
    out = []
    for backend, params_list in pairs:
        for text in caveats_of(context, backend, params_list):
            if (backend, text) not in out:
                out.append((backend, text))
    return out


def note_lines(notes, prefix=""):
    return [f"{prefix}{CAVEAT_MARK} {backend}: {text}" for backend, text in notes]


@dataclass
class ClassResult:
    fixed: tuple                 # (scenario, op, cipher, key, messages, aad): never merged
    dims: dict                   # size_class, threads, codec, pool
    sizes: list
    scenario: scenarios.Scenario
    ranking: list                # [(backend, score)] libraries, best first
    hand_written: list           # [(backend, score)] best first
    margin: float = math.nan     # winner over runner-up, >= 1 (NaN with one library)
    low: float = math.nan
    high: float = math.nan
    p: float = math.nan
    verdict: str = "single"      # decided, noise, not-significant, untested, single
    untested_why: str = ""       # what an untested verdict lacked (untested_reason)
    floor: object = None         # the NoiseFloor its margin is judged against (its kind's)
    interval_reaches_one: bool = False  # p < alpha, but the interval reaches 1.00: a tie
    paired: bool = False         # margin, interval and p from per-round ratios
    members: dict = field(default_factory=dict)  # backend -> {size: Benchmark}

    @property
    def winner(self):
        return self.ranking[0][0]

    @property
    def runner_up(self):
        return self.ranking[1][0] if len(self.ranking) > 1 else None


def _ratio_pairs(better, worse, sizes, sc):
    """(numerator, denominator) sample pairs whose ratio is the margin (> 1 is better's lead)."""
    pairs = []
    for s in sizes:
        a, b = sc.figures(better[s]), sc.figures(worse[s])
        pairs.append((a, b) if sc.higher_is_better else (b, a))
    return pairs


def class_parts(b):
    """(fixed, dims): the workload class of a benchmark (class_of: as one key)."""
    p = b.params
    size = int(p.get("size", "0"))
    fixed = (b.scenario, p.get("op", ""), p.get("cipher", ""), p.get("key", ""),
             p.get("messages", ""), p.get("aad", ""))
    dims = {"size_class": size_class(size), "threads": b.threads, "codec": p.get("codec", ""),
            "pool": p.get("pool", "")}
    if "connections" in p:  # the ping-pong: 1 connection (unloaded) is another workload
        dims["connections"] = p["connections"]
    return fixed, dims


@dataclass
class Unranked:
    """A workload class in which a backend the run asked for has no figures."""
    fixed: tuple
    dims: dict
    sizes: list
    gaps: OrderedDict            # backend -> why it has no figures (health.missing)


def unranked_classes(run):
    """The classes a failure or an interrupt left without a backend's figures, in run order."""
    groups = OrderedDict()
    for b in run.benchmarks.values():
        fixed, dims = class_parts(b)
        groups.setdefault(fixed + tuple(dims.values()), (fixed, dims, []))[2].append(b)
    out = OrderedDict()
    for key, (fixed, dims, bs) in groups.items():
        gaps = health.missing(bs)
        if gaps:
            sizes = sorted({int(b.params.get("size", "0")) for b in bs})
            out[key] = Unranked(fixed, dims, sizes, gaps)
    return out


def unranked_lines(unranked, limit=None):
    """'AES-128-CBC encryption, 16 B - 16 KiB, 1-2 threads: openssl failed verification':
    the unranked classes, those of one workload and the same gaps in one line."""
    merged = OrderedDict()
    for u in unranked:
        texts = health.missing_text(u.gaps, size_text, u.sizes)
        entry = merged.setdefault((u.fixed, texts), [set(), set(), texts])
        entry[0].update(u.sizes)
        entry[1].add(u.dims["threads"])
    lines = []
    for (fixed, _), (sizes, threads, gaps) in merged.items():
        sizes, threads = sorted(sizes), sorted(threads)
        where = _size_ranges(sizes, sizes) if sizes and sizes != [0] else ""
        count = (f"{threads[0]} thread{'s' if threads[0] > 1 else ''}" if len(threads) == 1
                 else f"{threads[0]}-{threads[-1]} threads")
        lines.append(f"{_what(fixed)}, {where + ', ' if where else ''}{count}: {gaps}")
    if limit is not None and len(lines) > limit:
        lines = lines[:limit - 1] + [f"({len(lines) - limit + 1} more in selection.md)"]
    return lines


def paired_rounds(run, a, b, better, worse, sizes, sc):
    """Per size, the per-round ratios (> 1 is better's lead) when the run's
    design measured the two backends side by side in rounds; else None."""
    if run.context.get("design") != "rounds" or sources.separate(run.context, a, b):
        return None
    lists = []
    for s in sizes:
        x, y = better[s], worse[s]
        xs, ys = sc.figures(x), sc.figures(y)
        if len(xs) != len(x.indices) or len(ys) != len(y.indices):
            return None
        ratios = stats.paired_ratios(xs, x.indices, ys, y.indices) if sc.higher_is_better \
            else stats.paired_ratios(ys, y.indices, xs, x.indices)
        if len(ratios) < 2:
            return None
        lists.append(ratios)
    return lists


def rounds_run(b):
    """How many repetitions of a benchmark ran, contended ones included."""
    raw = (b.raw_samples or {}).get("time_ns")
    return len(raw) if raw is not None else len(b.indices)


CONTENDED_ONLY = "only"  # how untested_reason starts where contention left too few quiet


def untested_for_contention(results, context, status, what="answers below"):
    """The status line when contention left some of `results` (ClassResults)
    untested: how many, and what to run for them (health.more_rounds) unless
    a CONTENDED line of the run's `status` (health.header) already says it."""
    short = [r for r in results
             if r.verdict == "untested" and r.untested_why.startswith(CONTENDED_ONLY)]
    if not short:
        return []
    hint = "more rounds, as above, would test them" if any(
        line.startswith("CONTENDED:") for line in status) else \
        health.more_rounds(context, none_quiet=False)
    unit = "rounds" if context.get("design") == "rounds" else "repetitions"
    return [f"UNTESTED: {len(short)} of the {len(results)} {what} had too few {unit} quiet "
            f"(the host was contended) to test their margin; {hint}"]


def untested_reason(used, ran, alpha, paired):
    """Why a pair had too few figures for its test: 'too few repetitions: run 6
    or more', or, when enough ran but contention left too few quiet ones,
    how many were quiet of how many."""
    least = stats.fewest_for(alpha, paired)
    if ran >= least > used:
        what = "rounds quiet for both" if paired else "repetitions quiet"
        return f"{CONTENDED_ONLY} {used} of {ran} {what}: the host was contended"
    return f"too few repetitions: run {least} or more"


def classify(run, floor, alpha=0.05):
    """Every workload class of the run in which every backend asked for has
    figures, in run order (unranked_classes: the others)."""
    groups = OrderedDict()
    unranked = unranked_classes(run)
    for b in run.benchmarks.values():
        if b.error:
            continue
        fixed, dims = class_parts(b)
        size = int(b.params.get("size", "0"))
        p = b.params
        key = fixed + tuple(dims.values())
        if key in unranked:
            continue
        entry = groups.setdefault(key, (fixed, dims, OrderedDict()))
        entry[2].setdefault(p["backend"], {})[size] = b
    results = []
    for fixed, dims, by_backend in groups.values():
        common = set.intersection(*(set(s) for s in by_backend.values()))
        sizes = sorted(common)
        if not sizes:
            continue
        sc = scenarios.of(by_backend[next(iter(by_backend))][sizes[0]])
        scores = []
        for backend, per_size in by_backend.items():
            values = [per_size[s].value(sc.metric) for s in sizes]
            if all(v is not None and v > 0 for v in values):
                scores.append((backend, stats.geometric_mean(values) * sc.scale))
        scores.sort(key=lambda x: -x[1] if sc.higher_is_better else x[1])
        libs = [x for x in scores if not is_hand_written(run.context, x[0])]
        hand = [x for x in scores if is_hand_written(run.context, x[0])]
        if not libs:
            continue
        r = ClassResult(fixed, dims, sizes, sc, libs, hand)
        r.members = by_backend
        r.floor = floor.of(noise.kind_of(by_backend[libs[0][0]][sizes[0]]))
        if len(libs) > 1:
            first, second = by_backend[libs[0][0]], by_backend[libs[1][0]]
            rounds = paired_rounds(run, libs[0][0], libs[1][0], first, second, sizes, sc)
            pairs = _ratio_pairs(first, second, sizes, sc)
            if rounds is not None:
                r.paired = True
                r.margin = stats.geometric_mean([stats.median(x) for x in rounds])
                r.low, r.high = stats.paired_ratio_ci(rounds)
                untested = any(stats.min_paired_p(len(x)) >= alpha for x in rounds)
            else:
                r.margin = stats.geometric_mean([stats.median(a) / stats.median(b)
                                                 for a, b in pairs])
                r.low, r.high = stats.bootstrap_ratio_ci(pairs)
                untested = any(stats.min_achievable_p(len(a), len(b)) >= alpha for a, b in pairs)
            if untested:
                r.verdict = "untested"
                # The size with the fewest figures: how many it had of how many ran.
                used = [len(x) for x in rounds] if rounds is not None \
                    else [min(len(a), len(b)) for a, b in pairs]
                ran = [min(rounds_run(first[s]), rounds_run(second[s])) for s in sizes]
                worst = min(range(len(sizes)), key=lambda k: (used[k], -ran[k]))
                r.untested_why = untested_reason(used[worst], ran[worst], alpha,
                                                 rounds is not None)
            else:
                r.p = (max(stats.sign_test_p(x) for x in rounds) if rounds is not None
                       else max(stats.mann_whitney(a, b)[1] for a, b in pairs))
                # A winner needs its margin's interval above 1 too: a p just
                # under alpha with an interval reaching below 1.00 is no answer.
                r.interval_reaches_one = r.p < alpha and r.low <= 1
                if r.p >= alpha or r.interval_reaches_one:
                    r.verdict = "not-significant"
                elif r.floor.measured and r.margin - 1 <= r.floor.value:
                    r.verdict = "noise"
                else:
                    r.verdict = "decided"
        results.append(r)
    return sorted(results, key=lambda r: (fixed_order(r.fixed), r.sizes[0], r.dims["threads"],
                                          r.dims["codec"], r.dims["pool"]))


@dataclass
class Sentence:
    fixed: tuple
    members: list = field(default_factory=list)  # ClassResults
    ladder: list = field(default_factory=list)   # every size measured for `fixed`, ascending
    # Filled in by describe_in_user_terms (answer() calls it):
    figure: object = None     # Figure of the first-named backend (the winner)
    per_size: list = field(default_factory=list)  # [(label, PairFigure)] when the merged
    #                           interval and p disagree: the margin told per size instead
    baseline: object = None   # BaselineView, where the baseline was measured and did not win
    disagreement: str = ""    # one (class, size) whose interval and p tell apart: why

    @property
    def floor(self):
        """The floor its classes are judged against: the largest of their kinds'."""
        return max((m.floor for m in self.members),
                   key=lambda f: f.value if f.measured else -math.inf)

    @property
    def first(self):
        return self.members[0]


def merge(results):
    """Sentences: classes with the same fixed part and the same verdict (the
    same winner over the same runner-up, or the same pair tied)."""
    sentences = OrderedDict()
    for r in results:
        if r.verdict == "decided":
            outcome = ("decided", r.winner, r.runner_up)
        elif r.verdict == "single":
            outcome = ("single", r.winner)
        else:
            outcome = ("tie", r.verdict, tuple(sorted((r.winner, r.runner_up))))
        sentences.setdefault(r.fixed + outcome, Sentence(r.fixed)).members.append(r)
    ladders = {}
    for r in results:
        ladders.setdefault(r.fixed, set()).update(r.sizes)
    for s in sentences.values():
        s.ladder = sorted(ladders[s.fixed])
    # Grouped by what is done, then by size and threads: the same order in
    # every run (interleaved runs report benchmarks in no fixed order).
    return sorted(sentences.values(), key=lambda s: (fixed_order(s.fixed), min(s.first.sizes),
                                                     s.first.dims["threads"]))


def fixed_order(fixed):
    """Sort key: grid operations first (encrypt, decrypt, ...), by cipher and
    key handling, then the seeds' scenarios."""
    scenario, op, cipher, key, messages, aad = fixed
    op_rank = list(OPS).index(op) if op in OPS else len(OPS)
    key_rank = list(KEYS).index(key) if key in KEYS else len(KEYS)
    return (scenario != "grid", scenario, op_rank, cipher, key_rank, key, messages, _aad_rank(aad))


def _what(fixed):
    scenario, op, cipher, key, messages, _ = fixed
    if scenario == PINGPONG:
        how = "plain" if cipher == "none" else f"every ping and pong sealed with {cipher.upper()}"
        return f"Seed-001 TCP ping-pong on 127.0.0.1, {how}"
    if scenario in SEED000:
        what = SEED000[scenario]
        return what if op == "roundtrip" else f"{what}, {OPS.get(op, op)} of {messages}"
    what = f"{cipher.upper()} {OPS.get(op, op)}"
    if scenario not in ("grid", "libraries", "bounds"):
        what = f"{scenario}: {what}"
    what += KEYS.get(key, f", key {key}")
    if messages:
        what += f", {messages} messages per call"
    return what


def _describe_dims(sentence):
    members = sentence.members
    if sentence.fixed[0] == PINGPONG:  # one process per side, whatever threads
        counts = sorted({int(m.dims["connections"]) for m in members
                         if m.dims.get("connections", "").isdigit()})
        where = (f", {' or '.join(f'{n:,}' for n in counts)} connection"
                 f"{'' if counts == [1] else 's'}" if counts else "")
        return f"{size_text(members[0].sizes[0])} messages{where}"
    sizes = sorted({s for m in members for s in m.sizes})
    parts = []
    seed = sentence.fixed[0] in SEED000
    if sizes and not (len(sizes) == 1 and seed):
        parts.append(_size_ranges(sizes, sentence.ladder or sizes))
    aad = sentence.fixed[5]
    if aad and not seed:
        # 'AES-128-GCM encryption, 64 B + 13 B AAD': the AAD beside the message size.
        if aad != "0" and parts:
            parts[-1] += f" + {aad_text(aad)}"
        else:
            parts.append(aad_text(aad))
    threads = sorted({m.dims["threads"] for m in members})
    parts.append(f"{threads[0]} thread{'s' if threads[0] > 1 else ''}" if len(threads) == 1
                 else f"{threads[0]}-{threads[-1]} threads")
    codecs = {m.dims["codec"] for m in members}
    if codecs not in ({"none"}, {""}) and not seed:
        if codecs == {"none", "base64"}:
            parts.append("with or without Base64")
        elif codecs >= {"none", "base64", "hex"}:
            parts.append("with or without Base64 or hex")
        else:
            parts.append(" or ".join(CODECS.get(c, c) for c in sorted(codecs)))
    pools = {m.dims["pool"] for m in members}
    if pools == {"off"}:
        parts.append("fresh buffers per op")
    elif pools == {"off", "on"}:
        parts.append("pooled or fresh buffers")
    return ", ".join(parts)


def _size_ranges(sizes, ladder):
    """'16 B - 64 B and 16 KiB': the sizes as runs of neighbours on the
    ladder, so that a range never spans a size another sentence answers."""
    runs = []
    for size in sizes:
        if runs and ladder.index(size) == ladder.index(runs[-1][-1]) + 1:
            runs[-1].append(size)
        else:
            runs.append([size])
    texts = [size_text(r[0]) if len(r) == 1 else f"{size_text(r[0])} - {size_text(r[-1])}"
             for r in runs]
    return texts[0] if len(texts) == 1 else ", ".join(texts[:-1]) + " and " + texts[-1]


def _p_text(p):
    if math.isnan(p):  # never 'p = nan'
        return "no p-value (no spread to test)"
    return "p < 0.001" if p < 0.001 else f"p = {p:.2g}"


def _interval_caveat(reaches_one):
    """Why a tie with a small p is still a tie: its interval reaches 1.00."""
    return ", but the 95% interval reaches 1.00" if reaches_one else ""


def sentence_params(sentence):
    return [class_params(m) for m in sentence.members]


def sentence_notes(context, sentence):
    """The (backend, params_list) pairs a sentence names."""
    r = sentence.first
    return [(b, sentence_params(sentence)) for b in (r.winner, r.runner_up) if b]


def sentence_text(sentence, context, long_names=True):
    r, floor = sentence.first, sentence.floor
    shown = context if long_names else {}  # backend names alone: one screen
    params = sentence_params(sentence)

    def name(backend):
        return label(shown, backend, mark(context, backend, params))

    head = f"{workload_text(sentence)}: "
    own = f" at {figure_text(sentence.figure)}" if sentence.figure else ""
    tail = f"; {baseline_text(sentence.baseline)}" if sentence.baseline else ""
    if r.verdict == "single":
        return head + f"only {name(r.winner)} was measured{own.replace(' at ', ', at ')}{tail}"
    margin, low, high, p = sentence_figures(sentence)
    interval = "" if math.isnan(low) or math.isnan(high) else f" [{low:.2f}, {high:.2f}]"
    winner, runner_up = name(r.winner), name(r.runner_up)
    separate = sources.separate(context, r.winner, r.runner_up)
    apart = f"; {SEPARATE_RUNS}" if separate else ""
    if sentence.per_size:  # one interval and one p would disagree: each size's own
        by_size = per_size_text(sentence.per_size)
        if r.verdict == "decided":
            return head + f"{winner}{own} over {runner_up} by size: {by_size}{apart}{tail}"
        return (head + f"{winner}{own} and {runner_up} tie, not significant over the sizes "
                f"together; by size: {by_size}{apart}{tail}")
    if r.verdict == "decided":
        return (head + f"{winner}{own}, {margin:.2f}x{interval} over {runner_up} "
                f"({_p_text(p)}{apart}){tail}")
    if r.verdict == "noise":
        return (head + f"{winner}{own} and {runner_up} tie: {margin:.2f}x{interval}, within the "
                f"{100 * floor.value:.1f}% noise floor{f' ({SEPARATE_RUNS})' if separate else ''}"
                f"{tail}")
    if r.verdict == "not-significant":
        return (head + f"{winner}{own} and {runner_up} tie: {margin:.2f}x{interval}, not "
                f"significant ({_p_text(p)}"
                f"{sentence.disagreement}{apart}){tail}")
    return (head + f"{winner}{own}, {margin:.2f}x{interval} over {runner_up}, untested "
            f"({r.untested_why}{apart}){tail}")


def workload_text(sentence):
    """What a sentence is about (its words before the colon), for a table's first column."""
    return f"{_what(sentence.fixed)}, {_describe_dims(sentence)}"


def sentence_figures(sentence):
    """(margin, low, high, p) of a sentence: the geometric mean of its classes'
    margins, an interval spanning theirs, the largest p; NaN where it has none."""
    members = sentence.members
    margin = stats.geometric_mean([m.margin for m in members]) if sentence.first.runner_up else math.nan
    lows = [m.low for m in members if not math.isnan(m.low)]
    highs = [m.high for m in members if not math.isnan(m.high)]
    ps = [m.p for m in members if not math.isnan(m.p)]
    return (margin, min(lows) if lows else math.nan, max(highs) if highs else math.nan,
            max(ps) if ps else math.nan)


# The answer in the user's terms: the winner's own figure on each line, the
# baseline library (--baseline, default openssl: where most services start)
# against the winner, and no line whose interval and p disagree.

DEFAULT_BASELINE = "openssl"


@dataclass
class Figure:
    """A backend's own figure over a sentence's classes and sizes: the range
    of its medians, in the scenario's unit; for operations counted per
    millisecond also the time per operation (each thread's)."""
    low: float
    high: float
    unit: str
    ns_low: float = math.nan
    ns_high: float = math.nan
    threads: int = 1          # the most threads among the figures


@dataclass
class PairFigure:
    """One backend against another (a over b, > 1: a ahead) as classify
    decides it: margin, 95% interval, p, verdict."""
    margin: float
    low: float
    high: float
    p: float
    verdict: str
    alpha: float = 0.05
    untested_why: str = ""
    floor: float = math.nan   # the noise floor its verdict was judged against


@dataclass
class BaselineView:
    backend: str
    figure: Figure
    runner_up: bool            # the baseline is the line's runner-up: the margin is against it
    separate: bool = False     # it and the winner were measured in separate runs
    versus: PairFigure = None  # the winner against it, all classes together, or
    per_size: list = field(default_factory=list)  # [(label, PairFigure)] where they disagree


def class_of(b):
    """A benchmark's workload class as one key (its fixed part, then its dims'
    values), grouped as classify groups them: result_key of the class's result."""
    p = b.params
    fixed = (b.scenario, p.get("op", ""), p.get("cipher", ""), p.get("key", ""),
             p.get("messages", ""), p.get("aad", ""))
    dims = {"size_class": size_class(int(p.get("size", "0"))), "threads": b.threads,
            "codec": p.get("codec", ""), "pool": p.get("pool", "")}
    if "connections" in p:
        dims["connections"] = p["connections"]
    return fixed + tuple(dims.values())


def result_key(r):
    return r.fixed + tuple(r.dims.values())


def _class_benchmarks(run, members, backends, size=None):
    """The run cut to `backends`' benchmarks of the classes `members` (their sizes, or one)."""
    wanted = {result_key(m): set(m.sizes) for m in members}
    kept = OrderedDict()
    for name, b in run.benchmarks.items():
        if b.error or b.params.get("backend") not in backends:
            continue
        sizes = wanted.get(class_of(b))
        n = int(b.params.get("size", "0"))
        if sizes is not None and n in sizes and (size is None or n == size):
            kept[name] = b
    return type(run)(run.path, run.context, kept)


def pair_figures(run, members, a, b, floor, alpha, size=None):
    """{class key: PairFigure} of backend a against b in the classes `members`,
    decided exactly as the answer decides (classify on the run cut to the two
    backends and the classes' sizes), turned to read a over b."""
    out = {}
    for r in classify(_class_benchmarks(run, members, (a, b), size), floor, alpha):
        if r.runner_up is None or {r.winner, r.runner_up} != {a, b}:
            continue
        if r.winner == a:
            out[result_key(r)] = PairFigure(r.margin, r.low, r.high, r.p, r.verdict, alpha,
                                            r.untested_why, r.floor.value)
        else:
            out[result_key(r)] = PairFigure(1 / r.margin, 1 / r.high, 1 / r.low, r.p, r.verdict,
                                            alpha, r.untested_why, r.floor.value)
    return out


def agrees(low, high, p, alpha):
    """An interval and a p that tell the same story: p below alpha exactly
    when the interval leaves out 1.00 (a missing p or interval disagrees with nothing)."""
    if math.isnan(p) or math.isnan(low) or math.isnan(high):
        return True
    return (p < alpha) == (low > 1 or high < 1)


def combined(figures):
    """One PairFigure for several classes: the geometric mean of the margins,
    an interval spanning theirs, the largest p; verdict 'mixed' when theirs differ."""
    verdicts = {f.verdict for f in figures}
    lows = [f.low for f in figures if not math.isnan(f.low)]
    highs = [f.high for f in figures if not math.isnan(f.high)]
    ps = [f.p for f in figures if not math.isnan(f.p)]
    whys = sorted({f.untested_why for f in figures if f.untested_why})
    return PairFigure(stats.geometric_mean([f.margin for f in figures]),
                      min(lows) if lows else math.nan, max(highs) if highs else math.nan,
                      max(ps) if ps else math.nan,
                      verdicts.pop() if len(verdicts) == 1 else "mixed",
                      untested_why="; ".join(whys),
                      floor=max((f.floor for f in figures if not math.isnan(f.floor)),
                                default=math.nan))


def _cell_label(sentence, member, size):
    """A size of a sentence, with what else tells its classes apart ('16 KiB, 2 threads')."""
    parts = [size_text(size)]
    members = sentence.members
    if len({m.dims["threads"] for m in members}) > 1:
        threads = member.dims["threads"]
        parts.append(f"{threads} thread{'s' if threads > 1 else ''}")
    if len({m.dims["codec"] for m in members}) > 1:
        parts.append(CODECS.get(member.dims["codec"], member.dims["codec"]))
    if len({m.dims["pool"] for m in members}) > 1:
        parts.append("fresh buffers" if member.dims["pool"] == "off" else "pooled")
    return ", ".join(parts)


def per_size_figures(run, sentence, a, b, floor, alpha):
    """[(label, PairFigure)] of a against b for each size (and class) of a sentence."""
    out = []
    for size in sorted({n for m in sentence.members for n in m.sizes}):
        figures = pair_figures(run, sentence.members, a, b, floor, alpha, size)
        for m in sentence.members:
            f = figures.get(result_key(m))
            if f is not None and size in m.sizes:
                out.append((_cell_label(sentence, m, size), f))
    return out


def backend_figure(run, members, backend):
    """A backend's own Figure over classes (None where it has no figure there)."""
    values, times, threads, unit = [], [], 1, ""
    for b in _class_benchmarks(run, members, (backend,)).benchmarks.values():
        sc = scenarios.of(b)
        xs = sc.figures(b)
        if not xs:
            continue
        value = stats.median(xs)
        values.append(value)
        unit = sc.unit
        threads = max(threads, b.threads)
        if sc.metric == "ops_per_ms" and value > 0:
            times.append(1e6 * b.threads / value)
    if not values:
        return None
    return Figure(min(values), max(values), unit, min(times, default=math.nan),
                  max(times, default=math.nan), threads)


def _cells(sentence):
    """How many (class, size) figures a sentence merges."""
    return sum(len(m.sizes) for m in sentence.members)


def describe_in_user_terms(run, sentences, baseline, floor, alpha):
    """Gives each sentence its winner's figure, the per-size margins where
    the merged interval and p would disagree, and the baseline's view."""
    for s in sentences:
        r = s.first
        s.figure = backend_figure(run, s.members, r.winner)
        if r.runner_up and r.verdict in ("decided", "not-significant"):
            _, low, high, p = sentence_figures(s)
            if _cells(s) > 1 and not agrees(low, high, p, alpha):
                s.per_size = per_size_figures(run, s, r.winner, r.runner_up, floor, alpha)
            else:  # one figure: say why a small p is no answer, or an interval without 1.00
                s.disagreement = _disagreement(low, high, p, alpha)
        if not baseline or baseline == r.winner:
            continue
        figure = backend_figure(run, s.members, baseline)
        if figure is None:
            continue
        view = BaselineView(baseline, figure, baseline == r.runner_up,
                            sources.separate(run.context, r.winner, baseline))
        if not view.runner_up:
            figures = pair_figures(run, s.members, r.winner, baseline, floor, alpha)
            if figures:
                view.versus = combined(list(figures.values()))
                if _cells(s) > 1 and (view.versus.verdict == "mixed" or not agrees(
                        view.versus.low, view.versus.high, view.versus.p, alpha)):
                    view.versus = None
                    view.per_size = per_size_figures(run, s, r.winner, baseline, floor, alpha)
        s.baseline = view


def _number(x):
    return f"{x:,.0f}" if x >= 100 else f"{x:.3g}"


def _range(low, high):
    """'1,234' or '1,100-1,900': one figure when the ends round alike."""
    a, b = _number(low), _number(high)
    return a if a == b else f"{a}-{b}"


def figure_text(f):
    """'9,850 MB/s'; '480 ops/ms (2,083 ns/op)'; ranges over a merged sentence."""
    text = f"{_range(f.low, f.high)} {f.unit}"
    if not math.isnan(f.ns_low):
        text += f" ({_range(f.ns_low, f.ns_high)} ns/op{' per thread' if f.threads > 1 else ''})"
    return text


def _interval_text(f):
    return "" if math.isnan(f.low) or math.isnan(f.high) else f" [{f.low:.2f}, {f.high:.2f}]"


def pair_text(f):
    """'1.25x [1.20, 1.30] (p < 0.001)': one size's margin with what decides it."""
    head = f"{f.margin:.2f}x{_interval_text(f)}"
    if f.verdict == "untested":
        return head + f" (untested: {f.untested_why})"
    if f.verdict == "noise":
        return head + f" ({_p_text(f.p)}, within the {100 * f.floor:.1f}% floor)"
    if math.isnan(f.p):
        return head
    return head + f" ({_p_text(f.p)}{_disagreement(f.low, f.high, f.p, f.alpha)})"


def _disagreement(low, high, p, alpha):
    """What a figure's interval says that its p does not (one size: two tests of one sample)."""
    if agrees(low, high, p, alpha):
        return ""
    return (", but the 95% interval reaches 1.00" if p < alpha
            else ", though the 95% interval leaves out 1.00")


def per_size_text(cells):
    return ", ".join(f"{label} {pair_text(f)}" for label, f in cells)


def baseline_text(view, with_name=True):
    """'openssl: 3,400 MB/s, 2.90x slower [2.60, 3.20]': where the baseline stands."""
    text = _baseline_text(view, with_name)
    return f"{text} ({SEPARATE_RUNS})" if view.separate and not view.runner_up else text


def _baseline_text(view, with_name):
    head = (f"{view.backend}: " if with_name else "") + figure_text(view.figure)
    if view.runner_up:
        return head + " (the runner-up)"
    if view.per_size:
        return head + f"; the winner over it by size: {per_size_text(view.per_size)}"
    f = view.versus
    if f is None:
        return head
    if f.verdict == "decided":
        return head + f", {f.margin:.2f}x slower{_interval_text(f)}"
    if f.verdict == "noise":
        return head + (f", a tie with the winner ({f.margin:.2f}x{_interval_text(f)}, within "
                       f"the {100 * f.floor:.1f}% noise floor)")
    if f.verdict == "untested":
        return head + f", {f.margin:.2f}x slower{_interval_text(f)}, untested"
    return head + (f", a tie with the winner ({f.margin:.2f}x{_interval_text(f)}, {_p_text(f.p)}"
                   f"{_disagreement(f.low, f.high, f.p, f.alpha)})")


@dataclass
class Headroom:
    what: str
    size: int
    bound_cpb: float
    ghz: float
    library: tuple        # (backend, share of the bound)
    hand_written: tuple   # (backend, share) or None


def headroom(run):
    """Per (op, cipher) at the largest 1-thread codec-free size: the hardware
    bound, and how close the best library and the best hand-written kernel
    come to it."""
    try:
        rows = hardware_bounds.rows(run)
    except ResultsError:
        return []
    groups = OrderedDict()
    for r in rows:
        if r["messages"] != 1:
            continue
        groups.setdefault((r["op"], r["cipher"], r.get("aad")), []).append(r)
    ghz = costmodel.context_ghz(run)
    out = []
    for (op, cipher, aad), rs in groups.items():
        size = max(r["size"] for r in rs)
        rs = [r for r in rs if r["size"] == size]
        # What any implementation could reach on one message: the serial
        # chain for CBC encryption, else the widest AES throughput.
        bound = min(r["bound"] for r in rs) if op == "encrypt" and cipher.endswith("cbc") \
            else min(r["absolute"] for r in rs)
        libs = [(r["backend"], bound / r["measured"]) for r in rs
                if not is_hand_written(run.context, r["backend"])]
        hand = [(r["backend"], bound / r["measured"]) for r in rs
                if is_hand_written(run.context, r["backend"])]
        if not libs:
            continue
        with_aad = f" with {aad} B AAD" if aad else ""
        out.append(Headroom(f"{cipher.upper()} {OPS.get(op, op)}{with_aad}", size, bound, ghz,
                            max(libs, key=lambda x: x[1]),
                            max(hand, key=lambda x: x[1]) if hand else None))
    return out


def headroom_text(h, context):
    rate = f" ({h.ghz / h.bound_cpb:.1f} GB/s at {h.ghz:.2f} GHz)" if h.ghz > 0 else ""
    text = (f"{h.what} of {size_text(h.size)}: the hardware allows {h.bound_cpb:.3f} c/B{rate}; "
            f"the best library, {h.library[0]}, reaches {100 * h.library[1]:.0f}% of it")
    if h.hand_written:
        text += f"; a hand-written kernel ({h.hand_written[0]}) {100 * h.hand_written[1]:.0f}%"
    return text


@dataclass
class MixVerdict:
    what: str
    scores: list          # costmodel.MixScore, fastest first (libraries)
    hand_written: object  # the best hand-written MixScore or None
    ratio: tuple          # (ratio, low, high, p) of the runner-up over the winner
    verdict: str          # decided, noise, not-significant, single
    interval_reaches_one: bool = False  # p < alpha, but the interval reaches 1.00: a tie
    baseline: object = None             # the baseline's MixScore, third or further down
    baseline_ratio: tuple = ()          # (ratio, low, high, p) of it over the winner
    baseline_verdict: str = ""
    floor: object = None                # the NoiseFloor of the grid at 1 thread (MIX_KIND)
    paired: bool = False         # margin, interval and p from per-round ratios
    members: dict = field(default_factory=dict)  # backend -> {size: Benchmark}


def _mix_verdict(ratio, floor, alpha):
    """(verdict, interval reaches 1.00) of a (ratio, low, high, p) between two mix scores."""
    reaches_one = ratio[3] < alpha and not ratio[1] > 1
    if math.isnan(ratio[3]) or ratio[3] >= alpha or reaches_one:
        return "not-significant", reaches_one
    if floor.measured and ratio[0] - 1 <= floor.value:
        return "noise", reaches_one
    return "decided", reaches_one


MIX_KIND = ("grid", 1)  # the cost model's benchmarks: noise.kind_of


def mix_verdicts(run, fit_list, mix, floor, alpha=0.05, baseline=""):
    floor = floor.of(MIX_KIND)
    groups = OrderedDict()
    for f in fit_list:
        groups.setdefault((f.op, f.cipher, f.aad), []).append(f)
    out = []
    for (op, cipher, aad), group in groups.items():
        libs = [f for f in group if not is_hand_written(run.context, f.backend)]
        hand = [f for f in group if is_hand_written(run.context, f.backend)]
        scores, _ = costmodel.mix_scores(libs, mix)
        hand_scores, _ = costmodel.mix_scores(hand, mix)
        if not scores:
            continue
        ratio, verdict, reaches_one = (math.nan,) * 4, "single", False
        if len(scores) > 1:
            ratio = costmodel.ratio_interval(scores[0], scores[1])
            verdict, reaches_one = _mix_verdict(ratio, floor, alpha)
        v = MixVerdict(operation_text(cipher, op, aad), scores,
                       hand_scores[0] if hand_scores else None, ratio, verdict, reaches_one,
                       floor=floor)
        # The runner-up's figure is on the line already: a baseline further down gets its own.
        base = next((sc for sc in scores[2:] if sc.fit.backend == baseline), None)
        if base is not None:
            v.baseline = base
            v.baseline_ratio = costmodel.ratio_interval(scores[0], base)
            v.baseline_verdict = _mix_verdict(v.baseline_ratio, floor, alpha)[0]
        out.append(v)
    return out


def mix_baseline_text(v):
    """'openssl: 12,000 MB/s, 2.57x slower [2.31, 2.86]' for a mix verdict."""
    ratio, low, high, p = v.baseline_ratio
    head = f"{v.baseline.fit.backend}: {v.baseline.mb_per_s:,.0f} MB/s"
    interval = "" if math.isnan(low) else f" [{low:.2f}, {high:.2f}]"
    if v.baseline_verdict == "decided":
        return head + f", {ratio:.2f}x slower{interval}"
    if v.baseline_verdict == "noise":
        return head + (f", a tie with the winner ({ratio:.2f}x{interval}, within the "
                       f"{100 * v.floor.value:.1f}% noise floor)")
    return head + f", a tie with the winner ({ratio:.2f}x{interval}, {_p_text(p)})"


def mix_params(v):
    """The cost model's benchmarks' parameters (1 thread, no codec, pooled, cached key)."""
    fit = v.scores[0].fit
    params = {"op": fit.op, "cipher": fit.cipher, "aad": fit.aad, "codec": "none", "pool": "on",
              "key": "cached", "threads": "1"}
    return [{k: val for k, val in params.items() if val}]


def mix_text(v, context, run_context=None):
    """A mix verdict; `context` gives the long names ({} for names alone),
    `run_context` (default `context`) the sources and caveats."""
    run_context = context if run_context is None else run_context
    params = mix_params(v)
    first = v.scores[0]
    head = f"  {v.what}: "

    def name(backend, long=True):
        return label(context if long else {}, backend, mark(run_context, backend, params))

    if v.verdict == "single":
        return head + f"only {name(first.fit.backend)} was fitted ({first.mb_per_s:,.0f} MB/s)"
    second = v.scores[1]
    ratio, lo, hi, p = v.ratio
    rates = f"{first.mb_per_s:,.0f} vs {second.mb_per_s:,.0f} MB/s"
    apart = (f"; {SEPARATE_RUNS}"
             if sources.separate(run_context, first.fit.backend, second.fit.backend) else "")
    a, b = name(first.fit.backend, False), name(second.fit.backend, False)
    if v.verdict == "decided":
        text = (f"{name(first.fit.backend)}, {ratio:.2f}x [{lo:.2f}, {hi:.2f}] over "
                f"{name(second.fit.backend)} ({rates}; {_p_text(p)}{apart})")
    elif v.verdict == "noise":
        text = (f"{a} and {b} tie ({ratio:.2f}x, within the {100 * v.floor.value:.1f}% noise "
                f"floor; {rates}{apart})")
    else:
        text = (f"{a} and {b} tie ({ratio:.2f}x, {_p_text(p)}"
                f"{_interval_caveat(v.interval_reaches_one)}; {rates}{apart})")
    if v.baseline is not None:
        text += f"; {mix_baseline_text(v)}"
    if v.hand_written:
        text += f"; hand-written {v.hand_written.fit.backend}: {v.hand_written.mb_per_s:,.0f} MB/s"
    return head + text


def crossover_lines(run, fit_list):
    """Per (op, cipher, aad): which library is cheapest along the ladder, and where that changes."""
    groups = OrderedDict()
    for f in fit_list:
        if not is_hand_written(run.context, f.backend):
            groups.setdefault((f.op, f.cipher, f.aad), []).append(f)
    lines = []
    for (op, cipher, aad), group in groups.items():
        low, high = min(group[0].sizes), max(group[0].sizes)
        segments = costmodel.envelope(group, low, high)
        if len(segments) == 1:
            text = f"{segments[0][0]} cheapest from {size_text(low)} to {size_text(high)}"
        else:
            pieces = [f"{segments[0][0]} below ~{segments[0][2]:,.0f} B"]
            pieces += [f"{b} from ~{lo:,.0f} B" for b, lo, _ in segments[1:]]
            text = ", ".join(pieces)
        lines.append(f"  {operation_text(cipher, op, aad)}: {text}")
    return lines


def reference_crossovers(run, fit_list, reference="openssl", only_cheapest=False):
    """Where the library most people use (OpenSSL through EVP) crosses the
    others along the ladder: per call it costs a, per byte b; the line of
    another library crosses its line at (a_ref - a) / (b - b_ref)."""
    groups = OrderedDict()
    for f in fit_list:
        if not is_hand_written(run.context, f.backend):
            groups.setdefault((f.op, f.cipher, f.aad), []).append(f)
    lines = []
    for (op, cipher, aad), group in groups.items():
        ref = next((f for f in group if f.backend == reference), None)
        if ref is None:
            continue
        low, high = min(ref.sizes), max(ref.sizes)
        cheapest = {b for b, _, _ in costmodel.envelope(group, low, high)}
        for g in group:
            if g is ref or g.b_ns == ref.b_ns or (only_cheapest and g.backend not in cheapest):
                continue
            x = (ref.a_ns - g.a_ns) / (g.b_ns - ref.b_ns)
            if not low < x < high:
                continue
            if ref.a_ns > g.a_ns:
                why = (f"below ~{x:,.0f} B {reference}'s per-call cost ({ref.a_ns:,.0f} ns against "
                       f"{g.a_ns:,.0f}) makes it slower than {g.backend}")
            else:
                why = (f"above ~{x:,.0f} B {reference}'s per-byte cost ({ref.cycles_per_byte:.2f} "
                       f"against {g.cycles_per_byte:.2f} c/B) makes it slower than {g.backend}")
            lines.append(f"  {operation_text(cipher, op, aad)}: {why}")
    return lines


@dataclass
class Answer:
    run: object
    machine: str
    floor: noise.NoiseFloor
    results: list
    sentences: list
    headroom: list
    fits: list
    mix_name: str
    mix: list
    mix_verdicts: list
    baseline: str = ""        # the baseline library shown ("" when the run has none)
    baseline_asked: str = DEFAULT_BASELINE
    unranked: list = field(default_factory=list)   # Unranked classes
    unfitted: dict = field(default_factory=dict)   # (op, cipher, aad) -> gaps: no mix verdict
    status: list = field(default_factory=list)     # health.header lines: said first
    contention: object = None  # contention.Contention, where the run saw it


def machine_label(context):
    mask = context.get("cpu_mask", "none")
    text = f"{context.get('cpu_model', '?')}, {context.get('num_cpus', '?')} CPUs"
    usable = context.get("cores_usable")
    if isinstance(usable, str) and usable != str(context.get("num_cpus")):
        # An affinity mask or a cgroup quota left the run fewer cores.
        text += f" ({usable} usable: affinity {context.get('cpu_affinity', '?')}, quota " \
                f"{context.get('cpu_quota', '?')})"
    text += f", host {context.get('host_name', '?')}"
    if mask not in ("none", ""):
        text += f", CRYPTOBENCH_CPU_MASK={mask}"
    return text


def machine_key(context):
    return (context.get("host_name"), context.get("cpu_model"), context.get("num_cpus"),
            context.get("cpu_flags_in_use", context.get("cpu_flags")), context.get("cpu_mask", "none"))


def machine_sections(runs):
    """[(label, run)]: the runs grouped by machine, machines in the order they
    first appear; a machine with several runs gets one entry per run, its
    label naming the run, so that no answer hides another."""
    machines = OrderedDict()
    for run in runs:
        machines.setdefault(machine_key(run.context), []).append(run)
    return [(machine_label(run.context) + (f" (run {run.path})" if len(group) > 1 else ""), run)
            for group in machines.values() for run in group]


def check_baseline(run, baseline, explicit):
    """The baseline must be a library the run measured; the default may be
    absent (a run of other backends), a name given on purpose may not."""
    backends = OrderedDict((b.params.get("backend"), None) for b in run.benchmarks.values()
                           if not b.error)
    if baseline in backends and is_hand_written(run.context, baseline):
        raise ResultsError(f"--baseline {baseline}: a hand-written kernel, not a library a "
                           "service can adopt (the answer shows it as headroom)")
    if explicit and baseline not in backends:
        raise ResultsError(f"--baseline {baseline}: {run.path} has no benchmark of that backend "
                           f"(it has: {', '.join(str(b) for b in backends)})")
    return baseline if baseline in backends else None


def answer(run, mix_spec="tls-records", alpha=0.05, baseline=None):
    """The answer for one run; `baseline` (default openssl) is the library
    each line sets the winner against."""
    shown_baseline = check_baseline(run, baseline or DEFAULT_BASELINE, baseline is not None)
    floor = noise.noise_floor(run, within="margins")
    results = classify(run, floor, alpha)
    status = health.header(run)
    if not results:
        if status:
            raise ResultsError(f"{run.path}: no workload in which every backend asked for was "
                               f"measured ({status[0]})")
        raise ResultsError(f"{run.path}: no workload with a measured library")
    unfitted = costmodel.ladder_gaps(run)
    fit_list = [f for f in costmodel.fits(run) if (f.op, f.cipher, f.aad) not in unfitted]
    mix_name, mix = costmodel.load_mix(mix_spec)
    sentences = merge(results)
    describe_in_user_terms(run, sentences, shown_baseline, floor, alpha)
    status = status + untested_for_contention([s.first for s in sentences], run.context, status)
    return Answer(run, machine_label(run.context), floor, results, sentences, headroom(run),
                  fit_list, mix_name, mix,
                  mix_verdicts(run, fit_list, mix, floor, alpha, shown_baseline or ""),
                  shown_baseline or "", baseline or DEFAULT_BASELINE,
                  list(unranked_classes(run).values()), unfitted, status,
                  contention.findings(run, results))


def unfitted_lines(a):
    """The mix verdicts not made: '  AES-128-CBC encryption: not answered: openssl failed ...'."""
    return [f"  {operation_text(cipher, op, aad)}: not answered: {health.missing_text(gaps)}"
            for (op, cipher, aad), gaps in a.unfitted.items()]


def render_console(a):
    """The answer on one screen (at most CONSOLE_LINES lines)."""
    ctx = a.run.context
    lines = a.status + [f"== Which AES library: {a.machine}",
             f"   {sampled.size_text(a.run)}; {a.floor.describe()}", ""]
    lines.append(HEADING.format(baseline=a.baseline_asked))
    for s in a.sentences:
        lines.append("  " + sentence_text(s, ctx, long_names=False))
    lines += note_lines(answer_notes(a), "  ")
    if a.unranked:
        lines += ["", "Not ranked (a backend the run asked for has no figures there):"]
        lines += ["  " + line for line in unranked_lines(a.unranked, limit=6)]
    lines += contention_lines(a, ctx, console=True)
    later = []  # the mix verdict and the crossovers: they answer "which library", so they stay
    if a.mix_verdicts or a.unfitted:
        total = sum(w for _, w in a.mix)
        mean = sum(s * w for s, w in a.mix) / total
        later += ["", f"Traffic mix {a.mix_name} (mean {mean:,.0f} B per message; "
                      "time per message from the cost model):"]
        later += [mix_text(v, {}, ctx) for v in a.mix_verdicts]  # backend names alone
        later += unfitted_lines(a)
        later += note_lines(mix_notes(a), "  ")
    cross = crossover_lines(a.run, a.fits)
    if cross:
        later += ["", "Cost model (time = a + b x bytes, 1 thread): cheapest library by size"]
        later += cross
        later += reference_crossovers(a.run, a.fits, a.baseline_asked, only_cheapest=True)
    if a.headroom:
        # The headroom gets the lines the rest leaves; the others are in selection.md.
        room = CONSOLE_LINES - 1 - len(lines) - len(later) - 2
        shown = a.headroom if room >= len(a.headroom) else a.headroom[:max(room - 1, 0)]
        if shown:
            lines += ["", "Headroom, 1 thread (hand-written kernels show what the hardware allows):"]
            lines += ["  " + headroom_text(h, ctx) for h in shown]
            if len(shown) < len(a.headroom):
                lines.append(f"  ({len(a.headroom) - len(shown)} more in selection.md)")
    lines += later
    if len(lines) > CONSOLE_LINES - 1:
        lines = lines[:CONSOLE_LINES - 2] + ["  ... (cut to fit one screen)"]
    lines.append("Full table, every backend and the fits: selection.md")
    return lines


def contention_lines(a, ctx, console=False):
    """What the run's noisy neighbour did (contention.py): its share, each
    backend's slowdown, and the classes whose winner it changes."""
    c = a.contention
    if c is None:
        return []
    lines = ["", f"Contention: {100 * c.share:.0f}% of the sampled time ran beside a noisy "
                 "neighbour (a probe slowed 1.25x or more); the figures above are from the "
                 "quiet samples."]
    worst = c.slowdowns if not console or len(c.slowdowns) <= 6 else c.slowdowns[:4] + [None] + \
        c.slowdowns[-2:]
    if worst:
        lines.append("  time per operation under contention (median over each backend's "
                     "benchmarks): " + ", ".join("..." if x is None else f"{x[0]} {x[1]:.2f}x"
                                                 for x in worst))
    if not c.changes:
        lines.append(f"  the winner holds under contention (beyond the noise floor) in all "
                     f"{c.compared} classes ranked both ways")
        return lines
    shown = c.changes if not console else c.changes[:2]
    for change in shown:
        r = change.result
        sentence = Sentence(r.fixed, [r], sorted(r.sizes))
        lines.append(f"  under contention, {workload_text(sentence)}: {change.winner} leads "
                     f"{r.winner} by {change.lead:.2f}x (quiet: {r.winner})")
    if len(shown) < len(c.changes):
        lines.append(f"  ... the winner changes in {len(c.changes)} of {c.compared} classes "
                     "under contention (selection.md)")
    return lines


def answer_notes(a):
    """The caveats of the backends the sentences name."""
    return caveat_notes(a.run.context, [pair for s in a.sentences
                                        for pair in sentence_notes(a.run.context, s)])


def mix_notes(a):
    """The caveats of the backends the mix verdicts name."""
    return caveat_notes(a.run.context, [(sc.fit.backend, mix_params(v)) for v in a.mix_verdicts
                                        for sc in v.scores[:2]])


def markdown_notes(notes):
    """The caveats under a Markdown list: "Marked \\*:" and one item per backend's caveat."""
    if not notes:
        return []
    return ["", f"Marked \\{CAVEAT_MARK}:", ""] + [f"- {b}: {text}" for b, text in notes]


def fit_cipher_text(fit):
    """A fit's cipher, with its AAD for GCM: 'aes-128-gcm, 13 B AAD'."""
    return f"{fit.cipher}, {aad_text(fit.aad)}" if fit.aad else fit.cipher


def _md_row(cells):
    return "| " + " | ".join(str(c) for c in cells) + " |"


def render_markdown(a):
    """selection.md: every class with the full ranking, the fits, the mix."""
    ctx = a.run.context
    out = [f"**{line}**" for line in a.status] + ([""] if a.status else [])
    out += [f"# Which AES library: {a.machine}", "", f"Run: `{a.run.path}`; "
           f"{sampled.size_text(a.run)}; {a.floor.describe()}.", "", "## The answer", ""]
    out += ["- " + sentence_text(s, ctx) for s in a.sentences]
    table_notes = caveat_notes(ctx, [(b, [class_params(r)]) for r in a.results
                                     for b, _ in r.ranking])
    notes = answer_notes(a) + [n for n in table_notes if n not in answer_notes(a)]
    out += markdown_notes(notes)
    if a.unranked:
        out += ["", "## Not ranked", "", "A backend the run asked for has no figures in these "
                "workloads:", ""] + ["- " + line for line in unranked_lines(a.unranked)]
    if a.contention is not None:
        out += ["", "## Under contention", ""] + [
            ("- " + line.strip()) if line.startswith("  ") else line
            for line in contention_lines(a, ctx)[1:]]
    out += ["", "## Every workload class", "",
            _md_row(["workload", "sizes", "threads", "codec", "pool", "libraries, best first",
                     "margin [95%]", "p", "verdict", "hand-written"]),
            _md_row(["---"] * 10)]
    for r in a.results:
        unit = r.scenario.unit
        ranking = "; ".join(f"{b}{mark(ctx, b, [class_params(r)]).replace('*', chr(92) + '*')} "
                            f"{v:,.4g}" for b, v in r.ranking)
        verdict = r.verdict
        if r.runner_up and sources.separate(ctx, r.winner, r.runner_up):
            verdict += " (separate runs)"
        hand = "; ".join(f"{b} {v:,.4g}" for b, v in r.hand_written) or "-"
        margin = "-" if math.isnan(r.margin) else (
            f"{r.margin:.3f}x" + ("" if math.isnan(r.low) else f" [{r.low:.3f}, {r.high:.3f}]"))
        sizes = ", ".join(size_text(s) for s in r.sizes)
        if r.fixed[5]:
            sizes += f" ({aad_text(r.fixed[5])})"
        out.append(_md_row([_what(r.fixed), sizes,
                            r.dims["threads"], r.dims["codec"], r.dims["pool"],
                            f"{ranking} ({unit})", margin,
                            "-" if math.isnan(r.p) else f"{r.p:.3g}", verdict, hand]))
    if a.headroom:
        out += ["", "## Headroom", ""] + ["- " + headroom_text(h, ctx) for h in a.headroom]
    if a.fits:
        out += ["", "## Cost model: time per call = a + b x bytes", "",
                "Weighted least squares (weights 1/time²) over every repetition of the size "
                "ladder, 1 thread, no codec, pooled buffers, cached key; 95% intervals.", "",
                _md_row(["backend", "op", "cipher", "a (ns/call)", "b (cycles/byte)", "R²",
                         "sizes", "points"]), _md_row(["---"] * 8)]
        for f in a.fits:
            out.append(_md_row([f.backend, f.op, fit_cipher_text(f),
                                f"{f.a_ns:,.1f} ± {f.a_half:,.1f}",
                                f"{f.cycles_per_byte:.3f} ± {f.b_half * f.ghz:.3f}",
                                f"{f.r2:.4f}", f"{min(f.sizes)}-{max(f.sizes)}", f.points]))
        out += ["", f"Cheapest library along the ladder, and where {a.baseline_asked} (the "
                "baseline) crosses the others:", ""] + [
                    "-" + line[1:] for line in crossover_lines(a.run, a.fits)
                    + reference_crossovers(a.run, a.fits, a.baseline_asked)]
    if a.mix_verdicts or a.unfitted:
        out += ["", f"## Traffic mix {a.mix_name}", "",
                "sizes and weights: " + ", ".join(f"{size_text(s)} x {w:g}" for s, w in a.mix), ""]
        out += ["-" + mix_text(v, ctx)[1:] for v in a.mix_verdicts]
        out += ["-" + line[1:] for line in unfitted_lines(a)]
        out += markdown_notes(mix_notes(a))
        for v in a.mix_verdicts:
            out += ["", f"{v.what}, every library for this mix:", "",
                    _md_row(["backend", "ns per message", "MB/s"]), _md_row(["---"] * 3)]
            out += [_md_row([m.fit.backend, f"{m.time_ns:,.1f}", f"{m.mb_per_s:,.0f}"])
                    for m in v.scores]
    return "\n".join(out) + "\n"
