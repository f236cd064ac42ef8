#!/usr/bin/python3
"""Tests of seed 001's ping-pong (CTest label pingpong), one CTest test per class:

  pingpong_test.py BUILD_DIR CLASS      runs one class; exit 77 (CTest's skip)
                                        when every test in it was skipped
  pingpong_test.py BUILD_DIR --record-golden
                                        rewrites golden/ from a real run of the
                                        driver (record_golden)

Short runs (a few connections, a few thousand pings) of the real programs,
through the driver's own functions (pingpong/driver.py).
"""
import json
import os
import re
import shutil
import signal
import subprocess
import sys
import tempfile
import time
import types
import unittest

HERE = os.path.dirname(os.path.abspath(__file__))
SOURCE = os.path.dirname(os.path.dirname(HERE))
sys.path.insert(0, os.path.dirname(HERE))
sys.path.insert(0, os.path.join(SOURCE, "tools"))
import driver  # noqa: E402
import toolchains  # noqa: E402

BUILD = None
GOLDEN = os.path.join(HERE, "golden")
RESULTS_TOOL = os.path.join(SOURCE, "tools", "results", "cryptobench-results")
# Context fields that differ from machine to machine and run to run.
VOLATILE = ("date", "host_name", "num_cpus", "cpu_model", "kernel", "git_commit", "build_dir")


class Setup(unittest.TestCase):
    @classmethod
    def setUpClass(cls):
        cls.cpp, cls.go, cls.java, cls.scala = driver.find_peers(BUILD)
        cls.work = tempfile.mkdtemp(prefix="pingpong-test-")

    @classmethod
    def tearDownClass(cls):
        driver.stop_all()
        for name in os.listdir(cls.work):
            os.unlink(os.path.join(cls.work, name))
        os.rmdir(cls.work)

    def pair(self, server, client, cipher, backend=None, connections=4, pings=2000, fault=(),
             client_fault=()):
        return driver.run_pair(server, client, cipher, backend, connections, pings, 30, self.work,
                               fault, client_fault)

    def peers(self):
        """The Go, Java and Scala peers built here; the test is skipped without any."""
        built = [p for p in (self.go, self.java, self.scala) if not p.why_not]
        if not built:
            self.skipTest("no Go, Java or Scala peer is built here: "
                          f"{self.go.why_not}; {self.java.why_not}; {self.scala.why_not}")
        return built

    def scala_peer(self):
        """The Scala peer; the test is skipped, saying why, when it is not built."""
        if self.scala.why_not:
            self.skipTest(f"the Scala peer: {self.scala.why_not}")
        return self.scala

    def check_figures(self, f, connections, pings):
        self.assertEqual(f["pings"], pings)
        self.assertEqual(f["connections"], connections)
        self.assertEqual(f["server"]["pings"], pings)
        self.assertEqual(f["server"]["connections"], connections)
        self.assertEqual(f["server"]["errors"], 0)
        self.assertAlmostEqual(f["us_per_ping"] * 1000 * pings, f["wall_ns"], delta=f["wall_ns"] * 1e-4)
        self.assertGreater(f["rtt_p50_ns"], 0)
        self.assertLessEqual(f["rtt_p50_ns"], f["rtt_p90_ns"])
        self.assertLessEqual(f["rtt_p90_ns"], f["rtt_p99_ns"])
        self.assertLessEqual(f["rtt_p99_ns"], f["rtt_p999_ns"])
        self.assertLessEqual(f["rtt_p999_ns"], f["rtt_max_ns"])
        # With every connection busy, wall time x connections ~ the round trips' sum.
        self.assertLess(f["rtt_mean_ns"], 2 * f["wall_ns"] * connections / pings + 1e6)
        self.assertGreater(f["server"]["peak_rss_kib"], 500)
        self.assertGreater(f["server_polled_peak_rss_kib"], 0)
        # CPU over the pings: the programs' own, within the whole processes' (wait4).
        for side, own in (("client", f), ("server", f["server"])):
            whole = f[f"{side}_rusage"]["user_ns"] + f[f"{side}_rusage"]["system_ns"]
            self.assertGreater(own["cpu_ns"], 0, side)
            self.assertLessEqual(own["cpu_ns"], whole + 20_000_000, side)  # Java: 10 ms ticks


class CppPlainTest(Setup):
    def test_plain_run(self):
        f = self.pair(self.cpp, self.cpp, driver.PLAIN, connections=8, pings=4000)
        self.check_figures(f, 8, 4000)
        self.assertEqual(f["cipher"], "none")
        self.assertEqual(f["crypto_ns"], 0)

    def test_uneven_split(self):
        # 1001 pings over 7 connections: 143 each, exactly 1001 in all.
        f = self.pair(self.cpp, self.cpp, driver.PLAIN, connections=7, pings=1001)
        self.check_figures(f, 7, 1001)


class CppSealedTest(Setup):
    def test_every_backend_with_gcm(self):
        registry = driver.list_backends(self.cpp)
        sealed = [b["name"] for b in registry if b["sealed_pingpong"]]
        self.assertIn("openssl", sealed)
        for b in registry:
            if not b["sealed_pingpong"]:
                self.assertTrue(b["why_not"], b["name"])  # never silently left out
        for name in sealed:
            with self.subTest(backend=name):
                f = self.pair(self.cpp, self.cpp, driver.SEALED, name, connections=4, pings=800)
                self.check_figures(f, 4, 800)
                self.assertEqual((f["cipher"], f["backend"]), ("aes-128-gcm", name))
                self.assertNotEqual(f["verified_against"], name)
                self.assertGreater(f["crypto_ns"], 0)
                self.assertGreater(f["server"]["crypto_ns"], 0)
                self.assertGreater(f["crypto_isolated_ns_per_ping"], 0)


class CpuWindowTest(Setup):
    """Each program's CPU time is over its pings only: the self-check before
    them (20,000 pings' crypto in a loop: the figure 'crypto alone' comes
    from it), start-up and the JVM's are not in it, but are in the whole
    process's time the driver reads with wait4."""

    def test_self_check_not_counted(self):
        stacks = [(self.cpp, "openssl")]
        stacks += [(p, None) for p in (self.go, self.java, self.scala) if not p.why_not]
        for peer, backend in stacks:
            with self.subTest(peer=peer.label):
                f = self.pair(peer, peer, driver.SEALED, backend, connections=2, pings=2000)
                self_check_ns = 20_000 * f["crypto_isolated_ns_per_ping"]
                for side, own in (("client", f), ("server", f["server"])):
                    whole = f[f"{side}_rusage"]["user_ns"] + f[f"{side}_rusage"]["system_ns"]
                    self.assertGreater(whole - own["cpu_ns"], 0.5 * self_check_ns,
                                       f"{peer.label} {side}: {own['cpu_ns']} ns over the pings, "
                                       f"{whole} ns in all, self-check about {self_check_ns:.0f}")


