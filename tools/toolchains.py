#!/usr/bin/python3
"""Where the peers' toolchains are: the one discovery and the one set of
checks for everything that builds or runs Java or Go code (tools/run-peers
can import it; pingpong/CMakeLists.txt and pingpong/driver.py use it).

  Java: CRYPTOBENCH_JAVA_HOME (that JDK folder and nothing else), else
        Debian's /usr/lib/jvm/java-17-openjdk-{amd64,arm64}, else java and
        javac on PATH; whichever is found must be Java 17 (javac -version).
  Go:   CRYPTOBENCH_GO (that go command and nothing else), else go on PATH,
        else Debian's /usr/lib/go/bin/go.
  Scala: CRYPTOBENCH_SCALAC (that scalac and nothing else), else scalac on
        PATH, else Debian's /usr/bin/scalac; its scala-library.jar is the
        one beside it (SCALA_HOME/lib, through the symlinks); it compiles and
        runs on the Java 17 JDK above (no JDK: no Scala).
  Runs: cpu_mask_check() refuses while CRYPTOBENCH_CPU_MASK is set (the JVM
        and Go cannot be made to hide CPU features as cryptobench hides them
        from its backends); builds do not check it.
  Machine: cpu_model() is the CPU's name as cryptobench's C++ binary reads
        it (the CPUID brand string), for the peers' and the ping-pong's
        contexts: a VM restored or moved to another host keeps the kernel's
        "model name" of the host it booted on, and the results tools would
        then take one machine's runs for two machines'.

A toolchain that is not there raises Missing with a one-line reason naming
the Debian package. As a program:

  toolchains.py --cmake FILE GO_CACHE_DIR
      writes FILE, set() lines for CMake: CRYPTOBENCH_PEER_GO and
      CRYPTOBENCH_PEER_JAVAC (empty when missing), CRYPTOBENCH_PEER_GO_WHY /
      _JAVA_WHY (the reason), CRYPTOBENCH_PEER_GO_ENV (the offline build
      environment, `cmake -E env` arguments, caches in GO_CACHE_DIR).
"""
import ctypes
import mmap
import os
import platform
import re
import shutil
import subprocess
import sys

JAVA_PACKAGE = "openjdk-17-jdk-headless"
GO_PACKAGE = "golang-go"
SCALA_PACKAGE = "scala"
DEBIAN_SCALAC = "/usr/bin/scalac"
JAVA_FEATURE = "17"
DEBIAN_JDKS = ("/usr/lib/jvm/java-17-openjdk-amd64", "/usr/lib/jvm/java-17-openjdk-arm64")
DEBIAN_GO = "/usr/lib/go/bin/go"
CPU_MASK_REASON = ("CRYPTOBENCH_CPU_MASK is set: the peers cannot hide CPU features from the JVM "
                   "or Go as cryptobench hides them from its backends")


# cpuid(leaf, out): push rbx; mov eax, edi; xor ecx, ecx; cpuid;
# mov [rsi], eax; mov [rsi+4], ebx; mov [rsi+8], ecx; mov [rsi+12], edx; pop rbx; ret
_CPUID_CODE = bytes.fromhex("53 89f8 31c9 0fa2 8906 895e04 894e08 89560c 5b c3")


def _cpuid_brand():
    """The CPUID brand string (leaves 0x80000002-4), or None where it
    cannot be read (not x86-64, no executable memory)."""
    # The code is x86-64 with System V arguments: a 64-bit Python on Linux.
    if platform.machine() != "x86_64" or ctypes.sizeof(ctypes.c_void_p) != 8 or \
            not hasattr(mmap, "PROT_EXEC"):
        return None
    try:
        page = mmap.mmap(-1, mmap.PAGESIZE, prot=mmap.PROT_READ | mmap.PROT_WRITE | mmap.PROT_EXEC)
    except (OSError, ValueError):  # executable memory refused (SELinux deny_execmem, ...)
        return None
    try:
        page.write(_CPUID_CODE)
        address = ctypes.addressof(ctypes.c_char.from_buffer(page))
        cpuid = ctypes.CFUNCTYPE(None, ctypes.c_uint32, ctypes.c_void_p)(address)
        regs = (ctypes.c_uint32 * 4)()
        cpuid(0x80000000, regs)
        if regs[0] < 0x80000004:
            return None
        text = b""
        for leaf in (0x80000002, 0x80000003, 0x80000004):
            cpuid(leaf, regs)
            text += bytes(regs)
        del cpuid
        return text.split(b"\0", 1)[0].decode("ascii", "replace").strip() or None
    finally:
        try:
            page.close()
        except BufferError:  # a ctypes view still holds it; the process ends soon
            pass


