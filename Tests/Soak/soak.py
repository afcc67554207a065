#!/usr/bin/env python3
"""Soak: the release kiosk for a long run, with its memory and descriptors watched.

Runs the kiosk headless at 1920x1080 on 1 s rotations (400 ms slide
transitions, so about 40% of the time animates), with a bounded API load on
loopback alongside:
  - GET /api/v1/status once a second;
  - GET /api/v1/screenshot every 10 s (a full-size PNG encode each time);
  - an SSE stream on /api/v1/events, closed and opened again every 60 s;
  - PUT /api/v1/config every 30 s, alternating between two playlists, so the
    apply path, the frame store and the state directory keep turning over.

Every 2 s it reads the kiosk's resident set (/proc/PID/status VmRSS) and
open descriptors (/proc/PID/fd), and keeps one sample per --sample seconds
(default 30): the lowest RSS and the most descriptors seen in that window.
The lowest, because the resident set swings by tens of megabytes as pushes
and rotations allocate and free whole frames and decode scratch; what a leak
raises is the floor those swings return to. After the warm-up (default: the
first sixth of the run, at least 2 minutes), it fits a line to each series
(Theil-Sen, below; least squares before issue 39) and fails when either trends
upward and goes on rising:
  - RSS: a slope over --max-rss-slope KiB per hour (default 512: about a
    third of what the frame-gap array of the earlier build grew, 0.4 KiB/s or
    1,440 KiB/h);
  - descriptors: a slope over --max-fd-slope per hour (default 1), or a last
    sample above the warm-up's highest by more than 2.
A slope is a trend only if the series' end is above its start as well, so a
single early spike does not fail a flat run. And growth must persist: a cache
that fills (glibc's arenas, libdispatch's per-thread caches, a pool reaching
its size) raises the floor for a while and then holds it, which a line fitted
to a short run reads as a leak (issue 39: a floor 300 KiB higher after a
15-minute soak's warm-up, fitted as +4.5 MiB/h). So the last half of the
series after the warm-up is fitted on its own, with its standard error from
the residuals' scatter. Both
fits are Theil-Sen (the median of the slopes between every two samples), which
a few stray windows do not tilt: a floor that dropped once when glibc gave
memory back (16 MiB for one window of a 15-minute soak), or did not come back
within a window on a busy host. Then:
  - it still rises faster than the limit by two standard errors: a leak, fail;
  - its slope plus two standard errors is within the limit: a cache that
    filled and levelled off, pass (said so);
  - neither: the run cannot tell the two apart at its noise, fail, and say
    so (a longer run can).
A steady leak over the limit passes as levelled only if the noise puts its
last half two standard errors below the limit; --self-test counts that over
200 draws of noise, and how often a filled cache fails.

    Tests/Soak/soak.py BINARY [--minutes 60] [--sample 30] [--json out.json]
    Tests/Soak/soak.py --self-test        (the trend detector on made-up series)

Prints every sample, then a summary and a Markdown row for docs/benchmarks.md.
Exit status 1 when a trend is found, the kiosk dies, or the API stops answering.
"""
import argparse
import json
import os
import re
import shutil
import signal
import socket
import subprocess
import sys
import tempfile
import threading
import time
import urllib.error
import urllib.request

ROOT = os.path.dirname(os.path.dirname(os.path.dirname(os.path.abspath(__file__))))
TOKEN = "soak-token-0123456789abcdef"
IMAGES = ["01-welcome.jpg", "02-portrait.jpg", "03-exif-rotated.jpg", "04-wide.jpg", "05-square.jpg", "06-photo-like.jpg"]


def slope_per_hour(samples):
    """Least-squares slope of (seconds, value) pairs, in value units per hour."""
    n = len(samples)
    if n < 3:
        return 0.0
    mean_t = sum(t for t, _ in samples) / n
    mean_v = sum(v for _, v in samples) / n
    var = sum((t - mean_t) ** 2 for t, _ in samples)
    if var == 0:
        return 0.0
    cov = sum((t - mean_t) * (v - mean_v) for t, v in samples)
    return cov / var * 3600


