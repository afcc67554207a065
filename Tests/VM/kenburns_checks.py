"""Ken Burns pan and zoom on a real kernel (called by vmtest.py).

A slide panning and zooming at rest is drawn at every refresh, through the
same pacing as a transition. The kiosk counts the gaps between consecutive
Ken Burns frames in /metrics (`vitrine_frame_gap_seconds{motion="kenburns"}`,
a cumulative histogram); two readings a few seconds apart give the gaps of
that window alone, past the start (decode, first frames). Then two
screendumps a second apart must differ: the picture moves on the screen.

The bounds hold under TCG, which is slow: a 640x480 Ken Burns frame is about
300,000 bilinear pixels through the SSE2 kernel (the emulated qemu64 CPU has
no AVX2), and TCG 7.2 emulates each SSE instruction with a helper call. The
same release kiosk, headless at 640x480 under qemu-x86_64 user-mode TCG
(-cpu qemu64) on the 2-core host, drew 216 Ken Burns frames in 6 s: every
gap under 50 ms (3 periods), the median under 33.4 ms; natively, the median
is the pacing floor (14.7 ms). System-mode TCG adds the soft MMU, so the
bounds below allow about twice that: at least 10 frames a second, a median
of at most 4 periods, and no gap over 6 periods (a stall). On hardware the
median is one period.
"""
import re
import time

CONFIG = "kenburns.yaml"
LOG, STATE, PID = "/tmp/kenburns.log", "/tmp/kenburns-state", "/tmp/kenburns.pid"
REFRESH = 1 / 60            # the 640x480 mode's period (DMT 640x480@60)
WINDOW = 4.0                # seconds between the two readings
MIN_FRAMES_PER_SECOND = 10  # Ken Burns gaps counted in the window, per second
MEDIAN_BOUND = 0.0667       # a histogram bound: 4 periods (hardware: the 0.0175 bucket, one period)
MAX_BOUND = 0.100           # a histogram bound: 6 periods, no stall past it


def gap_histogram(guest, motion="kenburns"):
    """{le: cumulative count} and the count of the kiosk's frame gaps for `motion`, or None."""
    _, output = guest.run("printf 'GET /metrics HTTP/1.0\\r\\n\\r\\n' | nc -w 5 127.0.0.1 8080 | grep '^vitrine_frame_gap_seconds'")
    buckets = {}
    for match in re.finditer(rf'^vitrine_frame_gap_seconds_bucket{{motion="{motion}",le="([^"]+)"}} (\d+)', output, re.M):
        buckets[float("inf") if match.group(1) == "+Inf" else float(match.group(1))] = int(match.group(2))
    count = re.search(rf'^vitrine_frame_gap_seconds_count{{motion="{motion}"}} (\d+)', output, re.M)
    return (buckets, int(count.group(1))) if buckets and count else None


def window(first, second):
    """The gaps between two readings: (count, the bound the median falls under, the bound every gap falls under)."""
    (before, count_before), (after, count_after) = first, second
    count = count_after - count_before
    cumulative = [(bound, after[bound] - before.get(bound, 0)) for bound in sorted(after)]
    median = next((bound for bound, n in cumulative if count and n * 2 >= count), None)
    largest = next((bound for bound, n in cumulative if n == count), None)
    return count, median, largest


def kenburns_checks(guest, results, args, mirror, work):
    guest.run("ip link set lo up")
    guest.run(f"vitrine run --config /vm/{CONFIG} --state-dir {STATE} > {LOG} 2>&1 & echo $! > {PID}")
    guest.wait_for_log(LOG, "first frame on screen")
    deadline = time.monotonic() + 30
    first = None
    while first is None and time.monotonic() < deadline:
        time.sleep(0.5)
        first = gap_histogram(guest)
    # Past the start: the picture decoded and moving for a while.
    time.sleep(2.0)
    first = gap_histogram(guest)
    started = time.monotonic()
    time.sleep(WINDOW)
    second = gap_histogram(guest)
    seconds = time.monotonic() - started
    a = guest.screendump("kenburns-a")
    time.sleep(1.0)
    b = guest.screendump("kenburns-b")
    guest.stop_kiosk(PID)
    _, summary = guest.run(f"grep -o 'frame pacing during Ken Burns motion: .*' {LOG}")
    if not results.check(f"{CONFIG}: /metrics counts Ken Burns frame gaps", first is not None and second is not None,
                         f"readings {first is not None}, {second is not None}"):
        return
    count, median, largest = window(first, second)
    periods = lambda bound: "none" if bound is None else f"{bound * 1000:.1f} ms ({bound / REFRESH:.1f} periods)"
    results.check(f"{CONFIG}: a Ken Burns slide at rest is drawn steadily at the refresh pacing",
                  count >= MIN_FRAMES_PER_SECOND * seconds and median is not None and median <= MEDIAN_BOUND
                  and largest is not None and largest <= MAX_BOUND,
                  f"{count} gaps in {seconds:.1f} s ({count / seconds:.1f} frames/s); median under {periods(median)}, "
                  f"every gap under {periods(largest)}; at exit: {summary.strip()[-120:]}")
    worst, mean = a.difference(b)
    results.check(f"{CONFIG}: two screendumps 1 s apart differ: the picture pans and zooms",
                  (a.width, a.height) == (640, 480) and a.distinct_colours(3) >= 3 and mean >= 1.0,
                  f"{a.width}x{a.height}; max channel difference {worst}, mean {mean:.3f}")
