#!/usr/bin/python3
"""Runs seed 001's TCP ping-pong on 127.0.0.1 and writes the results.

tools/run-pingpong builds the programs and calls this; tests call it with a
build folder of their own. For each repetition, in an order shuffled anew
(interleaved, so that the machine's drift spreads over every cell alike), it
runs every cell: the C++ server and client plain, sealed with AES-128-GCM by
each chosen cryptobench backend, and the Go, Java and Scala peers plain and
sealed;
and C++ plain on one connection (--unloaded-pings), the unloaded loopback
round trip that the crypto per ping is set against.
Each cell is one server and one client process on a free port: the server
prints its port, the client does its pings, the server ends when all
connections have closed. Figures:

  us_per_ping            the seed's figure: the client's wall time / pings
  rtt p50, p90, p99      each ping's round trip, timed in the client
  server peak RSS        the server's VmHWM (it reads /proc/self/status as it
                         ends; not ru_maxrss, which counts this script's RSS
                         from before the exec), the seed's "memory"; and its
                         peak anonymous RSS (RssAnon, polled): heap and
                         stacks, without the mapped library code
  crypto ns per ping     sealed cells: the time both sides spend sealing and
                         opening, as they measure it in the run; and the same
                         four operations alone in a tight loop (isolated)
  CPU per ping           the client's and the server's user + system time
                         over the pings: each program reads its own (C++
                         and Go getrusage, Java and Scala the process's CPU
                         time) just before its first connect or accept and
                         after its last pong, and reports the difference

Every process is started by this script, stopped by its PID (SIGTERM, then
SIGKILL) and reaped; children die with it (PR_SET_PDEATHSIG) should it be
killed outright; each process has a --timeout of its own and this script a
deadline per cell. A cell that fails (a pong that does not authenticate, a
reply that is not "Pong", a process that errs or times out) fails the run:
exit 1 and one line saying which cell and why. SIGINT, SIGTERM and SIGHUP
stop the running cell's processes and exit 128 + the signal. A bad argument
(an unknown or repeated backend or peer, a number out of range, an unknown
flag) is one line and exit 2, before anything runs; tools/run-pingpong checks
the arguments so (CRYPTOBENCH_PINGPONG_CHECK_ONLY=1) before it installs or
builds anything.

The Go and Java peers are the toolchains tools/run-peers uses
(tools/toolchains.py: CRYPTOBENCH_GO, CRYPTOBENCH_JAVA_HOME, Java 17), the
Scala peer Debian's scalac (CRYPTOBENCH_SCALAC) run on that Java 17; each is
named from the version its programs report (--version): go-1.19, java-17,
scala-2.11.

Writes, in RUNS_DIR/<UTC time>-pingpong/:
  benchmark.json    Google Benchmark-format JSON (every repetition; names
                    pingpong/backend:B/cipher:C/op:pingpong/size:4/...),
                    which cryptobench-results reads like any run
  processes.jsonl   every process's own JSON line, with its rusage
  interop.txt       each client against each other language's server
and from benchmark.json, with cryptobench-results: pingpong.txt (the table,
medians over repetitions, and whether the AES choice matters end to end),
answer.txt and selection.md (the ranking with margins and p-values),
report.html.
"""
import argparse
import datetime
import json
import os
import platform
import random
import re
import signal
import socket
import subprocess
import sys
import tempfile
import time

SOURCE_DIR = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))
if "-h" in sys.argv or "--help" in sys.argv:
    sys.dont_write_bytecode = True  # the help alone: not even a __pycache__ in the tree
sys.path.insert(0, os.path.join(SOURCE_DIR, "tools"))
import children  # noqa: E402
import toolchains  # noqa: E402

PLAIN = "none"
SEALED = "aes-128-gcm"
MESSAGE_SIZE = 4
POLL_SECONDS = 0.05
STOP_SIGNALS = children.STOP_SIGNALS
MAX_PINGS = 100_000_000      # the programs' limit: 4 bytes of round trip kept per ping
UNLOADED_PINGS = 100_000     # the 1-connection cell's pings by default (at most --pings)
SERVER_FAULTS = ("flip-tag", "stale-nonce", "wrong-reply", "stall")
QUERY_TIMEOUT = 60           # seconds: --list-backends, --version
DERIVE_TIMEOUT = 600         # seconds: each cryptobench-results command


class RunError(Exception):
    """A cell or the set-up failed: one line saying which and why."""


class UsageError(Exception):
    """A bad argument: one line, exit 2, before anything is measured."""


class Interrupted(Exception):
    def __init__(self, signum):
        super().__init__(f"signal {signum}")
        self.signum = signum


# ---------------------------------------------------------------- processes

_live = {}  # pid -> (role, Popen)
_stopped = []  # what stop() ended, for the messages
_pid_log = None


def start(role, argv, out_path, err_path):
    """Starts argv with stdout and stderr to files (children.spawn: a session
    of its own, stopped by its PID, dying with this script)."""
    def register(proc):
        _live[proc.pid] = (role, proc)
        if _pid_log:
            with open(_pid_log, "a") as f:
                f.write(f"{role} {proc.pid}\n")

    with open(out_path, "wb") as out, open(err_path, "wb") as err:
        return children.spawn(argv, register, stdin=subprocess.DEVNULL, stdout=out, stderr=err)


