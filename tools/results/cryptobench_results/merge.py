"""Runs of one machine joined into one run: a C++ run and the peers' runs made
right after it (tools/run-benchmarks --peers), or two C++ runs of other
backends, so that every tool (select, report, jmh, compare, ratio, bounds)
ranks and draws their benchmarks together, with nothing special about any.

Rules, each a one-line error when broken:
- one machine: the runs' host, CPU model, CPU count, CPU flags in use and
  CRYPTOBENCH_CPU_MASK (what select and report group runs by) are equal;
  runs of several machines stay separate (select and report take them side
  by side, one answer per machine);
- every benchmark in one run only: a name in two runs is an error naming it
  (the tools would otherwise count two runs' figures as one sample);
- the contexts combined: the first run's, then every key the others add; a
  key the runs disagree on keeps the first run's value, except that a
  backend's facts (backend.<name>.*) come from the run that measured it; the
  other value is kept as sources.<i>.<key>;
- provenance: sources (their count) and sources.<i>.path, .date (its start
  time), .executable, .backends and .repetitions_interleaved (true, false,
  or unknown for runs that do not say) for every run, in the order given (a
  merged input brings its own sources, renumbered). The answer marks a
  verdict between backends of different sources "measured in separate runs",
  and the noise floor leaves out the benchmarks of sources whose repetitions
  ran back to back (sources.py, noise.py).
The benchmarks are the runs' entries, unchanged, in the order given.
"""
import json
import os
import re
from collections import OrderedDict

from .answer import machine_key
from .gbench import (INTERRUPTED, ITERATIONS, ResultsError, parse_json, read_text, rounds_of,
                     run_from_doc, shown)
from .health import CONCURRENT

MACHINE_FIELDS = ("host_name", "cpu_model", "num_cpus", "cpu_flags_in_use", "cpu_mask")
PROVENANCE = ("path", "date", "executable", "backends", "repetitions_interleaved")


def machine_difference(a, b):
    """The first machine field whose values differ, as (field, a's, b's)."""
    for field in MACHINE_FIELDS:
        key = field
        if field == "cpu_flags_in_use" and (field not in a or field not in b):
            key = "cpu_flags"  # machine_key's fallback
        default = "none" if field == "cpu_mask" else None
        if a.get(key, default) != b.get(key, default):
            return key, a.get(key, default), b.get(key, default)
    return None


def _sources(path, context, backends):
    """[(record dict)]: an input's provenance; a merged input's own sources."""
    count = context.get("sources")
    if isinstance(count, str) and count.isdigit() and int(count) > 0:
        out = []
        for i in range(1, int(count) + 1):
            prefix = f"sources.{i}."
            out.append(OrderedDict((k[len(prefix):], v) for k, v in context.items()
                                   if k.startswith(prefix)))
        return out
    return [OrderedDict([("path", str(path)), ("date", str(context.get("date", "?"))),
                         ("executable", str(context.get("executable", "?"))),
                         ("backends", ",".join(backends)),
                         ("repetitions_interleaved",
                          str(context.get("repetitions_interleaved", "unknown")))])]


def merge(paths):
    """The merged Google Benchmark document of the runs at `paths` (two or more)."""
    if len(paths) < 2:
        raise ResultsError("merge takes two or more runs")
    inputs = []
    for path in paths:
        doc = parse_json(path, read_text(path))
        run = run_from_doc(path, doc)  # every input checked as the tools check one
        backends = list(OrderedDict.fromkeys(b.params["backend"] for b in run.benchmarks.values()))
        inputs.append((path, doc, run, backends))
    first_path, _, first_run, _ = inputs[0]
    for path, _, run, _ in inputs[1:]:
        if machine_key(run.context) != machine_key(first_run.context):
            field, theirs, ours = machine_difference(run.context, first_run.context) or ("?",) * 3
            raise ResultsError(f"{path}: another machine than {first_path} ({field} "
                               f"'{shown(str(theirs), 60)}' against '{shown(str(ours), 60)}'): merge "
                               "joins runs of one machine; give several machines' runs to select "
                               "or report side by side")
    seen = {}
    for path, _, run, _ in inputs:
        for name in run.benchmarks:
            if name in seen:
                raise ResultsError(f"benchmark '{shown(name)}' is in {seen[name]} and in {path}: "
                                   "each benchmark may be in one of the merged runs only")
            seen[name] = path

    context = OrderedDict()
    owner = {}        # key -> the source number whose value context holds
    measured_by = {}  # backend -> the source number of the first input that measured it
    displaced = []    # (source number, key, value): values the context could not hold
    sources = []
    for path, doc, run, backends in inputs:
        number = len(sources) + 1  # an input's own values are its first source's
        merged_input = "sources" in doc["context"]
        own_sources = _sources(path, doc["context"], backends)
        for backend in backends:
            measured_by.setdefault(backend, number)
        for key, value in doc["context"].items():
            if merged_input and (key == "sources" or key.startswith("sources.")):
                # A merged input's provenance is renumbered; its displaced values too.
                index, _, rest = key[len("sources."):].partition(".")
                if index.isdigit() and rest not in ("", *PROVENANCE):
                    displaced.append((len(sources) + int(index), rest, value))
                continue
            if key not in context:
                context[key] = value
                owner[key] = number
            elif context[key] != value:
                # backend.<name>.<fact>, the name a measured backend's (names hold dots: go-1.19)
                backend = next((b for b in measured_by if key.startswith(f"backend.{b}.")), None)
                if backend is not None and measured_by.get(backend) == number:
                    displaced.append((owner[key], key, context[key]))
                    context[key] = value
                    owner[key] = number
                else:
                    displaced.append((number, key, value))
        sources += own_sources
    # How a run's rounds were spread over processes holds for the merged run
    # only where every input measured in rounds spread them alike (noise.py
    # splits the floor's halves by it); an input without rounds (the Java
    # and Go peers' back-to-back repetitions) has none to spread.
    in_rounds = [doc["context"] for _, doc, _, _ in inputs if "rounds" in doc["context"]]
    for key in ("processes", "round_parts", "stages"):
        if key in context and len({c.get(key) for c in in_rounds}) > 1:
            displaced.append((owner[key], key, context.pop(key)))
    context["sources"] = str(len(sources))
    for n, record in enumerate(sources, 1):
        for field, value in record.items():
            context[f"sources.{n}.{field}"] = value
    for n, key, value in displaced:
        context[f"sources.{n}.{key}"] = value
    benchmarks = [entry for _, doc, _, _ in inputs for entry in doc["benchmarks"]]
    merged = {"context": context, "benchmarks": benchmarks}
    run_from_doc("the merged run", merged)  # what the tools will read must load
    return merged