class TamperTest(Setup):
    """A pong that does not authenticate, carries a stale nonce or is not
    "Pong" fails the run, saying which pong of which connection: the C++
    client and the Go and Java clients alike, against the C++ server's
    injected faults."""
    CASES = [
        (driver.SEALED, "flip-tag", r"pong \d+: the pong does not authenticate "
                                    r"\(GCM tag mismatch\)"),
        (driver.SEALED, "stale-nonce", r"pong \d+: the pong has an unexpected nonce"),
        (driver.SEALED, "wrong-reply", r"pong \d+: the pong authenticates but is "
                                       r"not the expected message"),
        (driver.PLAIN, "wrong-reply", r'pong \d+: the reply is not "Pong"'),
    ]
    CLIENT_NAMES = {"C++": "cryptobench-pingpong-client", "Go": "pingpong-go-client",
                    "Java": "pingpong-java-client", "Scala": "pingpong-scala-client"}

    def refused(self, client):
        for cipher, fault, message in self.CASES:
            with self.subTest(client=client.label, cipher=cipher, fault=fault):
                backend = "openssl" if cipher == driver.SEALED else None
                with self.assertRaisesRegex(driver.RunError, "^the client failed \\(exit 1\\): "
                                            f"{self.CLIENT_NAMES[client.label]}: connection \\d+, "
                                            + message):
                    self.pair(self.cpp, client, cipher, backend,
                              fault=[f"--inject-fault={fault}", "--fault-after=300"])

    def test_cpp_client_refuses(self):
        self.refused(self.cpp)

    def test_every_peer_client_refuses(self):
        for client in self.peers():
            self.refused(client)

    def test_server_refuses_a_bad_ping(self):
        """A raw client: "Pinx" instead of "Ping" makes the server fail."""
        import socket
        out, err = os.path.join(self.work, "raw.out"), os.path.join(self.work, "raw.err")
        server = driver.start("server", self.cpp.server_argv(None, None, 1, 30), out, err)
        try:
            port = driver._await_port(server, {"sout": out, "serr": err}, 30)
            with socket.create_connection(("127.0.0.1", port)) as s:
                s.sendall(b"Ping")
                self.assertEqual(s.recv(4), b"Pong")
                s.sendall(b"Pinx")
                self.assertEqual(s.recv(4), b"")  # closed
            status, _ = driver.reap(server, block=True)
        finally:
            driver.stop(server)
        self.assertEqual(status, 1)
        with open(err) as f:
            text = f.read()
        self.assertIn('connection 0, ping 1: the message is not "Ping"', text)
        self.assertIn("1 protocol or crypto error(s); the run is not valid", text)

    def test_driver_fails_the_run(self):
        with tempfile.TemporaryDirectory() as runs:
            out = subprocess.run([sys.executable, os.path.join(SOURCE, "pingpong", "driver.py"),
                                  f"--build-dir={BUILD}", f"--runs-dir={runs}", "--backends=openssl",
                                  "--peers=none", "--no-plain", "--connections=4", "--pings=2000",
                                  "--repetitions=1", "--server-fault=flip-tag"],
                                 capture_output=True, text=True, timeout=60)
            self.assertEqual(out.returncode, 1, out.stderr)
            self.assertRegex(out.stderr, r"run-pingpong: C\+\+ AES-128-GCM \(openssl\), repetition "
                                         r"1: the client failed \(exit 1\): .*the pong does not "
                                         r"authenticate \(GCM tag mismatch\)")
            self.assertFalse(any(os.path.exists(os.path.join(runs, d, "benchmark.json"))
                                 for d in os.listdir(runs)))


class ForgedPingTest(Setup):
    """A forged ping and a reused connection id (the C++ client's injected
    faults) make every server refuse: the run fails with the client's line
    and the server's, which names the connection, the ping and why."""
    SERVER_NAMES = {"C++": "cryptobench-pingpong-server", "Go": "pingpong-go-server",
                    "Java": "pingpong-java-server", "Scala": "pingpong-scala-server"}
    CASES = [
        (driver.SEALED, "forge-ping", r"connection \d+, ping \d+: the ping does not authenticate "
                                      r"\(GCM tag mismatch\)"),
        (driver.PLAIN, "forge-ping", r'connection \d+, ping \d+: the message is not "Ping"'),
        (driver.SEALED, "reuse-id", r"connection \d+, ping 0: connection id 0 was used before "
                                    r"\(a nonce would repeat\)"),
    ]

    def refused(self, server):
        for cipher, fault, message in self.CASES:
            with self.subTest(server=server.label, cipher=cipher, fault=fault):
                backend = "openssl" if cipher == driver.SEALED else None
                # The 297th ping the client sends, on whichever connection.
                with self.assertRaisesRegex(
                        driver.RunError,
                        r"^the client failed \(exit 1\): cryptobench-pingpong-client: connection "
                        r"\d+, pong \d+: the server closed the connection after \d+ of \d+ pongs; "
                        f"the server: {self.SERVER_NAMES[server.label]}: " + message):
                    self.pair(server, self.cpp, cipher, backend, connections=4, pings=2000,
                              client_fault=[f"--inject-fault={fault}", "--fault-after=297"])

    def test_cpp_server_refuses(self):
        self.refused(self.cpp)

    def test_every_peer_server_refuses(self):
        for server in self.peers():
            self.refused(server)


class InteropTest(Setup):
    """Every client against every other language's server, plain and sealed:
    each peer's test pairs it with C++ and with the peers before it (Go;
    Java: Go; Scala: Go and Java), so every pair is run once."""
    PEER = None
    BEFORE = {"go": (), "java": ("go",), "scala": ("go", "java")}

    def test_interop(self):
        peer = getattr(self, self.PEER)
        if peer.why_not:
            self.skipTest(f"the {peer.label} peer: {peer.why_not}")
        others = [self.cpp] + [getattr(self, n) for n in self.BEFORE[self.PEER]
                               if not getattr(self, n).why_not]
        for other in others:
            for server, client in ((peer, other), (other, peer)):
                for cipher in (driver.PLAIN, driver.SEALED):
                    with self.subTest(server=server.label, client=client.label, cipher=cipher):
                        f = self.pair(server, client, cipher, "nettle", connections=3, pings=600)
                        self.check_figures(f, 3, 600)
                        self.assertEqual(f["cipher"], cipher)


class InteropGoTest(InteropTest):
    PEER = "go"


class InteropJavaTest(InteropTest):
    PEER = "java"


class InteropScalaTest(InteropTest):
    PEER = "scala"


def live(pid):
    """True while the process runs (a zombie waiting to be reaped is not running)."""
    try:
        with open(f"/proc/{pid}/stat") as f:
            return f.read().rsplit(")", 1)[1].split()[0] != "Z"
    except (OSError, IndexError):
        return False


class CleanupTest(unittest.TestCase):
    """The driver leaves no process behind: on a failure, on SIGINT, and when
    it is killed outright (the children die with it)."""

    def driver(self, runs, log, *extra):
        return subprocess.Popen([sys.executable, os.path.join(SOURCE, "pingpong", "driver.py"),
                                 f"--build-dir={BUILD}", f"--runs-dir={runs}", "--peers=none",
                                 "--backends=none", "--no-interop", "--repetitions=1",
                                 "--connections=4", "--unloaded-pings=0", f"--pid-log={log}",
                                 *extra],
                                stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True)

    def pids(self, log):
        with open(log) as f:
            return [int(line.split()[1]) for line in f if line.strip()]

    def assert_all_gone(self, log):
        pids = self.pids(log)
        self.assertGreaterEqual(len(pids), 2)
        end = time.monotonic() + 5
        while any(live(p) for p in pids) and time.monotonic() < end:
            time.sleep(0.05)
        self.assertEqual([p for p in pids if live(p)], [], "processes left behind")

    def wait_for_client(self, log, proc):
        end = time.monotonic() + 20
        while time.monotonic() < end:
            if os.path.exists(log) and "client" in open(log).read():
                time.sleep(0.5)  # well into its pings
                return
            self.assertIsNone(proc.poll(), "the driver ended early")
            time.sleep(0.05)
        self.fail("the driver started no client")

    def test_timeout_fails_and_cleans_up(self):
        with tempfile.TemporaryDirectory() as runs:
            log = os.path.join(runs, "pids")
            proc = self.driver(runs, log, "--pings=100000", "--timeout=2", "--server-fault=stall")
            _, err = proc.communicate(timeout=60)
            self.assertEqual(proc.returncode, 1, err)
            # The client's timeout or the server's (started first) ends it.
            self.assertRegex(err, r"C\+\+ plain, repetition 1: the client failed \(exit 1\): "
                                  r"cryptobench-pingpong-client: .*timed out after 2 s: ")
            self.assert_all_gone(log)

    def test_interrupt_stops_everything(self):
        for sig in (signal.SIGINT, signal.SIGTERM):
            with self.subTest(signal=sig.name), tempfile.TemporaryDirectory() as runs:
                log = os.path.join(runs, "pids")
                proc = self.driver(runs, log, "--pings=50000000", "--timeout=120")
                self.wait_for_client(log, proc)
                proc.send_signal(sig)
                _, err = proc.communicate(timeout=30)
                self.assertEqual(proc.returncode, 128 + sig, err)
                self.assertIn(f"interrupted by signal {int(sig)}; every process it started is "
                              "stopped: ", err)
                # Stopped by the driver, by PID, not by dying with it (the
                # C++ client has no handler: it dies of SIGTERM; the server
                # says its figures and exits, 143 unless its clients'
                # connections closed first).
                server, client = self.pids(log)
                self.assertIn(f"the client (PID {client}, SIGTERM after SIGTERM)", err)
                self.assertRegex(err, f"the server \\(PID {server}, exit (143|1) after SIGTERM\\)")
                self.assert_all_gone(log)

    def test_killed_driver_takes_its_children(self):
        with tempfile.TemporaryDirectory() as runs:
            log = os.path.join(runs, "pids")
            proc = self.driver(runs, log, "--pings=50000000", "--timeout=120")
            self.wait_for_client(log, proc)
            proc.kill()
            proc.communicate(timeout=30)
            self.assert_all_gone(log)


