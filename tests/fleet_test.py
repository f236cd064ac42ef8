#!/usr/bin/python3
"""fleet_test.py SOURCE_DIR BUILD_DIR WORK_DIR: tools/run-fleet and its playbook
(tools/fleet/fleet.yml) against local hosts, on a seconds-long slice.

The hosts are Ansible's local connection with a working folder each; they
reuse BUILD_DIR's binaries (cryptobench_build_dir: no install, no build) and
share one lock, so their runs take turns as two hosts on one machine must.
- an empty inventory: one line, exit 2, nothing made;
- the fleet: hosts a (share 3) and b run the slice and their run folders come
  back whole to WORK_DIR/fleet/fleet/<host>/<run>/; host broken (its build
  folder does not exist) fails on purpose and host off (nothing listens on
  port 1) cannot be reached: each is one line in the output and the answer
  says it was left out; the fleet answer names the winner on the machine
  type, the safe choice and the share-weighted verdict;
- a host without root (an `id` that says uid 1000, no sudo, through the
  inventory's cryptobench_env) stops the run before anything is measured:
  one line, exit 2, and the folders fetched before are left as they were.
Without Ansible the test says so and exits 77 (CTest: skipped).
"""
import json
import os
import re
import shutil
import subprocess
import sys
import time

if len(sys.argv) != 4:
    sys.exit("usage: fleet_test.py SOURCE_DIR BUILD_DIR WORK_DIR")
SOURCE, BUILD, WORK = (os.path.abspath(a) for a in sys.argv[1:])
if not shutil.which("ansible-playbook") or not shutil.which("ansible-inventory"):
    print("SKIPPED: Ansible is not installed (apt-get install ansible, or tools/install-deps)")
    sys.exit(77)
if subprocess.run(["git", "-C", SOURCE, "rev-parse", "--is-inside-work-tree"],
                  capture_output=True).returncode != 0:
    print(f"SKIPPED: {SOURCE} is not a git checkout (run-fleet sends the hosts a git archive)")
    sys.exit(77)
BINARY = os.path.join(BUILD, "benchmarks", "cryptobench")
if not os.access(BINARY, os.X_OK):
    sys.exit(f"FAIL: {BINARY} is not built")

RUN_FLEET = os.path.join(SOURCE, "tools", "run-fleet")
SLICE = ["--benchmark_filter=grid/backend:(openssl|gcrypt|nettle)/cipher:aes-128-ctr/op:encrypt/"
         "size:16384", "--benchmark_repetitions=10", "--benchmark_min_time=0.002"]
FLEET = os.path.join(WORK, "fleet")
failures = []


def check(ok, message):
    if not ok:
        failures.append(message)
        print(f"FAIL: {message}")
    return ok


def run_fleet(inventory, *args):
    env = dict(os.environ, CRYPTOBENCH_FLEET_DIR=FLEET, ANSIBLE_LOCAL_TEMP=os.path.join(WORK, "tmp"),
               ANSIBLE_REMOTE_TMP=os.path.join(WORK, "tmp"))
    start = time.monotonic()
    r = subprocess.run([RUN_FLEET, inventory, *args], capture_output=True, text=True, env=env,
                       cwd=WORK, timeout=240)
    print(f"--- run-fleet {os.path.relpath(inventory, WORK)}: exit {r.returncode} in "
          f"{time.monotonic() - start:.1f} s\n{r.stdout}{r.stderr}")
    return r


def write(path, text):
    os.makedirs(os.path.dirname(path), exist_ok=True)
    with open(path, "w") as f:
        f.write(text)
    return path


def listing(folder):
    out = {}
    for root, _, names in os.walk(folder):
        for n in names:
            p = os.path.join(root, n)
            st = os.stat(p)
            out[os.path.relpath(p, folder)] = (st.st_size, st.st_mtime_ns)
    return out


shutil.rmtree(WORK, ignore_errors=True)
os.makedirs(os.path.join(WORK, "tmp"))
lock = os.path.join(WORK, "machine.lock")
local = (f"ansible_connection=local cryptobench_build_dir={BUILD} cryptobench_lock={lock} "
         "ansible_python_interpreter=/usr/bin/python3")

# 1. An empty inventory.
r = run_fleet(write(os.path.join(WORK, "empty", "fleet.ini"), "# no host\n"), *SLICE)
check(r.returncode == 2, f"empty inventory: exit {r.returncode}, not 2")
check(len(r.stderr.strip().splitlines()) == 1 and "names no host" in r.stderr,
      f"empty inventory: not one line naming it: {r.stderr!r}")
check(not os.path.exists(os.path.join(FLEET, "fleet")), "empty inventory: a results folder was made")

# 2. The fleet: two hosts that run, one that fails, one unreachable.
inventory = write(os.path.join(WORK, "good", "fleet.ini"), f"""[fleet]
a {local} cryptobench_dir={WORK}/hosts/a cryptobench_share=3
b {local} cryptobench_dir={WORK}/hosts/b
broken ansible_connection=local cryptobench_dir={WORK}/hosts/broken cryptobench_build_dir={WORK}/no-such-build ansible_python_interpreter=/usr/bin/python3
off ansible_host=127.0.0.1 ansible_port=1 ansible_connection=ssh ansible_ssh_common_args='-o ConnectTimeout=5'
""")
r = run_fleet(inventory, *SLICE)
check(r.returncode == 0, f"the fleet run: exit {r.returncode}, not 0")
err = r.stderr
for host in ("a", "b"):
    check(re.search(rf"^run-fleet: {host}: fetched ", err, re.M), f"host {host}: no 'fetched' line")