ROUND = re.compile(r"/round:[0-9]+(?=/|$)")
# The context keys that name a part's own record, replaced by the joined one's.
PART_KEYS = ("round_part", "samples_run_id", "samples_file")
# The parts of one run: one build and one invocation, but for --round-part.
# (Their rounds: each stage's own, checked by stage.)
ONE_RUN_KEYS = ("executable", "git_commit", "cryptobench_version", "cryptobench_suite", "design",
                "build_type", "inject_slower")
# Context keys whose value other than "none" warns (health.header, the
# machine label): a part's warning is the joined run's.
WARNING_KEYS = (CONCURRENT, "cores_usable", "cpu_affinity", "cpu_quota")


def _never_ran(entries, missing, n, rounds):
    """The entries of the rounds of parts that never ran (a run stopped
    between its processes), marked as the binary marks a round an
    interruption skipped, so that the run reads as interrupted: `entries`
    the benchmarks their stage ran, part K of n holding rounds
    (K-1)rounds/n + 1 to K rounds/n."""
    if not missing:
        return []
    first_of = OrderedDict()  # each benchmark's name and first entry (no round, no iterations)
    for e in entries:
        if e.get("run_type", "iteration") == "iteration":
            name = ITERATIONS.sub("", e.get("run_name", e["name"]))
            first_of.setdefault(ROUND.sub("", name), (name, e))
    out = []
    for k in missing:
        for r in range((k - 1) * rounds // n + 1, k * rounds // n + 1):
            for named, e in first_of.values():
                name = ROUND.sub(f"/round:{r}", named, count=1)
                out.append({"name": name, "run_name": name, "run_type": "iteration",
                            "repetitions": e.get("repetitions", 1), "repetition_index": 0,
                            "threads": e.get("threads", 1), "iterations": 0,
                            "error_occurred": True, "error_message": INTERRUPTED})
    return out


def _part_of(path, context):
    """(K, N) of a part's context round_part "K/N" (cryptobench --round-part)."""
    value = context.get("round_part")
    k, _, n = value.partition("/") if isinstance(value, str) else ("", "", "")
    if not (k.isdigit() and n.isdigit() and 1 <= int(k) <= int(n)):
        raise ResultsError(f"{path}: not a part of a run (its context has no round_part K/N: "
                           "made by cryptobench --round-part)")
    return int(k), int(n)


def _record_lines(path, run):
    """A part's per-sample record: (its header, its other lines), or None."""
    from . import sampled  # sampled reads gbench's names: imported late
    context = run.context
    name = context.get("samples_file")
    if name is None:
        return None
    record = sampled.record_path(run, name)
    if record is None:
        raise ResultsError(f"{path}: its per-sample record {shown(str(name), 60)} is not beside it")
    if record.endswith(".xz"):
        raise ResultsError(f"{record}: compressed: join takes the parts as the binary wrote them")
    try:
        sampled.read_record(record, context.get("samples_run_id"))  # checked line by line
    except ResultsError as e:
        if "the record of another run" in str(e):
            raise ResultsError(f"{record}: not the per-sample record of {path} (its run_id "
                               "differs)") from None
        raise
    with open(record, encoding="utf-8") as f:
        lines = f.read().splitlines(keepends=True)
    if lines and not lines[-1].endswith("\n"):
        lines[-1] += "\n"
    return json.loads(lines[0]), lines[1:]


def join_parts(paths, samples_name=None):
    """One run from the parts of a run (cryptobench --round-part=K/N, one
    process each: the rounds of a run spread over processes, each with its
    own memory layout). (the document, the joined per-sample record's text or
    None). Parts are given in any order and joined in round order; the
    rounds of a part that never ran (an interrupted or failed run) are
    marked as an interruption marks them (_never_ran).

    A run may have stages (tools/run-benchmarks' more rounds for the classes
    contention left short of quiet ones, topup.py): stage s of a run of N
    parts and R rounds is parts (s-1)N+1 to sN of sN, of sR rounds (rounds
    (s-1)R+1 to sR), of some of the first stage's benchmarks. The context is
    the first part's, with `processes` (parts joined), `round_parts` and
    `rounds` those of the last stage (a round's process is then found as in
    one run of that many parts and rounds) and `stages` where there are
    several; a value another part differs in is kept as parts.<K>.<key>."""
    if not paths:
        raise ResultsError("join takes the parts of one run")
    parts = {}
    for path in paths:
        doc = parse_json(path, read_text(path))
        run = run_from_doc(path, doc)
        k, n = _part_of(path, doc["context"])
        if k in parts:
            raise ResultsError(f"{path}: part {k} is also {parts[k][0]}: each part once")
        parts[k] = (path, doc, run, n)
    ordered = [parts[k] for k in sorted(parts)]
    first_path, first_doc, first_run, n = min(ordered, key=lambda part: part[3])
    first = first_doc["context"]
    rounds = rounds_of(first_path, first)
    stage_of = {}
    for k, (path, doc, run, their_n) in sorted(parts.items()):
        context = doc["context"]
        stage = their_n // n
        if their_n % n or k <= (stage - 1) * n:
            raise ResultsError(f"{path}: a part of {their_n}, {first_path} of {n}: not one run")
        if rounds_of(path, context) != stage * rounds:
            raise ResultsError(f"{path}: its rounds '{shown(str(context.get('rounds')), 60)}' are "
                               f"not {stage} x {first_path}'s {rounds}: not parts of one run")
        stage_of[k] = stage
        if machine_key(run.context) != machine_key(first_run.context):
            field, theirs, ours = machine_difference(run.context, first_run.context) or ("?",) * 3
            raise ResultsError(f"{path}: another machine than {first_path} ({field} "
                               f"'{shown(str(theirs), 60)}' against '{shown(str(ours), 60)}')")
        for key in ONE_RUN_KEYS:
            if context.get(key) != first.get(key):
                raise ResultsError(f"{path}: its {key} '{shown(str(context.get(key)), 60)}' is "
                                   f"not {first_path}'s: not parts of one run")
    records = [_record_lines(path, run) for path, _, run, _ in ordered]
    if any(r is None for r in records) and any(r is not None for r in records):
        path = ordered[[r is None for r in records].index(True)][0]
        raise ResultsError(f"{path}: has no per-sample record, and other parts have")
    stages = max(stage_of.values())
    context = OrderedDict((k, v) for k, v in first.items() if k not in PART_KEYS)
    context["processes"] = str(len(ordered))
    context["round_parts"] = str(stages * n)
    context["rounds"] = str(stages * rounds)
    if stages > 1:
        context["stages"] = str(stages)
    for (path, doc, _, _), k in zip(ordered, sorted(parts)):
        for key, value in doc["context"].items():
            if key not in PART_KEYS and key not in ("processes", "round_parts", "rounds") and \
                    context.get(key) != value:
                context[f"parts.{k}.{key}"] = value
                # A warning any part raised is the run's (health.header reads it).
                if key in WARNING_KEYS and context.get(key) in (None, "", "none"):
                    context[key] = value
    text = None
    if records[0] is not None:
        if not samples_name:
            raise ResultsError("the parts have per-sample records: name the joined one")
        run_id = os.urandom(8).hex()
        context["samples_run_id"] = run_id
        context["samples_file"] = samples_name
        header = dict(records[0][0], run_id=run_id)
        text = json.dumps(header) + "\n" + "".join(line for _, lines in records for line in lines)
    benchmarks = [e for _, doc, _, _ in ordered for e in doc["benchmarks"]]
    for stage in sorted(set(stage_of.values()) | {1}):
        ran = [e for k, (_, doc, _, _) in sorted(parts.items()) if stage_of[k] == stage
               for e in doc["benchmarks"]]
        missing = [k for k in range((stage - 1) * n + 1, stage * n + 1) if k not in parts]
        benchmarks += _never_ran(ran, missing, stage * n, stage * rounds)
    joined = {"context": context, "benchmarks": benchmarks}
    run_from_doc("the joined run", joined)  # what the tools will read must load
    return joined, text