# --------------------------------------------------------- resets, SIGPIPE

def signal_ignored(pid, signum):
    """True when the running process ignores the signal (SigIgn in /proc)."""
    with open(f"/proc/{pid}/status") as f:
        mask = int(re.search(r"^SigIgn:\s*([0-9a-f]+)", f.read(), re.M).group(1), 16)
    return bool(mask >> (signum - 1) & 1)


class ResetTest(Setup):
    """A peer that resets its connection is said in one line, never a silent
    death by SIGPIPE: the C++ programs ignore SIGPIPE (and write with
    MSG_NOSIGNAL), and name the reset."""

    def test_sigpipe_ignored(self):
        out, err = os.path.join(self.work, "s.out"), os.path.join(self.work, "s.err")
        server = driver.start("server", self.cpp.server_argv(None, None, 1, 30), out, err)
        client = None
        try:
            port = driver._await_port(server, {"sout": out, "serr": err}, 30)
            self.assertTrue(signal_ignored(server.pid, signal.SIGPIPE), "the server")
            # A client with a ping in flight that is never answered.
            client = driver.start("client", self.cpp.client_argv(None, None, port, 1, 1, 30),
                                  os.path.join(self.work, "c.out"),
                                  os.path.join(self.work, "c.err"))
            end = time.monotonic() + 10
            while not signal_ignored(client.pid, signal.SIGPIPE) and time.monotonic() < end:
                time.sleep(0.01)  # before the exec, or before main() ran
            self.assertTrue(signal_ignored(client.pid, signal.SIGPIPE), "the client")
        finally:
            driver.stop(client, server)

    def test_server_says_the_client_reset(self):
        import socket
        import struct
        out, err = os.path.join(self.work, "r.out"), os.path.join(self.work, "r.err")
        server = driver.start("server", self.cpp.server_argv(None, None, 3, 30), out, err)
        try:
            port = driver._await_port(server, {"sout": out, "serr": err}, 30)
            for _ in range(3):  # a ping, then a reset (RST) before the pong
                s = socket.create_connection(("127.0.0.1", port))
                s.setsockopt(socket.SOL_SOCKET, socket.SO_LINGER, struct.pack("ii", 1, 0))
                s.sendall(b"Ping")
                s.close()
            status, _ = driver.reap(server, block=True)
        finally:
            driver.stop(server)
        self.assertEqual(status, 1)
        with open(err) as f:
            text = f.read()
        # Ping 0 (the reset came before the pong) or 1 (after it).
        self.assertRegex(text, r"cryptobench-pingpong-server: connection \d, ping [01]: the client "
                               r"reset the connection \((read|write): Connection reset by peer\)")

    def test_client_says_the_server_reset(self):
        import socket
        import struct
        import threading
        listener = socket.socket()
        listener.bind(("127.0.0.1", 0))
        listener.listen(1)

        def serve():  # answers one ping, then resets at the second
            conn, _ = listener.accept()
            conn.recv(4)
            conn.sendall(b"Pong")
            conn.recv(4)
            conn.setsockopt(socket.SOL_SOCKET, socket.SO_LINGER, struct.pack("ii", 1, 0))
            conn.close()
        thread = threading.Thread(target=serve, daemon=True)
        thread.start()
        try:
            out = subprocess.run(self.cpp.client_argv(None, None, listener.getsockname()[1], 1, 3,
                                                      10), capture_output=True, text=True,
                                 timeout=30)
        finally:
            thread.join(10)
            listener.close()
        self.assertEqual(out.returncode, 1, out.stderr)
        self.assertEqual(out.stderr, "cryptobench-pingpong-client: connection 0, pong 1: the "
                                     "server reset the connection (read: Connection reset by "
                                     "peer)\n")


class ScalaRobustTest(Setup):
    """The Scala peer's resets and processes: a reset is said in one line
    (the server's, naming the connection and the ping; the client's, naming
    the pong), and a driver running the Scala cell leaves no JVM behind when
    it is interrupted or killed outright. Its forged and stale frames are in
    TamperTest and ForgedPingTest, with the other peers'."""

    def test_server_says_the_client_reset(self):
        import socket
        import struct
        scala = self.scala_peer()
        out, err = os.path.join(self.work, "sr.out"), os.path.join(self.work, "sr.err")
        server = driver.start("server", scala.server_argv(None, None, 3, 30), out, err)
        try:
            port = driver._await_port(server, {"sout": out, "serr": err}, 30)
            for _ in range(3):  # a ping, then a reset (RST) before or after the pong
                s = socket.create_connection(("127.0.0.1", port))
                s.setsockopt(socket.SOL_SOCKET, socket.SO_LINGER, struct.pack("ii", 1, 0))
                s.sendall(b"Ping")
                s.close()
            status, _ = driver.reap(server, block=True)
        finally:
            driver.stop(server)
        with open(err) as f:
            text = f.read()
        self.assertEqual(status, 1, text)
        self.assertRegex(text, r"pingpong-scala-server: connection \d, ping [01]: the client "
                               r"(reset|closed) the connection \((read|write): (Connection reset"
                               r"|Broken pipe)")
        self.assertIn("protocol or crypto error(s); the run is not valid", text)

    def test_client_says_the_server_reset(self):
        import socket
        import struct
        import threading
        scala = self.scala_peer()
        listener = socket.socket()
        listener.bind(("127.0.0.1", 0))
        listener.listen(1)

        def serve():  # answers one ping, then resets at the second
            conn, _ = listener.accept()
            conn.recv(4)
            conn.sendall(b"Pong")
            conn.recv(4)
            conn.setsockopt(socket.SOL_SOCKET, socket.SO_LINGER, struct.pack("ii", 1, 0))
            conn.close()
        thread = threading.Thread(target=serve, daemon=True)
        thread.start()
        try:
            out = subprocess.run(scala.client_argv(None, None, listener.getsockname()[1], 1, 3, 10),
                                 capture_output=True, text=True, timeout=30)
        finally:
            thread.join(10)
            listener.close()
        self.assertEqual(out.returncode, 1, out.stderr)
        self.assertRegex(out.stderr, r"^pingpong-scala-client: connection 0, pong 1: the server "
                                     r"reset the connection \(read: Connection reset\)\n$")

    def test_the_seeds_defects_are_fixed(self):
        """The seed's server answered "Pong" per read (a one-element buffer)
        and looped while the socket was connected, and the global context
        ran as many connections at once as there are cores. Here: "Ping"
        sent in two pieces is one "Pong"; more connections than cores, each
        with a ping in flight, are all answered before any closes; each
        connection ends at its end of stream, and the server with the last."""
        import socket
        scala = self.scala_peer()
        many = (os.cpu_count() or 1) + 6
        out, err = os.path.join(self.work, "sd.out"), os.path.join(self.work, "sd.err")
        server = driver.start("server", scala.server_argv(None, None, many + 1, 30), out, err)
        try:
            port = driver._await_port(server, {"sout": out, "serr": err}, 30)
            with socket.create_connection(("127.0.0.1", port)) as s:
                s.setsockopt(socket.IPPROTO_TCP, socket.TCP_NODELAY, 1)
                s.settimeout(10)
                s.sendall(b"Pi")
                time.sleep(0.2)
                s.sendall(b"ng")
                self.assertEqual(s.recv(8), b"Pong")
                s.settimeout(0.5)
                with self.assertRaises(socket.timeout, msg="a second reply to one ping"):
                    s.recv(8)
            conns = [socket.create_connection(("127.0.0.1", port)) for _ in range(many)]
            for s in conns:
                s.sendall(b"Ping")
            for i, s in enumerate(conns):
                s.settimeout(10)
                try:
                    self.assertEqual(s.recv(4), b"Pong", f"connection {i + 1}")
                except socket.timeout:
                    self.fail(f"connection {i + 1} of {many} (on {os.cpu_count()} cores) was not "
                              "answered while the others stayed open")
            for s in conns:
                s.close()
            status, _ = driver.reap(server, block=True)
        finally:
            driver.stop(server)
        self.assertEqual(status, 0, driver.first_error_line(err))
        figures = driver.last_json_line(out, "server")
        self.assertEqual((figures["connections"], figures["pings"]), (many + 1, many + 1))

    def test_client_runs_every_connection_at_once(self):
        """A server that answers no ping until every connection is open: the
        Scala client must open them all (more than the cores) at once."""
        import socket
        import threading
        scala = self.scala_peer()
        many = (os.cpu_count() or 1) + 6
        listener = socket.socket()
        listener.bind(("127.0.0.1", 0))
        listener.listen(many)
        listener.settimeout(15)

        def serve():
            conns = []
            try:
                for _ in range(many):
                    conns.append(listener.accept()[0])
                for c in conns:  # one ping each, answered only now
                    c.recv(4)
                    c.sendall(b"Pong")
                for c in conns:
                    c.recv(4)  # end of stream
            except OSError:
                pass
            finally:
                for c in conns:
                    c.close()
        thread = threading.Thread(target=serve, daemon=True)
        thread.start()
        try:
            out = subprocess.run(scala.client_argv(None, None, listener.getsockname()[1], many,
                                                   many, 10),
                                 capture_output=True, text=True, timeout=60)
        finally:
            thread.join(20)
            listener.close()
        self.assertEqual(out.returncode, 0, out.stderr)
        self.assertEqual(json.loads(out.stdout.splitlines()[-1])["pings"], many)

    def driver(self, runs, log):
        return subprocess.Popen([sys.executable, DRIVER, f"--build-dir={BUILD}",
                                 f"--runs-dir={runs}", "--peers=scala", "--backends=none",
                                 "--no-plain", "--no-interop", "--repetitions=1",
                                 "--connections=4", "--pings=20000000", "--timeout=120",
                                 f"--pid-log={log}"],
                                stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True)

    def test_no_process_left_behind(self):
        """SIGTERM to the driver in the Scala cell: both JVMs stopped by
        their PIDs and said; SIGKILL to the driver: they die with it."""
        self.scala_peer()
        cleanup = CleanupTest()
        for how in ("SIGTERM", "SIGKILL"):
            with self.subTest(driver=how), tempfile.TemporaryDirectory() as runs:
                log = os.path.join(runs, "pids")
                proc = self.driver(runs, log)
                cleanup.wait_for_client(log, proc)
                if how == "SIGTERM":
                    proc.send_signal(signal.SIGTERM)
                    _, err = proc.communicate(timeout=30)
                    self.assertEqual(proc.returncode, 128 + signal.SIGTERM, err)
                    server, client = cleanup.pids(log)
                    self.assertIn(f"the client (PID {client}, ", err)
                    self.assertIn(f"the server (PID {server}, ", err)
                else:
                    proc.kill()
                    proc.communicate(timeout=30)
                cleanup.assert_all_gone(log)


