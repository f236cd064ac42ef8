"""The fleet answer: one library choice across machines (issue 26).

Input: one run per host, all of one suite and one design (a fleet run made by
tools/run-fleet, or runs made by hand). Each host's run is classified exactly
as `select` classifies it (answer.classify, with the host's own noise floor),
so a host's winner here is the winner its own answer names. Then, per
workload class measured on every host:

- machine types: hosts grouped by CPU model and CPU flags in use (the fields
  `select` and `merge` tell machines apart by, less the host's name and its
  CPU count); a type's winner is the library with the smallest loss, its
  loss being the geometric mean over the type's hosts of best / own score;
- level with the best on a host: the host's winner itself, its runner-up
  when the host's answer calls the two a tie (within the noise floor, not
  significant, or untested), or any library whose loss is within the
  host's noise floor of the class's kind (noise.kind_of);
- the safe choice: a library level with the best on every host; of several,
  the one with the smallest worst-case loss (the largest loss over the
  machine types), said with that loss and the type where it occurs. Where
  no library is level everywhere, the library with the smallest worst-case
  loss is named with the machine type that decides it (where it loses most);
- the share-weighted verdict: each library's time per operation (the
  geometric mean over the class's sizes of its median), weighted by the
  hosts' traffic shares (--weights host=share; default 1 each); the winner,
  its time per operation with a 95% bootstrap interval (every sample list
  resampled on its own), and its margin over the runner-up with its interval;
  a tie when the interval reaches 1.00 or the margin is within the largest
  host noise floor of the class's kind.

Hand-written kernels are never a choice (answer.py), so a kernel that only
some CPUs run does not change the verdict.
"""
import math
import os
import re
from collections import OrderedDict
from dataclasses import dataclass, field

import numpy as np

from . import answer as answers
from . import noise, scenarios, stats
from .gbench import ResultsError, load_run, shown

HOST_NAME = re.compile(r"[A-Za-z0-9][A-Za-z0-9_.-]{0,62}")
TIES = ("noise", "not-significant", "untested")
RESAMPLES = 1000


@dataclass
class Host:
    name: str
    path: str
    run: object
    share: float = 1.0
    share_given: bool = False
    floor: object = None
    results: dict = field(default_factory=dict)  # class key -> answer.ClassResult


@dataclass
class MachineType:
    key: tuple          # (cpu_model, cpu flags in use)
    hosts: list
    label: str = ""     # 'Intel(R) Xeon(R) Processor, avx512f avx512bw avx512vl'

    @property
    def name(self):
        names = [h.name for h in self.hosts]
        return "+".join(names[:3]) + (f"+{len(names) - 3} more" if len(names) > 3 else "")


def design(context):
    """The run's design: rounds (paired) or repetitions (older runs say nothing)."""
    value = context.get("design")
    return value if isinstance(value, str) and value else "repetitions"


def suite(context):
    value = context.get("cryptobench_suite")
    return value if isinstance(value, str) and value else "?"


def cpu_flags(context):
    value = context.get("cpu_flags_in_use", context.get("cpu_flags", ""))
    return value if isinstance(value, str) else ""


def type_key(context):
    return (str(context.get("cpu_model", "?")), cpu_flags(context))


def parse_spec(spec):
    """'[HOST=]RUN.json' -> (host or None, path)."""
    name, sep, path = spec.partition("=")
    if sep and HOST_NAME.fullmatch(name) and path:
        return name, path
    return None, spec


