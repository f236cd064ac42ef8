"""Waiting for a line on a child's stderr before signalling it: the signal
tests (interrupt_test.py, hostile_run_test.py) send theirs once the run has
reached a known point, not after a fixed time (set-up takes longer on a busy
machine)."""
import threading
import time


def read_until(p, marker, seconds=120, required=False):
    """Reads p's stderr in a thread until a line holding `marker` shows (or p
    ends, or `seconds` pass). Returns (the lines so far, still growing while
    p runs; the reader thread; whether the marker showed). required: when it
    did not show, p is killed first. A signal sent after the wait ran out
    would still pass, slowly, and test something else: waiting for "[2/",
    which the 5-second progress lines never print, did that for months."""
    lines = []
    reader = threading.Thread(target=lambda: lines.extend(p.stderr))
    reader.start()
    deadline = time.monotonic() + seconds
    while not any(marker in line for line in lines) and time.monotonic() < deadline:
        if p.poll() is not None:
            reader.join(timeout=5)  # the last lines may still be on their way
            break
        time.sleep(0.05)
    seen = any(marker in line for line in lines)
    if required and not seen:
        p.kill()
        p.wait()
        reader.join()
    return lines, reader, seen