# ------------------------------------------------------- the programs' flags

class ProgramUsageTest(Setup):
    """Every program's --help (exit 0, every flag), a bad flag (one line,
    exit 2), and --pings at its limit: 10^8 at most, and where the round
    trips' memory cannot be had, one line and exit 2, never a crash."""

    def programs(self):
        out = [("C++", "server", self.cpp.server), ("C++", "client", self.cpp.client)]
        for peer in (self.go, self.java, self.scala):
            if not peer.why_not:
                out += [(peer.label, "server", peer.server), (peer.label, "client", peer.client)]
        return out

    def test_help(self):
        flags = {"server": ["port", "connections", "timeout", "key"],
                 "client": ["port", "connections", "pings", "timeout", "key"]}
        for label, role, argv in self.programs():
            with self.subTest(program=f"{label} {role}"):
                out = subprocess.run(argv + ["--help"], capture_output=True, text=True, timeout=30)
                self.assertEqual((out.returncode, out.stderr), (0, ""))
                self.assertTrue(out.stdout.startswith("usage: "), out.stdout)
                for flag in flags[role]:
                    self.assertRegex(out.stdout, f"(^|\\s)--?{flag}\\b")

    def test_bad_flag(self):
        for label, role, argv in self.programs():
            with self.subTest(program=f"{label} {role}"):
                out = subprocess.run(argv + ["--no-such-flag=1"], capture_output=True, text=True,
                                     timeout=30)
                self.assertEqual(out.returncode, 2)
                self.assertEqual(len(out.stderr.splitlines()), 1, out.stderr)
                self.assertIn("no-such-flag", out.stderr)

    def test_pings_limit(self):
        for label, role, argv in self.programs():
            if role != "client":
                continue
            with self.subTest(client=label):
                out = subprocess.run(argv + ["--port=9", "--pings=100000001"], capture_output=True,
                                     text=True, timeout=30)
                self.assertEqual(out.returncode, 2)
                self.assertEqual(len(out.stderr.splitlines()), 1, out.stderr)
                self.assertIn("100000000", out.stderr)

    def test_round_trips_memory_refused(self):
        """10^8 pings need 400 MB: under an address-space limit that leaves
        less (C++: 300 MB; Go, whose runtime reserves more: 1 GB) or a 64 MB
        Java heap the client says so and exits 2 before any connection
        (port 9: nothing listens there)."""
        import resource

        def limit(mib):
            return lambda: resource.setrlimit(resource.RLIMIT_AS, (mib << 20, mib << 20))
        cases = []
        if sanitized():
            print("C++ client skipped: a sanitizer's shadow memory needs more address space than "
                  "any limit that tests this", file=sys.stderr)
        else:
            cases.append(("C++", self.cpp.client, limit(300)))
        if not self.go.why_not:
            cases.append(("Go", self.go.client, limit(1024)))
        for peer in (self.java, self.scala):  # the JVM's heap: -Xmx
            if not peer.why_not:
                cases.append((peer.label, [peer.client[0], "-Xmx64m"] + peer.client[1:], None))
        for label, argv, preexec in cases:
            with self.subTest(client=label):
                out = subprocess.run(argv + ["--port=9", "--pings=100000000"], capture_output=True,
                                     text=True, timeout=60, preexec_fn=preexec)
                self.assertEqual(out.returncode, 2, out.stderr[-500:])
                self.assertEqual(len(out.stderr.splitlines()), 1, out.stderr[-500:])
                self.assertRegex(out.stderr, r"pings=100000000.* needs 381 MiB.*lower")


def sanitized():
    """True when BUILD's C++ is built with a sanitizer (the asan preset)."""
    try:
        with open(os.path.join(BUILD, "CMakeCache.txt")) as f:
            return "-fsanitize=" in f.read()
    except OSError:
        return False


# ------------------------------------------------------------ the driver

DRIVER = os.path.join(SOURCE, "pingpong", "driver.py")


def run_driver(*argv, check_only=False, env=None, timeout=120):
    environ = dict(os.environ, **(env or {}))
    environ.pop("CRYPTOBENCH_PINGPONG_CHECK_ONLY", None)
    if check_only:
        environ["CRYPTOBENCH_PINGPONG_CHECK_ONLY"] = "1"
    return subprocess.run(["/usr/bin/python3", DRIVER, *argv], capture_output=True, text=True,
                          timeout=timeout, env=environ)