def reap(proc, block=False):
    """(status, rusage) once the process has ended (None while it runs).
    status: the exit code, or -signal. Kept on `proc`: a process is waited
    for once, and every later call gives the same answer."""
    if getattr(proc, "reaped", None) is not None:
        return proc.reaped
    try:
        pid, status, usage = os.wait4(proc.pid, 0 if block else os.WNOHANG)
    except ChildProcessError:
        return None
    if pid == 0:
        return None
    _live.pop(proc.pid, None)
    proc.returncode = os.waitstatus_to_exitcode(status)
    proc.reaped = (proc.returncode, usage)
    return proc.reaped


def _ended(done):
    return f"exit {done[0]}" if done[0] >= 0 else signal.Signals(-done[0]).name


def _failed(done):
    """How a process that failed ended: "exit 1", "killed by SIGPIPE"."""
    return f"exit {done[0]}" if done[0] >= 0 else f"killed by {signal.Signals(-done[0]).name}"


def stop(*procs, grace=3.0):
    """Stops the processes still running, together: SIGTERM by PID to each,
    SIGKILL to those left after `grace` seconds; all reaped, and how each
    ended said in `_stopped`. Returns {pid: (status, rusage)}."""
    out = {}
    running = []
    for proc in procs:
        if proc is None or proc.pid not in _live:
            continue
        role = _live[proc.pid][0]
        done = reap(proc)
        if done:  # it had ended by itself
            _stopped.append(f"the {role} (PID {proc.pid}, {_ended(done)}, ended by itself)")
            out[proc.pid] = done
        else:
            running.append((role, proc))
    for sig, wait in ((signal.SIGTERM, grace), (signal.SIGKILL, 10.0)):
        for _, proc in running:
            try:
                os.kill(proc.pid, sig)
            except ProcessLookupError:
                pass
        end = time.monotonic() + wait
        while running and time.monotonic() < end:
            for role, proc in list(running):
                done = reap(proc)
                if done:
                    _stopped.append(f"the {role} (PID {proc.pid}, {_ended(done)} after {sig.name})")
                    out[proc.pid] = done
                    running.remove((role, proc))
            time.sleep(0.02)
    for role, proc in running:  # SIGKILL cannot be refused: only a wait
        out[proc.pid] = reap(proc, block=True)
        _stopped.append(f"the {role} (PID {proc.pid})")
    return out


def stop_all():
    stop(*(proc for _, proc in list(_live.values())), grace=2.0)


def memory_kib(pid):
    """(VmRSS, RssAnon) of a running process in KiB; None once it is gone."""
    try:
        with open(f"/proc/{pid}/status") as f:
            text = f.read()
    except OSError:
        return None
    fields = dict(re.findall(r"^(VmRSS|RssAnon):\s+(\d+) kB", text, re.M))
    if "VmRSS" not in fields:
        return None
    return int(fields["VmRSS"]), int(fields.get("RssAnon", 0))


def last_json_line(path, role):
    with open(path, errors="replace") as f:
        lines = [line for line in f.read().splitlines() if line.startswith("{")]
    if not lines:
        raise RunError(f"the {role} wrote no figures")
    try:
        return json.loads(lines[-1])
    except json.JSONDecodeError:
        raise RunError(f"the {role} wrote figures that are not JSON: {lines[-1][:200]}") from None


def first_error_line(path, nothing="(nothing on stderr)"):
    try:
        with open(path, errors="replace") as f:
            lines = [line.strip() for line in f if line.strip()]
    except OSError:
        lines = []
    return lines[0] if lines else nothing


# -------------------------------------------------------------------- peers

class Peer:
    """One implementation of the protocol: how to start its server and client."""

    def __init__(self, name, label, server, client, backends=None, why_not=""):
        self.name = name          # cpp-epoll, go-1.19, java-17, scala-2.11 (runtime's version)
        self.label = label        # C++, Go, Java, Scala
        self.server = server      # argv prefix
        self.client = client
        self.backends = backends  # C++: chooses the AES backend (--backend=)
        self.why_not = why_not    # why it cannot run here ("" when it can)
        self.version = ""         # the runtime's own version text (go1.19.8, 17.0.15)
        self.library = ""

    @property
    def impl(self):
        """What its programs write as "impl": cpp-epoll, go-1.19.8, java-17.0.15,
        scala-2.11.12."""
        if self.backends is not None:
            return self.name
        return f"{self.label.lower()}-" + (self.version[2:] if self.label == "Go" else self.version)

    def server_argv(self, backend, key, connections, timeout, extra=()):
        argv = self.server + ["--port=0", f"--connections={connections}", f"--timeout={timeout}"]
        return argv + self._crypto(backend, key) + list(extra)

    def client_argv(self, backend, key, port, connections, pings, timeout, extra=()):
        argv = self.client + [f"--port={port}", f"--connections={connections}", f"--pings={pings}",
                              f"--timeout={timeout}"]
        return argv + self._crypto(backend, key) + list(extra)

    def _crypto(self, backend, key):
        if key is None:
            return []
        return [f"--key={key}"] + ([f"--backend={backend}"] if self.backends is not None else [])


def query(argv, what, timeout=None, when_late="did not answer within {} s", said_line=0):
    """stdout of a short command (--list-backends, --version, the results
    tool); RunError with one line when it cannot run, fails (with line
    `said_line` of its stderr), or takes over `timeout` seconds (default
    QUERY_TIMEOUT, read when called)."""
    timeout = QUERY_TIMEOUT if timeout is None else timeout
    try:
        out = subprocess.run(argv, capture_output=True, text=True, timeout=timeout,
                             stdin=subprocess.DEVNULL)
    except subprocess.TimeoutExpired:
        raise RunError(f"{what} {when_late.format(timeout)}") from None
    except OSError as e:
        raise RunError(f"{what} cannot run: {e.strerror or e}") from None
    if out.returncode != 0:
        said = out.stderr.strip().splitlines()
        raise RunError(f"{what} failed (exit {out.returncode}): "
                       f"{said[said_line][:300] if said else '(nothing on stderr)'}")
    return out.stdout