check(len(re.findall(r"^run-fleet: broken: LEFT OUT: failed at '.*run-benchmarks", err, re.M)) == 1,
      "host broken: not one line saying its run failed")
check(len(re.findall(r"^run-fleet: off: LEFT OUT: unreachable", err, re.M)) == 1,
      "host off: not one line saying it is unreachable")
out = r.stdout
check("== Which AES library across the fleet: 2 hosts, 1 machine type; suite decision, rounds "
      "design" in out, "the answer's first line")
check("LEFT OUT: host broken: failed" in out and "LEFT OUT: host off: unreachable" in out,
      "the answer does not say which hosts were left out")
check("a (share 3;" in out and "b (share 1;" in out, "the answer does not give the shares")
check(re.search(r"AES-128-CTR encryption, 16 KiB, 1 thread:\n    winners: a\+b: "
                r"(gcrypt|openssl|nettle)", out), "no winner for the machine type")
check(re.search(r"\n    safe: (gcrypt|openssl|nettle|none)", out), "no safe choice")
# (with an interval, or untested where a loaded machine left a host too few quiet repetitions)
check(re.search(r"\n    weighted: (gcrypt|openssl|nettle) at [0-9,.]+ ns/op( \[[0-9,.]+, [0-9,.]+\]"
                r"|, [0-9.]+x over [a-z]+, untested)", out), "no share-weighted verdict")
fetched = {}
for host in ("a", "b"):
    folder = os.path.join(FLEET, "fleet", host)
    runs = sorted(os.listdir(folder)) if os.path.isdir(folder) else []
    if not check(len(runs) == 1 and runs[0].endswith("-decision"),
                 f"host {host}: not one run folder in {folder}: {runs}"):
        continue
    run = os.path.join(folder, runs[0])
    for name in ("benchmark.json", "samples.jsonl", "answer.txt", "selection.md", "report.html",
                 "jmh.json", "console.txt", "run-benchmarks.log"):
        check(os.path.getsize(os.path.join(run, name)) > 0 if os.path.exists(
            os.path.join(run, name)) else False, f"host {host}: {name} missing or empty")
    with open(os.path.join(run, "benchmark.json")) as f:
        text = f.read()
    check('"design": "rounds"' in text and '"cryptobench_suite": "decision"' in text,
          f"host {host}: the run is not the pinned suite and design")
    fetched[host] = run
for host in ("broken", "off"):
    check(not os.path.exists(os.path.join(FLEET, "fleet", host)), f"host {host}: a folder was made")
answers = [d for d in os.listdir(os.path.join(FLEET, "fleet")) if d.startswith("fleet-")] \
    if os.path.isdir(os.path.join(FLEET, "fleet")) else []
if check(len(answers) == 1, f"not one fleet-<time> folder: {answers}"):
    folder = os.path.join(FLEET, "fleet", answers[0])
    for name in ("answer.txt", "report.html", "hosts.txt", "ansible.log"):
        check(os.path.exists(os.path.join(folder, name)), f"{name} missing from {folder}")
    with open(os.path.join(folder, "report.html")) as f:
        check("Across the fleet" in f.read(), "the report has no fleet section")
    with open(os.path.join(folder, "hosts.txt")) as f:
        check(len(f.read().splitlines()) == 4, "hosts.txt: not one line per host")

# 3. A host without root: nothing runs, nothing fetched is touched.
before = listing(os.path.join(FLEET, "fleet"))
fakebin = os.path.join(WORK, "fakebin")
for tool, script in (("id", "echo 1000"), ("sudo", "exit 1")):
    write(os.path.join(fakebin, tool), f"#!/bin/sh\n{script}\n")
    os.chmod(os.path.join(fakebin, tool), 0o755)
path = f"{fakebin}:/usr/bin:/bin"
# (a YAML inventory, named fleet as the one before: the same results folder)
common = {"ansible_connection": "local", "cryptobench_build_dir": BUILD, "cryptobench_lock": lock,
          "ansible_python_interpreter": "/usr/bin/python3"}
hosts = {"a": dict(common, cryptobench_dir=f"{WORK}/hosts/a"),
         "user": dict(common, cryptobench_dir=f"{WORK}/hosts/user", cryptobench_env={"PATH": path})}
r = run_fleet(write(os.path.join(WORK, "noroot", "fleet.yml"), json.dumps(
    {"fleet": {"hosts": hosts}})), *SLICE)
check(r.returncode == 2, f"a host without root: exit {r.returncode}, not 2")
lines = r.stderr.strip().splitlines()
check(lines and "host user is neither root" in lines[-1]
      and sum("neither root" in line for line in lines) == 1,
      f"a host without root: no one-line error naming it: {r.stderr!r}")
check(listing(os.path.join(FLEET, "fleet")) == before,
      "a host without root: the fetched folders changed")
check(not os.path.exists(os.path.join(WORK, "hosts", "user", "runs")),
      "a host without root: something ran on it")

print("FAILED: " + "; ".join(failures) if failures else "fleet: all checks passed")
sys.exit(1 if failures else 0)