class DriverArgsTest(unittest.TestCase):
    """Bad arguments: one line, exit 2, before anything is built or run."""
    BAD = [
        (["--backends=nosuch"], "unknown backend 'nosuch' (--backends); this source tree has: "),
        (["--backends=openssl,openssl"], "--backends=openssl,openssl names openssl more than once"),
        (["--backends=openssl,"], "--backends=openssl, has an empty name"),
        (["--backends=all,openssl"], "'all' stands alone"),
        (["--peers=go,go"], "--peers=go,go names go more than once"),
        (["--peers=rust"], "--peers takes go, java, scala or none, not 'rust'"),
        (["--pings=abc"], "--pings must be a whole number from 1 to 100,000,000, not 'abc'"),
        (["--pings=100000001"], "--pings must be from 1 to 100,000,000, not 100,000,001"),
        (["--pings=50"], "--pings (50) must be at least --connections (100)"),
        (["--unloaded-pings=-1"], "--unloaded-pings must be from 0 to 100,000,000, not -1"),
        (["--connections=0"], "--connections must be from 1 to 10,000, not 0"),
        (["--repetitions=0"], "--repetitions must be from 1 to 1,000, not 0"),
        (["--timeout=x"], "--timeout must be a whole number"),
        (["--seed=-3"], "--seed must be from 0 to "),
        (["--server-fault=bogus"], "--server-fault invalid choice: 'bogus'"),
        (["--pings=5000", "--pings=6000"], "--pings given more than once"),
        (["--no-such-flag"], "unrecognized arguments: --no-such-flag"),
        (["--check-args"], "unrecognized arguments: --check-args"),
        (["--back=openssl"], "unrecognized arguments: --back=openssl"),
        (["extra"], "unrecognized arguments: extra"),
        (["--runs-dir=/etc/hostname"], "--runs-dir=/etc/hostname is not a folder"),
    ]

    def assert_one_line(self, out, want):
        self.assertEqual(out.returncode, 2, out.stderr)
        self.assertEqual(out.stdout, "")
        self.assertEqual(len(out.stderr.splitlines()), 1, out.stderr)
        self.assertTrue(out.stderr.startswith("run-pingpong: "), out.stderr)
        self.assertIn(want, out.stderr)

    def test_bad_arguments_checked_before_anything(self):
        for argv, want in self.BAD:
            with self.subTest(argv=argv):
                self.assert_one_line(run_driver(*argv, check_only=True), want)

    def test_good_arguments_pass_the_check(self):
        out = run_driver("--backends=openssl,wolfssl", "--peers=go", "--pings=5000",
                         "--connections=10", "--repetitions=3", check_only=True)
        self.assertEqual((out.returncode, out.stdout, out.stderr), (0, "", ""))

    def test_run_pingpong_refuses_before_install_and_build(self):
        """tools/run-pingpong with a bad backend or a --check-args of its
        own: exit 2 and one line; with --help, the help; and neither
        install-deps (dpkg-query, apt-get) nor cmake is ever run."""
        with tempfile.TemporaryDirectory() as stubs:
            log = os.path.join(stubs, "ran")
            for tool in ("cmake", "dpkg-query", "apt-get", "sudo", "ninja"):
                path = os.path.join(stubs, tool)
                with open(path, "w") as f:
                    f.write(f"#!/bin/sh\necho {tool} >> {log}\nexit 1\n")
                os.chmod(path, 0o755)
            env = dict(os.environ, PATH=stubs + os.pathsep + os.environ["PATH"])
            env.pop("CRYPTOBENCH_BUILD_DIR", None)
            for argv, want in ((["--backends=nosuch"], "unknown backend 'nosuch'"),
                               (["--backends=openssl,openssl"], "names openssl more than once"),
                               (["--check-args"], "unrecognized arguments: --check-args")):
                with self.subTest(argv=argv):
                    out = subprocess.run([os.path.join(SOURCE, "tools", "run-pingpong"), *argv],
                                         capture_output=True, text=True, timeout=60, env=env)
                    self.assert_one_line(out, want)
            out = subprocess.run([os.path.join(SOURCE, "tools", "run-pingpong"), "--pings=5000",
                                  "--help"], capture_output=True, text=True, timeout=60, env=env)
            self.assertEqual((out.returncode, out.stderr), (0, ""))
            self.assertTrue(out.stdout.startswith("usage: run-pingpong"), out.stdout[:200])
            self.assertFalse(os.path.exists(log), "something was installed or built")

    def test_backends_the_build_cannot_seal_with(self):
        """Known to the source but not usable for the sealed ping-pong here
        (sodium: AES-256-GCM only): one line, exit 2, before any cell runs."""
        with tempfile.TemporaryDirectory() as runs:
            out = run_driver(f"--build-dir={BUILD}", f"--runs-dir={runs}", "--peers=none",
                             "--backends=openssl,sodium", "--pings=2000", "--connections=4")
            self.assert_one_line(out, "backend 'sodium' cannot run the sealed ping-pong: does "
                                      "not offer AES-128-GCM")
            self.assertEqual(os.listdir(runs), [])  # nothing measured, no run folder

    def test_missing_build(self):
        with tempfile.TemporaryDirectory() as d:
            self.assert_one_line(run_driver(f"--build-dir={d}/none", "--peers=none"),
                                 f"--build-dir={d}/none is not a folder")
            self.assert_one_line(run_driver(f"--build-dir={d}", "--peers=none"),
                                 "cryptobench-pingpong-server is missing: build it")


def fake_build(folder, client_script, server_script="exit 1"):
    """A build folder whose C++ programs are shell scripts."""
    os.makedirs(os.path.join(folder, "pingpong"))
    for name, body in (("client", client_script), ("server", server_script)):
        path = os.path.join(folder, "pingpong", f"cryptobench-pingpong-{name}")
        with open(path, "w") as f:
            f.write("#!/bin/sh\n" + body + "\n")
        os.chmod(path, 0o755)


class DriverErrorsTest(unittest.TestCase):
    """What the driver's own subprocesses do wrong (a timeout, JSON that is
    not, a failure) ends the run in one line, never a traceback."""

    def main(self, *argv, **patches):
        """driver.main in this process, with module constants patched;
        (status, stderr)."""
        import contextlib
        import io
        saved = {k: getattr(driver, k) for k in patches}
        err = io.StringIO()
        try:
            for k, v in patches.items():
                setattr(driver, k, v)
            with contextlib.redirect_stderr(err):
                status = driver.main(list(argv))
        finally:
            for k, v in saved.items():
                setattr(driver, k, v)
            signal.signal(signal.SIGINT, signal.default_int_handler)
            for sig in (signal.SIGTERM, signal.SIGHUP):
                signal.signal(sig, signal.SIG_DFL)
        return status, err.getvalue()

    def assert_one_line(self, status, err, want):
        """Exit 1; the last line says why; every line before it is progress."""
        self.assertEqual(status, 1, err)
        self.assertNotIn("Traceback", err)
        *before, last = err.splitlines()
        self.assertRegex(last, "^run-pingpong: " + want)
        for line in before:
            self.assertRegex(line, r"^run-pingpong: \[\d+/\d+\] repetition ", err)

    def test_list_backends_not_json(self):
        for body, want in (('echo "not json"', r".*--list-backends wrote something other than "
                                                r"its JSON list"),
                           ('echo \'[{"name": 3}]\'', r".*--list-backends wrote something other "
                                                      r"than its JSON list"),
                           ('echo oops >&2; exit 3', r".*--list-backends failed \(exit 3\): oops")):
            with self.subTest(client=body), tempfile.TemporaryDirectory() as d:
                fake_build(d, body)
                self.assert_one_line(*self.main(f"--build-dir={d}", "--peers=none",
                                                 f"--runs-dir={d}/runs"), want)

    def test_list_backends_timeout(self):
        with tempfile.TemporaryDirectory() as d:
            fake_build(d, "exec sleep 30")
            self.assert_one_line(*self.main(f"--build-dir={d}", "--peers=none",
                                             f"--runs-dir={d}/runs", QUERY_TIMEOUT=0.5),
                                 r".*--list-backends did not answer within 0.5 s")

    def test_results_tool_timeout_and_failure(self):
        with tempfile.TemporaryDirectory() as d:
            shutil.copy(os.path.join(GOLDEN, "benchmark.json"), d)
            saved = driver.DERIVE_TIMEOUT
            driver.DERIVE_TIMEOUT = 0.001
            try:
                with self.assertRaisesRegex(driver.RunError, r"^cryptobench-results pingpong did "
                                            r"not end within 0.001 s \(benchmark.json is written"):
                    driver.derive(d, print)
            finally:
                driver.DERIVE_TIMEOUT = saved
            with open(os.path.join(d, "benchmark.json"), "w") as f:
                f.write('{"context": {}, "benchmarks": [')
            with self.assertRaisesRegex(driver.RunError, r"^cryptobench-results pingpong failed "
                                        r"\(exit \d\): .*benchmark.json"):
                driver.derive(d, print)

    def test_a_server_that_said_its_port_and_ended_keeps_its_status(self):
        """The port read once more after the server was reaped: its exit
        status must survive for the later checks (it was lost, and the cell
        waited 30 s for a server that had ended)."""
        with tempfile.TemporaryDirectory() as d:
            paths = {"sout": os.path.join(d, "out"), "serr": os.path.join(d, "err")}
            server = driver.start("server", ["sh", "-c", "exit 3"], paths["sout"], paths["serr"])
            while driver.reap(server) is None:
                time.sleep(0.01)
            with open(paths["sout"], "w") as f:  # as if said just before it ended
                f.write("listening on 127.0.0.1:9\n")
            self.assertEqual(driver._await_port(server, paths, 5), 9)
            done = driver.reap(server)
            self.assertIsNotNone(done, "the server's end was lost")
            self.assertEqual(done[0], 3)

    def test_figures_without_a_field(self):
        """A program whose JSON line lacks a figure fails the cell in one line."""
        with tempfile.TemporaryDirectory() as d:
            fake_build(d, 'case "$1" in --list-backends) echo "[]";; *) '
                          'echo \'{"role": "client", "pings": 8}\';; esac',
                       'echo "listening on 127.0.0.1:9"; echo \'{"role": "server"}\'')
            self.assert_one_line(*self.main(f"--build-dir={d}", "--peers=none", "--backends=none",
                                             "--connections=2", "--pings=8", "--repetitions=1",
                                             "--unloaded-pings=0",
                                             f"--runs-dir={d}/runs"),
                                 r"C\+\+ plain, repetition 1: the client's figures have no "
                                 r"connections \(a number 0 or more\)")