def _name_from_version(peer, language, argv):
    """Names the peer from the version its program reports (go-1.19,
    java-17, scala-2.11); a program that cannot say is skipped, saying why."""
    try:
        peer.version = query(argv + ["--version"], f"the {peer.label} client").strip()
    except RunError as e:
        peer.why_not = f"skipped: {e}"
        return
    name = toolchains.peer_name(language, peer.version)
    if name is None:
        peer.why_not = f"skipped: its runtime reports an unreadable version '{peer.version[:80]}'"
    else:
        peer.name = name


def find_peers(build_dir, wanted=("go", "java", "scala")):
    """The C++ programs (required) and the Go, Java and Scala peers (each skipped,
    with the reason, when not wanted, when its toolchain is missing or when
    it was not built); the peers' names come from their runtimes' versions."""
    folder = os.path.join(build_dir, "pingpong")
    server = os.path.join(folder, "cryptobench-pingpong-server")
    client = os.path.join(folder, "cryptobench-pingpong-client")
    if not os.path.isdir(build_dir):
        raise UsageError(f"--build-dir={build_dir} is not a folder (cmake --preset release builds "
                         "build/release)")
    for path in (server, client):
        if not os.access(path, os.X_OK):
            raise UsageError(f"{path} is missing: build it (cmake --build --preset release)")
    cpp = Peer("cpp-epoll", "C++", [server], [client], backends=[])
    cpp.library = "cryptobench ping-pong in C++20: one epoll thread per process"

    go_server = os.path.join(folder, "pingpong-go-server")
    go_client = os.path.join(folder, "pingpong-go-client")
    go = Peer("go", "Go", [go_server], [go_client])
    classes = os.path.join(folder, "java-classes")
    java = Peer("java", "Java", [], [])
    scala_classes = os.path.join(folder, "scala-classes")
    scala = Peer("scala", "Scala", [], [])
    for peer, language in ((go, "go"), (java, "java"), (scala, "scala")):
        if language not in wanted:
            peer.why_not = "skipped: not asked for (--peers)"
            continue
        try:
            toolchains.cpu_mask_check()
            if language == "go":
                built = os.access(go_server, os.X_OK) and os.access(go_client, os.X_OK)
                if not built:
                    toolchains.find_go()  # Missing says why; else it was left out of the build
            elif language == "java":
                built = os.path.exists(os.path.join(classes, "built.stamp"))
                java_bin = toolchains.find_jdk()[0]  # the runtime run-peers uses, Java 17
                peer.server = [java_bin, "-cp", classes, "PingPongServer"]
                peer.client = [java_bin, "-cp", classes, "PingPongClient"]
            else:
                # The build copies the Scala library beside the classes: the
                # JVM runs them as it runs the Java peer's (no `scala` script).
                built = os.path.exists(os.path.join(scala_classes, "built.stamp"))
                if not built:
                    toolchains.find_scala()  # Missing says why; else it was left out of the build
                java_bin = toolchains.find_jdk()[0]
                path = scala_classes + os.pathsep + os.path.join(scala_classes, "scala-library.jar")
                peer.server = [java_bin, "-cp", path, "PingPongServer"]
                peer.client = [java_bin, "-cp", path, "PingPongClient"]
        except toolchains.Missing as e:
            peer.why_not = f"skipped: {e}"
            continue
        if not built:
            peer.why_not = (f"skipped: not built in {build_dir} (the build's configure step found "
                            f"no toolchain, or it was left out: cmake --build --preset release "
                            f"--target pingpong-{language})")
            continue
        _name_from_version(peer, language, peer.client)
    return cpp, go, java, scala


def list_backends(cpp):
    """The registry's view: [{name, sealed_pingpong, why_not, context}]."""
    text = query(cpp.client + ["--list-backends"], f"{cpp.client[0]} --list-backends")
    try:
        registry = json.loads(text)
        if not all(isinstance(b, dict) and isinstance(b.get("name"), str) and
                   isinstance(b.get("sealed_pingpong"), bool) and
                   isinstance(b.get("context", {}), dict) for b in registry):
            raise ValueError("not a list of backends")
    except (ValueError, TypeError) as e:
        raise RunError(f"{cpp.client[0]} --list-backends wrote something other than its JSON "
                       f"list ({e}): {text.strip()[:120]!r}") from None
    return registry


def source_backends():
    """The backends this source tree defines (kernels/*/CMakeLists.txt), for
    checking --backends before anything is built."""
    names = []
    kernels = os.path.join(SOURCE_DIR, "kernels")
    try:
        folders = sorted(os.listdir(kernels))
    except OSError:
        return names
    for folder in folders:
        try:
            with open(os.path.join(kernels, folder, "CMakeLists.txt")) as f:
                text = f.read()
        except OSError:
            continue
        names += re.findall(r"cryptobench_(?:library|add)_backend\(\s*([A-Za-z0-9_.+-]+)", text)
    return names


# -------------------------------------------------------------------- cells

