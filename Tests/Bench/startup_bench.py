#!/usr/bin/env python3
"""Process start to first frame, and the live resident set, of kiosk binaries
side by side (docs/benchmarks.md, "Process start to first frame").

    python3 Tests/Bench/startup_bench.py NAME=BINARY [NAME=BINARY ...] [--rounds 12] [--settle 25]

Each round starts every binary once, in turn, so machine noise hits them alike:
`vitrine run` headless at 1920x1080 with the demo pictures and placeholder on
3 s rotations and no API. The start figure is the `first frame on screen` line's
`process_uptime_ms` (from the process's start, so the Swift runtime and loading
the binary count). In the first round each kiosk also runs for --settle seconds,
and its /proc/PID/smaps_rollup (Rss, Anonymous, and the rest, file-backed) is
read before it is stopped. Prints Markdown tables.
"""
import argparse
import os
import re
import shutil
import signal
import statistics
import subprocess
import sys
import tempfile
import time

sys.dont_write_bytecode = True
ROOT = os.path.dirname(os.path.dirname(os.path.dirname(os.path.abspath(__file__))))
DEMO = os.path.join(ROOT, "deploy/demo")
FIRST_FRAME = re.compile(r"first frame on screen.*process_uptime_ms=(\d+)")


def configuration(work):
    images = os.path.join(work, "images")
    shutil.copytree(os.path.join(DEMO, "images"), images)
    slides = sorted(name for name in os.listdir(images) if name[:2].isdigit())
    path = os.path.join(work, "vitrine.yaml")
    with open(path, "w") as f:
        f.write("slides: [" + ", ".join(f"images/{name}" for name in slides) + "]\n"
                "placeholder: images/placeholder.jpg\ninterval: 3s\n"
                "output: {display: headless, width: 1920, height: 1080}\napi: {listen: \"off\"}\n")
    return path


def smaps(pid):
    values = {}
    with open(f"/proc/{pid}/smaps_rollup") as f:
        for line in f:
            parts = line.split()
            if len(parts) >= 3 and parts[2] == "kB":
                values[parts[0].rstrip(":")] = int(parts[1])
    return values


def launch(binary, config, work, name="startup_bench"):
    """Starts `vitrine run` on `config` with a fresh state directory under
    `work` and waits up to 30 s for its first frame; returns (process, state
    directory, log path, the first frame's process_uptime_ms). Exits when none comes."""
    state = tempfile.mkdtemp(dir=work)
    log_path = os.path.join(state, "kiosk.log")
    with open(log_path, "w") as log:
        kiosk = subprocess.Popen([binary, "run", "--config", config, "--state-dir", state], stdout=log, stderr=log)
    deadline = time.monotonic() + 30
    milliseconds = None
    while milliseconds is None and time.monotonic() < deadline:
        time.sleep(0.02)
        with open(log_path) as f:
            match = FIRST_FRAME.search(f.read())
        if match:
            milliseconds = int(match.group(1))
        if kiosk.poll() is not None:
            break
    if milliseconds is None:
        stop(kiosk, None)
        with open(log_path) as f:
            sys.exit(f"{name}: {binary} showed no first frame within 30 s:\n{f.read()[-2000:]}")
    return kiosk, state, log_path, milliseconds


def stop(kiosk, state):
    """SIGTERM, up to 10 s to exit, then SIGKILL; removes `state` when given."""
    kiosk.send_signal(signal.SIGTERM)
    try:
        kiosk.wait(timeout=10)
    except subprocess.TimeoutExpired:
        kiosk.kill()
        kiosk.wait()
    if state:
        shutil.rmtree(state, ignore_errors=True)


def start(binary, config, work, settle):
    """Runs one kiosk until its first frame (and `settle` seconds more); returns (ms, smaps or None)."""
    kiosk, state, _, milliseconds = launch(binary, config, work)
    try:
        memory = None
        if settle:
            time.sleep(settle)
            memory = smaps(kiosk.pid)
        return milliseconds, memory
    finally:
        stop(kiosk, state)


def main():
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("binaries", nargs="+", metavar="NAME=BINARY")
    parser.add_argument("--rounds", type=int, default=12)
    parser.add_argument("--settle", type=float, default=25, help="seconds a kiosk runs before its memory is read (first round)")
    args = parser.parse_args()
    named = []
    for item in args.binaries:
        name, _, path = item.partition("=")
        if not path or not os.access(path, os.X_OK):
            sys.exit(f"startup_bench: {item}: expected NAME=BINARY naming an executable")
        named.append((name, os.path.abspath(path)))
    work = tempfile.mkdtemp(prefix="vitrine-startup-")
    try:
        config = configuration(work)
        starts = {name: [] for name, _ in named}
        memory = {}
        for round_number in range(args.rounds):
            for name, binary in named:
                milliseconds, rollup = start(binary, config, work, args.settle if round_number == 0 else 0)
                starts[name].append(milliseconds)
                if rollup:
                    memory[name] = rollup
        print(f"Process start to first frame, {args.rounds} starts each, alternating ({time.strftime('%Y-%m-%d')})\n")
        print("| binary | size | median | min | max |\n| --- | ---: | ---: | ---: | ---: |")
        for name, binary in named:
            values = starts[name]
            print(f"| {name} | {os.path.getsize(binary) / 2**20:.1f} MiB | {statistics.median(values):.1f} ms | "
                  f"{min(values)} ms | {max(values)} ms |")
        print(f"\nResident set after {args.settle:g} s (/proc/PID/smaps_rollup)\n")
        print("| binary | RSS | anonymous | file-backed |\n| --- | ---: | ---: | ---: |")
        for name, _ in named:
            rollup = memory[name]
            print(f"| {name} | {rollup['Rss']:,} KiB | {rollup['Anonymous']:,} KiB | {rollup['Rss'] - rollup['Anonymous']:,} KiB |")
    finally:
        shutil.rmtree(work, ignore_errors=True)


if __name__ == "__main__":
    main()
