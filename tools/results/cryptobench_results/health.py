"""Whether a run is whole, said before anything else.

A run can look complete and not be: a benchmark failed its verification
(or failed otherwise), Ctrl-C left benchmarks or repetitions unmeasured, or
another cryptobench run was measuring on the machine beside it. Every view
(select, report, jmh, compare) puts these lines first, and the answer ranks
no workload class in which a backend the run asked for has no figures: a
backend that failed there is never recommended there, and a class that an
interrupt left with one backend is not answered from that one.

A backend was asked for in a class when the run has an entry of it there:
the binary reports every selected benchmark, a failed or skipped one as an
error (gbench.INTERRUPTED for a skipped one).
"""
from collections import OrderedDict

from .gbench import INTERRUPTED, shown
from .sampled import workload_of

# What the binary (run_context.cc) records when another cryptobench run
# measured on the machine as this one started.
CONCURRENT = "concurrent_cryptobench_runs"
# Why a benchmark an interrupt skipped has no figures (as the answer says it).
NOT_MEASURED = "not measured (the run was interrupted)"


def failures(run):
    """[(benchmark, message)]: benchmarks that failed (verification or
    another error), in run order; skipped ones are not failures."""
    return [(b, b.error) for b in run.benchmarks.values()
            if b.error is not None and b.error != INTERRUPTED]


def missing_reason(b):
    """Why the benchmark has no figures ('' when it has)."""
    if b.error is None:
        return ""
    if b.error == INTERRUPTED:
        return NOT_MEASURED
    return "failed verification" if "verif" in b.error.lower() or "mismatch" in b.error.lower() \
        else "failed"


def _counts(run):
    total = len(run.benchmarks)
    none = sum(1 for b in run.benchmarks.values() if b.error == INTERRUPTED)
    some = sum(1 for b in run.benchmarks.values() if b.error is None and b.interrupted)
    return total, none, some


def interrupted(run):
    _, none, some = _counts(run)
    return none > 0 or some > 0


def _backend_list(names):
    names = list(OrderedDict.fromkeys(names))
    return names[0] if len(names) == 1 else ", ".join(names[:-1]) + " and " + names[-1]


def header(run):
    """The lines every view of the run starts with: empty for a whole run."""
    lines = []
    failed = failures(run)
    if failed:
        backends = _backend_list(b.params.get("backend", "?") for b, _ in failed)
        first, message = failed[0]
        lines.append(f"FAILED: {len(failed)} benchmark{'s' if len(failed) > 1 else ''} of "
                     f"{backends} failed (first: {first.name}: {shown(message, 160)}); "
                     "workloads where it failed are not ranked")
    total, none, some = _counts(run)
    if none or some:
        whole = total - none - some
        text = (f"INTERRUPTED: the run was stopped: {whole} of {total} benchmarks finished every "
                f"repetition")
        if some:
            text += f", {some} only some"
        if none:
            text += f", {none} none"
        lines.append(text + "; a workload lacking a backend's figures is not ranked")
    mixed = [b for b in run.benchmarks.values() if b.contention_included]
    if mixed:
        never = run.sampling.never_quiet
        lacking = _backend_list(run.benchmarks[n].params.get("backend", "?") for n in never)
        workloads = len({workload_of(b.name) for b in mixed})
        lines.append(f"CONTENDED: {len(never)} benchmark{'s' if len(never) > 1 else ''} of "
                     f"{lacking} ran beside a noisy neighbour in every round: in "
                     f"{'those' if workloads > 1 else 'that'} {workloads} "
                     f"workload{'s' if workloads > 1 else ''}, every backend's figure includes "
                     f"the neighbour's time (whole loops); {more_rounds(run.context)}")
    lines += path_mismatches(run)
    concurrent = run.context.get(CONCURRENT)
    if isinstance(concurrent, str) and concurrent and concurrent != "none":
        lines.append(f"CONCURRENT: another cryptobench run was measuring on this machine as this "
                     f"one started ({shown(concurrent, 160)}): its figures share the cores")
    return lines


class Gap:
    """A backend's missing figures in a class: why, and at which sizes."""

    def __init__(self, reason):
        self.reason = reason
        self.sizes = set()


def missing(benchmarks):
    """OrderedDict backend -> Gap, for the benchmarks (of one class) that
    have no figures; a backend with several reasons gets the first."""
    out = OrderedDict()
    for b in benchmarks:
        reason = missing_reason(b)
        if reason:
            gap = out.setdefault(b.params.get("backend", "?"), Gap(reason))
            gap.sizes.add(int(b.params.get("size", "0")))
    return out