def load_hosts(specs):
    """The hosts of the fleet, one run each, checked: one suite, one design,
    one run per host (by name, by file, and by the run's own host and date)."""
    if not specs:
        raise ResultsError("fleet: no run given")
    hosts, seen_files, seen_runs = OrderedDict(), {}, {}
    for spec in specs:
        name, path = parse_spec(spec)
        run = load_run(path)
        if name is None:
            name = str(run.context.get("host_name") or "")
            if not HOST_NAME.fullmatch(name):
                raise ResultsError(f"fleet: {path}: the run names no usable host "
                                   f"('{shown(name, 40)}'): give it as HOST={path}")
        if name in hosts:
            raise ResultsError(f"fleet: two runs of host {name}: {hosts[name].path} and {path} "
                               "(one run per host; name different machines HOST=RUN.json)")
        real = os.path.realpath(path)
        if real in seen_files:
            raise ResultsError(f"fleet: {path} is given twice (hosts {seen_files[real]} and "
                               f"{name}): one run per host")
        # The same run twice (a copy): the same host, start and figures.
        ident = (run.context.get("host_name"), run.context.get("date"),
                 tuple(tuple(b.samples.get("time_ns") or ()) for b in
                       list(run.benchmarks.values())[:3]))
        if run.context.get("date") and ident in seen_runs:
            raise ResultsError(f"fleet: {path} and {hosts[seen_runs[ident]].path} are the same "
                               f"run (host {shown(str(ident[0]), 40)}, started "
                               f"{shown(str(ident[1]), 40)}): two runs of one host")
        seen_files[real] = name
        seen_runs[ident] = name
        hosts[name] = Host(name, path, run)
    first = next(iter(hosts.values()))
    for h in hosts.values():
        if suite(h.run.context) != suite(first.run.context):
            raise ResultsError(f"fleet: {h.path} is a run of suite {suite(h.run.context)}, "
                               f"{first.path} of suite {suite(first.run.context)}: the fleet "
                               "answer compares one suite")
        if design(h.run.context) != design(first.run.context):
            raise ResultsError(f"fleet: {h.path} is a run of the {design(h.run.context)} design, "
                               f"{first.path} of the {design(first.run.context)} design: the fleet "
                               "answer compares one design")
    return list(hosts.values())


def parse_weights(text, hosts):
    """'a=3,b=1': each host's share of the traffic (every other host keeps 1)."""
    names = {h.name: h for h in hosts}
    for item in (text or "").split(","):
        if not item and text:
            raise ResultsError(f"--weights {shown(text, 80)}: an empty item (give host=share,...)")
        if not item:
            continue
        name, sep, value = item.partition("=")
        try:
            share = float(value)
        except ValueError:
            share = math.nan
        if not sep or not math.isfinite(share) or share < 0:
            raise ResultsError(f"--weights: '{shown(item, 60)}' is not host=share with a share of "
                               "0 or more")
        if name not in names:
            raise ResultsError(f"--weights: no run of host '{shown(name, 60)}' (hosts: "
                               f"{', '.join(names)})")
        if names[name].share_given:
            raise ResultsError(f"--weights: host {name} given twice")
        names[name].share, names[name].share_given = share, True
    if sum(h.share for h in hosts) <= 0:
        raise ResultsError("--weights: every share is 0: give at least one host a share")


def machine_types(hosts):
    groups = OrderedDict()
    for h in hosts:
        key = type_key(h.run.context)
        groups.setdefault(key, MachineType(key, []))
        groups[key].hosts.append(h)
    types = list(groups.values())
    # A type's label: its CPU model, and the flags that tell it from the others.
    all_flags = [set(t.key[1].split()) for t in types]
    common = set.intersection(*all_flags) if all_flags else set()
    for t, flags in zip(types, all_flags):
        own = [f for f in t.key[1].split() if f not in common]
        missing = sorted(set.union(*all_flags) - flags - common) if len(types) > 1 else []
        text = t.key[0]
        if own:
            text += " with " + " ".join(own)
        elif missing:
            text += " without " + " ".join(missing[:4])
        t.label = text
    return types


def op_times(b, sc):
    """A benchmark's samples as time per operation in ns (per thread for
    figures counted per operation, as the answer's own figures are)."""
    xs = [x for x in b.samples.get(sc.metric) or [] if x > 0]
    if sc.metric == "time_ns":
        return xs
    if sc.metric == "bytes_per_second":
        nbytes = int(b.params.get("size", "0")) * int(b.params.get("messages", "1") or 1)
        return [nbytes * 1e9 / x for x in xs] if nbytes > 0 else []
    if sc.metric == "ops_per_ms":
        return [1e6 * b.threads / x for x in xs]
    if sc.metric == "items_per_second":
        return [1e9 * b.threads / x for x in xs]
    return []


@dataclass
class Weighted:
    winner: str = ""
    runner_up: str = ""
    ns: float = math.nan          # the winner's weighted time per operation
    ns_low: float = math.nan
    ns_high: float = math.nan
    margin: float = math.nan      # runner-up's weighted time over the winner's
    low: float = math.nan
    high: float = math.nan
    verdict: str = "single"       # decided, tie, untested, single
    floor: float = math.nan       # the floor it was set against (the largest host's)