def cpu_model():
    """The CPU's name as the C++ binary's context gives it (CPUID), else
    /proc/cpuinfo's "model name", else platform.processor()."""
    brand = _cpuid_brand()
    if brand:
        return brand
    try:
        with open("/proc/cpuinfo") as f:
            m = re.search(r"^model name\s*:\s*(.+)$", f.read(), re.M)
        if m:
            return m.group(1).strip()
    except OSError:
        pass
    return platform.processor() or "?"


class Missing(Exception):
    """A toolchain that cannot be used here: the message is the one-line reason."""


def _runnable(path):
    return bool(path) and os.path.isfile(path) and os.access(path, os.X_OK)


def _output(command):
    try:
        r = subprocess.run(command, capture_output=True, text=True, timeout=60)
    except (OSError, subprocess.TimeoutExpired):
        return None
    return (r.stdout + r.stderr) if r.returncode == 0 else None


def cpu_mask_check():
    """Missing while CRYPTOBENCH_CPU_MASK is set: a peer's run would not be
    masked like the C++ backends'."""
    if os.environ.get("CRYPTOBENCH_CPU_MASK"):
        raise Missing(CPU_MASK_REASON)


def find_jdk():
    """(java, javac) of a Java 17 JDK, or Missing."""
    home = os.environ.get("CRYPTOBENCH_JAVA_HOME")
    candidates = [home] if home is not None else [*DEBIAN_JDKS, None]
    for folder in candidates:
        if folder is None:
            java, javac = shutil.which("java"), shutil.which("javac")
        else:
            java, javac = os.path.join(folder, "bin", "java"), os.path.join(folder, "bin", "javac")
        if not (_runnable(java) and _runnable(javac)):
            continue
        version = _output([javac, "-version"])  # "javac 17.0.15"
        if version and version.split()[-1:] and version.split()[-1].split(".")[0] == JAVA_FEATURE:
            return java, javac
    where = (f"in CRYPTOBENCH_JAVA_HOME={home}" if home is not None else
             "(/usr/lib/jvm/java-17-openjdk-*, or java and javac 17 on PATH)")
    raise Missing(f"no Java {JAVA_FEATURE} JDK {where}: install Debian's {JAVA_PACKAGE} "
                  "(tools/install-deps does)")


def find_go():
    """The go command, or Missing."""
    given = os.environ.get("CRYPTOBENCH_GO")
    candidates = [given] if given is not None else [shutil.which("go"), DEBIAN_GO]
    for go in candidates:
        if _runnable(go):
            return go
    where = f"CRYPTOBENCH_GO={given} is not a program" if given is not None else "no go command"
    raise Missing(f"{where}: install Debian's {GO_PACKAGE} (tools/install-deps does)")


def find_scala():
    """(scalac, scala-library.jar, the JDK folder it runs on), or Missing.
    The jar is SCALA_HOME/lib/scala-library.jar, SCALA_HOME being the folder
    above the real scalac (Debian: /usr/share/scala-2.11)."""
    given = os.environ.get("CRYPTOBENCH_SCALAC")
    candidates = [given] if given is not None else [shutil.which("scalac"), DEBIAN_SCALAC]
    scalac = next((c for c in candidates if _runnable(c)), None)
    if scalac is None:
        where = (f"CRYPTOBENCH_SCALAC={given} is not a program" if given is not None
                 else "no scalac command")
        raise Missing(f"{where}: install Debian's {SCALA_PACKAGE} (tools/install-deps does)")
    home = os.path.dirname(os.path.dirname(os.path.realpath(scalac)))
    library = os.path.join(home, "lib", "scala-library.jar")
    if not os.path.isfile(library):
        raise Missing(f"{scalac} has no scala-library.jar beside it ({library}): install "
                      f"Debian's {SCALA_PACKAGE} (tools/install-deps does)")
    try:
        javac = find_jdk()[1]
    except Missing as e:
        raise Missing(f"scalac needs a Java {JAVA_FEATURE} JDK to compile and run on: "
                      f"{e}") from None
    return scalac, library, os.path.dirname(os.path.dirname(os.path.realpath(javac)))