def missing_text(gaps, size_text=None, all_sizes=()):
    """'openssl failed verification at 16 KiB; botan not measured (...)': the
    sizes are named when size_text is given and they are not all of all_sizes."""
    parts = []
    for backend, gap in gaps.items():
        text = f"{backend} {gap.reason}"
        if size_text and gap.sizes and set(all_sizes) - gap.sizes:
            text += " at " + ", ".join(size_text(s) for s in sorted(gap.sizes))
        parts.append(text)
    return "; ".join(parts)


# Context fields that make two runs different machines (as merge refuses and
# select splits them).
MACHINE_FIELDS = ("host_name", "cpu_model", "num_cpus", "cpu_flags_in_use", "cpu_mask")


def machine_differences(a, b):
    """[(field, a's value, b's value)] where the runs' machines differ."""
    out = []
    for key in MACHINE_FIELDS:
        x, y = a.context.get(key), b.context.get(key)
        if key == "cpu_mask":
            x, y = x or "none", y or "none"
        if x != y:
            out.append((key, x, y))
    return out


def compare_header(base, new):
    """compare's first lines: the machines when they differ, then each run's header."""
    lines = []
    diff = machine_differences(base, new)
    if diff:
        shown_diff = "; ".join(
            f"{key} {shown(str(x), 60) if x is not None else '(none)'} -> "
            f"{shown(str(y), 60) if y is not None else '(none)'}"
            for key, x, y in diff if key != "cpu_flags_in_use") or "the CPU flags in use"
        lines.append(f"DIFFERENT MACHINES: {shown_diff}; every change below includes the "
                     "difference between the machines")
    for which, run in (("base", base), ("new", new)):
        lines += [f"{which} {run.path}: {line}" for line in header(run)]
    return lines


# The claimed code path against the measured speed (bounds.py's bounds).
# At 1 KiB or more only AES instructions come within 2x of the 128-bit
# AES-NI bound (C tables and vpaes stay 3x-20x above it in every reference
# run). The other way is told only for openssl, whose path cryptobench
# derives from CPUID and OPENSSL_ia32cap instead of asking the library: at
# 4 KiB or more its AES-NI code stays within 2x of the throughput bound in
# the parallel modes, vpaes 15x-20x above it (other libraries' AES-NI code
# may be serial, or bound by GHASH, and be slow with AES instructions).
FAST_FOR_TABLES, SLOW_FOR_AESNI = 2.0, 5.0
DERIVED_PATHS = ("openssl",)


def path_mismatches(run):
    """One line per backend whose declared code path (register_bits: 0 for
    no AES instructions) its figures contradict."""
    from . import bounds  # bounds imports gbench only
    from .gbench import ResultsError
    try:
        table = bounds.rows(run)
    except (ResultsError, KeyError, ValueError, ZeroDivisionError):
        return []
    out = OrderedDict()
    for r in table:
        if r["size"] < 1024 or r["messages"] != 1 or not r["bound"] > 0:
            continue
        backend = r["backend"]
        path = shown(run.context.get(f"backend.{backend}.code_path", "?"), 80)
        ratio = r["measured"] / r["bound"]
        what = (f"{r['cipher'].upper()} {r['op']} of {r['size']} B ran at {r['measured']:.2f} "
                f"c/B, {ratio:.1f}x the AES-NI bound")
        if "no AES instructions" in r["kind"] and ratio < FAST_FOR_TABLES:
            out.setdefault(backend, f"MISMATCH: {backend} says its code path is '{path}' (no AES "
                                    f"instructions), but {what}: only AES instructions are that "
                                    "fast")
        elif (backend in DERIVED_PATHS and r["size"] >= 4096 and ratio > SLOW_FOR_AESNI
              and "no AES instructions" not in r["kind"] and r["kind"].startswith("AES throughput")):
            out.setdefault(backend, f"MISMATCH: {backend} says its code path is '{path}' (AES "
                                    f"instructions), but {what}: AES instructions are faster")
    return list(out.values())


def more_rounds(context, none_quiet=True):
    """What to run for quiet figures: the second stage where the run could
    have had one (a run in processes, tools/run-benchmarks --top-up).
    none_quiet: said of benchmarks with no quiet round at all (else of
    classes with too few)."""
    stages, parts = context.get("stages"), context.get("round_parts")
    if isinstance(stages, str) and stages.isdigit() and int(stages) > 1:
        return (("even its second stage of rounds had none quiet" if none_quiet else
                 "a second stage of rounds ran and still left them short") +
                ": run again in a quieter spell or with more rounds")
    if isinstance(parts, str) and parts.isdigit() and int(parts) > 1:
        return ("run more rounds for quiet figures (a new run with tools/run-benchmarks "
                "--top-up runs the classes contention leaves short again)")
    return "run more rounds for quiet figures"
