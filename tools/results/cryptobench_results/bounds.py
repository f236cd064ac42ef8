"""Each figure against the hardware bound that limits it.

The run's context carries the AES instruction limits measured at its start
(aes_limits: nominal latency in cycles / instructions per cycle, per register
width). From them, per benchmark (1 thread, no codec):

- CBC encryption of one message is a chain: a block costs rounds x latency.
- ECB and CBC decryption are parallel: a block costs rounds / (instructions
  per cycle x blocks per register), at the register width the backend
  declares (backend.<name>.register_bits in the context: 128 for AES-NI, 256
  or 512 for VAES; 0, table-based code, is held to the 128-bit bound, a floor
  it cannot reach). The absolute bound is the widest.
- Multi-buffer CBC encryption of m messages (at most the backend's declared
  backend.<name>.batch_lanes at once) takes one block of each per step; a step is a chain of
  rounds, each costing the larger of the latency and ceil(m / blocks per
  register) / instructions per cycle. One message is the serial chain; enough
  of them reach the throughput bound. The absolute bound is the best width
  with unlimited lanes.

- CTR is parallel like ECB: ceil(size / 16) counter blocks, each costing
  rounds / (instructions per cycle x blocks per register) at the backend's
  width. No padding.
- GCM is bound by the larger of its AES bound and its GHASH bound (the two
  may run in parallel on separate units; the larger holds either way). AES:
  ceil(size / 16) counter blocks plus the one that encrypts the tag, as CTR.
  GHASH: every hashed block is multiplied by a power of the hash key H in
  GF(2^128); the blocks hashed are the AAD's and the ciphertext's, each
  zero-padded to whole blocks, and the lengths block: ceil(aad / 16) +
  ceil(size / 16) + 1. The model, a lower bound for any implementation that
  multiplies with carry-less multiply instructions (PCLMULQDQ: one
  64 x 64 -> 128-bit product per 128-bit lane, VPCLMULQDQ 2 or 4 of them):
  a 128 x 128-bit product of two 2-term polynomials needs at least 3 such
  products (Karatsuba's 3 is the minimum: the bilinear complexity of
  multiplying two linear polynomials is 3), so 3 per hashed block; the
  reduction modulo the GCM polynomial costs nothing here, because an
  implementation may aggregate (sum unreduced products of a whole group of
  blocks, each by its own power of H, and reduce once per group, so its 2
  multiplications are amortised over a group that may be the whole message)
  and may reduce with shifts and XORs instead (Intel's original method). So
  a GHASH block costs 3 / (CLMUL instructions per cycle x lanes) cycles.
  Real code (8-block aggregation with Karatsuba, or 4 products per block
  without it) does more; the bound is the floor, not an estimate.
  The CLMUL width of a backend is the one its AES register width gives
  (backend.<name>.register_bits[.gcm]: 128 -> PCLMULQDQ xmm, 256 -> VPCLMULQDQ
  ymm, 512 -> zmm), since the project's kernels and the libraries' GCM code
  pair VAES with VPCLMULQDQ at one width; a width the run did not measure
  falls back to the widest measured narrower one. A run without clmul_limits
  (older, or a CPU without PCLMULQDQ) bounds GCM by AES alone, and says so.
- CTR and GCM cells may be op roundtrip (seal then open): twice the work of
  one direction, so twice the bound. Table-based code (register_bits 0) is
  held to the 128-bit AES and CLMUL bounds, floors it cannot reach.

Bounds are per plaintext byte, so they include the PKCS#7 padding block
(1025 blocks for 16 KiB). The latency (chain) bounds hold for one operation:
consecutive operations are independent, so out-of-order execution overlaps
short ones (a few blocks) and beats them, which the table says. The absolute
bound, the widest AES throughput, holds for anything: a figure faster than it
means the harness mis-measures; it is flagged and the command exits 1. The tolerance is
10%: each figure's cycles come from its wall time and the clock sampled right
after it, and on a shared VM the clock dependent chains see wanders by about
2% (sd) between millisecond samples, so a few percent either way is noise,
while harness errors (e.g. averaging thread times) are factors.
"""
import math
from collections import OrderedDict
import re

from .gbench import ResultsError, shown