# ------------------------------------------------------------ toolchains

def fake_program(path, text):
    os.makedirs(os.path.dirname(path), exist_ok=True)
    with open(path, "w") as f:
        f.write(f"#!/bin/sh\n{text}\n")
    os.chmod(path, 0o755)


class ToolchainTest(unittest.TestCase):
    """The peers' names come from the versions their runtimes report, and
    their toolchains from tools/toolchains.py, as run-peers finds them."""

    def setUp(self):
        self.saved = {k: os.environ.get(k) for k in
                      ("CRYPTOBENCH_JAVA_HOME", "CRYPTOBENCH_GO", "CRYPTOBENCH_CPU_MASK",
                       "CRYPTOBENCH_SCALAC")}
        for k in self.saved:
            os.environ.pop(k, None)
        self.dir = tempfile.mkdtemp(prefix="pingpong-toolchains-")

    def tearDown(self):
        for k, v in self.saved.items():
            if v is None:
                os.environ.pop(k, None)
            else:
                os.environ[k] = v
        shutil.rmtree(self.dir)

    def build(self, go_version="go1.21.3", java_version="17.0.99", scala_version="2.11.99"):
        """A build folder with C++ programs, a Go client and server that say
        go_version, Java and Scala classes; a JDK whose javac says 17 and
        whose java says java_version (scala_version for the Scala classes)."""
        build = os.path.join(self.dir, "build")
        fake_build(build, "exit 0", "exit 0")
        for role in ("client", "server"):
            fake_program(os.path.join(build, "pingpong", f"pingpong-go-{role}"),
                         f'[ "$1" = --version ] && echo {go_version}')
        for classes in ("java-classes", "scala-classes"):
            os.makedirs(os.path.join(build, "pingpong", classes))
            open(os.path.join(build, "pingpong", classes, "built.stamp"), "w").close()
        jdk = os.path.join(self.dir, "jdk")
        fake_program(os.path.join(jdk, "bin", "javac"), 'echo "javac 17.0.99"')
        fake_program(os.path.join(jdk, "bin", "java"),
                     f'case "$*" in *scala-classes*) echo "{scala_version}";; '
                     f'*) echo "{java_version}";; esac')
        os.environ["CRYPTOBENCH_JAVA_HOME"] = jdk
        return build, jdk

    def test_names_from_the_runtimes(self):
        build, jdk = self.build()
        cpp, go, java, scala = driver.find_peers(build)
        self.assertEqual((go.why_not, java.why_not, scala.why_not), ("", "", ""))
        self.assertEqual((go.name, go.version, go.impl), ("go-1.21", "go1.21.3", "go-1.21.3"))
        self.assertEqual((java.name, java.version, java.impl),
                         ("java-17", "17.0.99", "java-17.0.99"))
        self.assertEqual(java.client[0], os.path.join(jdk, "bin", "java"))
        self.assertEqual((scala.name, scala.version, scala.impl),
                         ("scala-2.11", "2.11.99", "scala-2.11.99"))
        classes = os.path.join(build, "pingpong", "scala-classes")
        self.assertEqual(scala.client, [os.path.join(jdk, "bin", "java"), "-cp",
                                        f"{classes}:{classes}/scala-library.jar",
                                        "PingPongClient"])

    def test_scala_missing(self):
        """No scalac: the Scala peer is skipped, saying why; with scalac but
        no Java 17 JDK too (scalac runs on it)."""
        build, jdk = self.build()
        shutil.rmtree(os.path.join(build, "pingpong", "scala-classes"))
        os.environ["CRYPTOBENCH_SCALAC"] = "/nonexistent/scalac"
        scala = driver.find_peers(build)[3]
        self.assertEqual(scala.why_not, "skipped: CRYPTOBENCH_SCALAC=/nonexistent/scalac is not a "
                                        "program: install Debian's scala (tools/install-deps does)")
        home = os.path.join(self.dir, "scala-home")
        fake_program(os.path.join(home, "bin", "scalac"), "exit 0")
        os.environ["CRYPTOBENCH_SCALAC"] = os.path.join(home, "bin", "scalac")
        scala = driver.find_peers(build)[3]
        self.assertRegex(scala.why_not, "^skipped: .*/scalac has no scala-library.jar beside it")
        os.makedirs(os.path.join(home, "lib"))
        open(os.path.join(home, "lib", "scala-library.jar"), "w").close()
        self.assertEqual(toolchains.find_scala(), (os.path.join(home, "bin", "scalac"),
                                                   os.path.join(home, "lib", "scala-library.jar"),
                                                   jdk))
        os.environ["CRYPTOBENCH_JAVA_HOME"] = os.path.join(self.dir, "no-jdk")
        scala = driver.find_peers(build)[3]
        self.assertRegex(scala.why_not, "^skipped: scalac needs a Java 17 JDK to compile and run "
                                        "on: no Java 17 JDK in CRYPTOBENCH_JAVA_HOME=")

    def test_java_must_be_17(self):
        build, jdk = self.build()
        fake_program(os.path.join(jdk, "bin", "javac"), 'echo "javac 21.0.1"')
        _, _, java, scala = driver.find_peers(build)
        self.assertEqual(scala.why_not, java.why_not)  # run on the same JVM
        self.assertEqual(java.why_not, f"skipped: no Java 17 JDK in CRYPTOBENCH_JAVA_HOME={jdk}: "
                                       "install Debian's openjdk-17-jdk-headless "
                                       "(tools/install-deps does)")

    def test_go_missing_and_cpu_mask(self):
        build, _ = self.build()
        for role in ("client", "server"):
            os.unlink(os.path.join(build, "pingpong", f"pingpong-go-{role}"))
        os.environ["CRYPTOBENCH_GO"] = "/nonexistent/go"
        go = driver.find_peers(build)[1]
        self.assertEqual(go.why_not, "skipped: CRYPTOBENCH_GO=/nonexistent/go is not a program: "
                                     "install Debian's golang-go (tools/install-deps does)")
        os.environ["CRYPTOBENCH_CPU_MASK"] = "aes"
        _, go, java, scala = driver.find_peers(build)
        for peer in (go, java, scala):
            self.assertEqual(peer.why_not, f"skipped: {toolchains.CPU_MASK_REASON}")

    def test_unreadable_version(self):
        build, _ = self.build(go_version="gccgo")
        go = driver.find_peers(build)[1]
        self.assertEqual(go.why_not, "skipped: its runtime reports an unreadable version 'gccgo'")

    def test_not_asked_for(self):
        build, _ = self.build()
        _, go, java, scala = driver.find_peers(build, wanted=())
        self.assertEqual((go.why_not, java.why_not, scala.why_not),
                         ("skipped: not asked for (--peers)",) * 3)

    def test_cmake_file(self):
        build, jdk = self.build()
        os.environ["CRYPTOBENCH_GO"] = "/nonexistent/go"
        os.environ["CRYPTOBENCH_SCALAC"] = "/nonexistent/scalac"
        path = os.path.join(self.dir, "toolchains.cmake")
        toolchains.write_cmake(path, os.path.join(self.dir, "gocache"))
        with open(path) as f:
            text = f.read()
        self.assertIn(f'set(CRYPTOBENCH_PEER_JAVAC "{jdk}/bin/javac")', text)
        self.assertIn('set(CRYPTOBENCH_PEER_GO "")', text)
        self.assertIn("CRYPTOBENCH_GO=/nonexistent/go is not a program", text)
        self.assertIn('set(CRYPTOBENCH_PEER_SCALAC "")', text)
        self.assertIn("CRYPTOBENCH_SCALAC=/nonexistent/scalac is not a program", text)
        for setting in ("GOWORK=off", "GOSUMDB=off", "GOPROXY=off", "GOFLAGS=-mod=mod"):
            self.assertIn(f'"{setting}"', text)

    def test_peer_name(self):
        for language, version, name in (("go", "go1.19.8", "go-1.19"), ("go", "go1.22", "go-1.22"),
                                         ("go", "devel go1.23-abc", "go-1.23"),
                                         ("java", "17.0.15", "java-17"), ("java", "21", "java-21"),
                                         ("java", "17-ea", "java-17"), ("go", "1.19", None),
                                         ("java", "x17", None), ("scala", "2.11.12", "scala-2.11"),
                                         ("scala", "2.13.0-M5", "scala-2.13"),
                                         ("scala", "2", None), ("scala", "v2.11", None)):
            self.assertEqual(toolchains.peer_name(language, version), name, version)