class Cell:
    """One thing measured: a peer, plain or sealed (with which backend), on
    so many connections with so many pings."""

    def __init__(self, peer, cipher, backend, connections, pings, unloaded=False):
        self.peer = peer
        self.cipher = cipher
        self.backend = backend  # the name in the results: the AES backend, or the peer's
        self.connections = connections
        self.pings = pings
        self.unloaded = unloaded  # the 1-connection cell: the loopback round trip alone

    @property
    def title(self):
        if self.cipher == PLAIN:
            return f"{self.peer.label} plain" + (", 1 connection" if self.unloaded else "")
        aes = self.backend if self.peer.backends is not None else self.peer.name
        return f"{self.peer.label} AES-128-GCM ({aes})"

    @property
    def name(self):
        return (f"pingpong/backend:{self.backend}/cipher:{self.cipher}/op:pingpong/"
                f"size:{MESSAGE_SIZE}/codec:none/pool:on/key:cached/connections:{self.connections}/"
                f"pings:{self.pings}/real_time")


# What each program's JSON line must hold (numbers), and the server's.
CLIENT_FIGURES = ("connections", "pings", "wall_ns", "rtt_p50_ns", "rtt_p90_ns", "rtt_p99_ns",
                  "rtt_p999_ns", "rtt_max_ns", "rtt_mean_ns", "crypto_ns",
                  "crypto_isolated_ns_per_ping", "cpu_ns", "peak_rss_kib")
SERVER_FIGURES = ("connections", "pings", "errors", "crypto_ns", "cpu_ns", "peak_rss_kib")


def check_figures(figures, names, role):
    for name in names:
        value = figures.get(name)
        if isinstance(value, bool) or not isinstance(value, (int, float)) or value < 0:
            raise RunError(f"the {role}'s figures have no {name} (a number 0 or more): "
                           f"{json.dumps(figures)[:200]}")


def run_pair(server_peer, client_peer, cipher, backend, connections, pings, timeout, workdir,
             server_extra=(), client_extra=()):
    """One server and one client, to the end. Returns the measurements, or
    raises RunError (both processes stopped and reaped first)."""
    key = os.urandom(16).hex() if cipher == SEALED else None
    paths = {k: os.path.join(workdir, f"{k}.txt") for k in ("sout", "serr", "cout", "cerr")}
    server = start("server", server_peer.server_argv(backend, key, connections, timeout,
                                                     server_extra),
                   paths["sout"], paths["serr"])
    client = None
    try:
        port = _await_port(server, paths, timeout)
        client = start("client", client_peer.client_argv(backend, key, port, connections, pings,
                                                         timeout, client_extra),
                       paths["cout"], paths["cerr"])
        peak_rss = peak_anon = 0
        server_done = client_done = None
        deadline = time.monotonic() + timeout + 15  # the client's own --timeout comes first
        while client_done is None:
            if time.monotonic() > deadline:
                raise RunError(f"the client did not end within {timeout + 15} s (stopped)")
            memory = memory_kib(server.pid) if server_done is None else None
            if memory:
                peak_rss, peak_anon = max(peak_rss, memory[0]), max(peak_anon, memory[1])
            time.sleep(POLL_SECONDS)
            client_done = reap(client)
            if server_done is None:
                server_done = reap(server)
        status, _ = client_done
        if status != 0:
            why = first_error_line(paths["cerr"])
            # What the server said of it (written as it refused, before it
            # closed the connection); it is stopped below.
            server_said = first_error_line(paths["serr"], None)
            if server_said:
                why += f"; the server: {server_said}"
            raise RunError(f"the client failed ({_failed(client_done)}): {why}")
        end = time.monotonic() + 30
        while server_done is None and time.monotonic() < end:
            time.sleep(0.01)
            server_done = reap(server)
        if server_done is None:
            stop(server)
            raise RunError("the server did not end after the client's connections closed "
                           "(stopped by its PID)")
        if server_done[0] != 0:
            raise RunError(f"the server failed ({_failed(server_done)}): "
                           f"{first_error_line(paths['serr'])}")
        figures = last_json_line(paths["cout"], "client")
        served = last_json_line(paths["sout"], "server")
    finally:
        stop(client, server)
    check_figures(figures, CLIENT_FIGURES, "client")
    check_figures(served, SERVER_FIGURES, "server")
    for role, peer, said in (("client", client_peer, figures), ("server", server_peer, served)):
        if peer.version and said.get("impl") != peer.impl:
            # The runtime that ran is not the one that named the peer.
            raise RunError(f"the {role} reports {said.get('impl')}, not the {peer.impl} its "
                           "--version said")
    if figures["pings"] != pings or served["pings"] != pings:
        raise RunError(f"the client counted {figures['pings']} pongs and the server "
                       f"{served['pings']} pings, not {pings}")
    if served["connections"] != connections or served["errors"] != 0:
        raise RunError(f"the server saw {served['connections']} connections and "
                       f"{served['errors']} errors")
    for side, done in (("client", client_done), ("server", server_done)):
        # The whole process's CPU time (wait4), kept beside the programs' own
        # figures over the pings (start-up, self-check and JIT included);
        # not its ru_maxrss, which also counts this script's RSS from
        # before the exec: the programs report VmHWM.
        usage = done[1]
        figures[f"{side}_rusage"] = {"user_ns": round(usage.ru_utime * 1e9),
                                     "system_ns": round(usage.ru_stime * 1e9)}
    figures["server"] = served
    figures["server_polled_peak_rss_kib"] = peak_rss
    figures["server_polled_peak_anon_kib"] = peak_anon
    return figures