ROUNDS = {"128": 10, "192": 12, "256": 14}
BLOCKS_PER_REGISTER = {"xmm": 1, "ymm": 2, "zmm": 4}  # also CLMUL products per instruction
GHASH_CLMULS_PER_BLOCK = 3  # the model above (benchmarks/aes_limits.h's kGhashClmulsPerBlock)
TOLERANCE = 0.10
LIMIT_RANGE = (0.01, 1000.0)  # what a latency or throughput in aes_limits may be
COUNTER_MODES = ("ctr", "gcm")


def parse_limits(text, key="aes_limits"):
    """'xmm:3/2,ymm:3/2,zmm:3/1' -> {'xmm': (3.0, 2.0), ...}."""
    if text is not None and not isinstance(text, str):
        raise ResultsError(f"context field '{key}' is {shown(text, 40)}, not a string")
    limits = {}
    for item in filter(None, (text or "").split(",")):
        try:
            width, values = item.split(":")
            latency, throughput = (float(v) for v in values.split("/"))
        except ValueError:
            raise ResultsError(f"{key} context '{shown(text)}' is malformed at "
                               f"'{shown(item)}'") from None
        # Cycles and instructions per cycle of real AES and CLMUL units
        # (3-7, 0.5-4): outside (a NaN too) every bound below would be nan or inf.
        low, high = LIMIT_RANGE
        if width not in BLOCKS_PER_REGISTER or not (low <= latency <= high and low <= throughput <= high):
            raise ResultsError(f"{key} context '{shown(text)}': bad entry '{shown(item)}' (a width "
                               f"xmm, ymm or zmm, latency and throughput from {low:g} to {high:g})")
        limits[width] = (latency, throughput)
    if key == "aes_limits" and "xmm" not in limits:
        raise ResultsError("the run has no aes_limits context (xmm): it predates them; every "
                           "run of a current cryptobench records them")
    return limits


def whole_param(b, key, default):
    """A count from the benchmark's name that the reader does not check
    (aad), as an int."""
    text = b.params.get(key, default)
    if not re.fullmatch(r"[0-9]{1,12}", text):
        raise ResultsError(f"benchmark '{shown(b.name)}': {key} '{shown(text, 20)}' is not a "
                           "whole number from 0 to 10^12")
    return int(text)


WIDTH_OF_BITS = {128: "xmm", 256: "ymm", 512: "zmm"}


def backend_facts(context, backend, mode):
    """(register width, multi-buffer lanes, AES instructions at all) from the
    structured facts every current run records as backend.<name>.*
    (register_bits.<mode> where a mode's width differs)."""
    bits = context.get(f"backend.{backend}.register_bits.{mode}",
                       context.get(f"backend.{backend}.register_bits"))
    lanes = context.get(f"backend.{backend}.batch_lanes")
    try:
        bits, lanes = int(bits), int(lanes)
    except (TypeError, ValueError):
        raise ResultsError(f"the run's context has no usable backend.{backend}.register_bits / "
                           "batch_lanes: it predates them; rerun with a current cryptobench") from None
    if bits not in (0, 128, 256, 512) or lanes < 0:
        raise ResultsError(f"backend.{backend}: register_bits {bits}, batch_lanes {lanes} make no sense")
    return WIDTH_OF_BITS.get(bits, "xmm"), lanes, bits != 0