# --------------------------------------------------------------- the verdict

def verdict_of(doc):
    sys.path.insert(0, os.path.join(SOURCE, "tools", "results"))
    from cryptobench_results import gbench, pingpong
    return pingpong.verdict(gbench.run_from_doc("test.json", json.loads(json.dumps(doc))))


def library_doc(samples_per_library, plain=None):
    """A ping-pong run document from the golden run's context and entries:
    C++ plain, and one sealed library cell per element of
    samples_per_library (its real_time repetitions, ns)."""
    with open(os.path.join(GOLDEN, "benchmark.json")) as f:
        golden = json.load(f)
    template = next(e for e in golden["benchmarks"] if "backend:openssl/" in e["name"])
    plain_entries = [e for e in golden["benchmarks"]
                     if "backend:cpp-epoll/" in e["name"] and "/connections:4/" in e["name"]]
    doc = {"context": golden["context"], "benchmarks": []}
    for i, e in enumerate(plain_entries):
        e = dict(e)
        if plain:
            e["real_time"] = plain[i]
        doc["benchmarks"].append(e)
    for k, samples in enumerate(samples_per_library):
        name = template["name"].replace("backend:openssl/", f"backend:lib{k:02d}/")
        for i, t in enumerate(samples):
            e = dict(template, name=name, run_name=name, repetition_index=i,
                     repetitions=len(samples), real_time=t)
            doc["benchmarks"].append(e)
    return doc


class VerdictTest(unittest.TestCase):
    """Does the AES choice matter? One Kruskal-Wallis test across every
    library's cell, not a Mann-Whitney test of the fastest against the
    slowest of them as if those two had been chosen in advance."""

    def test_every_library_with_one_backends_figures(self):
        """A/A: every sealed library cell carries openssl's real figures
        (each in another order): no measurable difference."""
        with open(os.path.join(GOLDEN, "benchmark.json")) as f:
            golden = json.load(f)
        mine = [e["real_time"] for e in golden["benchmarks"]
                if "backend:openssl/" in e["name"]]
        cells = [mine[k % len(mine):] + mine[:k % len(mine)] for k in range(13)]
        v = verdict_of(library_doc(cells))
        self.assertEqual((v.verdict, v.libraries), ("not-significant", 13))
        self.assertIn("No measurable difference: not significant.", "\n".join(v.lines))

    def test_a_a_runs_rarely_matter(self):
        """A/A, 100 times: 13 libraries, 5 repetitions each, all drawn from
        one distribution (1% noise). With the extremes tested as if chosen,
        about 20 of the 100 would 'matter'; across all 13, about alpha's 5."""
        import random
        matters = 0
        for seed in range(100):
            rng = random.Random(seed)
            cells = [[rng.gauss(4000, 40) for _ in range(5)] for _ in range(13)]
            plain = [rng.gauss(3500, 35) for _ in range(5)]
            v = verdict_of(library_doc(cells, plain))
            matters += v.verdict == "matters"
        self.assertLessEqual(matters, 8)

    def test_a_real_difference_matters(self):
        """Libraries 30 ns per ping apart each (as the reference run's are,
        3.73 to 4.19 us in 11 steps), 1 ns of noise."""
        cells = [[4000 + 30 * k + j for j in range(5)] for k in range(13)]
        v = verdict_of(library_doc(cells, [3500 + j for j in range(5)]))
        self.assertEqual(v.verdict, "matters")
        self.assertRegex("\n".join(v.lines),
                         r"the choice: 360 ns per ping of wall time between the fastest and the "
                         r"slowest of 13 libraries \(9%; Kruskal-Wallis across the 13 libraries: "
                         r"p < 0.001, noise floor [0-9.]+%\)\. Yes: the libraries differ "
                         r"significantly")

    def test_too_few_repetitions(self):
        v = verdict_of(library_doc([[4000, 4010, 4020, 4030], [4400, 4410, 4420, 4430]]))
        self.assertEqual(v.verdict, "untested")


# ------------------------------------------------------------------- golden

def golden_document():
    """benchmark.json rebuilt by the driver's own code from the processes'
    recorded lines (golden/processes.jsonl, a real run: 4 connections, 2,000
    pings, 5 repetitions; see record_golden), the registry's answer then
    (golden/registry.json) and the run's settings (golden/run.json); equal,
    but for the context fields that vary (VOLATILE), to the benchmark.json
    that run wrote."""
    with open(os.path.join(GOLDEN, "registry.json")) as f:
        registry = json.load(f)
    with open(os.path.join(GOLDEN, "processes.jsonl")) as f:
        lines = [json.loads(line) for line in f]
    with open(os.path.join(GOLDEN, "run.json")) as f:
        run = json.load(f)
    cpp = driver.Peer("cpp-epoll", "C++", ["server"], ["client"], backends=[])
    cpp.library = "cryptobench ping-pong in C++20: one epoll thread per process"
    go = driver.Peer("go", "Go", ["server"], ["client"], why_not=run["why_not"]["go"])
    java = driver.Peer("java", "Java", ["server"], ["client"], why_not=run["why_not"]["java"])
    scala = driver.Peer("scala", "Scala", ["server"], ["client"],
                        why_not=run["why_not"].get("scala", ""))
    for peer, prefix, language in ((go, "go-", "go"), (java, "java-", "java"),
                                   (scala, "scala-", "scala")):
        impl = next((x["impl"] for x in lines if x["impl"].startswith(prefix)), None)
        if impl:  # named from the runtime's version, as find_peers names it
            peer.version = ("go" if language == "go" else "") + impl[len(prefix):]
            peer.name = toolchains.peer_name(language, peer.version)
    peers = {p.name: p for p in (cpp, go, java, scala)}
    cells = {}
    for line in lines:
        params = dict(part.split(":", 1) for part in line["cell"].split("/")[1:-1])
        if line["cell"] not in cells:
            connections = int(params["connections"])
            cells[line["cell"]] = driver.Cell(
                peers.get(params["backend"], cpp), params["cipher"], params["backend"], connections,
                int(params["pings"]), unloaded=connections == 1 != run["connections"])
    results = {c: [x for x in lines if x["cell"] == name] for name, c in cells.items()}
    ordered = sorted(cells.values(), key=lambda c: run["cells"].index(c.name))
    args = types.SimpleNamespace(connections=run["connections"], pings=run["pings"],
                                 repetitions=run["repetitions"],
                                 unloaded_pings=run["unloaded_pings"], build_dir="build/release")
    doc = driver.document(args, (cpp, go, java, scala), registry, ordered, results, run["skipped"],
                          run["interop"], run["seed"], run["elapsed"])
    for key in VOLATILE:
        doc["context"][key] = "(varies)" if key != "num_cpus" else 2
    return doc