def theil_sen_per_hour(samples):
    """The median of the slopes between every two samples, in value units per hour: a few windows
    whose floor did not come back (a busy host) or one step do not tilt it, as they tilt a least-squares line."""
    slopes = sorted((v2 - v1) / (t2 - t1) for i, (t1, v1) in enumerate(samples) for t2, v2 in samples[i + 1:] if t2 != t1)
    if not slopes:
        return 0.0
    middle = len(slopes) // 2
    return (slopes[middle] if len(slopes) % 2 else (slopes[middle - 1] + slopes[middle]) / 2) * 3600


def slope_error_per_hour(samples, slope_per_h):
    """How far `slope_per_h` of `samples` may be off by their scatter alone (one standard error, per hour).
    The line goes through the median of v - slope*t, and the scatter is the residuals' median absolute
    deviation about it (scaled to a standard deviation), so that the few windows far off the line
    (a floor that dropped when glibc gave memory back, or did not come back on a busy host), which
    Theil-Sen ignores, do not inflate it."""
    n = len(samples)
    if n < 3:
        return float("inf")
    offsets = sorted(v - slope_per_h / 3600 * t for t, v in samples)
    intercept = offsets[n // 2] if n % 2 else (offsets[n // 2 - 1] + offsets[n // 2]) / 2
    residuals = sorted(abs(v - intercept - slope_per_h / 3600 * t) for t, v in samples)
    sigma = 1.4826 * residuals[n // 2]
    mean_t = sum(t for t, _ in samples) / n
    spread = sum((t - mean_t) ** 2 for t, _ in samples) ** 0.5
    return float("inf") if spread == 0 else sigma / spread * 3600


def trend(samples, warmup_seconds, max_slope_per_hour, max_step=None):
    """(verdict, slope, reason, late): verdict is True when the series after the warm-up trends upward
    and goes on rising to the end.

    Growth that levels off is a cache filling (allocator arenas, libdispatch's per-thread caches,
    a pool reaching its size), not a leak. So a slope over the limit fails only if the growth
    persists: the rise counts as levelled off when the last half of the series after the warm-up
    is shown to rise within the limit (its slope plus two standard errors at most the limit).
    A steady leak rises as fast at the end as throughout and fails; a series too noisy or too
    short to show where its last half stands fails too, saying so. `late` is the last half's
    slope (per hour), or None when the whole is flat."""
    after = [(t, v) for t, v in samples if t >= warmup_seconds]
    if len(after) < 4:
        return False, 0.0, f"only {len(after)} samples after the warm-up: no verdict", None
    slope = theil_sen_per_hour(after)
    third = max(1, len(after) // 3)
    head = sorted(v for _, v in after[:third])[third // 2]
    tail = sorted(v for _, v in after[-third:])[third // 2]
    if max_step is not None:
        warm = [v for t, v in samples if t < warmup_seconds] or [after[0][1]]
        if after[-1][1] > max(warm) + max_step:
            return True, slope, f"last sample {after[-1][1]} above the warm-up's highest {max(warm)} by more than {max_step}", None
    if slope <= max_slope_per_hour or tail <= head:
        return False, slope, f"slope {slope:.1f}/h (limit {max_slope_per_hour}/h), median {head} -> {tail}", None
    late_samples = after[len(after) // 2:]
    if len(late_samples) < 4:
        return True, slope, (f"slope {slope:.1f}/h over the limit {max_slope_per_hour}/h (median {head} -> {tail}), "
                             f"too few samples to tell whether it levels off"), None
    late = theil_sen_per_hour(late_samples)
    error = slope_error_per_hour(late_samples, late)
    grew = f"slope {slope:.1f}/h over the limit {max_slope_per_hour}/h (median {head} -> {tail})"
    if late - 2 * error > max_slope_per_hour:
        return True, slope, f"{grew}, and the last half still rises {late:.1f}/h ± {error:.1f}: growth that persists", late
    if late + 2 * error <= max_slope_per_hour:
        return False, slope, (f"{grew} early, then levels off: the last half rises {late:.1f}/h ± {error:.1f}, "
                              f"within the limit {max_slope_per_hour}/h"), late
    return True, slope, (f"{grew}; the last half rises {late:.1f}/h ± {error:.1f}, neither clearly over the limit nor "
                         f"clearly within it: cannot tell a cache that fills from a leak (run longer)"), late


def self_test():
    """The detector must flag the leaks the soak exists for, pass noise around a flat line,
    and pass a cache that fills and then holds, in a 60-minute run and a 15-minute one."""
    import math
    import random
    rng = random.Random(7)
    hour = [(t, 0) for t in range(0, 3600, 30)]
    quarter = [(t, 0) for t in range(0, 900, 30)]
    # RSS in KiB with ±1 MiB of noise, more than the kiosk's own samples wander after warm-up.
    flat = [(t, 60_000 + rng.randint(-1024, 1024)) for t, _ in hour]
    leak = [(t, 60_000 + int(t * 0.4) + rng.randint(-1024, 1024)) for t, _ in hour]   # 0.4 KiB/s
    step_fd = [(t, 20 if t < 2400 else 23) for t, _ in hour]
    spike = [(t, 80_000 if t == 600 else 60_000) for t, _ in hour]
    # A cache that fills: 3 MiB that comes with a 10-minute time constant and then stays (about
    # 950 KiB of it after a 10-minute warm-up, a least-squares +1,100 KiB/h), ±128 KiB of noise.
    fills = [(t, 60_000 + int(3072 * (1 - math.exp(-t / 600))) + rng.randint(-128, 128)) for t, _ in hour]
    # A slow steady leak: 1 MiB an hour, twice the limit, with ±256 KiB of noise.
    slow = [(t, 60_000 + int(t * 1024 / 3600) + rng.randint(-256, 256)) for t, _ in hour]
    # The 15-minute soak of the issue: the floor steps up by 300 KiB at 6 minutes and holds
    # (a least-squares +1,800 KiB/h over the 12.5 minutes after the warm-up), with ±16 KiB of
    # noise (the floor of the 15-minute soak of 2026-11-27 scattered by about ±10 KiB about its
    # line, besides one window 16 MiB below it)...
    step = [(t, 78_788 + (300 if t >= 360 else 0) + rng.randint(-16, 16)) for t, _ in quarter]
    # ...and the same 15 minutes with a leak of 4.5 MiB an hour that goes on to the end.
    leak15 = [(t, 78_788 + int(t * 4608 / 3600) + rng.randint(-16, 16)) for t, _ in quarter]
    # A flat 15 minutes with one window far below the rest (glibc gave memory back), as in that soak.
    dip = [(t, 70_500 + (-16_000 if t == 540 else 0) + rng.randint(-16, 16)) for t, _ in quarter]
    # A cache that fills as above, and a leak of 1 MiB an hour that starts half-way through.
    fills_then_leak = [(t, v + max(0, t - 1800) * 1024 // 3600) for t, v in fills]
    checks = [
        ("flat RSS with ±1 MiB of noise passes", not trend(flat, 600, 512)[0]),
        ("0.4 KiB/s of RSS growth fails", trend(leak, 600, 512)[0]),
        ("three descriptors more at the end fail", trend(step_fd, 600, 1, max_step=2)[0]),
        ("one spike right after the warm-up passes", not trend(spike, 600, 512)[0]),
        ("too few samples give no verdict", not trend(hour[:5], 600, 1)[0]),
        ("a cache that fills then levels passes (60 min)", not trend(fills, 600, 512)[0] and slope_per_hour(
            [(t, v) for t, v in fills if t >= 600]) > 512),
        ("a slow steady leak of 1 MiB/h fails (60 min)", trend(slow, 600, 512)[0]),
        ("a 300 KiB step that then holds passes (15 min)", not trend(step, 150, 512)[0] and slope_per_hour(
            [(t, v) for t, v in step if t >= 150]) > 512),
        ("4.5 MiB/h to the end fails (15 min)", trend(leak15, 150, 512)[0]),
        ("a flat floor with one window 16 MiB below it passes (15 min)", not trend(dip, 150, 512)[0]),
        ("a cache that fills, then a leak of 1 MiB/h from half-way, fails", trend(fills_then_leak, 600, 512)[0]),
    ]
    # The same shapes with 200 other draws of the noise: a leak must fail every time, and the
    # cache must pass nearly every time (a failure there costs a rerun, a pass of a leak a release).
    draws = random.Random(11)
    leaks_passed = sum(1 for _ in range(200) if not trend(
        [(t, 60_000 + int(t * 1024 / 3600) + draws.randint(-256, 256)) for t, _ in hour], 600, 512)[0])
    steps_failed = sum(1 for _ in range(200) if trend(
        [(t, 78_788 + (300 if t >= 360 else 0) + draws.randint(-16, 16)) for t, _ in quarter], 150, 512)[0])
    checks += [
        (f"200 slow leaks with other noise: {leaks_passed} passed (must be 0)", leaks_passed == 0),
        (f"200 filled caches (15 min) with other noise: {steps_failed} failed (at most 10)", steps_failed <= 10),
    ]
    for name, ok in checks:
        print(("ok   " if ok else "FAIL ") + name)
    failed = sum(1 for _, ok in checks if not ok)
    print(f"{len(checks) - failed} passed, {failed} failed")
    return 1 if failed else 0


def free_port():
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        return s.getsockname()[1]


def request(port, method, path, body=None, content_type=None, timeout=30):
    req = urllib.request.Request(f"http://127.0.0.1:{port}{path}", data=body, method=method)
    req.add_header("Authorization", f"Bearer {TOKEN}")
    if content_type:
        req.add_header("Content-Type", content_type)
    try:
        with urllib.request.urlopen(req, timeout=timeout) as response:
            return response.status, response.read()
    except urllib.error.HTTPError as error:
        return error.code, error.read()


def read_rss_kib(pid):
    with open(f"/proc/{pid}/status") as f:
        match = re.search(r"^VmRSS:\s+(\d+) kB", f.read(), re.M)
    return int(match.group(1))


class Load:
    """The bounded API load, one thread per kind, each counting its answers."""

    def __init__(self, port, playlists):
        self.port = port
        self.playlists = playlists
        self.stop = threading.Event()
        self.counts = {"status": 0, "screenshot": 0, "events": 0, "push": 0}
        self.errors = []
        self.lock = threading.Lock()
        self.pushes = 0

    def count(self, kind, ok, detail=""):
        with self.lock:
            if ok:
                self.counts[kind] += 1
            elif len(self.errors) < 50:
                self.errors.append(f"{time.strftime('%H:%M:%S')} {kind}: {detail}")

    def every(self, seconds, kind, action):
        while not self.stop.wait(seconds):
            try:
                status, _ = action()
                self.count(kind, status == 200, f"HTTP {status}")
            except OSError as error:
                self.count(kind, False, str(error))

    def push(self):
        self.pushes += 1
        text = self.playlists[self.pushes % 2]
        return request(self.port, "PUT", "/api/v1/config", text.encode(), "application/yaml")

    def events(self):
        while not self.stop.is_set():
            try:
                req = urllib.request.Request(f"http://127.0.0.1:{self.port}/api/v1/events")
                req.add_header("Authorization", f"Bearer {TOKEN}")
                with urllib.request.urlopen(req, timeout=90) as stream:
                    opened = time.monotonic()
                    lines = 0
                    while time.monotonic() - opened < 60 and not self.stop.is_set():
                        if not stream.readline():
                            break
                        lines += 1
                    self.count("events", lines > 0, "no event in a minute")
            except OSError as error:
                self.count("events", False, str(error))
                self.stop.wait(5)

    def start(self):
        self.threads = [
            threading.Thread(target=self.every, args=(1, "status", lambda: request(self.port, "GET", "/api/v1/status")), daemon=True),
            threading.Thread(target=self.every, args=(10, "screenshot", lambda: request(self.port, "GET", "/api/v1/screenshot")), daemon=True),
            threading.Thread(target=self.every, args=(30, "push", self.push), daemon=True),
            threading.Thread(target=self.events, daemon=True),
        ]
        for thread in self.threads:
            thread.start()


def main():
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("binary", nargs="?")
    parser.add_argument("--minutes", type=float, default=float(os.environ.get("SOAK_MINUTES", 60)))
    parser.add_argument("--sample", type=float, default=30, help="seconds between samples")
    parser.add_argument("--warmup", type=float, help="seconds of warm-up (default: a sixth of the run, at least 120)")
    parser.add_argument("--max-rss-slope", type=float, default=512, help="KiB per hour")
    parser.add_argument("--max-fd-slope", type=float, default=1, help="descriptors per hour")
    parser.add_argument("--json", help="write the samples and the verdict here")
    parser.add_argument("--self-test", action="store_true")
    args = parser.parse_args()
    if args.self_test:
        return self_test()
    if not args.binary:
        parser.error("BINARY is required")
    duration = args.minutes * 60
    warmup = args.warmup if args.warmup is not None else max(120, duration / 6)

    work = tempfile.mkdtemp(prefix="vitrine-soak-")
    port = free_port()
    for name in IMAGES:
        shutil.copy(os.path.join(ROOT, "deploy/demo/images", name), work)
    common = ("interval: 1s\ntransition: {type: slide, duration: 400ms, easing: ease-out}\n"
              "output: {display: headless, width: 1920, height: 1080}\n")
    with open(os.path.join(work, "vitrine.yaml"), "w") as f:
        f.write(f"slides: [{', '.join(IMAGES)}]\n{common}api: {{listen: \"127.0.0.1:{port}\", token: {TOKEN}}}\n")
    # Two playlists the pushes alternate between: the same pictures, another order and fit,
    # so each push changes what is shown and decodes again.
    playlists = [f"slides: [{', '.join(IMAGES)}]\n{common}",
                 f"slides: [{', '.join(reversed(IMAGES))}]\nfit: cover\n{common}"]
    binary = os.path.join(work, "vitrine")
    shutil.copy(args.binary, binary)  # a rebuild during the soak does not change what runs
    log_path = os.path.join(work, "kiosk.log")
    log = open(log_path, "w")
    kiosk = subprocess.Popen([binary, "run", "--config", os.path.join(work, "vitrine.yaml"), "--state-dir",
                              os.path.join(work, "state"), "--preview", os.path.join(work, "preview.png")],
                             stdout=log, stderr=log)
    failures = []
    samples = []
    load = Load(port, playlists)
    # SIGTERM (a stopped `make soak`, a CI timeout) unwinds through `finally`, which stops the kiosk.
    signal.signal(signal.SIGTERM, lambda *_: sys.exit(143))
    try:
        for _ in range(600):
            try:
                urllib.request.urlopen(f"http://127.0.0.1:{port}/healthz", timeout=1)
                break
            except OSError:
                if kiosk.poll() is not None:
                    sys.exit(f"the kiosk exited with {kiosk.returncode}; see {log_path}")
                time.sleep(0.1)
        load.start()
        start = time.monotonic()
        print(f"soak: {args.minutes:g} min, sampling every {args.sample:g} s, warm-up {warmup:.0f} s; kiosk pid {kiosk.pid}, log {log_path}",
              flush=True)
        print("   t(s)  RSS min / max (KiB)  fds  status screenshots pushes streams", flush=True)
        window = []
        window_end = 0.0
        while True:
            elapsed = time.monotonic() - start
            if kiosk.poll() is not None:
                failures.append(f"the kiosk exited with {kiosk.returncode} at {elapsed:.0f} s")
                break
            window.append((read_rss_kib(kiosk.pid), len(os.listdir(f"/proc/{kiosk.pid}/fd"))))
            if elapsed >= window_end or elapsed >= duration:
                rss_min, rss_max = min(r for r, _ in window), max(r for r, _ in window)
                fds = max(f for _, f in window)
                samples.append({"t": round(elapsed), "rssKiB": rss_min, "rssMaxKiB": rss_max, "fds": fds, **dict(load.counts)})
                c = load.counts
                print(f"{elapsed:7.0f} {rss_min:9d} / {rss_max:9d} {fds:4d} {c['status']:7d} {c['screenshot']:11d} {c['push']:6d} "
                      f"{c['events']:7d}", flush=True)
                window = []
                window_end += args.sample
            if elapsed >= duration:
                break
            time.sleep(min(2, max(0.1, duration - elapsed)))
    finally:
        load.stop.set()
        if kiosk.poll() is None:
            kiosk.send_signal(signal.SIGTERM)
            try:
                kiosk.wait(timeout=30)
            except subprocess.TimeoutExpired:
                kiosk.kill()
                failures.append("the kiosk did not stop within 30 s of SIGTERM")
        log.close()

    rss_trend = trend([(s["t"], s["rssKiB"]) for s in samples], warmup, args.max_rss_slope)
    fd_trend = trend([(s["t"], s["fds"]) for s in samples], warmup, args.max_fd_slope, max_step=2)
    if rss_trend[0]:
        failures.append("RSS trends upward: " + rss_trend[2])
    if fd_trend[0]:
        failures.append("open descriptors trend upward: " + fd_trend[2])
    expected_status = max(1, int((duration - 5) * 0.9))
    if load.counts["status"] < expected_status:
        failures.append(f"only {load.counts['status']} status answers in {duration:.0f} s (expected at least {expected_status})")
    text = open(log_path).read()
    crashes = [line for line in text.splitlines() if "Fatal error" in line]  # a Swift trap's own words
    failures += [f"kiosk log: {line}" for line in crashes[:5]]
    pacing = re.search(r"frame pacing during transitions: (.*)", text)
    after = [s for s in samples if s["t"] >= warmup]
    rss_values = [s["rssKiB"] for s in after] or [0]
    rss_peaks = [s["rssMaxKiB"] for s in after] or [0]
    print()
    print(f"RSS after warm-up: floor {min(rss_values) / 1024:.1f} to {max(rss_values) / 1024:.1f} MiB, "
          f"peak {max(rss_peaks) / 1024:.1f} MiB; floor {rss_trend[2]} KiB")
    print(f"descriptors: {fd_trend[2]}")
    print(f"API answers: {load.counts}; errors: {len(load.errors)}")
    for error in load.errors[:10]:
        print("  " + error)
    print(f"frame pacing at exit: {pacing.group(1) if pacing else 'not logged'}")
    print()
    print(f"| {args.minutes:g} min | {len(samples)} | {min(rss_values) / 1024:.1f}–{max(rss_values) / 1024:.1f} MiB "
          f"| {max(rss_peaks) / 1024:.1f} MiB "
          f"| {rss_trend[1]:+.0f} KiB/h{'' if rss_trend[3] is None else f' (last half {rss_trend[3]:+.0f})'} | {min(s['fds'] for s in samples)}–{max(s['fds'] for s in samples)} | {fd_trend[1]:+.2f}/h "
          f"| {load.counts['status']} / {load.counts['screenshot']} / {load.counts['push']} / {load.counts['events']} | "
          f"{pacing.group(1) if pacing else '—'} | {'fail' if failures else 'pass'} |")
    if args.json:
        with open(args.json, "w") as f:
            json.dump({"samples": samples, "rss": rss_trend[2], "rssLastHalfKiBPerHour": rss_trend[3], "fds": fd_trend[2], "counts": load.counts,
                       "errors": load.errors, "failures": failures}, f, indent=1)
    for failure in failures:
        print("FAIL " + failure)
    print(f"soak: {'1 failed' if failures else 'passed'}; work directory {work}")
    if not failures:
        shutil.rmtree(work, ignore_errors=True)
    return 1 if failures else 0


if __name__ == "__main__":
    sys.exit(main())