@dataclass
class FleetClass:
    key: tuple
    first: object                       # a host's ClassResult (what the class is)
    sizes: list
    winners: list                       # [(MachineType, winner, ClassResult-like summary text)]
    losses: dict                        # library -> {type name: loss}
    level: dict                         # library -> set of type names where it is level
    safe: list                          # [(library, worst loss, type name)] best first
    minimax: tuple = None               # (library, worst loss, its type, the deciding type)
    #                                     when nothing is safe
    weighted: Weighted = None


@dataclass
class FleetAnswer:
    hosts: list
    types: list
    classes: list
    partial: list                       # (class key, first ClassResult, [host names lacking it])
    left_out: list                      # (host, why) the caller left out
    suite: str
    design: str


def level_on(r, backend, loss):
    """Whether the library is level with the best of the host's class result."""
    if backend == r.winner:
        return True
    if backend == r.runner_up and r.verdict in TIES:
        return True
    return r.floor.measured and loss - 1 <= r.floor.value


def weighted_verdict(hosts, key, libs, sizes, floor, rng):
    """The share-weighted time per operation of each library, and the verdict."""
    total = sum(h.share for h in hosts)
    times = {}   # library -> [(weight, [sample list per size])]
    for lib in libs:
        parts = []
        for h in hosts:
            if h.share <= 0:
                continue
            members = h.results[key].members.get(lib, {})
            lists = []
            for s in sizes:
                b = members.get(s)
                xs = op_times(b, scenarios.of(b)) if b is not None else []
                if not xs:
                    break
                lists.append(np.asarray(xs, dtype=float))
            if len(lists) != len(sizes):
                parts = None
                break
            parts.append((h.share / total, lists))
        if parts:
            times[lib] = parts

    def point(parts):
        return sum(w * math.exp(np.mean([math.log(np.median(x)) for x in lists]))
                   for w, lists in parts)

    w = Weighted(floor=floor)
    if not times:
        return w
    ranked = sorted(times, key=lambda lib: point(times[lib]))
    w.winner, w.ns = ranked[0], point(times[ranked[0]])

    def boot(parts):
        """RESAMPLES resampled weighted times (None when a sample list has fewer than 2)."""
        total_t = np.zeros(RESAMPLES)
        for weight, lists in parts:
            logs = np.zeros(RESAMPLES)
            for x in lists:
                if len(x) < 2:
                    return None
                idx = rng.integers(0, len(x), size=(RESAMPLES, len(x)))
                logs += np.log(np.median(x[idx], axis=1))
            total_t += weight * np.exp(logs / len(lists))
        return total_t

    bw = boot(times[w.winner])
    if bw is not None:
        w.ns_low, w.ns_high = (float(v) for v in np.percentile(bw, [2.5, 97.5]))
    if len(ranked) < 2:
        return w
    w.runner_up = ranked[1]
    w.margin = point(times[w.runner_up]) / w.ns
    br = boot(times[w.runner_up])
    if bw is None or br is None:
        w.verdict = "untested"
        return w
    w.low, w.high = (float(v) for v in np.percentile(br / bw, [2.5, 97.5]))
    if w.low <= 1 or (not math.isnan(floor) and w.margin - 1 <= floor):
        w.verdict = "tie"
    else:
        w.verdict = "decided"
    return w


