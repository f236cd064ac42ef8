"""children.py: programs started so that they never outlive the script that
started them (tools/run-peers, pingpong/driver.py).

Each runs in a session of its own, so a terminal's Ctrl-C reaches only the
script, which stops the child by its PID; and each gets SIGKILL when the
script dies (PR_SET_PDEATHSIG), even by SIGKILL. Standard library only.

A shell script does the same for a program it starts (tools/run-benchmarks):
  /usr/bin/python3 tools/children.py --parent=$$ -- PROGRAM ARGS...
sets the flag and execs PROGRAM (it keeps the flag), which then gets SIGKILL
when the script dies; a script already gone ends it at once (exit 1).
"""
import ctypes
import os
import signal
import subprocess
import sys

STOP_SIGNALS = (signal.SIGINT, signal.SIGTERM, signal.SIGHUP)
_PR_SET_PDEATHSIG = 1


def _die_with_parent(parent):
    """preexec_fn: SIGKILL when the parent dies; a parent already gone (it
    died before the flag was set) ends the child at once."""
    def set_up():
        signal.pthread_sigmask(signal.SIG_UNBLOCK, STOP_SIGNALS)  # blocked by spawn()
        libc = ctypes.CDLL(None, use_errno=True)
        libc.prctl(_PR_SET_PDEATHSIG, signal.SIGKILL, 0, 0, 0)
        if os.getppid() != parent:
            os._exit(1)
    return set_up


def spawn(argv, register, **popen_kwargs):
    """subprocess.Popen(argv, **popen_kwargs) as above. The stop signals wait
    until register(process) has recorded it: a signal in between would leave
    a process the script's handler does not know of."""
    signal.pthread_sigmask(signal.SIG_BLOCK, STOP_SIGNALS)
    try:
        process = subprocess.Popen(argv, start_new_session=True,
                                   preexec_fn=_die_with_parent(os.getpid()), **popen_kwargs)
        register(process)
    finally:
        signal.pthread_sigmask(signal.SIG_UNBLOCK, STOP_SIGNALS)
    return process


def exec_with_parent(argv):
    """children.py --parent=PID -- PROGRAM ARGS...: see above."""
    # SIGINT as the program will have it until it sets its own: ends it (a
    # KeyboardInterrupt here would print a traceback instead).
    signal.signal(signal.SIGINT, signal.SIG_DFL)
    if len(argv) < 3 or not argv[0].startswith("--parent=") or argv[1] != "--":
        print("usage: children.py --parent=PID -- PROGRAM [ARGS...]", file=sys.stderr)
        return 2
    try:
        parent = int(argv[0][len("--parent="):])
    except ValueError:
        print(f"children.py: --parent takes a process id, not '{argv[0][9:]}'", file=sys.stderr)
        return 2
    libc = ctypes.CDLL(None, use_errno=True)
    libc.prctl(_PR_SET_PDEATHSIG, signal.SIGKILL, 0, 0, 0)
    if os.getppid() != parent:
        return 1
    try:
        os.execvp(argv[2], argv[2:])
    except OSError as e:
        print(f"children.py: cannot run {argv[2]}: {e.strerror}", file=sys.stderr)
        return 127


if __name__ == "__main__":
    sys.exit(exec_with_parent(sys.argv[1:]))
