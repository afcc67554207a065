"""The schedule and the emergency override on a real kernel (called by vmtest.py).

The guest's wall clock is set with `date`, as NTP or an operator would: just
before the window closes, and later stepped to just before it opens, so that
the kiosk's CLOCK_REALTIME timerfd (TFD_TIMER_CANCEL_ON_SET) sees both a
deadline and a step.
"""
import json
import os
import time

from vmtest import (MAX_CHANNEL_DIFFERENCE, MAX_MEAN_DIFFERENCE, api_request, crtc_states, host_render, logged, metric)

CONFIG = "schedule.yaml"
LOG, STATE, PID = "/tmp/schedule.log", "/tmp/schedule-state", "/tmp/schedule.pid"


def api(guest, method, path, body=None):
    return api_request(guest, STATE, method, path, body)


def logged_times(guest, text, count, timeout):
    """Whether `text` is in the kiosk's log at least `count` times within `timeout` seconds."""
    deadline = time.monotonic() + timeout
    while guest.count_in_log(LOG, text) < count and time.monotonic() < deadline:
        time.sleep(0.3)
    return guest.count_in_log(LOG, text) >= count


def frames_stop(guest, seconds=3.0):
    """(frames presented before, after `seconds`)."""
    before = metric(guest, "vitrine_frames_presented_total")
    time.sleep(seconds)
    return before, metric(guest, "vitrine_frames_presented_total")


def matches(guest, args, mirror, work, name, config, at, wall=None):
    shown = guest.screendump(name)
    expected = host_render(args.vitrine, os.path.join(mirror, config), at, f"{shown.width}x{shown.height}", work,
                           f"{name}-render", wall=wall)
    worst, mean = shown.difference(expected)
    return worst <= MAX_CHANNEL_DIFFERENCE and mean <= MAX_MEAN_DIFFERENCE, f"max {worst}, mean {mean:.3f}"


def schedule_checks(guest, results, args, mirror, work):
    guest.run("ip link set lo up")
    # 18:59:50 in Berlin (CET, UTC+1): ten seconds of the day window left.
    guest.run("date -u -s '2026-11-23 17:59:50' > /dev/null")
    guest.run(f"vitrine run --config /vm/{CONFIG} --state-dir {STATE} > {LOG} 2>&1 & echo $! > {PID}")
    guest.wait_for_log(LOG, "first frame on screen")
    deadline = time.monotonic() + 30
    while metric(guest, "vitrine_frames_presented_total") is None and time.monotonic() < deadline:
        time.sleep(0.5)
    code, status = api(guest, "GET", "/api/v1/status")
    schedule = (status or {}).get("schedule") or {}
    results.check("schedule: the status says what shows now, until when and what comes next",
                  code == 200 and schedule.get("playlist") == "day" and schedule.get("until") == "2026-11-23T18:00:00Z"
                  and schedule.get("next") == "screen off" and schedule.get("timezone") == "Europe/Berlin",
                  f"HTTP {code}: {json.dumps(schedule)}")

    # 19:00: the window closes, the CRTC goes inactive and nothing is presented.
    closed = logged(guest, LOG, "screen off requested by the schedule", 30) and logged(guest, LOG, "display off", 10)
    dark = crtc_states(guest)
    before, after = frames_stop(guest)
    results.check("schedule: the window closing at 19:00 switches the display off (CRTC inactive, frame counter stopped)",
                  closed and ("1", "0") in dark and ("1", "1") not in dark and before is not None and before == after,
                  f"logged {closed}; CRTCs (enable, active) {dark}; frames presented {before} -> {after} over 3 s")

    # An override on the dark screen: lit at once with the override's picture, dark again at its end.
    code, body = api(guest, "POST", "/api/v1/override", '{"slides": ["/vm/content/red.jpg"], "duration": "8s"}')
    woke = logged(guest, LOG, "display on", 10)
    time.sleep(1.5)
    lit = crtc_states(guest)
    same, detail = matches(guest, args, mirror, work, "schedule-override", "schedule-override-render.yaml", 1.0)
    code_status, status = api(guest, "GET", "/api/v1/status")
    shown_override = ((status or {}).get("override") or {}).get("id")
    ended = logged(guest, LOG, "ended at", 20)
    dark_again = logged_times(guest, "display off", 2, 10)
    time.sleep(1.0)
    after_end = crtc_states(guest)
    results.check("override: POST on the dark screen lights it with the override at once, and it goes dark at its end",
                  code == 201 and woke and ("1", "1") in lit and same and shown_override is not None and ended and dark_again
                  and ("1", "0") in after_end,
                  f"POST HTTP {code}; CRTCs lit {lit}, after the end {after_end}; screen vs render: {detail}; "
                  f"status override {shown_override}; ended {ended}")

    # Stepped to 06:59:56 the next day: noticed at once; the window opens at 07:00.
    guest.run("date -u -s '2026-11-24 05:59:56' > /dev/null")
    stepped = logged(guest, LOG, "the wall clock was set", 10)
    # The second "display on": the first lit the screen for the override.
    opened = logged_times(guest, "schedule: playlist day", 2, 20) and logged_times(guest, "display on", 2, 10)
    time.sleep(1.5)
    lit = crtc_states(guest)
    same, detail = matches(guest, args, mirror, work, "schedule-open", CONFIG, 1.0, wall="2026-11-24T06:00:00Z")
    day_changes = guest.count_in_log(LOG, "schedule: playlist day")
    results.check("schedule: a clock step is noticed, and at 07:00 the display comes on and matches `vitrine render --wall`",
                  stepped and opened and ("1", "1") in lit and same and day_changes == 2,
                  f"step logged {stepped}; on {opened}; CRTCs {lit}; screen vs render: {detail}; "
                  f"'schedule: playlist day' logged {day_changes} times (at start and at 07:00)")
    guest.stop_kiosk(PID)