def rows(run):
    limits = parse_limits(run.context.get("aes_limits"))
    clmul = parse_limits(run.context.get("clmul_limits"), "clmul_limits")

    def parallel(rounds, width):
        latency, throughput = limits[width]
        return rounds / (throughput * BLOCKS_PER_REGISTER[width]) / 16.0

    def ghash_block(width):
        """Cycles per hashed 16-byte block at `width` (the model above)."""
        return GHASH_CLMULS_PER_BLOCK / (clmul[width][1] * BLOCKS_PER_REGISTER[width])

    def clmul_width(width):
        """The widest measured CLMUL width no wider than `width`."""
        usable = [w for w in clmul if BLOCKS_PER_REGISTER[w] <= BLOCKS_PER_REGISTER[width]]
        return max(usable, key=BLOCKS_PER_REGISTER.get) if usable else None

    def lanes_bound(rounds, messages, width):
        """(cycles per byte, whether latency binds) for `messages` chains in lanes."""
        latency, throughput = limits[width]
        per_round = math.ceil(messages / BLOCKS_PER_REGISTER[width]) / throughput
        return rounds * max(latency, per_round) / (16.0 * messages), latency >= per_round

    def counter_mode(b, mode, rounds, size, width, op):
        """(kind, bound, absolute, aad) per plaintext byte for a CTR or GCM cell."""
        blocks = -(-size // 16)
        widest_aes = min(parallel(rounds, w) for w in limits) * 16
        aes_blocks = blocks + (1 if mode == "gcm" else 0)  # GCM: the tag's block
        aes = parallel(rounds, width) * 16 * aes_blocks / size
        absolute = widest_aes * aes_blocks / size
        kind, bound, aad = f"AES throughput, {width}", aes, None
        if mode == "gcm":
            aad = whole_param(b, "aad", "0")
            hashed = -(-aad // 16) + blocks + 1
            cw = clmul_width(width)
            if cw is None:
                kind += " (no clmul_limits: GHASH not bounded)"
            else:
                ghash = ghash_block(cw) * hashed / size
                absolute = max(absolute, min(ghash_block(w) for w in clmul) * hashed / size)
                if ghash > aes:
                    kind, bound = f"GHASH, {cw}: {GHASH_CLMULS_PER_BLOCK} CLMULs a block", ghash
        if op == "roundtrip":  # seal then open
            bound, absolute = 2 * bound, 2 * absolute
        return kind, bound, absolute, aad

    out = []
    for b in run.benchmarks.values():
        p = b.params
        measured = b.value("cycles_per_byte")
        if b.error or measured is None or b.threads != 1 or p.get("codec") != "none":
            continue
        op = p.get("op")
        try:
            _, bits, mode = p["cipher"].split("-")
            rounds = ROUNDS[bits]
            size = int(p["size"])
        except (KeyError, ValueError):
            continue
        ops = ("encrypt", "decrypt", "roundtrip") if mode in COUNTER_MODES \
            else ("encrypt", "decrypt", "encrypt-batch")
        if op not in ops or size <= 0:
            continue
        width, backend_lanes, aes_instructions = backend_facts(run.context, p["backend"], mode)
        if width not in limits:
            width = "xmm"
        messages = int(p.get("messages", "1"))
        aad = None
        if mode in COUNTER_MODES:
            kind, bound, absolute, aad = counter_mode(b, mode, rounds, size, width, op)
        else:
            padding = (size // 16 + 1) * 16 / size  # ciphertext blocks per plaintext byte
            serial = rounds * limits["xmm"][0] / 16.0
            # The hard floor for any figure: the widest AES throughput. The chain
            # bounds below hold for one operation; consecutive operations are
            # independent, so out-of-order execution may overlap short ones.
            absolute = min(parallel(rounds, w) for w in limits)
            if mode == "cbc" and op == "encrypt":
                kind, bound = "serial chain: AESENC latency", serial
            elif op == "encrypt-batch" and mode == "cbc":
                lanes = min(messages, backend_lanes)
                if lanes == 0:
                    kind, bound = "serial chain (no multi-buffer)", serial
                else:
                    bound, latency_bound = lanes_bound(rounds, lanes, width)
                    kind = (f"{lanes} lanes, {width}: " +
                            ("AESENC latency" if latency_bound else "AES throughput"))
            else:
                kind = f"AES throughput, {width}"
                bound = parallel(rounds, width)
            bound *= padding
            absolute *= padding
        if not aes_instructions:
            kind += " (no AES instructions: the AES-NI bound is a floor only)"
        if measured < bound and "latency" in kind:
            kind += " (beaten: short operations overlap)"
        # What else sets the row apart from its backend's other figures of the same cell.
        variant = [b.scenario] if b.scenario not in ("grid", "bounds", "libraries") else []
        variant += ["pool off"] if p.get("pool") == "off" else []
        variant += [f"key {p['key']}"] if p.get("key", "cached") != "cached" else []
        out.append({
            "backend": p["backend"], "variant": ", ".join(variant),
            "cipher": p["cipher"], "op": op, "size": size, "aad": aad,
            "messages": messages, "measured": measured,
            "samples": len(b.samples["cycles_per_byte"]), "kind": kind, "bound": bound,
            "share": bound / measured, "absolute": absolute,
            "above": measured < absolute * (1 - TOLERANCE),
        })
    if not out:
        raise ResultsError("no 1-thread, codec-none encrypt/decrypt figure to set against a bound "
                           "(run --suite=bounds)")
    return out


OP_ORDER = ["encrypt", "decrypt", "roundtrip", "encrypt-batch"]


def group_key(r):
    """What a row's figure is of: cipher, operation, size, AAD, messages."""
    op = OP_ORDER.index(r["op"]) if r["op"] in OP_ORDER else len(OP_ORDER)
    return (r["cipher"], op, r["op"], r["size"], -1 if r.get("aad") is None else r["aad"],
            r["messages"])


def ordered(table):
    """Sorted by cipher, operation, size (AAD, messages), then the share of
    the bound, the closest to it first."""
    return sorted(table, key=lambda r: group_key(r) + (-r["share"], r["backend"],
                                                       r.get("variant", "")))


def _size(n):
    return f"{n >> 20} MiB" if n >= 1 << 20 and n % (1 << 20) == 0 else (
        f"{n >> 10} KiB" if n >= 1024 and n % 1024 == 0 else f"{n} B")


def group_title(r, rows):
    """'aes-128-gcm decrypt, 1420 B + 13 B AAD: absolute bound 0.096 c/B'."""
    title = f"{r['cipher']} {r['op']}, {_size(r['size'])}"
    if r.get("aad") is not None:
        title += " + no AAD" if r["aad"] == 0 else f" + {r['aad']} B AAD"
    if r["messages"] > 1:
        title += f", {r['messages']} messages per call"
    absolute = sorted({f"{x['absolute']:.3f}" for x in rows})
    return title + f": absolute bound {' to '.join(absolute[::max(len(absolute) - 1, 1)])} c/B"


def render(table, context, markdown):
    """The table sorted by cipher, operation and size (a group each, under a
    line that names it and its absolute bound), then by share of the bound."""
    table = ordered(table)
    # The AAD column only where there is GCM, the variant only where a row has
    # one (pool off, a key per operation): plain tables stay as they were.
    with_aad = any(r.get("aad") is not None for r in table)
    with_variant = any(r.get("variant") for r in table)
    clmul = (f"; CLMUL limits: {context.get('clmul_limits') or 'none'}"
             if any(r["cipher"].endswith("-gcm") for r in table) else "")
    intro = (f"AES limits of this run: {context.get('aes_limits')}{clmul} (latency cycles / "
             f"instructions per cycle per width); clock at start "
             f"{context.get('core_clock_ghz', '?')} GHz; cycles per plaintext byte, medians.")

    def verdict(r):
        return "ABOVE THE BOUND: the harness mis-measures" if r["above"] else "ok"

    if markdown:
        header = ["backend"] + (["variant"] if with_variant else []) + [
            "cipher", "op", "size"] + (["aad"] if with_aad else []) + [
            "msgs", "measured c/B", "n", "bound c/B", "% of bound", "limited by",
            "absolute bound c/B", "verdict"]
        out = [intro, "", "| " + " | ".join(header) + " |",
               "|" + "|".join("---" for _ in header) + "|"]
        for r in table:
            aad = ["-" if r.get("aad") is None else str(r["aad"])] if with_aad else []
            variant = [r.get("variant") or "-"] if with_variant else []
            out.append("| " + " | ".join([r["backend"]] + variant + [
                r["cipher"], r["op"], str(r["size"])] + aad + [
                str(r["messages"]), f"{r['measured']:.3f}", str(r["samples"]), f"{r['bound']:.3f}",
                f"{100 * r['share']:.0f}%", r["kind"], f"{r['absolute']:.3f}", verdict(r)]) + " |")
        return "\n".join(out)
    header = ["backend"] + (["variant"] if with_variant else []) + [
        "measured c/B", "n", "bound c/B", "% of bound", "verdict", "limited by"]
    groups = OrderedDict()
    for r in table:
        groups.setdefault(group_key(r), []).append(r)
    lines = [[r["backend"]] + ([r.get("variant") or "-"] if with_variant else []) + [
              f"{r['measured']:.3f}", str(r["samples"]), f"{r['bound']:.3f}",
              f"{100 * r['share']:.0f}%", verdict(r), r["kind"]] for r in table]
    widths = [max(len(h), *(len(line[i]) for line in lines)) for i, h in enumerate(header)]
    widths[-1] = 0  # the last column is not padded
    fmt = "  ".join(f"{{:<{w}}}" for w in widths)
    out = [intro, "", "  " + fmt.format(*header).rstrip()]
    rows = iter(lines)
    for group in groups.values():
        out.append(group_title(group[0], group))
        out += ["  " + fmt.format(*next(rows)).rstrip() for _ in group]
    return "\n".join(out)
