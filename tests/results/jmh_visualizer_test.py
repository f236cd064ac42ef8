#!/usr/bin/python3
"""jmh_visualizer_test.py: loads cryptobench's JMH export into the real JMH
Visualizer 0.9.6 (the site jmh.morethan.io serves) in Debian's headless
Chromium, the way a user loads a file, and fails on what a user would see go
wrong.

usage: jmh_visualizer_test.py VISUALIZER_DIR RUN BASE NEW

RUN, BASE and NEW are raw cryptobench runs (.json or .json.xz), exported here
with today's `cryptobench-results jmh`: RUN is loaded on its own, BASE and NEW
together (the visualizer's two-run comparison, Summary then Compare).

How a file gets in: the visualizer's README says a user opens index.html over
HTTP (the app does not work from file://) and hands the file to the drop
zone's <input type="file">, the same FileReader, JSON.parse and React path as
a drag and drop. So the unmodified site (its files checked against the
README's hashes) is served on 127.0.0.1 by an in-process http.server, Chromium
is driven over the DevTools protocol on --remote-debugging-pipe (standard
library only: no port, no websocket), and DOM.setFileInputFiles gives the
exported files to that input. Every other host resolves to nothing.

A page fails on: an alert() (how the visualizer rejects a file), a console
error or an uncaught exception (an SVG attribute of NaN is one), "NaN" or
"undefined" in the visible text or in any attribute, a class count other
than the export's, a benchmark class without a chart, a bar without its
label, and an allocation metric missing from the metric drop-down. Each
metric of the drop-down is selected in turn and the page checked again.

A check that passes a page which never rendered proves nothing, so the same
checks must also fail on broken copies of RUN's export (a score of "NaN", no
allocation metric, a metric on one result only, a missing scoreUnit, a
truncated file, a top-level object).

A limit of the visualizer, not of the export: its Compare view divides by a
run's score, so a metric that is 0 in a run (no allocations with pooled
buffers) draws "NaN" bars. Those metrics are checked in the Summary view and
skipped in the Compare view, with a note.

Exit status: 0 pass, 1 fail, 77 skipped (no visualizer at VISUALIZER_DIR).
"""
import contextlib
import fcntl
import functools
import hashlib
import http.server
import json
import os
import re
import select
import signal
import subprocess
import sys
import tempfile
import threading
import time

HERE = os.path.dirname(os.path.abspath(__file__))
CLI = os.path.join(os.path.dirname(os.path.dirname(HERE)), "tools", "results", "cryptobench-results")

# jmh.py's names for allocations per operation; both must reach the drop-down,
# which offers only keys starting with U+00B7.
ALLOCATION_METRICS = ("·gc.alloc.rate.norm", "·allocs.per.op")

# From the visualizer's README: the stock 0.9.6 files, provided.js without data.
SITE_SHA256 = {
    "bundle.js": "51bc421b3f87f5553181176cdafab15111c645b53042644ec6b490fcefbfefb9",
    "index.html": "b1a2cecb9323c319b68e1dad7a6d385a554620e1755d6e6b3aa9203feef9da96",
    "provided.js": "c9efb72472cde3260107488a9e18f4cc318be03133b5e00d51c06454020c7135",
    "settings.js": "2fadffe852787739f9d84b69e983fbe21824028ed0efbd3b0e0951aa2f30364f",
}

CHROMIUM_FLAGS = ["--headless", "--no-sandbox", "--disable-gpu", "--disable-quic", "--no-first-run",
                  "--disable-background-networking", "--disable-component-update", "--disable-sync",
                  "--remote-debugging-pipe",
                  # Nothing leaves the machine: names other than 127.0.0.1 do not resolve, and
                  # addresses go to a proxy that is not there (loopback bypasses proxies).
                  "--host-resolver-rules=MAP * ~NOTFOUND, EXCLUDE 127.0.0.1", "--proxy-server=127.0.0.1:9"]

# Seconds for any one thing the page should do: generous, the machine is shared.
WAIT = 30

# What the visualizer prints above the charts, per view.
SINGLE_HEADING = r"(\d+) different benchmark classes for single run '(.*)' and metric '(.*)' detected!"
SUMMARY_HEADING = r"Comparing (\d+) results out of (\d+) benchmark classes for '(.*)' and '(.*)' on metric '(.*)'\."
COMPARE_HEADING = r"Comparing (\d+) benchmark classes for '(.*)' and '(.*)' on metric '(.*)'\."

