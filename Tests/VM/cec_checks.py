"""HDMI-CEC on a real kernel (called by vmtest.py).

Debian's kernel module vivid (CONFIG_VIDEO_VIVID_CEC) gives two real kernel CEC
adapters on one emulated bus: /dev/cec0 on its HDMI input and /dev/cec1 on its
HDMI output. cec-follower (v4l-utils) plays the TV on /dev/cec0, as a real one
behaves: after Standby or Image View On it reports its old power state for
4 s, then the transition, and the new state from 8 s on. The kiosk must find
/dev/cec1 by itself, turn the TV on at start, follow the screen off and on, send
again a Standby the TV missed, and report what the TV says in its status.
"""
import re
import time

from vmtest import api_put, api_request, logged

CONFIG = "cec.yaml"
LOG, STATE, PID = "/tmp/cec.log", "/tmp/cec-state", "/tmp/cec.pid"
FOLLOWER_LOG = "/tmp/cec-follower.log"


def tv_status(guest):
    _, status = api_request(guest, STATE, "GET", "/api/v1/status")
    return (status or {}).get("tv") or {}


def wait_for_tv(guest, reported, timeout=40):
    """The status's tv object once it reports `reported` (and confirmed), or the last one seen."""
    deadline = time.monotonic() + timeout
    tv = {}
    while time.monotonic() < deadline:
        tv = tv_status(guest)
        if tv.get("reported") == reported and tv.get("confirmed"):
            return True, tv
        time.sleep(1.0)
    return False, tv


def follower_says(guest, text):
    _, output = guest.run(f"grep -c '{text}' {FOLLOWER_LOG} 2>/dev/null || true")
    digits = re.findall(r"\d+", output)
    return int(digits[-1]) if digits else 0


def start_follower(guest, *options):
    guest.run(f"cec-follower -d0 -v {' '.join(options)} >> {FOLLOWER_LOG} 2>&1 & echo $! > /tmp/cec-follower.pid")
    time.sleep(0.5)


def stop_follower(guest):
    guest.run("kill $(cat /tmp/cec-follower.pid); sleep 0.3")


def cec_checks(guest, results, args, mirror, work):
    guest.run("ip link set lo up")
    status, output = guest.run("modprobe vivid && cec-ctl -d0 --tv > /dev/null && ls /dev/cec*")
    results.check("cec: vivid gives two kernel CEC adapters; /dev/cec0 is configured as the TV",
                  status == 0 and "/dev/cec0" in output and "/dev/cec1" in output, output.strip()[-200:])
    # The TV starts in standby, so that the kiosk's start has something to do.
    start_follower(guest, "--standby")

    guest.run(f"vitrine run --config /vm/{CONFIG} --state-dir {STATE} > {LOG} 2>&1 & echo $! > {PID}")
    guest.wait_for_log(LOG, "first frame on screen")
    chose = logged(guest, LOG, "HDMI-CEC: using /dev/cec1", 20)
    on, tv = wait_for_tv(guest, "on")
    turned_on = follower_says(guest, "Changing state to on")
    active = follower_says(guest, "New active source: 1.0.0.0")
    results.check("cec: at start the kiosk finds /dev/cec1 (not the TV end), turns the TV on and makes itself the active source",
                  chose and on and turned_on == 1 and active >= 1 and tv.get("adapter") == "/dev/cec1"
                  and tv.get("physicalAddress") == "1.0.0.0" and tv.get("logicalAddress") == 4 and tv.get("wanted") == "on",
                  f"adapter chosen {chose}; tv status {tv}; follower: turned on {turned_on}x, active source {active}x")

    # The TV misses the first Standby (cec-follower ignores Standby from
    # logical address 4), then is back to normal: the kiosk must send it again.
    stop_follower(guest)
    start_follower(guest, "--ignore", "4,0x36")
    sent_before = guest.count_in_log(LOG, "Standby sent to the TV, acknowledged")
    answer = api_put(guest, STATE, "/api/v1/power", '{"state": "off"}')
    first = logged(guest, LOG, "Standby sent to the TV, acknowledged", 20)
    time.sleep(2.0)
    stop_follower(guest)
    start_follower(guest)
    standby, tv = wait_for_tv(guest, "standby", timeout=60)
    sent = guest.count_in_log(LOG, "Standby sent to the TV, acknowledged") - sent_before
    went = follower_says(guest, "Changing state to standby")
    _, metrics = guest.run("printf 'GET /metrics HTTP/1.0\\r\\n\\r\\n' | nc -w 5 127.0.0.1 8080 | grep '^vitrine_tv_'")
    results.check("cec: screen off sends Standby; a Standby the TV missed is sent again, and the TV reports standby",
                  answer.startswith("HTTP/1.1 202") and first and standby and sent == 2 and went == 1
                  and 'vitrine_tv_power{state="standby"} 1' in metrics and "vitrine_tv_confirmed 1" in metrics,
                  f"{answer!r}; Standby sent {sent}x; follower went to standby {went}x; tv status {tv}; "
                  f"metrics {' | '.join(line.strip() for line in metrics.splitlines() if line.startswith('vitrine_tv_'))}")

    answer = api_put(guest, STATE, "/api/v1/power", '{"state": "on"}')
    on, tv = wait_for_tv(guest, "on")
    results.check("cec: screen on sends Image View On and Active Source, and the TV reports on",
                  answer.startswith("HTTP/1.1 202") and on and follower_says(guest, "Changing state to on") == 2
                  and tv.get("wanted") == "on" and tv.get("problem") is None,
                  f"{answer!r}; tv status {tv}")
    guest.stop_kiosk(PID)
    stop_follower(guest)
