#!/usr/bin/env python3
"""Playing 60 s of 1080p30 H.264 (docs/benchmarks.md, "Video").

    python3 Tests/Bench/video_bench.py BINARY [--seconds 60]

Makes the clip with Debian's ffmpeg (testsrc2, libx264 veryfast, CRF 23,
1920x1080 at 30 fps), then in one run, one after the other:

- the release kiosk, headless at 1920x1080, playing it as a slide (the
  video, then a picture it pages to when the video ends): the CPU time of
  the kiosk and of its `vitrine-video` helper (/proc/PID/stat utime+stime,
  read just before the page change ends the video), their resident memory at
  the end and their peak (VmRSS, VmHWM), and the pacing summary the kiosk logs
  when it pages away ("video played");
- `ffmpeg -threads 2 -i CLIP -vf scale=1920:1080,format=bgra -f null -`, the
  same decode and conversion to the kiosk's pixels as fast as it can, under
  GNU time (user+sys, maximum resident set).

The kiosk plays in real time, so its CPU includes 60 s of waiting for the
next frame; ffmpeg's is decoding alone. Prints a Markdown table.
"""
import argparse
import os
import re
import shutil
import subprocess
import sys
import tempfile
import time

sys.dont_write_bytecode = True
sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
from startup_bench import DEMO, launch, stop  # noqa: E402

# The log quotes a value with spaces: pacing="1800 shown, 0 late, 0 dropped (0 by design)".
PLAYED = re.compile(r'video played .*pacing="([^"]*)"', re.M)


def status_kib(pid, field):
    with open(f"/proc/{pid}/status") as f:
        for line in f:
            if line.startswith(field + ":"):
                return int(line.split()[1])
    return 0


def cpu_seconds(pid):
    with open(f"/proc/{pid}/stat") as f:
        fields = f.read().rsplit(")", 1)[1].split()
    return (int(fields[11]) + int(fields[12])) / os.sysconf("SC_CLK_TCK")


def helpers(pid):
    """The kiosk's `vitrine-video` children."""
    found = []
    for task in os.listdir(f"/proc/{pid}/task"):
        with open(f"/proc/{pid}/task/{task}/children") as f:
            for child in f.read().split():
                with open(f"/proc/{child}/comm") as comm:
                    if comm.read().strip() == "vitrine-video":
                        found.append(int(child))
    return found


def main():
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("binary")
    parser.add_argument("--seconds", type=int, default=60)
    arguments = parser.parse_args()
    work = tempfile.mkdtemp(prefix="vitrine-video-bench-")
    try:
        clip = os.path.join(work, "clip.mp4")
        subprocess.run(["ffmpeg", "-v", "error", "-y", "-f", "lavfi", "-i", f"testsrc2=size=1920x1080:rate=30:duration={arguments.seconds}",
                        "-c:v", "libx264", "-preset", "veryfast", "-crf", "23", "-pix_fmt", "yuv420p", clip], check=True)
        picture = os.path.join(work, "after.jpg")
        shutil.copy(os.path.join(DEMO, "images", "01-welcome.jpg"), picture)
        config = os.path.join(work, "video.yaml")
        with open(config, "w") as f:
            f.write(f"slides: [clip.mp4, after.jpg]\ninterval: 5s\ntransition: {{type: slide, duration: 500ms}}\n"
                    "output: {display: headless, width: 1920, height: 1080, preview: \"off\"}\napi: {listen: \"off\"}\n")
        kiosk, state, log_path, _ = launch(arguments.binary, config, work, name="video_bench")
        try:
            # Slide 0 is the video, at rest from the first frame: it plays its length, then the page changes.
            deadline = time.monotonic() + arguments.seconds + 30
            sample = None
            while time.monotonic() < deadline:
                time.sleep(0.2)
                found = helpers(kiosk.pid)
                if found:
                    sample = {"kiosk_cpu": cpu_seconds(kiosk.pid), "kiosk_rss": status_kib(kiosk.pid, "VmRSS"),
                              "kiosk_peak": status_kib(kiosk.pid, "VmHWM"),
                              "helper_cpu": sum(cpu_seconds(p) for p in found), "helper_rss": sum(status_kib(p, "VmRSS") for p in found),
                              "helper_peak": sum(status_kib(p, "VmHWM") for p in found)}
                with open(log_path) as f:
                    log = f.read()
                if PLAYED.search(log):
                    break
        finally:
            stop(kiosk, None)
        with open(log_path) as f:
            log = f.read()
        shutil.rmtree(state, ignore_errors=True)
        played = PLAYED.search(log)
        if sample is None or played is None:
            sys.exit(f"video_bench: no video played:\n{log[-3000:]}")

        timed = subprocess.run(["/usr/bin/time", "-f", "%U %S %M", "ffmpeg", "-v", "error", "-threads", "2", "-i", clip,
                                "-vf", "scale=1920:1080,format=bgra", "-f", "null", "-"], capture_output=True, text=True, check=True)
        user, system, peak = timed.stderr.strip().splitlines()[-1].split()
        ffmpeg_cpu = float(user) + float(system)

        print(f"| {arguments.seconds} s of 1080p30 H.264 | CPU time | resident at the end | peak resident |")
        print("| --- | --- | --- | --- |")
        print(f"| vitrine: the kiosk (display thread, composing 1080p frames) | {sample['kiosk_cpu']:.1f} s | "
              f"{sample['kiosk_rss'] / 1024:.1f} MiB | {sample['kiosk_peak'] / 1024:.1f} MiB |")
        print(f"| vitrine: its vitrine-video helper (decode and scale) | {sample['helper_cpu']:.1f} s | "
              f"{sample['helper_rss'] / 1024:.1f} MiB | {sample['helper_peak'] / 1024:.1f} MiB |")
        print(f"| vitrine: both | {sample['kiosk_cpu'] + sample['helper_cpu']:.1f} s | | |")
        print(f"| ffmpeg -threads 2 … -vf scale,format=bgra -f null (as fast as it can) | {ffmpeg_cpu:.1f} s | | {int(peak) / 1024:.1f} MiB |")
        print()
        print(f"pacing: {played.group(1)}")
    finally:
        shutil.rmtree(work, ignore_errors=True)


if __name__ == "__main__":
    main()