# The page's state in one call: NaN/undefined anywhere a user can see it (the
# hidden "Show JSON" panels are left out, innerText skips them), the metric
# drop-down, and per class section its charts and bar labels.
INSPECT_JS = r"""(() => {
  const bad = /\b(NaN|undefined)\b/;
  const text = document.body.innerText;
  const found = text.split("\n").filter(line => bad.test(line)).map(line => "text: " + line.trim());
  for (const el of document.body.querySelectorAll("*"))
    for (const a of el.attributes)
      if (bad.test(a.value)) found.push(`<${el.localName} ${a.name}="${a.value.slice(0, 80)}">`);
  const select = document.querySelector("select");
  return {
    found: found,
    metrics: select ? Array.from(select.options).map(o => o.value) : [],
    sections: Array.from(document.querySelectorAll("div[name]")).map(s => ({
      key: s.getAttribute("name"),
      charts: s.querySelectorAll(".recharts-wrapper").length,
      labels: s.querySelectorAll(".recharts-bar-label").length})),
  };
})()"""


class DevToolsError(Exception):
    pass


class Chromium:
    """Headless Chromium on --remote-debugging-pipe: DevTools commands go in
    on its fd 3 and replies and events come out on its fd 4, each one JSON
    message ended by a NUL."""

    def __init__(self, profile_dir, log_path):
        commands_r, self._commands = os.pipe()
        self._replies, replies_w = os.pipe()
        # Both ends moved above 4, so that the dup2s onto 3 and 4 cannot clobber each other.
        child_in = fcntl.fcntl(commands_r, fcntl.F_DUPFD_CLOEXEC, 10)
        child_out = fcntl.fcntl(replies_w, fcntl.F_DUPFD_CLOEXEC, 10)
        os.close(commands_r)
        os.close(replies_w)
        args = ["chromium", *CHROMIUM_FLAGS, f"--user-data-dir={profile_dir}", "about:blank"]
        try:
            # A session of its own: its renderers share its process group, stopped by its PID.
            self.pid = os.posix_spawnp(args[0], args, os.environ, setsid=True, file_actions=[
                (os.POSIX_SPAWN_OPEN, 0, os.devnull, os.O_RDONLY, 0),
                (os.POSIX_SPAWN_OPEN, 1, log_path, os.O_WRONLY | os.O_CREAT | os.O_TRUNC, 0o600),
                (os.POSIX_SPAWN_DUP2, 1, 2),
                (os.POSIX_SPAWN_DUP2, child_in, 3),
                (os.POSIX_SPAWN_DUP2, child_out, 4)])
        finally:
            os.close(child_in)
            os.close(child_out)
        self._buffer = b""
        self._last_id = 0
        self.listeners = {}  # DevTools session id -> function taking an event

    def post(self, method, params=None, session=None):
        """Sends a command without waiting for its reply (the reply is dropped)."""
        self._last_id += 1
        message = {"id": self._last_id, "method": method, "params": params or {}}
        if session:
            message["sessionId"] = session
        data = json.dumps(message).encode() + b"\0"
        while data:
            data = data[os.write(self._commands, data):]
        return self._last_id

    def send(self, method, params=None, session=None, timeout=WAIT):
        """Sends a command and returns its result; events that arrive
        meanwhile go to their session's listener."""
        command_id = self.post(method, params, session)
        deadline = time.monotonic() + timeout
        while True:
            message = self._receive(deadline)
            if message is None:
                raise DevToolsError(f"{method}: no reply in {timeout} s")
            if message.get("id") == command_id:
                if "error" in message:
                    raise DevToolsError(f"{method}: {message['error'].get('message')}")
                return message.get("result", {})
            self._dispatch(message)

    def pump(self, seconds):
        """Delivers events for a while (the page animates its charts)."""
        deadline = time.monotonic() + seconds
        while (message := self._receive(deadline)) is not None:
            self._dispatch(message)

    def _receive(self, deadline):
        while b"\0" not in self._buffer:
            left = deadline - time.monotonic()
            if left <= 0 or not select.select([self._replies], [], [], left)[0]:
                return None
            chunk = os.read(self._replies, 1 << 20)
            if not chunk:
                raise DevToolsError("Chromium closed the DevTools pipe (crashed?)")
            self._buffer += chunk
        message, self._buffer = self._buffer.split(b"\0", 1)
        return json.loads(message)

    def _dispatch(self, message):
        listener = self.listeners.get(message.get("sessionId"))
        if listener and "method" in message:
            listener(message["method"], message.get("params", {}))

    def _exited(self, seconds):
        deadline = time.monotonic() + seconds
        while time.monotonic() < deadline:
            if os.waitpid(self.pid, os.WNOHANG)[0]:
                return True
            time.sleep(0.1)
        return False

    def close(self):
        """Browser.close, then SIGTERM, then SIGKILL to its process group,
        each with a bounded wait."""
        with contextlib.suppress(OSError):
            self.post("Browser.close")
        for sig in (signal.SIGTERM, signal.SIGKILL):
            if self._exited(10):
                break
            with contextlib.suppress(ProcessLookupError):
                os.killpg(self.pid, sig)
        else:
            self._exited(10)
        # A renderer can outlive the browser process for a moment: its group goes too.
        with contextlib.suppress(ProcessLookupError):
            os.killpg(self.pid, signal.SIGKILL)
        os.close(self._commands)
        os.close(self._replies)


