#!/usr/bin/env python3
"""API throughput against frame pacing, side by side in one run.

Starts the release kiosk headless (1280x720) on a playlist that is always
changing slide (600 ms dwell, 400 ms slide transition), and measures the frame
pacing of its transitions twice: alone, then while wrk (a second process, on
loopback) requests GET /api/v1/status as fast as it can. Prints both, and wrk's
requests per second, as a Markdown table for docs/benchmarks.md.

    Tests/Bench/api_bench.py [BINARY] [--seconds N] [--connections N]
"""
import argparse
import os
import re
import shutil
import signal
import socket
import subprocess
import sys
import tempfile
import time
import urllib.request

ROOT = os.path.dirname(os.path.dirname(os.path.dirname(os.path.abspath(__file__))))
TOKEN = "bench-token-0123456789"


def free_port():
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        return s.getsockname()[1]


def run_kiosk(binary, work, port, seconds, load=None):
    """Runs the kiosk for `seconds` (with `load` running alongside); returns its pacing line and load's output."""
    log_path = os.path.join(work, "kiosk.log")
    with open(log_path, "w") as log:
        kiosk = subprocess.Popen([binary, "run", "--config", os.path.join(work, "vitrine.yaml"), "--state-dir",
                                  os.path.join(work, "state"), "--display", "headless", "--preview", os.path.join(work, "p.png")],
                                 stdout=log, stderr=log)
    for _ in range(400):
        try:
            urllib.request.urlopen(f"http://127.0.0.1:{port}/healthz", timeout=1)
            break
        except OSError:
            time.sleep(0.05)
    time.sleep(1)  # past the first decodes
    load_output = ""
    if load:
        load_output = subprocess.run(load, capture_output=True, text=True, check=True).stdout
    else:
        time.sleep(seconds)
    kiosk.send_signal(signal.SIGTERM)
    kiosk.wait(timeout=20)
    text = open(log_path).read()
    pacing = re.search(r"frame pacing during transitions: (n=\d+ median=[\d.]+ms p95=[\d.]+ms max=[\d.]+ms)", text)
    if not pacing:
        sys.exit(f"no pacing line in {log_path}")
    return pacing.group(1), load_output


def main():
    parser = argparse.ArgumentParser()
    parser.add_argument("binary", nargs="?", default=os.path.join(ROOT, ".build/release/vitrine"))
    parser.add_argument("--seconds", type=int, default=15)
    parser.add_argument("--connections", type=int, default=16)
    args = parser.parse_args()
    if not shutil.which("wrk"):
        sys.exit("wrk is not installed (apt-get install wrk)")
    work = tempfile.mkdtemp(prefix="vitrine-api-bench-")
    port = free_port()
    demo = os.path.join(ROOT, "deploy/demo/images")
    for name in ("01-welcome.jpg", "04-wide.jpg", "06-photo-like.jpg"):
        shutil.copy(os.path.join(demo, name), work)
    with open(os.path.join(work, "vitrine.yaml"), "w") as f:
        f.write("slides: [01-welcome.jpg, 04-wide.jpg, 06-photo-like.jpg]\ninterval: 600ms\n"
                "transition: {type: slide, duration: 400ms, easing: ease-out}\n"
                "output: {width: 1280, height: 720}\n"
                f"api: {{listen: \"127.0.0.1:{port}\", token: {TOKEN}}}\n")
    alone, _ = run_kiosk(args.binary, work, port, args.seconds)
    wrk = ["wrk", "-t1", f"-c{args.connections}", f"-d{args.seconds}s", "--latency",
           "-H", f"Authorization: Bearer {TOKEN}", f"http://127.0.0.1:{port}/api/v1/status"]
    loaded, wrk_output = run_kiosk(args.binary, work, port, args.seconds, load=wrk)
    rate = re.search(r"Requests/sec:\s+([\d.]+)", wrk_output).group(1)
    latency = {p: re.search(rf"\s{p}%\s+([\d.]+\w+)", wrk_output).group(1) for p in ("50", "99")}
    non2xx = re.search(r"Non-2xx or 3xx responses: (\d+)", wrk_output)
    print(wrk_output)
    print(f"| run | frame pacing during transitions (gap between frames) | GET /api/v1/status |")
    print(f"|---|---|---|")
    print(f"| kiosk alone | {alone} | none |")
    print(f"| kiosk + wrk, {args.connections} connections, {args.seconds} s | {loaded} | "
          f"{rate} req/s, latency p50 {latency['50']}, p99 {latency['99']}"
          f"{', non-2xx: ' + non2xx.group(1) if non2xx else ''} |")
    shutil.rmtree(work)


if __name__ == "__main__":
    main()