def _await_port(server, paths, timeout):
    """The port from the server's first line, "listening on 127.0.0.1:PORT"."""
    deadline = time.monotonic() + min(timeout, 60)
    while time.monotonic() < deadline:
        # Whether it has ended first, then its output: a server that said its
        # port and ended in between is read whole, not taken for a failure.
        done = reap(server)
        with open(paths["sout"], errors="replace") as f:
            m = re.match(r"listening on 127\.0\.0\.1:(\d+)\n", f.read())
        if m:
            return int(m.group(1))
        if done:
            raise RunError(f"the server ended before listening (exit {done[0]}): "
                           f"{first_error_line(paths['serr'])}")
        time.sleep(0.01)
    raise RunError(f"the server did not say its port within {min(timeout, 60)} s (stopped)")


def run_cell(cell, args, workdir):
    return run_pair(cell.peer, cell.peer, cell.cipher, cell.backend if cell.cipher == SEALED else None,
                    cell.connections, cell.pings, args.timeout, workdir, args.server_extra)


# ---------------------------------------------------------------- interop

def interop(peers, backend, workdir, timeout, say):
    """Each client against each other language's server, plain and sealed
    (the C++ side with `backend`): a short run each. Returns the lines."""
    lines = []
    usable = [p for p in peers if not p.why_not]
    for cipher in (PLAIN, SEALED):
        for server_peer in usable:
            for client_peer in usable:
                if server_peer is client_peer:
                    continue
                what = f"{client_peer.label} client -> {server_peer.label} server, {cipher}"
                try:
                    run_pair(server_peer, client_peer, cipher, backend, 4, 400, timeout, workdir)
                except RunError as e:
                    raise RunError(f"interop {what}: {e}") from None
                lines.append(f"ok  {what} (4 connections, 400 pings)")
                say(f"  interop ok: {what}")
    return lines


# ------------------------------------------------------------------ results

def entries(cell, runs):
    """Google Benchmark-format entries, one per repetition. CPU times are
    the programs' own, over the pings (not the whole processes' wait4
    figures, which processes.jsonl keeps)."""
    out = []
    name, pings = cell.name, cell.pings
    for index, f in enumerate(runs):
        server = f["server"]
        e = {
            "name": name, "family_index": 0, "per_family_instance_index": 0, "run_name": name,
            "run_type": "iteration", "repetitions": len(runs), "repetition_index": index,
            "threads": 1, "iterations": pings,
            "real_time": f["wall_ns"] / pings,
            "cpu_time": f["cpu_ns"] / pings,
            "time_unit": "ns",
            "items_per_second": pings / (f["wall_ns"] / 1e9),
            "rtt_p50_ns": f["rtt_p50_ns"], "rtt_p90_ns": f["rtt_p90_ns"],
            "rtt_p99_ns": f["rtt_p99_ns"], "rtt_p999_ns": f["rtt_p999_ns"],
            "rtt_max_ns": f["rtt_max_ns"], "rtt_mean_ns": f["rtt_mean_ns"],
            "server_peak_rss_kib": server["peak_rss_kib"] or f["server_polled_peak_rss_kib"],
            "client_peak_rss_kib": f["peak_rss_kib"],
            "server_cpu_ns_per_ping": server["cpu_ns"] / pings,
            "client_cpu_ns_per_ping": f["cpu_ns"] / pings,
        }
        if f.get("server_polled_peak_anon_kib"):
            e["server_peak_anon_kib"] = f["server_polled_peak_anon_kib"]
        if cell.cipher == SEALED:
            e["crypto_ns_per_ping"] = (f["crypto_ns"] + server["crypto_ns"]) / pings
            e["crypto_isolated_ns_per_ping"] = f["crypto_isolated_ns_per_ping"]
        out.append(e)
    return out


def write_json_atomically(path, doc):
    fd, tmp = tempfile.mkstemp(prefix=os.path.basename(path) + ".", suffix=".partial",
                               dir=os.path.dirname(os.path.abspath(path)))
    try:
        with os.fdopen(fd, "w") as f:
            json.dump(doc, f, indent=1)
            f.write("\n")
            f.flush()
            os.fsync(f.fileno())
        os.chmod(tmp, 0o644)
        os.replace(tmp, path)
    except BaseException:
        if os.path.exists(tmp):
            os.unlink(tmp)
        raise


def git_commit(source_dir):
    try:
        out = subprocess.run(["git", "-C", source_dir, "describe", "--always", "--dirty",
                              "--abbrev=40"], capture_output=True, text=True, timeout=10)
        return out.stdout.strip() or "unknown"
    except (OSError, subprocess.TimeoutExpired):
        return "unknown"


