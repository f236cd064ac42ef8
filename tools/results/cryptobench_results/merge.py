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
from collections import OrderedDict

from .answer import machine_key
from .gbench import ResultsError, parse_json, read_text, run_from_doc, shown

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
