#!/usr/bin/env python3
"""help_test.py SOURCE_DIR BUILD_DIR: every command answers --help and -h, and nothing else.

A new user's first command is often `--help`. For each command (the tools/
scripts, the results tool and each of its subcommands, the built binaries),
in a fresh copy of the source tree (its files, no build folder):
- `--help` and `-h` exit 0 with a usage line, the options and an example on
  stdout, and nothing on stderr;
- an unknown flag is one line on stderr and exit 2;
- neither runs a build or an install: cmake, ninja, apt-get, sudo,
  dpkg-query, go, java and scalac are stand-ins on PATH that record a call, and none
  may be called;
- the help creates, changes or removes no file in the tree (its listing, with
  sizes and modification times, is taken before and after), not even a
  Python __pycache__ (PYTHONDONTWRITEBYTECODE is unset, as on a user's
  machine); an unknown flag leaves nothing either but Python's bytecode
  cache, which .gitignore ignores.
A binary this build lacks is reported as skipped.
"""

import os
import shutil
import stat
import subprocess
import sys
import tempfile

# Each results command with the arguments it requires, so that the unknown
# flag is the error (the files are never read).
RESULTS_COMMANDS = {"compare": ["a.json", "b.json"], "mix": ["imix"], "jmh": ["a.json"],
                    "report": ["a.json", "-o", "r.html"], "select": ["a.json"], "console": ["a.json"],
                    "ratio": ["a.json", "x", "y"], "merge": ["a.json", "-o", "m.json"],
                    "gotest": ["a.txt"], "pingpong": ["a.json"], "bounds": ["a.json"],
                    "fleet": ["a.json"]}
BINARIES = [("cryptobench", "benchmarks/cryptobench"),
            ("cryptobench-vectors", "tools/vectors/cryptobench-vectors"),
            ("cryptobench-dudect", "tools/dudect/cryptobench-dudect"),
            ("cryptobench-limits", "tools/limits/cryptobench-limits")]
STAND_INS = ["cmake", "ninja", "apt-get", "sudo", "dpkg-query", "go", "java", "javac", "scalac",
             "make"]

failures = []


def check(ok, message):
    if not ok:
        failures.append(message)
        print(f"FAIL: {message}")


def source_files(source):
    """The tree a fresh clone has: git's tracked and untracked-but-not-ignored files."""
    r = subprocess.run(["git", "-C", source, "ls-files", "-z", "--cached", "--others",
                        "--exclude-standard"], capture_output=True)
    if r.returncode == 0:
        return [f for f in r.stdout.decode().split("\0") if f]
    files = []  # not a git checkout: every file but the build and run folders
    for folder, dirs, names in os.walk(source):
        rel = os.path.relpath(folder, source)
        dirs[:] = [d for d in dirs if not (rel == "." and d in ("build", ".git"))
                   and not (rel == "results" and d == "runs")]
        files += [os.path.normpath(os.path.join(rel, n)) for n in names]
    return files


def fresh_copy(source, target):
    for rel in source_files(source):
        src = os.path.join(source, rel)
        if not os.path.isfile(src) or os.path.islink(src):
            continue  # a file deleted but not yet committed, or a link
        os.makedirs(os.path.dirname(os.path.join(target, rel)), exist_ok=True)
        shutil.copy2(src, os.path.join(target, rel))


def listing(tree):
    """Every entry under tree: (path, kind, size, mtime in ns)."""
    out = []
    for folder, dirs, names in os.walk(tree):
        for name in dirs + names:
            path = os.path.join(folder, name)
            st = os.lstat(path)
            kind = "dir" if stat.S_ISDIR(st.st_mode) else "file"
            out.append((os.path.relpath(path, tree), kind,
                        0 if kind == "dir" else st.st_size,
                        0 if kind == "dir" else st.st_mtime_ns))
    return sorted(out)


def stand_ins(folder, log):
    os.makedirs(folder)
    for name in STAND_INS:
        path = os.path.join(folder, name)
        with open(path, "w") as f:
            f.write(f"#!/bin/sh\necho \"{name} $*\" >> '{log}'\nexit 1\n")
        os.chmod(path, 0o755)


def run(argv, cwd, env):
    return subprocess.run(argv, cwd=cwd, env=env, capture_output=True, text=True, timeout=120)


def check_without_numpy(tree, env, tmp):
    """Before tools/install-deps, a fresh machine has no numpy or scipy: the
    Python tools still answer --help, and a real command says what to install."""
    missing = os.path.join(tmp, "no-numpy")
    os.makedirs(missing)
    for module in ("numpy", "scipy"):
        with open(os.path.join(missing, module + ".py"), "w") as f:
            f.write(f"raise ModuleNotFoundError(\"No module named '{module}'\", name='{module}')\n")
    bare = dict(env, PYTHONPATH=missing)
    for argv, text in ((["tools/results/cryptobench-results"], "cryptobench-results compare"),
                       (["tools/results/cryptobench-results", "select"], "cryptobench-results select"),
                       (["tools/noise-campaign"], "tools/noise-campaign [--build-dir=DIR]")):
        for flag in ("--help", "-h"):
            r = run(argv + [flag], tree, bare)
            label = f"without numpy: {' '.join(argv)} {flag}"
            check(r.returncode == 0, f"{label}: exit {r.returncode}: {r.stderr[-500:]}")
            check(r.stderr == "", f"{label}: wrote to stderr: {r.stderr[-500:]}")
            check(text in r.stdout, f"{label}: no '{text}' in the help")
    for argv in (["tools/results/cryptobench-results", "select", "a.json"],
                 ["tools/noise-campaign", "--quick"]):
        r = run(argv, tree, bare)
        label = f"without numpy: {' '.join(argv)}"
        lines = r.stderr.splitlines()
        check(r.returncode != 0, f"{label}: exit 0")
        check(len(lines) == 1 and "numpy" in r.stderr and "tools/install-deps" in r.stderr,
              f"{label}: expected one line naming numpy and tools/install-deps: {r.stderr[-800:]}")