def go_environment(cache_dir, base=None):
    """Offline and self-contained: modules from nothing but the source tree,
    caches under cache_dir (absolute). Returns the variables to set (and
    GOROOT, which is removed, as None)."""
    cache_dir = os.path.abspath(cache_dir)
    env = {"GOFLAGS": "-mod=mod", "GOPROXY": "off", "GOSUMDB": "off", "GO111MODULE": "on",
           "GOTOOLCHAIN": "local", "CGO_ENABLED": "0", "GOWORK": "off",
           "GOCACHE": os.path.join(cache_dir, "cache"), "GOPATH": os.path.join(cache_dir, "gopath")}
    if base is None:
        return env
    out = dict(base)
    out.update(env)
    out.pop("GOROOT", None)
    return out


def peer_name(language, version):
    """The backend name of a peer from the version its runtime reports:
    go-1.19 from "go1.19.8", java-17 from "17.0.15", scala-2.11 from
    "2.11.12"; None when unreadable."""
    if language == "go":
        m = re.match(r"^(?:devel )?go(\d+)\.(\d+)", version.strip())
        return f"go-{m.group(1)}.{m.group(2)}" if m else None
    if language == "scala":
        m = re.match(r"^(\d+)\.(\d+)(?:[.+-]|$)", version.strip())
        return f"scala-{m.group(1)}.{m.group(2)}" if m else None
    m = re.match(r"^(\d+)(?:[.+-]|$)", version.strip())
    return f"java-{m.group(1)}" if m else None


def _cmake_text(value):
    return '"' + value.replace("\\", "\\\\").replace('"', '\\"').replace("$", "\\$") + '"'


def write_cmake(path, go_cache_dir):
    lines = []
    try:
        go, go_why = find_go(), ""
    except Missing as e:
        go, go_why = "", str(e)
    try:
        javac, java_why = find_jdk()[1], ""
    except Missing as e:
        javac, java_why = "", str(e)
    try:
        scalac, scala_library, scala_jdk = find_scala()
        scala_why = ""
    except Missing as e:
        scalac, scala_library, scala_jdk, scala_why = "", "", "", str(e)
    lines.append(f"set(CRYPTOBENCH_PEER_GO {_cmake_text(go)})")
    lines.append(f"set(CRYPTOBENCH_PEER_GO_WHY {_cmake_text(go_why)})")
    lines.append(f"set(CRYPTOBENCH_PEER_JAVAC {_cmake_text(javac)})")
    lines.append(f"set(CRYPTOBENCH_PEER_JAVA_WHY {_cmake_text(java_why)})")
    lines.append(f"set(CRYPTOBENCH_PEER_SCALAC {_cmake_text(scalac)})")
    lines.append(f"set(CRYPTOBENCH_PEER_SCALA_LIBRARY {_cmake_text(scala_library)})")
    lines.append(f"set(CRYPTOBENCH_PEER_SCALA_JAVA_HOME {_cmake_text(scala_jdk)})")
    lines.append(f"set(CRYPTOBENCH_PEER_SCALA_WHY {_cmake_text(scala_why)})")
    env = " ".join(_cmake_text(f"{k}={v}") for k, v in go_environment(go_cache_dir).items())
    lines.append(f"set(CRYPTOBENCH_PEER_GO_ENV --unset=GOROOT {env})")
    with open(path, "w", encoding="utf-8") as f:
        f.write("\n".join(lines) + "\n")


def main(argv):
    if len(argv) != 4 or argv[1] != "--cmake":
        print("usage: toolchains.py --cmake FILE GO_CACHE_DIR", file=sys.stderr)
        return 2
    write_cmake(argv[2], argv[3])
    return 0


if __name__ == "__main__":
    sys.exit(main(sys.argv))