class Page:
    """One tab of the visualizer: collects what it would have shown a user
    going wrong (dialogs, console errors, exceptions) under the current
    `context`, the view being checked."""

    def __init__(self, browser, url):
        self.browser = browser
        self.problems = []
        self.gave_up = False  # a dialog or an uncaught exception: nothing more will render
        self.context = "loading"
        self.target = browser.send("Target.createTarget", {"url": "about:blank"})["targetId"]
        self.session = browser.send("Target.attachToTarget",
                                    {"targetId": self.target, "flatten": True})["sessionId"]
        browser.listeners[self.session] = self._on_event
        for domain in ("Page", "Runtime", "Log"):
            self.send(f"{domain}.enable")
        self.send("Page.navigate", {"url": url})

    def send(self, method, params=None):
        return self.browser.send(method, params, self.session)

    def problem(self, text):
        self.problems.append(f"[{self.context}] {text}")

    def _on_event(self, method, params):
        if method == "Page.javascriptDialogOpening":
            self.problem(f"{params['type']}() dialog: {params['message']}")
            self.gave_up = True
            # Answered at once: an open dialog blocks the page's JavaScript.
            self.browser.post("Page.handleJavaScriptDialog", {"accept": True}, self.session)
        elif method == "Runtime.consoleAPICalled" and params["type"] in ("error", "assert"):
            text = " ".join(str(a.get("value", a.get("description", ""))) for a in params["args"])
            self.problem(f"console.{params['type']}: {text}")
        elif method == "Runtime.exceptionThrown":
            details = params["exceptionDetails"]
            self.problem("uncaught exception: " + details.get("exception", {}).get("description", details["text"]))
            self.gave_up = True
        elif method == "Log.entryAdded" and params["entry"]["level"] == "error":
            entry = params["entry"]
            self.problem(f"console error ({entry['source']}): {entry['text']}")

    def evaluate(self, expression):
        result = self.send("Runtime.evaluate", {"expression": expression, "returnByValue": True})
        if "exceptionDetails" in result:
            raise DevToolsError(f"evaluating {expression[:60]!r}: {result['exceptionDetails']['text']}")
        return result["result"].get("value")

    def wait_for(self, expression, timeout=WAIT):
        """The expression's value once it is truthy; None on timeout or
        once the page gave up."""
        deadline = time.monotonic() + timeout
        while time.monotonic() < deadline:
            value = self.evaluate(expression)
            if value or self.gave_up:
                return value or None
            self.browser.pump(0.2)
        return None

    def heading(self, pattern, metric, timeout=WAIT):
        """The view's heading once it names `metric` (None: any metric), as
        the regular expression's groups; None if it never appears."""
        return self.wait_for(f"""(() => {{
            const m = document.body.innerText.match(new RegExp({json.dumps(pattern)}));
            const metric = {json.dumps(metric)};
            return m && (metric === null || m[m.length - 1] === metric) ? m.slice(1) : null;
        }})()""", timeout)

    def select_metric(self, metric):
        """Picks a metric in the drop-down, as a user's choice does: the
        select's value, then its change event."""
        self.evaluate(f"(s => {{ s.value = {json.dumps(metric)};"
                      " s.dispatchEvent(new Event('change', {bubbles: true})); })(document.querySelector('select'))")

    def close(self):
        self.browser.listeners.pop(self.session, None)
        with contextlib.suppress(DevToolsError):
            self.browser.send("Target.closeTarget", {"targetId": self.target})


