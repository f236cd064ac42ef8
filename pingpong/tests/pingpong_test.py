#!/usr/bin/python3
"""Tests of seed 001's ping-pong (CTest label pingpong), one CTest test per class:

  pingpong_test.py BUILD_DIR CLASS      runs one class; exit 77 (CTest's skip)
                                        when every test in it was skipped
  pingpong_test.py BUILD_DIR --regenerate-golden
                                        rewrites golden/benchmark.json and
                                        golden/pingpong.expected.txt from
                                        golden/processes.jsonl

Short runs (a few connections, a few thousand pings) of the real programs,
through the driver's own functions (pingpong/driver.py).
"""
import json
import os
import re
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
import driver  # noqa: E402

BUILD = None
GOLDEN = os.path.join(HERE, "golden")
RESULTS_TOOL = os.path.join(SOURCE, "tools", "results", "cryptobench-results")
# Context fields that differ from machine to machine and run to run.
VOLATILE = ("date", "host_name", "num_cpus", "cpu_model", "kernel", "git_commit", "build_dir")


class Setup(unittest.TestCase):
    @classmethod
    def setUpClass(cls):
        cls.cpp, cls.go, cls.java = driver.find_peers(BUILD)
        cls.work = tempfile.mkdtemp(prefix="pingpong-test-")

    @classmethod
    def tearDownClass(cls):
        driver.stop_all()
        for name in os.listdir(cls.work):
            os.unlink(os.path.join(cls.work, name))
        os.rmdir(cls.work)

    def pair(self, server, client, cipher, backend=None, connections=4, pings=2000, fault=()):
        return driver.run_pair(server, client, cipher, backend, connections, pings, 30, self.work,
                               fault)

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
        self.assertGreater(f["client_rusage"]["user_ns"] + f["client_rusage"]["system_ns"], 0)


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


class TamperTest(Setup):
    """A pong that does not authenticate, carries a stale nonce or is not
    "Pong" fails the run, saying which pong of which connection."""
    CASES = [
        (driver.SEALED, "flip-tag", r"connection \d+, pong \d+: the pong does not authenticate "
                                    r"\(GCM tag mismatch\)"),
        (driver.SEALED, "stale-nonce", r"connection \d+, pong \d+: the pong has an unexpected nonce"),
        (driver.SEALED, "wrong-reply", r"connection \d+, pong \d+: the pong authenticates but is "
                                       r"not the expected message"),
        (driver.PLAIN, "wrong-reply", r'connection \d+, pong \d+: the reply is not "Pong"'),
    ]

    def test_client_refuses(self):
        for cipher, fault, message in self.CASES:
            with self.subTest(cipher=cipher, fault=fault):
                backend = "openssl" if cipher == driver.SEALED else None
                with self.assertRaisesRegex(driver.RunError, "the client failed \\(exit 1\\): "
                                            "cryptobench-pingpong-client: " + message):
                    self.pair(self.cpp, self.cpp, cipher, backend,
                              fault=[f"--inject-fault={fault}", "--fault-after=300"])

    def test_every_peer_client_refuses_a_forged_tag(self):
        clients = [p for p in (self.go, self.java) if not p.why_not]
        if not clients:
            self.skipTest("neither the Go nor the Java peer is built here")
        for client in clients:
            with self.subTest(client=client.label):
                with self.assertRaisesRegex(driver.RunError, "pong \\d+: the pong does not "
                                            "authenticate"):
                    self.pair(self.cpp, client, driver.SEALED, "openssl",
                              fault=["--inject-fault=flip-tag", "--fault-after=300"])

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


class InteropTest(Setup):
    """Every client against every other language's server, plain and sealed."""
    PEER = None

    def test_interop(self):
        peer = getattr(self, self.PEER)
        if peer.why_not:
            self.skipTest(f"the {peer.label} peer: {peer.why_not}")
        others = [self.cpp] + [p for p in (self.go, self.java) if p is not peer and not p.why_not
                               and self.PEER == "java"]
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
                                 "--connections=4", f"--pid-log={log}", *extra],
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


# ------------------------------------------------------------------- golden

def golden_document():
    """benchmark.json rebuilt by the driver's own code from the processes'
    recorded lines (golden/processes.jsonl, a real run: 4 connections, 2,000
    pings, 5 repetitions), the registry's answer then (golden/registry.json)
    and the run's settings (golden/run.json); equal, but for the context
    fields that vary (VOLATILE), to the benchmark.json that run wrote."""
    with open(os.path.join(GOLDEN, "registry.json")) as f:
        registry = json.load(f)
    with open(os.path.join(GOLDEN, "processes.jsonl")) as f:
        lines = [json.loads(line) for line in f]
    with open(os.path.join(GOLDEN, "run.json")) as f:
        run = json.load(f)
    cpp = driver.Peer("cpp-epoll", "C++", ["server"], ["client"], backends=[])
    cpp.library = "cryptobench ping-pong in C++20: one epoll thread per process"
    go = driver.Peer("go-1.19", "Go", ["server"], ["client"])
    java = driver.Peer("java-17", "Java", ["server"], ["client"])
    java.why_not = run["java_why_not"]
    peers = {"cpp-epoll": cpp, "go-1.19": go, "java-17": java}
    cells, results = [], {}
    for line in lines:
        backend = re.search(r"/backend:([^/]+)/", line["cell"]).group(1)
        cipher = re.search(r"/cipher:([^/]+)/", line["cell"]).group(1)
        peer = peers.get(backend, cpp)
        cell = next((c for c in cells if c.name(run["connections"], run["pings"]) == line["cell"]),
                    None)
        if cell is None:
            cell = driver.Cell(peer, cipher, backend)
            cells.append(cell)
            results[cell] = []
        results[cell].append(line)
    cells.sort(key=lambda c: run["cells"].index(c.name(run["connections"], run["pings"])))
    args = types.SimpleNamespace(connections=run["connections"], pings=run["pings"],
                                 repetitions=run["repetitions"], build_dir="build/release")
    doc = driver.document(args, (cpp, go, java), registry, cells, results, run["skipped"], [],
                          run["seed"], run["elapsed"])
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
                                 r"with AES-128-GCM, 4 B messages: ")
        self.assertRegex(answer, r"Seed-001 TCP ping-pong on 127.0.0.1, plain, 4 B messages: ")
        self.assertNotRegex(answer, r"aesni[ ,]")  # hand-written: headroom, never the answer
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
        compared = self.tool("compare", run, run, "--metrics", "time_ns,rtt_p99_ns,server_peak_rss_kib")
        self.assertIn("rtt_p99_ns: x1.000", compared)


def regenerate_golden():
    doc = golden_document()
    path = os.path.join(GOLDEN, "benchmark.json")
    with open(path, "w") as f:
        json.dump(doc, f, indent=1)
        f.write("\n")
    out = subprocess.run([RESULTS_TOOL, "pingpong", path], capture_output=True,
                         text=True, check=True)
    with open(os.path.join(GOLDEN, "pingpong.expected.txt"), "w") as f:
        f.write(out.stdout)
    print(f"wrote {path} and pingpong.expected.txt")


def main():
    global BUILD
    if len(sys.argv) != 3:
        sys.exit(__doc__)
    BUILD = os.path.abspath(sys.argv[1])
    if sys.argv[2] == "--regenerate-golden":
        regenerate_golden()
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