def fleet(hosts, alpha=0.05, left_out=()):
    """The fleet answer over the hosts (load_hosts, parse_weights)."""
    for h in hosts:
        h.floor = noise.noise_floor(h.run, within="margins")  # as answer.py
        h.results = OrderedDict((answers.result_key(r), r)
                                for r in answers.classify(h.run, h.floor, alpha))
    types = machine_types(hosts)
    keys = OrderedDict()
    for h in hosts:
        for k, r in h.results.items():
            keys.setdefault(k, r)
    classes, partial = [], []
    rng = np.random.default_rng(stats.SEED)
    for key, first in keys.items():
        lacking = [h.name for h in hosts if key not in h.results]
        if lacking:
            partial.append((key, first, lacking))
            continue
        libs = OrderedDict()
        for h in hosts:
            for b, _ in h.results[key].ranking:
                libs.setdefault(b, None)
        losses, level = OrderedDict(), OrderedDict()
        for lib in libs:
            per_type, level_types = {}, set()
            for t in types:
                host_losses, all_level = [], True
                for h in t.hosts:
                    r = h.results[key]
                    scores = dict(r.ranking)
                    if lib not in scores:
                        host_losses = None
                        break
                    best = r.ranking[0][1]
                    loss = best / scores[lib] if r.scenario.higher_is_better else scores[lib] / best
                    host_losses.append(loss)
                    all_level = all_level and level_on(r, lib, loss)
                if host_losses is None:
                    continue
                per_type[t.name] = stats.geometric_mean(host_losses)
                if all_level:
                    level_types.add(t.name)
            losses[lib], level[lib] = per_type, level_types
        winners = []
        for t in types:
            best = min((lib for lib in libs if t.name in losses[lib]),
                       key=lambda lib: losses[lib][t.name])
            winners.append((t, best, type_text(t, key, best)))
        everywhere = [lib for lib in libs if len(losses[lib]) == len(types)]
        worst = {lib: max(((v, n) for n, v in losses[lib].items()), key=lambda x: x[0])
                 for lib in everywhere}
        safe = sorted(((lib, worst[lib][0], worst[lib][1]) for lib in everywhere
                       if len(level[lib]) == len(types)), key=lambda x: x[1])
        minimax = None
        if not safe and everywhere:
            lib = min(everywhere, key=lambda x: worst[x][0])
            # The machine that decides it: where that library is not level and loses most.
            deciding = max((t.name for t in types if t.name not in level[lib]),
                           key=lambda name: losses[lib][name])
            minimax = (lib, worst[lib][0], worst[lib][1], deciding)
        sizes = sorted(set.intersection(*(set(h.results[key].sizes) for h in hosts)))
        fc = FleetClass(key, first, sizes, winners, losses, level, safe, minimax)
        # The class's kind of workload on each host (noise.kind_of), the largest.
        kind_floors = [h.results[key].floor.value for h in hosts if h.share > 0]
        kind_floor = math.nan if any(math.isnan(f) for f in kind_floors) else max(kind_floors)
        fc.weighted = weighted_verdict(hosts, key, everywhere, sizes, kind_floor, rng) \
            if sizes else Weighted()
        classes.append(fc)
    return FleetAnswer(hosts, types, classes, partial, list(left_out),
                       suite(hosts[0].run.context), design(hosts[0].run.context))


def type_text(t, key, best):
    """'ipsecmb, 1.45x over gcrypt' or 'ipsecmb and vaes tie (within the floor)' for a type."""
    if len(t.hosts) > 1:
        agree = all(h.results[key].winner == best and h.results[key].verdict == "decided"
                    for h in t.hosts)
        return best if agree else f"{best} (not decided on every host of the type)"
    r = t.hosts[0].results[key]
    if r.verdict == "single":
        return f"{best} (the only library)"
    if r.verdict == "decided":
        return f"{best}, {r.margin:.2f}x over {r.runner_up}"
    why = {"noise": "within the noise floor", "not-significant": "not significant",
           "untested": f"untested: {r.untested_why or 'too few repetitions'}"}[r.verdict]
    return f"{best}, a tie with {r.runner_up} ({r.margin:.2f}x, {why})"


def class_text(r):
    sentence = answers.Sentence(r.fixed, [r], sorted(r.sizes))
    return answers.workload_text(sentence)


def floor_text(h):
    """'2.2% (grid at 1 thread), 8.0% (seed000 at 1 thread)': each kind's, as select says it."""
    if not h.floor.measured:
        return "not measured"
    if len(h.floor.kinds) > 1:
        return ", ".join(f"{100 * f.value:.1f}% ({noise.kind_text(k)})"
                         + (" (no lower than the host's over all pairs)"
                            if k in h.floor.pooled else "")
                         for k, f in sorted(h.floor.kinds.items()))
    return f"{100 * h.floor.value:.1f}%"


def ns_text(x):
    return "-" if math.isnan(x) else (f"{x:,.0f}" if x >= 100 else f"{x:.3g}")


def safe_text(fc, types):
    if fc.safe:
        lib, loss, where = fc.safe[0]
        text = f"{lib}, " + ("the best on every machine type" if loss <= 1.0 + 1e-12 else
                             f"worst-case loss {loss:.2f}x (on {where})")
        others = [s[0] for s in fc.safe[1:]]
        if others:
            text += f"; also level everywhere: {', '.join(others)}"
        return text
    if fc.minimax is None:
        return "none: no library was measured on every machine type"
    lib, loss, where, deciding = fc.minimax
    best_there = next(w for t, w, _ in fc.winners if t.name == deciding)
    text = (f"none is level with the best everywhere: {deciding} decides it ({best_there} leads "
            f"there, {lib} {fc.losses[lib][deciding]:.2f}x behind); the smallest worst-case loss "
            f"is {lib}'s, {loss:.2f}x on {where}")
    return text