class GoldenJsonTest(unittest.TestCase):
    """The JSON the driver writes, byte for byte, and the results tools on it."""

    def test_benchmark_json(self):
        with open(os.path.join(GOLDEN, "benchmark.json")) as f:
            want = json.load(f)
        got = json.loads(json.dumps(golden_document()))
        self.assertEqual(got["context"], want["context"])
        self.assertEqual(len(got["benchmarks"]), len(want["benchmarks"]))
        for g, w in zip(got["benchmarks"], want["benchmarks"]):
            self.assertEqual(g, w)

    def test_figures_from_the_processes(self):
        """Not through the driver's code: every entry of benchmark.json
        against the processes' own lines, the same repetition of the same
        cell (processes.jsonl is in run order; the entries are by cell)."""
        with open(os.path.join(GOLDEN, "benchmark.json")) as f:
            entries = json.load(f)["benchmarks"]
        with open(os.path.join(GOLDEN, "processes.jsonl")) as f:
            lines = [json.loads(line) for line in f]
        self.assertEqual(len(entries), len(lines))
        for e in entries:
            p = next(x for x in lines if x["cell"] == e["name"]
                     and x["repetition"] == e["repetition_index"])
            pings = int(re.search(r"/pings:(\d+)/", e["name"]).group(1))
            connections = int(re.search(r"/connections:(\d+)/", e["name"]).group(1))
            with self.subTest(cell=e["name"], repetition=e["repetition_index"]):
                self.assertEqual((e["iterations"], p["pings"], p["server"]["pings"]), (pings,) * 3)
                self.assertEqual((p["connections"], p["server"]["connections"]), (connections,) * 2)
                self.assertEqual(e["real_time"], p["wall_ns"] / pings)
                self.assertAlmostEqual(e["real_time"] / 1000, p["us_per_ping"], places=5)
                self.assertEqual(e["cpu_time"], p["cpu_ns"] / pings)
                self.assertEqual(e["client_cpu_ns_per_ping"], p["cpu_ns"] / pings)
                self.assertEqual(e["server_cpu_ns_per_ping"], p["server"]["cpu_ns"] / pings)
                self.assertEqual(e["rtt_p50_ns"], p["rtt_p50_ns"])
                self.assertEqual(e["rtt_p99_ns"], p["rtt_p99_ns"])
                self.assertEqual(e["server_peak_rss_kib"], p["server"]["peak_rss_kib"])
                if "/cipher:aes-128-gcm/" in e["name"]:
                    self.assertEqual(e["crypto_ns_per_ping"],
                                     (p["crypto_ns"] + p["server"]["crypto_ns"]) / pings)
                # The CPU over the pings is within the whole processes' (wait4).
                for own, whole in ((p["cpu_ns"], p["client_rusage"]),
                                   (p["server"]["cpu_ns"], p["server_rusage"])):
                    self.assertLessEqual(own, whole["user_ns"] + whole["system_ns"] + 20_000_000)

    def tool(self, *argv):
        out = subprocess.run([RESULTS_TOOL, *argv], capture_output=True, text=True,
                             timeout=120)
        self.assertEqual(out.returncode, 0, out.stderr)
        return out.stdout

    def test_results_tools_read_it(self):
        run = os.path.join(GOLDEN, "benchmark.json")
        with open(os.path.join(GOLDEN, "pingpong.expected.txt")) as f:
            self.assertEqual(self.tool("pingpong", run), f.read())
        answer = self.tool("select", run)
        self.assertRegex(answer, r"Seed-001 TCP ping-pong on 127.0.0.1, every ping and pong sealed "
                                 r"with AES-128-GCM, 4 B messages, 4 connections: ")
        self.assertRegex(answer, r"Seed-001 TCP ping-pong on 127.0.0.1, plain, 4 B messages, "
                                 r"4 connections: ")
        self.assertRegex(answer, r"Seed-001 TCP ping-pong on 127.0.0.1, plain, 4 B messages, "
                                 r"1 connection: only cpp-epoll was measured")
        self.assertNotRegex(answer, r"aesni[ ,]")  # hand-written: headroom, never the answer
        # Every stack in the table and the verdict (the golden run has the peers).
        table = self.tool("pingpong", run)
        for stack in ("C++", "Go", "Java", "Scala"):
            self.assertRegex(table, f"\\n{re.escape(stack)} plain ")
            self.assertRegex(table, f"\\n{re.escape(stack)} AES-128-GCM")
        self.assertRegex(table, r"\n  Scala peer: plain [0-9.]+ us per ping; sealed [0-9.]+ us per "
                                r"ping, sealing adds -?[0-9.]+ us of CPU per ping")
        with tempfile.TemporaryDirectory() as d:
            self.tool("report", run, "-o", os.path.join(d, "report.html"))
            with open(os.path.join(d, "report.html")) as f:
                html = f.read()
            self.assertIn("Seed 001: TCP ping-pong on 127.0.0.1. Does the AES choice matter end to "
                          "end?", html)
            self.assertEqual(len(re.findall(r'<figure data-chart="pingpong-', html)), 2)
            self.tool("jmh", run, "-o", os.path.join(d, "jmh.json"))
            with open(os.path.join(d, "jmh.json")) as f:
                jmh = json.load(f)
            self.assertTrue(all(r["primaryMetric"]["scoreUnit"] == "us/ping" for r in jmh))
            exported = {r["params"]["backend"].split("-")[0] for r in jmh}
            self.assertLessEqual({"cpp", "go", "java", "scala"}, exported)
            self.assertIn("scala-2.", html)
        compared = self.tool("compare", run, run, "--metrics", "time_ns,rtt_p99_ns,server_peak_rss_kib")
        self.assertIn("rtt_p99_ns: x1.000", compared)


GOLDEN_RUN = ["--connections=4", "--pings=2000", "--unloaded-pings=2000", "--repetitions=5",
              "--backends=openssl,wolfssl,aesni", "--peers=go,java,scala", "--seed=1"]


def record_golden():
    """A real run of the driver (GOLDEN_RUN), its files made golden:
    processes.jsonl, registry.json (the build's --list-backends), run.json
    (the settings and what the context says of the run), benchmark.json
    (the run's own, the VOLATILE fields replaced) and pingpong.expected.txt."""
    with tempfile.TemporaryDirectory() as runs:
        out = subprocess.run(["/usr/bin/python3", DRIVER, f"--build-dir={BUILD}",
                              f"--runs-dir={runs}", *GOLDEN_RUN], text=True)
        if out.returncode != 0:
            sys.exit("the golden run failed")
        run_dir = os.path.join(runs, os.listdir(runs)[0])
        with open(os.path.join(run_dir, "benchmark.json")) as f:
            doc = json.load(f)
        shutil.copy(os.path.join(run_dir, "processes.jsonl"), GOLDEN)
        with open(os.path.join(run_dir, "interop.txt")) as f:
            interop_lines = f.read().splitlines()
    registry = driver.list_backends(driver.find_peers(BUILD, ())[0])
    with open(os.path.join(GOLDEN, "registry.json"), "w") as f:
        json.dump(registry, f, indent=1)
        f.write("\n")
    ctx = doc["context"]
    skipped = ctx["pingpong.skipped"].split("; ") if "pingpong.skipped" in ctx else []
    labels = (("go", "Go"), ("java", "Java"), ("scala", "Scala"))
    why_not = {lang: next((s.split(": ", 1)[1] for s in skipped if s.startswith(label + " peer:")),
                          "") for lang, label in labels}
    run = {"connections": int(ctx["pingpong.connections"]), "pings": int(ctx["pingpong.pings"]),
           "repetitions": int(ctx["pingpong.repetitions"]),
           "unloaded_pings": int(next(a for a in GOLDEN_RUN
                                      if a.startswith("--unloaded-pings=")).split("=")[1]),
           "seed": int(re.search(r"random seed (\d+)", ctx["pingpong.order"]).group(1)),
           "elapsed": float(ctx["pingpong.elapsed_s"]), "skipped": skipped, "why_not": why_not,
           "interop": interop_lines,
           "cells": list(dict.fromkeys(e["name"] for e in doc["benchmarks"]))}
    with open(os.path.join(GOLDEN, "run.json"), "w") as f:
        json.dump(run, f, indent=1)
        f.write("\n")
    for key in VOLATILE:
        doc["context"][key] = "(varies)" if key != "num_cpus" else 2
    path = os.path.join(GOLDEN, "benchmark.json")
    with open(path, "w") as f:
        json.dump(doc, f, indent=1)
        f.write("\n")
    out = subprocess.run([RESULTS_TOOL, "pingpong", path], capture_output=True,
                         text=True, check=True)
    with open(os.path.join(GOLDEN, "pingpong.expected.txt"), "w") as f:
        f.write(out.stdout)
    print(f"wrote golden/ from a real run: {' '.join(GOLDEN_RUN)}")


def main():
    global BUILD
    if len(sys.argv) != 3:
        sys.exit(__doc__)
    BUILD = os.path.abspath(sys.argv[1])
    if sys.argv[2] == "--record-golden":
        record_golden()
        return 0
    suite = unittest.defaultTestLoader.loadTestsFromTestCase(globals()[sys.argv[2]])
    result = unittest.TextTestRunner(verbosity=2).run(suite)
    if not result.wasSuccessful():
        return 1
    if result.testsRun and len(result.skipped) == result.testsRun:
        return 77  # CTest: skipped, with the reason printed above
    return 0


if __name__ == "__main__":
    sys.exit(main())
