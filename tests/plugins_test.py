"""The plugins that work, run as a user runs them (CTest plugins.run).

  plugins_test.py SOURCE BINARY WORK INHOUSE.so CRASHING.so CONTROL.so [AESNI.so]

- The in-house OpenSSL wrapper runs beside openssl in seed000: it passes its
  self-check (said on stderr), every benchmark of it is verified and
  measured, the JSON context names it as a plugin with its path and the
  file's sha256, and the answer, the JMH export and the report rank it.
- The same through CRYPTOBENCH_PLUGINS.
- A refused plugin leaves an earlier good --benchmark_out file as it was.
- Several plugins at once (the hostile plugins' correct control, the aesni
  kernels as a plugin where built) each pass, and run beside each other.
"""
import hashlib
import json
import os
import shutil
import subprocess
import sys

SOURCE, BINARY, WORK, INHOUSE, CRASHING, CONTROL = sys.argv[1:7]
AESNI = sys.argv[7] if len(sys.argv) > 7 and sys.argv[7] else None
RESULTS = os.path.join(SOURCE, "tools", "results", "cryptobench-results")
FILTER = "--benchmark_filter=threads:1$"
failures = []


def check(ok, what):
    if not ok:
        failures.append(what)
        print("FAIL:", what)


def run(*args, env=None):
    return subprocess.run([BINARY, *args], capture_output=True, text=True,
                          env=dict(os.environ, **(env or {})), timeout=240)


shutil.rmtree(WORK, ignore_errors=True)
os.makedirs(WORK)
out = os.path.join(WORK, "run.json")
r = run(f"--plugin={INHOUSE}", "--suite=seed000", "--backends=openssl,inhouse-openssl", FILTER,
        "--benchmark_min_time=0.005", "--benchmark_repetitions=3",
        f"--benchmark_out={out}", "--benchmark_out_format=json")
check(r.returncode == 0, f"the run with the plugin: exit {r.returncode}: {r.stderr[-2000:]}")
check("cryptobench: plugin inhouse-openssl (" in r.stderr and "passed its self-check" in r.stderr,
      "no self-check line on stderr")
if r.returncode == 0:
    with open(out) as f:
        doc = json.load(f)
    context = doc["context"]
    with open(INHOUSE, "rb") as f:
        digest = hashlib.sha256(f.read()).hexdigest()
    check(context.get("backend.inhouse-openssl.plugin") == INHOUSE, "the context lacks the path")
    check(context.get("backend.inhouse-openssl.plugin_sha256") == digest,
          "the context's sha256 is not the file's")
    check("equivalence checks" in context.get("backend.inhouse-openssl.plugin_self_check", ""),
          "the context lacks the self-check")
    check(context.get("backend.inhouse-openssl.verified_against") == "openssl",
          "the plugin is not verified against openssl")
    mine = [b for b in doc["benchmarks"] if "backend:inhouse-openssl/" in b["name"]]
    check(len(mine) >= 4 and all("error_occurred" not in b for b in mine),
          f"the plugin's benchmarks: {len(mine)}, errors: "
          f"{[b.get('error_message') for b in mine if 'error_occurred' in b][:2]}")
    for view, needle in (("select", "inhouse-openssl"), ("jmh", '"backend": "inhouse-openssl"')):
        v = subprocess.run([sys.executable, RESULTS, view, out], capture_output=True, text=True)
        check(v.returncode == 0 and needle in v.stdout, f"{view}: {v.returncode} {v.stderr[-500:]}")
    report = os.path.join(WORK, "report.html")
    v = subprocess.run([sys.executable, RESULTS, "report", out, "-o", report],
                       capture_output=True, text=True)
    check(v.returncode == 0 and os.path.isfile(report) and "inhouse-openssl" in open(report).read(),
          f"report: {v.returncode} {v.stderr[-500:]}")

# CRYPTOBENCH_PLUGINS, as a list.
r = run("--backends=inhouse-openssl", "--list-backends",
        env={"CRYPTOBENCH_PLUGINS": f"{INHOUSE}"})
check(r.returncode == 0 and "inhouse-openssl" in r.stdout, f"CRYPTOBENCH_PLUGINS: {r.stderr}")

# A refused plugin: exit 2, one line, the earlier file kept.
if os.path.isfile(out):
    before = open(out, "rb").read()
    r = run(f"--plugin={CRASHING}", "--suite=seed000", "--backends=openssl", FILTER,
            "--benchmark_min_time=0.005", f"--benchmark_out={out}", "--benchmark_out_format=json")
    check(r.returncode == 2 and len(r.stderr.strip().splitlines()) == 1
          and "crashed in its self-check" in r.stderr, f"the crashing plugin: {r.returncode} {r.stderr}")
    check(open(out, "rb").read() == before, "a refused plugin's run replaced the good file")

# Several at once: each checked on its own, then all run together.
plugins = [INHOUSE, CONTROL] + ([AESNI] if AESNI else [])
names = ["inhouse-openssl", "hostile-none"] + (["aesni-plugin"] if AESNI else [])
r = run(*[f"--plugin={p}" for p in plugins], f"--backends={','.join(['openssl'] + names)}",
        "--suite=seed003", "--benchmark_filter=op:encrypt/size:1000/codec:none/pool:on/",
        "--benchmark_min_time=0.002", "--benchmark_format=json")
check(r.returncode == 0 and all(f"plugin {n} (" in r.stderr for n in names),
      f"several plugins: exit {r.returncode}: {r.stderr[-1500:]}")
if r.returncode == 0:
    ran = {b["name"].split("/")[1] for b in json.loads(r.stdout)["benchmarks"]
           if "error_occurred" not in b}
    check(ran == {f"backend:{n}" for n in ["openssl"] + names}, f"several plugins ran {ran}")

print(f"plugins_test: {'FAILED (%d checks)' % len(failures) if failures else 'passed'}")
sys.exit(1 if failures else 0)