def make_context(args, peers, registry, cells, results, skipped, interop_lines, seed):
    cpp, go, java = peers[:3]
    scala = peers[3] if len(peers) > 3 else None
    first = {c.peer.name: results[c][0] for c in cells if results[c]}
    if go.name in first:
        f = first[go.name]
        go.library = (f"Go {f['impl'][3:]}: net, crypto/aes, GOMAXPROCS "
                      f"{f.get('gomaxprocs', '?')} (the runtime's default: the CPUs it may use)")
    if java.name in first:
        java.library = (f"OpenJDK {first[java.name]['impl'][5:]}: java.net, javax.crypto, "
                        "default JVM flags")
    if scala is not None and scala.name in first:
        f = first[scala.name]
        scala.library = (f"Scala {f['impl'][6:]} on OpenJDK {f.get('java_version', '?')}: "
                         "java.net, a Future per connection on the global ExecutionContext "
                         "(blocking), javax.crypto, default JVM flags")
    ctx = {
        "date": datetime.datetime.now(datetime.timezone.utc).isoformat(timespec="seconds"),
        "host_name": socket.gethostname(),
        "executable": "tools/run-pingpong",
        "num_cpus": os.cpu_count() or 1,
        "cpu_model": toolchains.cpu_model(),
        "kernel": platform.release(),
        "cryptobench_suite": "pingpong",
        "git_commit": git_commit(SOURCE_DIR),
        "build_dir": args.build_dir,
        "pingpong.connections": str(args.connections),
        "pingpong.pings": str(args.pings),
        "pingpong.repetitions": str(args.repetitions),
        "pingpong.unloaded": (f"C++ plain on 1 connection, {args.unloaded_pings:,} pings: the "
                              "loopback round trip with nothing queued behind it"
                              if args.unloaded_pings else "not run (--unloaded-pings=0)"),
        "pingpong.order": f"every repetition runs every cell once, in an order shuffled anew "
                          f"(random seed {seed})",
        "pingpong.network": "127.0.0.1 only, TCP_NODELAY on every socket, a free port per cell",
        "pingpong.protocol": "4-byte Ping/Pong; sealed: nonce (12 B: connection id, direction, "
                             "counter) | ciphertext (4 B) | tag (16 B), AES-128-GCM, a fresh "
                             "random key per cell",
        "pingpong.figures": "real_time: wall time / pings (the seed's figure); rtt_*: each "
                            "ping's round trip in the client; server_peak_rss_kib: the server's "
                            "VmHWM as it ends; cpu: each program's own CPU time over the pings "
                            "(C++ and Go getrusage, Java and Scala their process CPU time, from "
                            "just before "
                            "its first connect or accept to after its last pong); "
                            "server_peak_anon_kib: the largest RssAnon polled every "
                            f"{int(POLL_SECONDS * 1000)} ms; crypto_ns_per_ping: both sides' "
                            "seal+open time in the run; crypto_isolated_ns_per_ping: two seals "
                            "and two opens alone",
    }
    if skipped:
        ctx["pingpong.skipped"] = "; ".join(skipped)
    if interop_lines:
        ctx["pingpong.interop"] = f"{len(interop_lines)} cross-language pairs passed"
    ctx[f"backend.{cpp.name}.library"] = cpp.library
    ctx[f"backend.{cpp.name}.code_path"] = "no AES (plain)"
    for peer in peers[1:]:
        if peer.name not in first:
            continue
        ctx[f"backend.{peer.name}.library"] = peer.library
        ctx[f"backend.{peer.name}.code_path"] = ("plain: no AES; sealed: " +
                                                 ("crypto/aes + crypto/cipher GCM"
                                                  if peer is go else
                                                  "javax.crypto AES/GCM/NoPadding, re-initialised "
                                                  "per message"))
        ctx[f"backend.{peer.name}.verified_against.aes-128-gcm"] = (
            "openssl (a frame sealed by OpenSSL, checked at start); the C++ programs (interop)")
    used = {c.backend for c in cells if c.peer is cpp and c.cipher == SEALED}
    for b in registry:
        if b["name"] in used:
            for k, v in b.get("context", {}).items():
                ctx[k] = str(v)
    return ctx


# --------------------------------------------------------------------- main

def document(args, peers, registry, cells, results, skipped, interop_lines, seed, elapsed):
    """The run as Google Benchmark-format JSON: the context, then every
    cell's repetitions (cells in their fixed order)."""
    doc = {"context": make_context(args, peers, registry, cells, results, skipped, interop_lines,
                                   seed),
           "benchmarks": []}
    doc["context"]["pingpong.elapsed_s"] = f"{elapsed:.0f}"
    for cell in cells:
        doc["benchmarks"] += entries(cell, results[cell])
    return doc


class _Parser(argparse.ArgumentParser):
    """argparse with its errors as one line and exit 2."""

    def error(self, message):
        # "argument --pings: must be ..." -> "--pings must be ..."
        raise UsageError(re.sub(r"^argument (--[a-z-]+): ", r"\1 ", message))


def _whole(low, high):
    def parse(text):
        try:
            value = int(text)
        except ValueError:
            raise argparse.ArgumentTypeError(f"must be a whole number from {low:,} to {high:,}, "
                                             f"not '{text}'") from None
        if not low <= value <= high:
            raise argparse.ArgumentTypeError(f"must be from {low:,} to {high:,}, not {value:,}")
        return value
    return parse


def _names(text, flag):
    """A comma-separated list: no empty name, none twice."""
    names = text.split(",")
    if any(not n for n in names):
        raise UsageError(f"{flag}={text} has an empty name")
    twice = sorted({n for n in names if names.count(n) > 1})
    if twice:
        raise UsageError(f"{flag}={text} names {', '.join(twice)} more than once")
    return names


