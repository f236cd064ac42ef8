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

from .gbench import ResultsError, shown

ROUNDS = {"128": 10, "192": 12, "256": 14}
BLOCKS_PER_REGISTER = {"xmm": 1, "ymm": 2, "zmm": 4}
TOLERANCE = 0.10
LIMIT_RANGE = (0.01, 1000.0)  # what a latency or throughput in aes_limits may be


def parse_limits(text):
    """'xmm:3/2,ymm:3/2,zmm:3/1' -> {'xmm': (3.0, 2.0), ...}."""
    limits = {}
    for item in filter(None, (text or "").split(",")):
        try:
            width, values = item.split(":")
            latency, throughput = (float(v) for v in values.split("/"))
        except ValueError:
            raise ResultsError(f"aes_limits context '{shown(text)}' is malformed at "
                               f"'{shown(item)}'") from None
        # Cycles and instructions per cycle of real AES units (3-7, 1-4):
        # outside (a NaN too) every bound below would be nan or inf.
        low, high = LIMIT_RANGE
        if width not in BLOCKS_PER_REGISTER or not (low <= latency <= high and low <= throughput <= high):
            raise ResultsError(f"aes_limits context '{shown(text)}': bad entry '{shown(item)}' (a width "
                               f"xmm, ymm or zmm, latency and throughput from {low:g} to {high:g})")
        limits[width] = (latency, throughput)
    if "xmm" not in limits:
        raise ResultsError("the run has no aes_limits context (xmm): it predates them; every "
                           "run of a current cryptobench records them")
    return limits


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

    def parallel(rounds, width):
        latency, throughput = limits[width]
        return rounds / (throughput * BLOCKS_PER_REGISTER[width]) / 16.0

    def lanes_bound(rounds, messages, width):
        """(cycles per byte, whether latency binds) for `messages` chains in lanes."""
        latency, throughput = limits[width]
        per_round = math.ceil(messages / BLOCKS_PER_REGISTER[width]) / throughput
        return rounds * max(latency, per_round) / (16.0 * messages), latency >= per_round

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
        if op not in ("encrypt", "decrypt", "encrypt-batch") or size <= 0:
            continue
        padding = (size // 16 + 1) * 16 / size  # ciphertext blocks per plaintext byte
        width, backend_lanes, aes_instructions = backend_facts(run.context, p["backend"], mode)
        if width not in limits:
            width = "xmm"
        serial = rounds * limits["xmm"][0] / 16.0
        widest = min(parallel(rounds, w) for w in limits)
        messages = int(p.get("messages", "1"))
        # The hard floor for any figure: the widest AES throughput. The chain
        # bounds below hold for one operation; consecutive operations are
        # independent, so out-of-order execution may overlap short ones.
        absolute = widest
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
        if not aes_instructions:
            kind += " (no AES instructions: the AES-NI bound is a floor only)"
        bound *= padding
        absolute *= padding
        if measured < bound and "latency" in kind:
            kind += " (beaten: short operations overlap)"
        out.append({
            "backend": p["backend"], "cipher": p["cipher"], "op": op, "size": size,
            "messages": messages, "measured": measured,
            "samples": len(b.samples["cycles_per_byte"]), "kind": kind, "bound": bound,
            "share": bound / measured, "absolute": absolute,
            "above": measured < absolute * (1 - TOLERANCE),
        })
    if not out:
        raise ResultsError("no 1-thread, codec-none encrypt/decrypt figure to set against a bound "
                           "(run --suite=bounds)")
    return out


def render(table, context, markdown):
    header = ["backend", "cipher", "op", "size", "msgs", "measured c/B", "n", "bound c/B",
              "% of bound", "limited by", "absolute bound c/B", "verdict"]
    lines = []
    for r in table:
        lines.append([r["backend"], r["cipher"], r["op"], str(r["size"]), str(r["messages"]),
                      f"{r['measured']:.3f}", str(r["samples"]), f"{r['bound']:.3f}",
                      f"{100 * r['share']:.0f}%", r["kind"], f"{r['absolute']:.3f}",
                      "ABOVE THE BOUND: the harness mis-measures" if r["above"] else "ok"])
    intro = (f"AES limits of this run: {context.get('aes_limits')} (latency cycles / instructions "
             f"per cycle per width); clock at start {context.get('core_clock_ghz', '?')} GHz; "
             "cycles per plaintext byte, medians.")
    if markdown:
        out = [intro, "", "| " + " | ".join(header) + " |",
               "|" + "|".join("---" for _ in header) + "|"]
        out += ["| " + " | ".join(line) + " |" for line in lines]
        return "\n".join(out)
    widths = [max(len(h), *(len(line[i]) for line in lines)) for i, h in enumerate(header)]
    fmt = "  ".join(f"{{:<{w}}}" for w in widths)
    return "\n".join([intro, "", fmt.format(*header)] + [fmt.format(*line) for line in lines])