def main():
    if len(sys.argv) != 3:
        print("usage: help_test.py SOURCE_DIR BUILD_DIR", file=sys.stderr)
        return 2
    source, build = (os.path.abspath(p) for p in sys.argv[1:])
    with tempfile.TemporaryDirectory() as tmp:
        tree = os.path.join(tmp, "clone")
        log = os.path.join(tmp, "calls.log")
        fresh_copy(source, tree)
        stand_ins(os.path.join(tmp, "bin"), log)
        env = {k: v for k, v in os.environ.items()
               if k not in ("PYTHONDONTWRITEBYTECODE", "CRYPTOBENCH_BUILD_DIR",
                            "CRYPTOBENCH_RUNS_DIR")}
        env["PATH"] = os.path.join(tmp, "bin") + ":/usr/bin:/bin"
        built = dict(env, CRYPTOBENCH_BUILD_DIR=build)

        # (what, argv, env, texts the help must hold)
        commands = [
            ("tools/run-benchmarks (nothing built)", ["tools/run-benchmarks"], env,
             ["usage: tools/run-benchmarks", "--baseline=LIB", "Examples:",
              "cmake --preset release"]),
            ("tools/run-tests", ["tools/run-tests"], env, ["usage: tools/run-tests", "Example:"]),
            ("tools/run-pingpong", ["tools/run-pingpong"], env, ["usage: run-pingpong", "examples:"]),
            ("tools/run-peers", ["tools/run-peers"], env, ["usage: run-peers", "examples:"]),
            ("tools/run-fleet", ["tools/run-fleet"], env,
             ["usage: tools/run-fleet", "Examples:", "cryptobench_share"]),
            ("tools/install-deps", ["tools/install-deps"], env,
             ["usage: tools/install-deps", "Example:"]),
            ("tools/compare-openssl-speed", ["tools/compare-openssl-speed"], env,
             ["usage: tools/compare-openssl-speed", "Example:"]),
            ("tools/noise-campaign", ["tools/noise-campaign"], env,
             ["tools/noise-campaign [--build-dir=DIR]", "Parts"]),
            ("cryptobench-results", ["tools/results/cryptobench-results"], env,
             ["usage: cryptobench-results", "Examples"], ["mix", "imix"]),
        ]
        commands += [(f"cryptobench-results {c}", ["tools/results/cryptobench-results", c], env,
                      [f"usage: cryptobench-results {c}", "example:"], required)
                     for c, required in RESULTS_COMMANDS.items()]
        binary = os.path.join(build, "benchmarks", "cryptobench")
        if os.access(binary, os.X_OK):
            # Built: run-benchmarks' help goes on with the binary's.
            commands.append(("tools/run-benchmarks (built)", ["tools/run-benchmarks"], built,
                             ["usage: tools/run-benchmarks", "usage: cryptobench ",
                              "--benchmark_filter"]))
        for name, rel in BINARIES:
            path = os.path.join(build, rel)
            if os.access(path, os.X_OK):
                commands.append((name, [path], env, [f"usage: {name}", "Example"]))
            else:
                print(f"skipped: {name}: not built in {build}")

        before = listing(tree)
        print(f"the fresh tree: {len(before)} entries before")
        for what, argv, run_env, texts, *required in commands:
            snapshot = listing(tree)
            for flag in ("--help", "-h"):
                r = run(argv + [flag], tree, run_env)
                label = f"{what} {flag}"
                check(r.returncode == 0, f"{label}: exit {r.returncode}: {r.stderr[-500:]}")
                check(r.stderr == "", f"{label}: wrote to stderr: {r.stderr[-500:]}")
                for text in texts:
                    check(text in r.stdout, f"{label}: no '{text}' in the help")
            changed = sorted(set(listing(tree)) ^ set(snapshot))
            check(not changed, f"{what}: its help changed the tree: {changed[:5]}")
            # An unknown flag: one line naming it, exit 2.
            r = run(argv + ["--no-such-flag"] + (required[0] if required else []), tree, run_env)
            label = f"{what} --no-such-flag"
            check(r.returncode == 2, f"{label}: exit {r.returncode}, expected 2: {r.stderr[-500:]}")
            lines = r.stderr.splitlines()
            check(len(lines) == 1, f"{label}: {len(lines)} lines on stderr, expected one: "
                                   f"{r.stderr[-800:]}")
            check("no-such-flag" in r.stderr, f"{label}: the error does not name the flag")
        check_without_numpy(tree, env, tmp)
        after = [e for e in listing(tree) if "__pycache__" not in e[0]]
        print(f"the fresh tree: {len(after)} entries after")
        added = sorted(set(after) - set(before))
        removed = sorted(set(before) - set(after))
        check(not added and not removed,
              "the tree changed: " + "; ".join([f"+ {e[0]} ({e[1]})" for e in added[:20]]
                                               + [f"- {e[0]}" for e in removed[:20]]))
        calls = open(log).read() if os.path.exists(log) else ""
        check(calls == "", f"a build or install was started: {calls[:500]}")
        print(f"{len(commands)} commands, each with --help, -h and an unknown flag")
    if failures:
        print(f"{len(failures)} failure(s)")
        return 1
    print("PASS: every command's help, nothing created, nothing built or installed")
    return 0


if __name__ == "__main__":
    sys.exit(main())