def load(browser, url, paths):
    """A fresh tab on the visualizer with `paths` given to the drop zone's
    file input, the input a drag and drop fills."""
    page = Page(browser, url)
    if not page.wait_for("!!document.querySelector('div.container-fluid > input[type=file]')"):
        page.problem("the upload screen never appeared")
        return page
    input_object = page.send("Runtime.evaluate", {
        "expression": "document.querySelector('div.container-fluid > input[type=file]')"})["result"]["objectId"]
    page.send("DOM.setFileInputFiles", {"objectId": input_object, "files": [os.path.abspath(p) for p in paths]})
    return page


def result_key(result):
    """(class, key) as the visualizer groups results: the class is the
    benchmark name up to its last dot, the key within it the method and its
    params; runs are matched on both."""
    cls, method = result["benchmark"].rsplit(".", 1)
    return cls, " ".join([method] + [f"{k}={v}" for k, v in result.get("params", {}).items()])


def classes(results, metric="Score"):
    """{class: [key, ...]} of a run; for a secondary metric, the classes whose
    results carry it (the export puts a metric on every result of a class or
    on none, and the visualizer leaves a class without it off the page)."""
    grouped = {}
    for r in results:
        if metric != "Score" and not any(metric in o["secondaryMetrics"] for o in results
                                         if result_key(o)[0] == result_key(r)[0]):
            continue
        cls, key = result_key(r)
        grouped.setdefault(cls, []).append(key)
    return grouped


def scores(results, metric):
    """{(class, key): score} of one metric ("Score" is the primary metric)."""
    found = {}
    for r in results:
        m = r["primaryMetric"] if metric == "Score" else r["secondaryMetrics"].get(metric)
        if m is not None:
            found[result_key(r)] = m["score"]
    return found


def check_sections(page, expected):
    """Every class has its section; every class with results a chart, with
    one bar label per result (expected: {class: [result key, ...]})."""
    total = sum(len(keys) for keys in expected.values())
    # Recharts draws the bar labels when its animation ends.
    page.wait_for(f"document.querySelectorAll('div[name] .recharts-bar-label').length >= {total}")
    state = page.evaluate(INSPECT_JS)
    for found in sorted(set(state["found"])):
        page.problem(f"NaN/undefined on the page: {found}")
    sections = {s["key"]: s for s in state["sections"]}
    for cls, keys in expected.items():
        section = sections.get(cls)
        if section is None:
            page.problem(f"class {cls} is not on the page")
        elif keys and not section["charts"]:
            page.problem(f"class {cls} has no chart")
        elif section["labels"] != len(keys):
            page.problem(f"class {cls}: {section['labels']} labelled bars for {len(keys)} results")
    for cls in sections.keys() - expected.keys():
        page.problem(f"class {cls} is on the page but not in the export")


def check_metric_menu(page, results):
    """The drop-down offers the allocation metrics (bytes per op always;
    allocations per op when a class has them: a runtime that counts bytes
    only, the JVM, leaves them off its classes) and every other dotted
    secondary metric of the export; returns what it offers."""
    metrics = page.evaluate(INSPECT_JS)["metrics"]
    exported = {k for r in results for k in r["secondaryMetrics"]}
    counted_somewhere = any(all(ALLOCATION_METRICS[1] in r["secondaryMetrics"] for r in results
                                if result_key(r)[0] == cls) for cls in classes(results))
    for metric in ALLOCATION_METRICS[:1] + (ALLOCATION_METRICS[1:] if counted_somewhere else ()):
        if metric not in metrics:
            page.problem(f"allocation metric {metric} missing from the metric drop-down (it offers {metrics})"
                         + ("" if metric in exported else "; the export has no such metric"))
    for metric in sorted(k for k in exported if k.startswith("·") and k not in ALLOCATION_METRICS):
        if metric not in metrics:
            page.problem(f"metric {metric} missing from the metric drop-down (it offers {metrics})")
    return metrics


def check_single(browser, url, path, results):
    """What a user sees loading one run: for each metric, one chart per
    class, every bar labelled, nothing broken."""
    page = load(browser, url, [path])
    try:
        expected = classes(results)
        page.context = "single run"
        heading = page.heading(SINGLE_HEADING, None)
        if not heading:
            page.problem("the page never listed the benchmark classes (blank page or upload screen)")
            return page.problems, []
        if int(heading[0]) != len(expected):
            page.problem(f"the page counts {heading[0]} benchmark classes, the export has {len(expected)}")
        metrics = check_metric_menu(page, results)
        for metric in metrics:
            page.context = f"single run, metric {metric}"
            if metric != heading[2]:
                page.select_metric(metric)
                if not page.heading(SINGLE_HEADING, metric):
                    page.problem("the page never switched to the metric")
                    continue
            check_sections(page, classes(results, metric))
        return page.problems, metrics
    finally:
        page.close()


