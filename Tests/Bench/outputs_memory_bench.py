#!/usr/bin/env python3
"""Memory and frame cost of a second output (docs/benchmarks.md, "Two outputs").

    python3 Tests/Bench/outputs_memory_bench.py BINARY [--reference BINARY] [--rounds 3] [--settle 25]

Each round runs the same release kiosk twice, in turn, so machine noise hits
both alike: headless, the demo pictures on 3 s rotations with slide
transitions, no API, once with one 1920x1080 output and once with two
(`outputs`: HDMI-A-1 and HDMI-A-2, each 1920x1080 with the same programme,
each its own display loop, decoded slides and frame pacing). After --settle
seconds it reads /proc/PID/smaps_rollup (Rss, Anonymous), VmHWM from
/proc/PID/status and the CPU time used so far (/proc/PID/stat utime+stime),
then stops the kiosk with SIGTERM and reads each loop's frame-pacing summary
from its log. Prints Markdown tables: the median of the rounds.

The kiosk's Rss counts only the pages it touched itself. Its slides' frames
are memfds that the decoding helpers write, and a frame the kiosk has not
drawn yet (the next slide, the placeholder) is in no process's Rss. So the
run also samples, every 20 ms from the start, what the kiosk holds: its
anonymous and file-backed Rss plus the shared memory added in the whole
machine since just before it started (/proc/meminfo's Shmem, which counts
every memfd page whoever wrote it). That is "held", with its peak; it is
only right on a machine where nothing else makes or frees shared memory
meanwhile.

With --reference, an older build runs too, in the same rounds (each round:
the reference with one output and two, then BINARY with one and two), and
each table has its rows.
"""
import argparse
import os
import re
import shutil
import statistics
import sys
import tempfile
import time

sys.dont_write_bytecode = True
sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
from startup_bench import DEMO, launch, smaps, stop  # noqa: E402

PACING = re.compile(r"frame pacing during transitions: (.*?)(?: output=(\S+))?$", re.M)


def configuration(work, outputs):
    images = os.path.join(work, "images")
    if not os.path.isdir(images):
        shutil.copytree(os.path.join(DEMO, "images"), images)
    slides = sorted(name for name in os.listdir(images) if name[:2].isdigit())
    path = os.path.join(work, f"outputs-{outputs}.yaml")
    with open(path, "w") as f:
        f.write("slides: [" + ", ".join(f"images/{name}" for name in slides) + "]\n"
                "placeholder: images/placeholder.jpg\ninterval: 3s\n"
                "output: {display: headless, width: 1920, height: 1080, preview: \"off\"}\napi: {listen: \"off\"}\n")
        if outputs > 1:
            f.write("outputs:\n" + "".join(f"  - {{name: HDMI-A-{n + 1}, mode: 1920x1080}}\n" for n in range(outputs)))
    return path


def status_kib(pid, field):
    with open(f"/proc/{pid}/status") as f:
        for line in f:
            if line.startswith(field + ":"):
                return int(line.split()[1])
    return None


def cpu_seconds(pid):
    with open(f"/proc/{pid}/stat") as f:
        fields = f.read().rsplit(")", 1)[1].split()
    return (int(fields[11]) + int(fields[12])) / os.sysconf("SC_CLK_TCK")


def shmem_kib():
    with open("/proc/meminfo") as f:
        return int(re.search(r"^Shmem:\s+(\d+)", f.read(), re.M).group(1))


def held_kib(pid, shmem_before):
    """The kiosk's anonymous and file-backed Rss, and the shared memory added since it started."""
    return status_kib(pid, "RssAnon") + status_kib(pid, "RssFile") + shmem_kib() - shmem_before


def run(binary, config, work, settle):
    shmem_before = shmem_kib()
    kiosk, state, log_path, _ = launch(binary, config, work, name="outputs_memory_bench")
    try:
        held_peak = 0
        deadline = time.monotonic() + settle
        while time.monotonic() < deadline:
            held_peak = max(held_peak, held_kib(kiosk.pid, shmem_before))
            time.sleep(0.02)
        held = held_kib(kiosk.pid, shmem_before)
        rollup, peak, cpu = smaps(kiosk.pid), status_kib(kiosk.pid, "VmHWM"), cpu_seconds(kiosk.pid)
    finally:
        # Not removed yet: each loop's frame-pacing summary is in its log at exit.
        stop(kiosk, None)
    with open(log_path) as f:
        log = f.read()
    shutil.rmtree(state, ignore_errors=True)
    pacing = [(output or "HDMI-A-1", summary) for summary, output in PACING.findall(log)]
    return {"rss": rollup["Rss"], "anonymous": rollup["Anonymous"], "peak": peak, "cpu": cpu, "pacing": pacing,
            "held": held, "held_peak": max(held_peak, held)}


def main():
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("binary")
    parser.add_argument("--reference", help="an older build, run alternately in the same rounds")
    parser.add_argument("--rounds", type=int, default=3)
    parser.add_argument("--settle", type=float, default=25)
    args = parser.parse_args()
    builds = [("reference", os.path.abspath(args.reference))] if args.reference else []
    builds.append(("this build" if args.reference else "", os.path.abspath(args.binary)))
    work = tempfile.mkdtemp(prefix="vitrine-outputs-")
    try:
        configs = {count: configuration(work, count) for count in (1, 2)}
        results = {(name, count): [] for name, _ in builds for count in (1, 2)}
        for _ in range(args.rounds):
            for name, binary in builds:
                for count in (1, 2):
                    results[(name, count)].append(run(binary, configs[count], work, args.settle))
        print(f"Headless 1920x1080 outputs, demo pictures on 3 s rotations, {args.rounds} runs each, alternating, "
              f"read {args.settle:g} s after the first frame ({time.strftime('%Y-%m-%d')})\n")
        label = "build | " if args.reference else ""
        print(f"| {label}outputs | RSS | anonymous | peak (VmHWM) | held | held, peak | CPU time |\n"
              f"| {'--- | ' if args.reference else ''}--- | ---: | ---: | ---: | ---: | ---: | ---: |")
        for name, _ in builds:
            for count in (1, 2):
                rows = results[(name, count)]
                med = lambda key: statistics.median(row[key] for row in rows)
                print(f"| {name + ' | ' if args.reference else ''}{count} | {med('rss') / 1024:.1f} MiB | "
                      f"{med('anonymous') / 1024:.1f} MiB | {med('peak') / 1024:.1f} MiB | {med('held') / 1024:.1f} MiB | "
                      f"{med('held_peak') / 1024:.1f} MiB | {med('cpu'):.2f} s |")
        print("\nFrame pacing during transitions, each loop's own summary at exit (last run):\n")
        for name, _ in builds:
            for count in (1, 2):
                for output, summary in results[(name, count)][-1]["pacing"]:
                    print(f"- {name + ', ' if args.reference else ''}{count} output{'s' if count > 1 else ''}, {output}: {summary}")
    finally:
        shutil.rmtree(work, ignore_errors=True)


if __name__ == "__main__":
    main()