def parse_args(argv):
    p = _Parser(prog="run-pingpong", description=__doc__, allow_abbrev=False,
                formatter_class=argparse.RawDescriptionHelpFormatter,
                epilog="examples:\n"
                       "  tools/run-pingpong                  every cell, 5 repetitions\n"
                       "  tools/run-pingpong --backends=openssl,wolfssl --peers=go --repetitions=3\n"
                       "  tools/results/cryptobench-results pingpong "
                       "results/runs/<run>/benchmark.json\n"
                       "Exit status: 0 done, 1 a cell failed (one line names it), 2 a bad "
                       "argument, 128 + N stopped by signal N.\nMore: docs/pingpong.md.")
    p.add_argument("--build-dir", default="build/release")
    p.add_argument("--runs-dir", default="results/runs")
    p.add_argument("--connections", type=_whole(1, 10_000), default=100)
    p.add_argument("--pings", type=_whole(1, MAX_PINGS), default=1_000_000,
                   help=f"pings per cell, from --connections to {MAX_PINGS:,} (each ping's round "
                        "trip is kept: 4 bytes)")
    p.add_argument("--unloaded-pings", type=_whole(0, MAX_PINGS),
                   default=None,
                   help=f"pings of the C++ plain cell on 1 connection, the unloaded round trip "
                        f"(default: --pings, at most {UNLOADED_PINGS:,}; 0: no such cell)")
    p.add_argument("--repetitions", type=_whole(1, 1000), default=5)
    p.add_argument("--backends", default="all",
                   help="C++ AES backends for the sealed cells: all (every one that can run here), "
                        "none, or a comma-separated list")
    p.add_argument("--peers", default="go,java,scala",
                   help="go,java,scala (default), any of them, or none")
    p.add_argument("--no-plain", action="store_true", help="sealed cells only")
    p.add_argument("--no-interop", action="store_true",
                   help="skip the cross-language check (each client against each server)")
    p.add_argument("--timeout", type=_whole(1, 86_400), default=300,
                   help="seconds per process (each cell)")
    p.add_argument("--seed", type=_whole(0, (1 << 63) - 1), default=None,
                   help="the shuffling's random seed")
    p.add_argument("--server-fault", default="", choices=("",) + SERVER_FAULTS,
                   help="for the tests: --inject-fault=KIND for every C++ server")
    p.add_argument("--pid-log", default=None, help="for the tests: append 'role pid' per process")
    given = [a.split("=", 1)[0] for a in argv if a.startswith("--")]
    twice = sorted({a for a in given if given.count(a) > 1})
    if twice:
        raise UsageError(f"{', '.join(twice)} given more than once")
    args = p.parse_args(argv)
    if args.pings < args.connections:
        raise UsageError(f"--pings ({args.pings:,}) must be at least --connections "
                         f"({args.connections:,})")
    if args.unloaded_pings is None:
        args.unloaded_pings = min(args.pings, UNLOADED_PINGS)
    if args.connections == 1 or args.no_plain:
        args.unloaded_pings = 0  # the main cells are unloaded already, or plain is not wanted
    peers = [] if args.peers == "none" else _names(args.peers, "--peers")
    unknown = [n for n in peers if n not in ("go", "java", "scala")]
    if unknown:
        raise UsageError(f"--peers takes go, java, scala or none, not '{unknown[0]}'")
    args.peer_set = set(peers)
    if args.backends not in ("all", "none"):
        chosen = _names(args.backends, "--backends")
        for n in chosen:
            if n in ("all", "none"):
                raise UsageError(f"--backends={args.backends}: '{n}' stands alone")
        known = source_backends()
        for n in chosen:
            if known and n not in known:
                raise UsageError(f"unknown backend '{n}' (--backends); this source tree has: "
                                 f"{', '.join(known)}")
        args.backend_list = chosen
    else:
        args.backend_list = None
    if os.path.exists(args.runs_dir) and not os.path.isdir(args.runs_dir):
        raise UsageError(f"--runs-dir={args.runs_dir} is not a folder")
    args.server_extra = [f"--inject-fault={args.server_fault}", "--fault-after=50"] \
        if args.server_fault else []
    return args


def choose_backends(args, registry):
    """(chosen backend names, skip lines). A chosen backend that is not
    compiled in, cannot run on this CPU or offers no AES-128-GCM is a
    UsageError (exit 2, before any cell runs)."""
    skipped, usable = [], []
    for b in registry:
        if b["sealed_pingpong"]:
            usable.append(b["name"])
        elif args.backends == "all":
            skipped.append(f"{b['name']}: {b.get('why_not') or 'cannot seal here'}")
    if args.backends == "all":
        return usable, skipped
    if args.backends == "none":
        return [], skipped
    known = {b["name"]: b for b in registry}
    for n in args.backend_list:
        if n not in known:
            raise UsageError(f"backend '{n}' is not compiled in (its library was missing when "
                             f"the build was configured); compiled in: {', '.join(known)}")
        if not known[n]["sealed_pingpong"]:
            raise UsageError(f"backend '{n}' cannot run the sealed ping-pong: "
                             f"{known[n].get('why_not') or 'the registry says so'}")
    return list(args.backend_list), skipped


def own_folder(parent, name):
    """A new folder for this run alone: PARENT/NAME, or NAME-2, NAME-3, ... when
    a run started in the same second has it (mkdir is exclusive: two runs
    never share one)."""
    os.makedirs(parent, exist_ok=True)
    for n in range(1, 1000):
        path = os.path.join(parent, name if n == 1 else f"{name}-{n}")
        try:
            os.mkdir(path)
            return path
        except FileExistsError:
            continue
    raise OSError(f"{parent} already has {name} and 998 more of that second")


def main(argv=None):
    global _pid_log

    def say(text):
        print(text, file=sys.stderr, flush=True)
    try:
        args = parse_args(argv if argv is not None else sys.argv[1:])
    except UsageError as e:
        say(f"run-pingpong: {e}")
        return 2
    if os.environ.get("CRYPTOBENCH_PINGPONG_CHECK_ONLY") == "1":
        return 0  # tools/run-pingpong, before it installs or builds anything
    _pid_log = args.pid_log
    caught = []

    def on_signal(signum, _frame):
        caught.append(signum)
        raise Interrupted(signum)
    for sig in (signal.SIGINT, signal.SIGTERM, signal.SIGHUP):
        signal.signal(sig, on_signal)

    try:
        return _run(args, say)
    except Interrupted as e:
        stop_all()
        say(f"run-pingpong: interrupted by signal {e.signum}; every process it started is stopped: "
            + (", ".join(_stopped) if _stopped else "none was running"))
        return 128 + e.signum
    except UsageError as e:
        stop_all()
        say(f"run-pingpong: {e}")
        return 2
    except RunError as e:
        stop_all()
        say(f"run-pingpong: {e}" + (f" (stopped {', '.join(_stopped)})" if _stopped else ""))
        return 1
    finally:
        signal.signal(signal.SIGINT, signal.SIG_IGN)
        stop_all()