def weighted_text(w):
    if not w.winner:
        return "not made (no library with figures on every host that has a share)"
    head = f"{w.winner} at {ns_text(w.ns)} ns/op"
    if not math.isnan(w.ns_low):
        head += f" [{ns_text(w.ns_low)}, {ns_text(w.ns_high)}]"
    if w.verdict == "single":
        return head + " (the only library)"
    interval = "" if math.isnan(w.low) else f" [{w.low:.2f}, {w.high:.2f}]"
    if w.verdict == "decided":
        return head + f", {w.margin:.2f}x{interval} over {w.runner_up}"
    if w.verdict == "untested":
        return head + f", {w.margin:.2f}x over {w.runner_up}, untested (too few repetitions)"
    why = ("the interval reaches 1.00" if math.isnan(w.low) or w.low <= 1
           else f"within the {100 * w.floor:.1f}% noise floor, the largest host's")
    return head + f", a tie with {w.runner_up} ({w.margin:.2f}x{interval}: {why})"


def header_lines(fa):
    lines = [f"== Which AES library across the fleet: {len(fa.hosts)} host"
             f"{'s' if len(fa.hosts) > 1 else ''}, {len(fa.types)} machine type"
             f"{'s' if len(fa.types) > 1 else ''}; suite {fa.suite}, {fa.design} design"]
    for t in fa.types:
        hosts = ", ".join(f"{h.name} (share {h.share:g}; noise floor {floor_text(h)}; "
                          f"{h.run.repetitions} repetition{'' if h.run.repetitions == 1 else 's'})"
                          for h in t.hosts)
        lines.append(f"   {t.name}: {t.label}: {hosts}")
    for host, why in fa.left_out:
        lines.append(f"   LEFT OUT: host {host}: {why}")
    for h in fa.hosts:
        header = answers.health.header(h.run)
        header += answers.untested_for_contention(list(h.results.values()), h.run.context,
                                                  header, "classes")
        lines += [f"   {h.name}: {line}" for line in header]
    return lines


def render_console(fa):
    lines = header_lines(fa)
    lines += ["", "Per workload: the winner on each machine type; the safe choice (level with "
              "the best on every machine: the winner, a tie, or within the host's noise floor) "
              "and its worst-case loss; the share-weighted verdict (time per operation weighted "
              "by the hosts' shares [95% interval])"]
    for fc in fa.classes:
        lines.append(f"  {class_text(fc.first)}:")
        lines.append("    winners: " + "; ".join(f"{t.name}: {text}"
                                                 for t, _, text in fc.winners))
        lines.append(f"    safe: {safe_text(fc, fa.types)}")
        lines.append(f"    weighted: {weighted_text(fc.weighted)}")
    if fa.partial:
        lines += ["", f"Not compared ({len(fa.partial)} workload class"
                      f"{'es' if len(fa.partial) > 1 else ''} ranked on some hosts only):"]
        for key, r, lacking in fa.partial[:8]:
            lines.append(f"  {class_text(r)}: not ranked on {', '.join(lacking)}")
        if len(fa.partial) > 8:
            lines.append(f"  ... and {len(fa.partial) - 8} more")
    if not fa.classes:
        lines += ["", "No workload class was ranked on every host."]
    return lines


def render_html(fa):
    """The fleet answer as the report's first section."""
    from html import escape
    rows = []
    for fc in fa.classes:
        winners = "<br>".join(f"{escape(t.name)}: {escape(text)}" for t, _, text in fc.winners)
        rows.append(f"<tr><td class='l'>{escape(class_text(fc.first))}</td>"
                    f"<td class='l'>{winners}</td><td class='l'>{escape(safe_text(fc, fa.types))}"
                    f"</td><td class='l'>{escape(weighted_text(fc.weighted))}</td></tr>")
    head = "".join(f"<p class='note'>{escape(line.strip())}</p>" for line in header_lines(fa))
    partial = ""
    if fa.partial:
        partial = ("<p class='note'>Not compared (ranked on some hosts only): " + escape("; ".join(
            f"{class_text(r)} (not on {', '.join(lacking)})" for _, r, lacking in fa.partial))
            + "</p>")
    return ("<section id='fleet'><h2>Across the fleet</h2>" + head +
            "<table class='answer'><tr><th class='l'>workload</th><th class='l'>winner per "
            "machine type</th><th class='l'>safe choice (worst-case loss)</th><th class='l'>"
            "share-weighted verdict</th></tr>" + "".join(rows) + "</table>" + partial +
            "</section>")