def check_two(browser, url, paths, runs):
    """What a user sees loading two runs at once: the Summary for every
    metric, then the Compare view's one chart per class with a bar per
    result in both runs."""
    base, new = runs
    base_classes, new_classes = classes(base), classes(new)
    shared = {cls: [k for k in base_classes.get(cls, []) if k in new_classes.get(cls, [])]
              for cls in base_classes.keys() | new_classes.keys()}
    page = load(browser, url, paths)
    notes = []
    try:
        page.context = "two runs, Summary"
        heading = page.heading(SUMMARY_HEADING, None)
        if not heading:
            page.problem("the Summary never appeared (blank page or upload screen)")
            return page.problems, notes
        compared = sum(len(keys) for keys in shared.values())
        if int(heading[0]) != compared:
            page.problem(f"the Summary compares {heading[0]} results, the runs share {compared}")
        metrics = check_metric_menu(page, base + new)
        for metric in metrics:
            page.context = f"two runs, Summary, metric {metric}"
            page.select_metric(metric)
            if not page.heading(SUMMARY_HEADING, metric):
                page.problem("the Summary never switched to the metric")
                continue
            page.browser.pump(1)  # its gauge and histogram animate
            for found in sorted(set(page.evaluate(INSPECT_JS)["found"])):
                page.problem(f"NaN/undefined on the page: {found}")

        page.context = "two runs, Compare"
        page.evaluate("Array.from(document.querySelectorAll('a[role=menuitem]'))"
                      ".find(a => a.textContent.trim() === 'Compare').click()")
        if not page.heading(COMPARE_HEADING, metrics[-1] if metrics else None):
            page.problem("the Compare view never appeared")
            return page.problems, notes
        for metric in metrics:
            page.context = f"two runs, Compare, metric {metric}"
            base_scores, new_scores = scores(base, metric), scores(new, metric)
            zero = [key for key in base_scores.keys() & new_scores.keys() if not base_scores[key] or not new_scores[key]]
            if zero:
                notes.append(f"Compare view, metric {metric}: not checked, the visualizer divides by a score "
                             f"that is 0 for {len(zero)} of the compared results")
                continue
            page.select_metric(metric)
            if not page.heading(COMPARE_HEADING, metric):
                page.problem("the Compare view never switched to the metric")
                continue
            with_metric = classes(base + new, metric)
            check_sections(page, {cls: keys for cls, keys in shared.items() if cls in with_metric})
        return page.problems, notes
    finally:
        page.close()


def broken_copies(results, folder):
    """Broken variants of an export, each with the problem the checks must
    report: [(name, path, results to expect, regular expression)]."""
    def variant(name, change):
        copy = json.loads(json.dumps(results))
        change(copy)
        path = os.path.join(folder, f"broken-{name}.json")
        with open(path, "w", encoding="utf-8") as f:
            json.dump(copy, f, ensure_ascii=False)
        return name, path, copy

    def score_nan(rs):
        rs[0]["primaryMetric"]["score"] = "NaN"

    def no_allocation_metric(rs):
        for r in rs:
            r["secondaryMetrics"].pop(ALLOCATION_METRICS[0], None)

    def metric_on_one_result(rs):
        keep = next((r for r in rs if ALLOCATION_METRICS[1] in r["secondaryMetrics"]), None)
        for r in rs:
            if r is not keep:
                r["secondaryMetrics"].pop(ALLOCATION_METRICS[1], None)

    def no_score_unit(rs):
        rs[0]["primaryMetric"].pop("scoreUnit", None)

    cases = [(*variant("score-nan", score_nan), r"NaN"),
             (*variant("no-allocation-metric", no_allocation_metric),
              r"allocation metric .* missing from the metric drop-down"),
             (*variant("metric-on-one-result", metric_on_one_result), r"NaN"),
             (*variant("no-score-unit", no_score_unit), r"NaN/undefined on the page: text: .*undefined")]
    truncated = os.path.join(folder, "broken-truncated.json")
    with open(truncated, "w", encoding="utf-8") as f:
        f.write(json.dumps(results)[:1000])
    cases.append(("truncated", truncated, results, r"alert\(\) dialog"))
    top_level_object = os.path.join(folder, "broken-top-level-object.json")
    with open(top_level_object, "w", encoding="utf-8") as f:
        json.dump({"results": results}, f)
    cases.append(("top-level-object", top_level_object, results, r"never listed the benchmark classes"))
    return cases