def _run(args, say):
    peers = find_peers(args.build_dir, args.peer_set)
    cpp = peers[0]
    skipped = []
    for peer in peers[1:]:
        if peer.why_not:
            skipped.append(f"{peer.label} peer: {peer.why_not}")
            if peer.label.lower() in args.peer_set:  # asked for, and cannot run: say why
                say(f"run-pingpong: {peer.label} peer {peer.why_not}")
    registry = list_backends(cpp)
    backends, backend_skips = choose_backends(args, registry)
    for line in backend_skips:
        skipped.append(line)
        say(f"run-pingpong: backend {line} (skipped)")

    cells = []
    if not args.no_plain:
        cells.append(Cell(cpp, PLAIN, cpp.name, args.connections, args.pings))
        if args.unloaded_pings:
            cells.append(Cell(cpp, PLAIN, cpp.name, 1, args.unloaded_pings, unloaded=True))
    cells += [Cell(cpp, SEALED, b, args.connections, args.pings) for b in backends]
    for peer in peers[1:]:
        if not peer.why_not:
            if not args.no_plain:
                cells.append(Cell(peer, PLAIN, peer.name, args.connections, args.pings))
            cells.append(Cell(peer, SEALED, peer.name, args.connections, args.pings))
    if not cells:
        raise UsageError("nothing to run (no backend and no peer)")

    stamp = datetime.datetime.now(datetime.timezone.utc).strftime("%Y%m%dT%H%M%SZ")
    try:
        run_dir = own_folder(args.runs_dir, f"{stamp}-pingpong")
        processes = open(os.path.join(run_dir, "processes.jsonl"), "w")
    except OSError as e:
        raise UsageError(f"cannot write the run's folder in --runs-dir={args.runs_dir}: "
                         f"{e.strerror or e}") from None
    workdir = tempfile.mkdtemp(prefix="pingpong-")
    seed = args.seed if args.seed is not None else random.SystemRandom().randrange(1 << 31)
    rng = random.Random(seed)
    results = {c: [] for c in cells}
    interop_lines = []
    try:
        if not args.no_interop and sum(not p.why_not for p in peers) > 1:
            say("run-pingpong: checking that every client works with every other server")
            interop_lines = interop(peers, backends[0] if backends else "openssl", workdir,
                                    min(args.timeout, 120), say)
            with open(os.path.join(run_dir, "interop.txt"), "w") as f:
                f.write("\n".join(interop_lines) + "\n")
        total = len(cells) * args.repetitions
        done = 0
        started = time.monotonic()
        for rep in range(args.repetitions):
            order = cells[:]
            rng.shuffle(order)
            for cell in order:
                done += 1
                say(f"run-pingpong: [{done}/{total}] repetition {rep + 1}: {cell.title}")
                try:
                    figures = run_cell(cell, args, workdir)
                except RunError as e:
                    raise RunError(f"{cell.title}, repetition {rep + 1}: {e}") from None
                figures["cell"] = cell.name
                figures["repetition"] = rep
                processes.write(json.dumps(figures) + "\n")
                processes.flush()
                results[cell].append(figures)
        elapsed = time.monotonic() - started
    finally:
        processes.close()
        for name in os.listdir(workdir):
            os.unlink(os.path.join(workdir, name))
        os.rmdir(workdir)

    doc = document(args, peers, registry, cells, results, skipped, interop_lines, seed, elapsed)
    write_json_atomically(os.path.join(run_dir, "benchmark.json"), doc)
    return derive(run_dir, say)


def _results_tool(argv, what):
    """cryptobench-results with argv; its stdout, or RunError in one line
    (its last stderr line: the tool's own error)."""
    tool = [os.path.join(SOURCE_DIR, "tools", "results", "cryptobench-results")]  # /usr/bin/python3
    return query(tool + argv, f"cryptobench-results {what}", DERIVE_TIMEOUT,
                 "did not end within {} s (benchmark.json is written; run it again by hand)", -1)


def derive(run_dir, say):
    """The views of benchmark.json, by cryptobench-results: the table and the
    verdict (pingpong.txt), the answer (answer.txt), the report."""
    run = os.path.join(run_dir, "benchmark.json")
    outputs = {}
    for name, argv in (("pingpong.txt", ["pingpong", run]), ("answer.txt", ["select", run]),
                       ("selection.md", ["select", run, "--markdown"])):
        outputs[name] = _results_tool(argv, argv[0])
        with open(os.path.join(run_dir, name), "w") as f:
            f.write(outputs[name])
    _results_tool(["report", run, "-o", os.path.join(run_dir, "report.html")], "report")
    print(outputs["pingpong.txt"] + "\n" + outputs["answer.txt"], end="")
    print(f"\nresults in {run_dir}/: pingpong.txt (the table), answer.txt, selection.md, "
          "report.html,\n  benchmark.json (every repetition), processes.jsonl (each process's own "
          "figures)" + (", interop.txt" if os.path.exists(os.path.join(run_dir, "interop.txt"))
                        else ""), flush=True)
    return 0


if __name__ == "__main__":
    sys.exit(main())
