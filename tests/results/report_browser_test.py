#!/usr/bin/python3
"""report_browser_test.py: renders the HTML report of one or several runs in
headless Chromium (Debian's) and fails on any console message (errors,
uncaught exceptions) or on a chart that the browser did not render with data
marks. Writes two screenshots next to the report: the first screen a reader
sees (report-first-screen.png, 1280x1000: it must show the answer) and a
tall one of the whole report (report.png).

usage: report_browser_test.py OUT_DIR EXPECTED_CHART_COUNT RUN.json [RUN2.json ...]
"""
import os
import re
import subprocess
import sys
import tempfile

HERE = os.path.dirname(os.path.abspath(__file__))
CLI = os.path.join(os.path.dirname(os.path.dirname(HERE)), "tools", "results", "cryptobench-results")
CHROMIUM_FLAGS = ["--headless", "--no-sandbox", "--disable-gpu", "--disable-quic", "--no-first-run",
                  "--disable-background-networking", "--disable-component-update", "--disable-sync",
                  "--hide-scrollbars"]
FIRST_SCREEN = (1280, 1000)
TALL_SCREEN_PER_RUN = (1280, 7000)


def chromium(args):
    with tempfile.TemporaryDirectory() as profile:
        return subprocess.run(["chromium", *CHROMIUM_FLAGS, f"--user-data-dir={profile}",
                               "--enable-logging=stderr", "--v=0", *args],
                              capture_output=True, text=True, timeout=120)


def screenshot(url, png, width, height):
    shot = chromium([f"--window-size={width},{height}", f"--screenshot={png}", url])
    return shot.returncode == 0 and os.path.exists(png) and os.path.getsize(png) > 0


def main():
    if len(sys.argv) < 4:
        print(__doc__.strip().splitlines()[-1])
        return 2
    out_dir, expected, runs = sys.argv[1], int(sys.argv[2]), sys.argv[3:]
    os.makedirs(out_dir, exist_ok=True)
    html = os.path.join(out_dir, "report.html")
    subprocess.run([sys.executable, CLI, "report", *runs, "-o", html], check=True)
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

    for name, (width, height) in (("report-first-screen.png", FIRST_SCREEN),
                                  ("report.png", (TALL_SCREEN_PER_RUN[0], TALL_SCREEN_PER_RUN[1] * len(runs)))):
        png = os.path.join(out_dir, name)
        if not screenshot(url, png, width, height):
            print(f"FAIL: no screenshot {png}")
            return 1
        print(f"screenshot: {png}")
    print(f"PASS: {total} charts rendered, no console messages")
    return 0


if __name__ == "__main__":
    sys.exit(main())