def export(raw, out):
    """Today's JMH export of a raw run; returns its results."""
    subprocess.run([sys.executable, CLI, "jmh", raw, "-o", out], check=True, timeout=120)
    with open(out, encoding="utf-8") as f:
        return json.load(f)


def run_name(raw):
    """The name a run gets in the visualizer (its file name): the run's
    folder for a results/ benchmark.json, else the file's own name."""
    base = os.path.basename(raw).split(".")[0]
    return os.path.basename(os.path.dirname(os.path.abspath(raw))) if base == "benchmark" else base


def check_site(site):
    """The unmodified 0.9.6 site, or why not."""
    for name, digest in SITE_SHA256.items():
        with open(os.path.join(site, name), "rb") as f:
            if hashlib.sha256(f.read()).hexdigest() != digest:
                return f"{name} is not the stock JMH Visualizer 0.9.6 file (sha256 differs from its README)"
    return None


class QuietHandler(http.server.SimpleHTTPRequestHandler):
    """Serves files without a log line per request."""

    def log_message(self, *args):
        pass


@contextlib.contextmanager
def serve(folder):
    """The site on 127.0.0.1, on a free port, from a thread of this process."""
    server = http.server.ThreadingHTTPServer(("127.0.0.1", 0), functools.partial(QuietHandler, directory=folder))
    thread = threading.Thread(target=server.serve_forever, daemon=True)
    thread.start()
    try:
        yield f"http://127.0.0.1:{server.server_address[1]}/index.html"
    finally:
        server.shutdown()
        server.server_close()
        thread.join(10)


def report(title, problems):
    """Prints the problems, repeated messages (one per bar) counted once."""
    counts = {}
    for p in problems:
        counts[p] = counts.get(p, 0) + 1
    print(f"FAIL {title}:" if problems else f"PASS {title}")
    for p, n in counts.items():
        print(f"  {p}" + (f" (x{n})" if n > 1 else ""))


def main():
    site, run, base, new = sys.argv[1:5]
    if not os.path.isfile(os.path.join(site, "index.html")):
        print(f"SKIP: no JMH Visualizer site at {site} (configure with -DCRYPTOBENCH_JMH_VISUALIZER_DIR=...)")
        return 77
    started = time.monotonic()
    wrong_site = check_site(site)
    if wrong_site:
        print(f"FAIL: {wrong_site}")
        return 1
    failed = False
    with tempfile.TemporaryDirectory(prefix="jmh-visualizer-test-") as tmp:
        exports = {}
        for raw in (run, base, new):
            path = os.path.join(tmp, run_name(raw) + ".json")
            exports[raw] = path, export(raw, path)
            print(f"export: {os.path.basename(path)}: {len(exports[raw][1])} results in "
                  f"{len(classes(exports[raw][1]))} classes, from {raw}")
        log = os.path.join(tmp, "chromium.log")
        browser = Chromium(os.path.join(tmp, "profile"), log)
        try:
            with serve(site) as url:
                path, results = exports[run]
                problems, metrics = check_single(browser, url, path, results)
                report(f"{os.path.basename(path)} alone, metrics {', '.join(metrics)}", problems)
                failed |= bool(problems)

                problems, notes = check_two(browser, url, [exports[base][0], exports[new][0]],
                                            [exports[base][1], exports[new][1]])
                report(f"{os.path.basename(exports[base][0])} and {os.path.basename(exports[new][0])} together",
                       problems)
                for note in notes:
                    print(f"  note: {note}")
                failed |= bool(problems)

                print("broken copies of the export, each must fail:")
                for name, path, expected, pattern in broken_copies(results, tmp):
                    problems, _ = check_single(browser, url, path, expected)
                    hit = next((p for p in problems if re.search(pattern, p)), None)
                    if hit:
                        print(f"  detected {name}: {hit}")
                    else:
                        print(f"  NOT DETECTED {name} (wanted /{pattern}/; got {problems[:3]})")
                        failed = True
        except DevToolsError as e:
            print(f"FAIL: {e}")
            with open(log, errors="replace") as f:
                print("chromium log (tail):\n" + "".join(f.readlines()[-20:]))
            failed = True
        finally:
            browser.close()
    print(f"{'FAIL' if failed else 'PASS'} ({time.monotonic() - started:.1f} s)")
    return 1 if failed else 0


if __name__ == "__main__":
    sys.exit(main())
