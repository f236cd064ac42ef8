#!/usr/bin/python3
"""report_browser_test.py: renders the HTML report of a run in headless
Chromium (Debian's) and fails on any console message (errors, uncaught
exceptions) or on a chart that the browser did not render with data marks.
Writes a screenshot next to the report.

usage: report_browser_test.py RUN.json OUT_DIR EXPECTED_CHART_COUNT
"""
import os
import re
import subprocess
import sys
import tempfile

HERE = os.path.dirname(os.path.abspath(__file__))
CLI = os.path.join(os.path.dirname(os.path.dirname(HERE)), "tools", "results", "cryptobench-results")
CHROMIUM_FLAGS = ["--headless", "--no-sandbox", "--disable-gpu", "--disable-quic", "--no-first-run",
                  "--disable-background-networking", "--disable-component-update", "--disable-sync"]


def chromium(args):
    with tempfile.TemporaryDirectory() as profile:
        return subprocess.run(["chromium", *CHROMIUM_FLAGS, f"--user-data-dir={profile}",
                               "--enable-logging=stderr", "--v=0", *args],
                              capture_output=True, text=True, timeout=120)


def main():
    run_json, out_dir, expected = sys.argv[1], sys.argv[2], int(sys.argv[3])
    os.makedirs(out_dir, exist_ok=True)
    html = os.path.join(out_dir, "report.html")
    png = os.path.join(out_dir, "report.png")
    subprocess.run([sys.executable, CLI, "report", run_json, "-o", html], check=True)
    url = "file://" + os.path.abspath(html)

    dom = chromium(["--dump-dom", url])
    console = [line for line in dom.stderr.splitlines() if ":CONSOLE" in line]
    if console:
        print("FAIL: console messages:\n" + "\n".join(console))
        return 1
    check = re.search(r'id="selfcheck"[^>]*data-ok="(\d+)" data-total="(\d+)"[^>]*>([^<]*)<', dom.stdout)
    if not check:
        print("FAIL: the report's self-check did not run (no data-ok on #selfcheck)")
        return 1
    ok, total, text = int(check.group(1)), int(check.group(2)), check.group(3)
    print(f"browser: {text}")
    if ok != total or total != expected:
        print(f"FAIL: expected {expected} rendered charts, browser says {ok} of {total}")
        return 1

    shot = chromium(["--window-size=1200,4000", f"--screenshot={png}", url])
    if shot.returncode != 0 or not os.path.getsize(png):
        print("FAIL: no screenshot")
        return 1
    print(f"screenshot: {png}")
    print(f"PASS: {total} charts rendered, no console messages")
    return 0


if __name__ == "__main__":
    sys.exit(main())
