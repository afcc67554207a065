#!/usr/bin/env python3
"""A phone's 48-megapixel HEIF, decoded by the kiosk and by libheif's own tool
in one run (issue 28: HEIF Max photos).

The picture is Tests/VitrineHEIFTests/Fixtures/tiled-48mp-irot.heic: a grid of
12x16 HEVC tiles of 512x512, cropped to 8064x6048 and turned by `irot` as an
iPhone's photo taken upright is (SOURCES.md there). Each BINARY renders it
into a 1920x1080 frame (`vitrine render`, the slide path: decode, turn,
resample) and checks it (`vitrine check-config`, which decodes every picture
whole); the reference is `heif-convert` writing Y4M (its cheapest output: the
planes as libheif leaves them, after libheif's own turn). Each command runs
RUNS times; the table gives the median wall time and the largest peak
resident memory (`/usr/bin/time`'s %M, the process's VmHWM).

    Tests/Bench/heif_tiled_bench.py LABEL=BINARY [LABEL=BINARY ...]   (make bench-heif)
"""
import os
import shutil
import statistics
import subprocess
import sys
import tempfile

RUNS = 3
FIXTURE = os.path.join(os.path.dirname(os.path.abspath(__file__)), "..", "VitrineHEIFTests", "Fixtures", "tiled-48mp-irot.heic")


def measure(command):
    """(wall seconds, peak KiB, exit status, what it printed) of one run of COMMAND."""
    result = subprocess.run(["/usr/bin/time", "-f", "%e %M"] + command, capture_output=True, text=True)
    lines = result.stderr.strip().splitlines()
    wall, peak = lines[-1].split()
    return float(wall), int(peak), result.returncode, "\n".join([result.stdout.strip()] + lines[:-1]).strip()


def outcome(status, printed):
    """ok, or the first line that says why not: render draws the placeholder
    for a picture it cannot decode and exits 0, so its log is read too."""
    complaints = [line for line in printed.splitlines() if " ERROR " in line or " CRITICAL " in line or ": " in line and status]
    if status == 0 and not complaints:
        return "ok"
    why = complaints[0] if complaints else printed.splitlines()[-1] if printed else ""
    return f"exit {status}: {why[why.find('vitrine: ') + 9 if 'vitrine: ' in why else 0:][:150]}"


def main():
    if len(sys.argv) < 2 or not all("=" in word for word in sys.argv[1:]):
        sys.exit(__doc__)
    work = tempfile.mkdtemp(prefix="heif-tiled-bench-")
    try:
        shutil.copy(FIXTURE, os.path.join(work, "photo.heic"))
        config = os.path.join(work, "kiosk.yaml")
        with open(config, "w") as f:
            f.write("output: {width: 1920, height: 1080}\nslides:\n  - path: photo.heic\n")
        commands = []
        for word in sys.argv[1:]:
            label, binary = word.split("=", 1)
            commands.append((f"{label}: vitrine render to 1920x1080", [binary, "render", "--config", config, "--at", "1",
                                                                         "--out", os.path.join(work, f"{label}.png")]))
            commands.append((f"{label}: vitrine check-config", [binary, "check-config", config]))
        commands.append(("heif-convert to Y4M (whole, unscaled)", ["heif-convert", "--quiet", os.path.join(work, "photo.heic"),
                                                                   os.path.join(work, "reference.y4m")]))
        print(f"{os.path.basename(FIXTURE)} (8064x6048 as coded, 6048x8064 shown; {os.path.getsize(FIXTURE) // 1024} KiB), "
              f"median wall time and largest peak RSS of {RUNS} runs each, in one run")
        print("| command | median wall s | peak RSS MiB | result |")
        print("| --- | ---: | ---: | --- |")
        for name, command in commands:
            runs = [measure(command) for _ in range(RUNS)]
            result = outcome(runs[-1][2], runs[-1][3])
            print(f"| {name} | {statistics.median(r[0] for r in runs):.2f} | {max(r[1] for r in runs) / 1024:.1f} | {result} |", flush=True)
    finally:
        shutil.rmtree(work, ignore_errors=True)


if __name__ == "__main__":
    main()
