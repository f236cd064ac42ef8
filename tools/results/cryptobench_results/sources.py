"""Where a run's benchmarks were measured, and what each backend's figures
carry with them.

A merged run (merge.py) records every run it joined as sources.N.*: path,
date, executable, backends, repetitions_interleaved. A run that is not
merged is its one source. From these:
- separate(context, a, b): two backends' figures come from different runs
  (measured minutes apart, so the machine's drift between the runs is in
  their margin, and no noise floor measured inside one run covers it). A
  backend that several merged runs measured counts as separate from any
  other backend, since its benchmarks cannot be told apart by run.
- interleaved(context, backend): whether its run interleaved the
  repetitions across benchmarks (True), ran them back to back (False), or
  did not say (None: runs made before the key existed).
- caveats(context, backend, params): the backend's caveats that apply to a
  benchmark: backend.<name>.caveat (every benchmark) and
  backend.<name>.caveat.<param>=<value> (the benchmarks with that parameter
  value, e.g. caveat.key=per-op), as the run that measured it wrote them.
"""
from dataclasses import dataclass


@dataclass(frozen=True)
class Source:
    number: int
    backends: tuple
    interleaved: object  # True, False or None (not said)


def _interleaved(value):
    return {"true": True, "false": False}.get(str(value).strip().lower())


def sources(context):
    """The run's sources, in order: sources.N.* of a merged run, else the
    run itself (backends None: all of them)."""
    count = context.get("sources")
    if isinstance(count, str) and count.isdigit() and int(count) > 0:
        out = []
        for n in range(1, int(count) + 1):
            backends = str(context.get(f"sources.{n}.backends", ""))
            out.append(Source(n, tuple(b for b in backends.split(",") if b),
                              _interleaved(context.get(f"sources.{n}.repetitions_interleaved"))))
        return out
    return [Source(1, None, _interleaved(context.get("repetitions_interleaved")))]


def of_backend(context, backend):
    """The numbers of the sources that measured the backend."""
    return {s.number for s in sources(context) if s.backends is None or backend in s.backends}


def separate(context, a, b):
    """Whether backends a and b were measured in different runs."""
    if len(sources(context)) < 2:
        return False
    first, second = of_backend(context, a), of_backend(context, b)
    return not (len(first) == 1 and first == second)


def interleaved(context, backend):
    """True, False or None for the run(s) that measured the backend (False
    only when every one of them ran its repetitions back to back)."""
    values = [s.interleaved for s in sources(context)
              if s.backends is None or backend in s.backends]
    if values and all(v is False for v in values):
        return False
    if any(v is True for v in values):
        return True
    return None


def caveats(context, backend, params):
    """The backend's caveats that apply to a benchmark with `params` (a
    {key: value} of its name), in the context's order."""
    prefix = f"backend.{backend}.caveat"
    out = []
    for key, value in context.items():
        if not isinstance(key, str) or not isinstance(value, str) or not value.strip():
            continue
        if key == prefix:
            out.append(value.strip())
        elif key.startswith(prefix + "."):
            param, sep, wanted = key[len(prefix) + 1:].partition("=")
            if sep and params.get(param) == wanted:
                out.append(value.strip())
    return out
