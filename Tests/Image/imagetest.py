#!/usr/bin/env python3
"""Boot-to-kiosk test: boots the Debian image made by build-image.sh in
qemu-system-x86_64 (TCG) and proves the appliance through QMP screendumps.

    imagetest.py --image DIR --vitrine HOST_BINARY --config CONFIG --pushed PUSHED --token TOKEN --work DIR

DIR holds disk.img, vmlinuz and initrd.img. CONFIG is the kiosk configuration
the image boots with (without its `api` section, which the image's copy adds),
PUSHED the one the test sends with PUT /api/v1/config; both are rendered on
the host with `vitrine render` against a mirror of /etc/vitrine, as in
Tests/VM/vmtest.py, whose screendump, QMP and serial-console helpers this
reuses. The guest's serial console is a root shell (a test-only autologin);
the display is only ever reached by systemd starting the unit at boot.

Checks: the first slide comes up with no login; a pushed configuration shows;
it is still there after a reboot, and after the API token is rotated in the
file; after kill -9 systemd brings the picture back; a stopped (hung) kiosk is
restarted by the watchdog; the installer on the running system. Measures boot to
first frame and the restart times; writes them to WORK/measurements.json.
"""
import argparse
import base64
import contextlib
import json
import os
import re
import shutil
import socket
import subprocess
import struct
import sys
import threading
import time
import urllib.error
import urllib.request
import zlib

HERE = os.path.dirname(os.path.abspath(__file__))
REPO = os.path.abspath(os.path.join(HERE, "..", ".."))
sys.path.insert(0, os.path.join(REPO, "Tests", "VM"))
sys.path.insert(0, os.path.join(REPO, "Tests", "Fleet"))
sys.dont_write_bytecode = True  # no __pycache__ left in Tests/VM
import vmtest  # noqa: E402  (Image, QMP, Results, host_render, Guest's serial console)
import fleetlib  # noqa: E402  (Origin: Debian's nginx as an unprivileged foreground process)
from vmtest import MAX_CHANNEL_DIFFERENCE, MAX_MEAN_DIFFERENCE, QMP, Results, host_render  # noqa: E402

PROMPT = rb"root@vitrine-image:[^\n]*# $"
SIZE = "800x600"


def free_port():
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        return s.getsockname()[1]


def overlay_disk(pristine, disk):
    """A qcow2 overlay at DISK on the pristine image: the guest's writes, and
    only they, land in it (a few MB), where a copy took the image's 0.7 to
    1 GB again. The pristine image must not change while the overlay lives;
    nothing writes it after build-image.sh."""
    if os.path.exists(disk):
        os.remove(disk)
    subprocess.run(["qemu-img", "create", "-q", "-f", "qcow2", "-F", "raw", "-b", os.path.abspath(pristine), disk],
                   check=True)


class ImageGuest(vmtest.Guest):
    """The image booted from its virtio disk; the serial console is a root shell."""

    def __init__(self, image, disk, work, port, card=None):
        self.work = work
        self.qmp_path = os.path.join(work, "qmp.sock")
        command = [
            "qemu-system-x86_64", "-machine", "q35", "-accel", "tcg", "-m", "1024", "-smp", "2",
            "-kernel", os.path.join(image, "vmlinuz"), "-initrd", os.path.join(image, "initrd.img"),
            "-append", "root=/dev/vda rw console=ttyS0",
            "-drive", f"file={disk},format=qcow2,if=virtio",
            # The SD card's boot partition, for the card-setup checks: /dev/vdb, after the root.
            *(["-drive", f"file={card},format=raw,if=virtio"] if card else []),
            "-netdev", f"user,id=net0,hostfwd=tcp:127.0.0.1:{port}-:8080", "-device", "virtio-net-pci,netdev=net0",
            "-vga", "none", "-device", "bochs-display", "-device", "virtio-tablet-pci",
            "-display", "none", "-monitor", "none", "-serial", "stdio",
            "-qmp", f"unix:{self.qmp_path},server=on,wait=off",
        ]
        self.started = time.monotonic()
        self.process = subprocess.Popen(command, stdin=subprocess.PIPE, stdout=subprocess.PIPE, stderr=subprocess.STDOUT)
        self.output = b""
        self.shell_restarts = 0
        self.transcript = open(os.path.join(work, "serial.log"), "ab")
        self.qmp = QMP(self.qmp_path)

    def login(self, timeout=600):
        """Waits for the autologin shell, then makes it quiet: no echo, no prompt,
        no kernel or systemd status lines on the console."""
        deadline = time.monotonic() + timeout
        self.wait_for(rb"root@vitrine-image:", timeout)
        # Kernel and systemd lines may still come after the prompt (a slower
        # guest, the arm64 one, is still probing devices): ask for a fresh
        # prompt until it is the last thing on the console.
        while True:
            try:
                self.wait_for(PROMPT, 3)
                break
            except TimeoutError:
                if time.monotonic() > deadline:
                    raise
                self.process.stdin.write(b"\n")
                self.process.stdin.flush()
        self.run("bind 'set enable-bracketed-paste off'; stty -echo; PS1=''; "
                 "export SYSTEMD_PAGER= SYSTEMD_COLORS=0 TERM=dumb; dmesg -n 1; kill -s RTMIN+21 1")

    def run(self, command, timeout=120):
        status, output = super().run(command, timeout)
        return status, output.replace("\r", "")

    def value(self, command):
        _, output = self.run(command)
        return output.strip().splitlines()[-1].strip() if output.strip() else ""

    def main_pid(self):
        digits = re.findall(r"\d+", self.value("systemctl show -p MainPID --value vitrine.service"))
        return int(digits[-1]) if digits else 0

    def restarts(self):
        digits = re.findall(r"\d+", self.value("systemctl show -p NRestarts --value vitrine.service"))
        return int(digits[-1]) if digits else -1

    def journal(self, arguments):
        _, output = self.run(f"journalctl --no-pager -o short-monotonic {arguments}")
        return output


def matches(image, expected):
    worst, mean = image.difference(expected)
    return worst <= MAX_CHANNEL_DIFFERENCE and mean <= MAX_MEAN_DIFFERENCE, worst, mean


def wait_for_picture(guest, expected, timeout, name, since=None, interval=0.25):
    """Screendumps until the screen matches `expected`; returns (seconds since
    `since`, or None on timeout, and the last difference)."""
    since = since if since is not None else time.monotonic()
    deadline = time.monotonic() + timeout
    last = (255, 255.0)
    while time.monotonic() < deadline:
        try:
            shown = guest.screendump(name)
        except (RuntimeError, ValueError, OSError):
            shown = None
        if shown is not None:
            ok, worst, mean = matches(shown, expected)
            last = (worst, mean)
            if ok:
                return time.monotonic() - since, last
        guest._pump(0)  # keep the serial transcript flowing
        time.sleep(interval)
    return None, last


def wait_until_gone(guest, expected, timeout, name):
    """Screendumps until the screen no longer matches `expected`; returns whether it went."""
    deadline = time.monotonic() + timeout
    while time.monotonic() < deadline:
        ok, _, _ = matches(guest.screendump(name), expected)
        if not ok:
            return True
        time.sleep(0.05)
    return False


def first_frame_lines(journal_text):
    """(monotonic seconds since kernel start, ms_since_start, process_uptime_ms) per first-frame line."""
    found = []
    for line in journal_text.splitlines():
        match = re.search(r"\[\s*([\d.]+)\].*first frame on screen.*ms_since_start=(\d+).*process_uptime_ms=(-?\d+)", line)
        if match:
            found.append((float(match.group(1)), int(match.group(2)), int(match.group(3))))
    return found


def monotonic_of(journal_text, pattern):
    stamps = []
    for line in journal_text.splitlines():
        if re.search(pattern, line):
            match = re.search(r"\[\s*([\d.]+)\]", line)
            if match:
                stamps.append(float(match.group(1)))
    return stamps


def http(method, url, token=None, body=None, content_type="application/json", timeout=10):
    request = urllib.request.Request(url, data=body, method=method)
    if token:
        request.add_header("Authorization", f"Bearer {token}")
    if body is not None:
        request.add_header("Content-Type", content_type)
    try:
        with urllib.request.urlopen(request, timeout=timeout) as response:
            return response.status, response.read().decode(errors="replace")
    except urllib.error.HTTPError as error:
        return error.code, error.read().decode(errors="replace")


def boot_checks(guest, results, measurements, label, expected, what):
    """After a boot: the picture, the journal's first-frame line, and what runs.
    Returns whether the picture came."""
    seconds, (worst, mean) = wait_for_picture(guest, expected, 300, f"{label}-boot", since=guest.started)
    origin = "QEMU start" if label == "boot" else "the kernel's 'Restarting system'"
    results.check(f"{label}: the kiosk's picture ({what}) is on screen with no login or command",
                  seconds is not None, f"{origin} to matching screendump: {seconds and round(seconds, 1)} s; "
                  f"max channel difference {worst}, mean {mean:.3f}")
    guest.login()
    text = guest.journal("-b -u vitrine.service")
    lines = first_frame_lines(text)
    ok = bool(lines)
    detail = "no first-frame line in the journal"
    if ok:
        kernel_to_frame, ms_since_start, uptime_ms = lines[0]
        _, analyze = guest.run("systemd-analyze time 2>&1 | head -1")
        measurements[f"{label}_start_to_screen_s"] = round(seconds, 2) if seconds else None
        measurements[f"{label}_kernel_to_first_frame_s"] = kernel_to_frame
        measurements[f"{label}_first_frame_ms_since_start"] = ms_since_start
        measurements[f"{label}_first_frame_process_uptime_ms"] = uptime_ms
        measurements[f"{label}_systemd_analyze_time"] = analyze.strip()
        detail = (f"journal: first frame {kernel_to_frame:.2f} s after kernel start, ms_since_start={ms_since_start}, "
                  f"process_uptime_ms={uptime_ms}; {analyze.strip()}")
    results.check(f"{label}: the journal has the first-frame line", ok, detail)
    # QEMU's virtio tablet, an absolute pointer: the sandbox and the input group let the kiosk open it.
    touch = re.search(r"touch input: (/dev/input/event\d+) [^\n]*", text)
    results.check(f"{label}: the kiosk opened the virtio tablet (input device access through the sandbox)",
                  touch is not None, touch.group(0) if touch else "no 'touch input:' line in the journal")
    active = guest.value("systemctl is-active vitrine.service")
    getty = guest.value("systemctl is-active getty@tty1.service")
    pid = guest.main_pid()
    user = guest.value(f"ps -o user= -p {pid}") if pid else ""
    results.check(f"{label}: vitrine.service active as user vitrine; getty@tty1 not running",
                  active == "active" and user == "vitrine" and getty != "active",
                  f"vitrine.service {active}, main PID {pid} user {user!r}, getty@tty1 {getty}")
    return seconds is not None



def restart_checks(guest, results, measurements, expected, kill_limit_s=None, slow=1.0):
    """kill -9: systemd (Restart=always) brings the picture back, within
    kill_limit_s when given; then a hung kiosk (SIGSTOP) is killed by the
    watchdog (WatchdogSec=) and restarted. `slow` stretches the waits for a
    slower guest (the arm64 one under TCG)."""
    pid, before = guest.main_pid(), guest.restarts()
    killed = time.monotonic()
    guest.run(f"kill -9 {pid}")
    gone = wait_until_gone(guest, expected, 10, "killed")
    seconds, (worst, mean) = wait_for_picture(guest, expected, 60 * slow, "restarted", since=killed)
    after, new_pid = guest.restarts(), guest.main_pid()
    text = guest.journal("-b -u vitrine.service")
    exits = monotonic_of(text, r"Main process exited, code=killed, status=9/KILL")
    frames = [t for t, _, _ in first_frame_lines(text)]
    guest_seconds = (min(t for t in frames if t > exits[-1]) - exits[-1]) if exits and any(t > exits[-1] for t in frames) else None
    measurements["kill9_to_picture_host_s"] = round(seconds, 2) if seconds else None
    measurements["kill9_exit_to_first_frame_journal_s"] = round(guest_seconds, 2) if guest_seconds else None
    in_time = seconds is not None and (kill_limit_s is None or seconds < kill_limit_s)
    results.check("after kill -9 systemd brings the picture back" + (" within seconds" if kill_limit_s else ""),
                  in_time and after == before + 1 and new_pid not in (0, pid),
                  f"picture {'went' if gone else 'did not visibly go'} and came back {seconds and round(seconds, 1)} s "
                  f"after the kill (journal: exit to first frame {guest_seconds and round(guest_seconds, 2)} s); "
                  f"NRestarts {before} -> {after}, PID {pid} -> {new_pid}")

    pid, before = guest.main_pid(), guest.restarts()
    stopped = time.monotonic()
    guest.run(f"kill -STOP {pid}")
    deadline = time.monotonic() + 90 * slow
    while guest.restarts() == before and time.monotonic() < deadline:
        time.sleep(2)
    seconds, (worst, mean) = wait_for_picture(guest, expected, 60 * slow, "watchdog", since=stopped)
    text = guest.journal("-b -u vitrine.service")
    timeout_logged = "Watchdog timeout" in text
    measurements["sigstop_to_picture_host_s"] = round(seconds, 2) if seconds else None
    results.check("a hung kiosk (SIGSTOP) is killed by the watchdog and restarted",
                  timeout_logged and guest.restarts() == before + 1 and seconds is not None,
                  f"watchdog timeout logged: {timeout_logged}; NRestarts {before} -> {guest.restarts()}; "
                  f"picture back {seconds and round(seconds, 1)} s after SIGSTOP")

def tv_changes(guest, state):
    _, output = guest.run(f"journalctl -b --no-pager -o cat -u test-tv.service | grep -c 'Changing state to {state}' || true")
    digits = re.findall(r"\d+", output)
    return int(digits[-1]) if digits else 0


def tv_reported(base, token):
    try:
        status, body = http("GET", base + "/api/v1/status", token)
        return (json.loads(body).get("tv") or {}) if status == 200 else {}
    except (OSError, ValueError):
        return {}


def power(base, token, state):
    try:
        return http("PUT", base + "/api/v1/power", token, json.dumps({"state": state}).encode(), timeout=60)[0]
    except OSError as error:
        return str(error)


def cec_checks(guest, results, measurements, base, token, expected):
    _, found = guest.run("journalctl -b --no-pager -o cat -u vitrine.service | grep 'HDMI-CEC: using' | tail -1")
    _, node = guest.run("stat -c '%G %a' /dev/cec1; grep -w cec /proc/devices")
    results.check("under the shipped unit the kiosk opens vivid's HDMI output adapter /dev/cec1 (group video, char-cec allowed)",
                  "/dev/cec1" in found and "video 660" in node and " cec" in node, f"{found.strip()}; {node.strip()!r}")
    for state, changed in (("off", "standby"), ("on", "on")):
        before = tv_changes(guest, changed)
        started = time.monotonic()
        answer = power(base, token, state)
        deadline, tv = time.monotonic() + 60, {}
        while time.monotonic() < deadline:
            tv = tv_reported(base, token)
            if tv_changes(guest, changed) > before and tv.get("reported") == changed:
                break
            time.sleep(1)
        seconds = time.monotonic() - started
        measurements[f"cec_{state}_s"] = round(seconds, 1)
        results.check(f"PUT /api/v1/power {state}: the TV on HDMI-CEC goes to {changed} and the kiosk's status says so",
                      answer == 202 and tv_changes(guest, changed) > before and tv.get("reported") == changed,
                      f"HTTP {answer}; after {seconds:.1f} s the TV changed to {changed} "
                      f"{tv_changes(guest, changed) - before}x; status tv {tv}")
    seconds, (worst, mean) = wait_for_picture(guest, expected, 60, "power-on")
    results.check("after the screen is on again, the slide is back", seconds is not None, f"max {worst}, mean {mean:.3f}")


def black_png(width, height):
    """A black RGB PNG, compressed by zlib level 9 (about 1000:1): a decompression bomb."""
    def chunk(kind, data):
        return struct.pack(">I", len(data)) + kind + data + struct.pack(">I", zlib.crc32(kind + data) & 0xFFFFFFFF)
    compressor, row, body = zlib.compressobj(9), bytes(1 + width * 3), []
    for _ in range(height):
        body.append(compressor.compress(row))
    body.append(compressor.flush())
    header = struct.pack(">IIBBBBB", width, height, 8, 2, 0, 0, 0)
    return b"\x89PNG\r\n\x1a\n" + chunk(b"IHDR", header) + chunk(b"IDAT", b"".join(body)) + chunk(b"IEND", b"")


def grey_jpeg(width, height):
    """A flat grey JPEG (cjpeg from a PGM on its standard input)."""
    process = subprocess.Popen(["cjpeg", "-quality", "50"], stdin=subprocess.PIPE, stdout=subprocess.PIPE)
    writer = threading.Thread(target=lambda: (process.stdin.write(f"P5 {width} {height} 255\n".encode()),
                                              [process.stdin.write(bytes([128]) * width) for _ in range(height)],
                                              process.stdin.close()))
    writer.start()
    output = process.stdout.read()
    writer.join()
    process.wait()
    return output


def jpeg_claiming(jpeg, width, height):
    """`jpeg` with its frame header (SOF0 to SOF2) saying it is `width`x`height`."""
    data, at = bytearray(jpeg), 2
    while at + 4 <= len(data):
        marker, length = data[at + 1], struct.unpack(">H", data[at + 2:at + 4])[0]
        if marker in (0xC0, 0xC1, 0xC2):
            data[at + 5:at + 9] = struct.pack(">HH", height, width)
            return bytes(data)
        at += 2 + length
    raise ValueError("no frame header")


def memory_checks(guest, results, measurements, base, token, work):
    unit = "/sys/fs/cgroup/system.slice/vitrine.service"
    limit = guest.value(f"cat {unit}/memory.max")
    results.check("the unit's MemoryMax (60 % of RAM) reaches the kiosk's cgroup", limit.isdigit() and 500 << 20 < int(limit) < 700 << 20,
                  f"memory.max {limit}")
    restarts = guest.restarts()
    pictures = [("png", black_png(10000, 10000)), ("jpeg", grey_jpeg(10000, 10000))]
    answers = []
    for kind, data in pictures:
        started = time.monotonic()
        try:
            status, body = http("POST", base + "/api/v1/assets?name=huge-" + kind, token, data, f"image/{kind}", timeout=300)
            asset = json.loads(body).get("id") if status == 201 else None
            thumbnail = http("GET", f"{base}/api/v1/assets/{asset}/thumbnail", token, timeout=300)[0] if asset else None
        except (OSError, ValueError) as error:
            status, thumbnail = str(error), None
        answers.append(f"{kind} ({len(data) >> 10} KiB): upload {status}, thumbnail {thumbnail}, {time.monotonic() - started:.1f} s")
        measurements[f"huge_{kind}_upload_and_thumbnail_s"] = round(time.monotonic() - started, 1)
    # Bombs by their headers: a 20000x20000 PNG (1.2 GB of black pixels in about 1 MB) and a
    # JPEG whose frame header says 65000x65000 over 16x16 pixels of data. Over decode.maxPixels
    # (100 MP), both are refused by their headers (409), before a row is read.
    refused = []
    for kind, data in [("png", black_png(20000, 20000)), ("jpeg", jpeg_claiming(grey_jpeg(16, 16), 65000, 65000))]:
        try:
            status, body = http("POST", base + "/api/v1/assets?name=bomb-" + kind, token, data, f"image/{kind}", timeout=300)
        except OSError as error:
            status, body = str(error), ""
        refused.append(status == 409 and "decode.maxPixels" in body)
        answers.append(f"{kind} bomb ({len(data) >> 10} KiB): {status} {body.strip()[:200]}")
    peak = guest.value(f"cat {unit}/memory.peak")
    measurements["kiosk_memory_peak_mib"] = int(peak) >> 20 if peak.isdigit() else peak
    results.check("100-megapixel PNG and JPEG bombs are uploaded and thumbnailed under MemoryMax, a 20000x20000 PNG and a "
                  "65000x65000 JPEG are refused by their headers; the kiosk's peak stays far below one 100 MP picture decoded "
                  "(400 MB), and it never restarts",
                  all("upload 201, thumbnail 200" in answer for answer in answers[:2])
                  and refused == [True, True]
                  and peak.isdigit() and int(peak) < 300 << 20
                  and guest.restarts() == restarts and guest.value("systemctl is-active vitrine.service") == "active",
                  f"{'; '.join(answers)}; cgroup memory.peak {int(peak) >> 20 if peak.isdigit() else peak} MiB; "
                  f"NRestarts {restarts} -> {guest.restarts()}")
    # Those pictures were decoded in helpers: the kiosk's children, each under the unit's
    # filters and one more of its own (docs/threat-model.md, "Decoding sandbox").
    _, listing = guest.run(
        "main=$(systemctl show -p MainPID --value vitrine.service); "
        "echo \"kiosk $(awk '/^Seccomp_filters/{print $2}' /proc/$main/status)\"; "
        "for status in /proc/[0-9]*/status; do "
        "[ \"$(awk '/^PPid/{print $2}' $status 2>/dev/null)\" = \"$main\" ] || continue; "
        "dir=${status%/status}; "
        "echo \"helper $(awk '/^Seccomp_filters/{print $2}' $status) $(awk '/^Seccomp:/{print $2}' $status) $(tr '\\0' ' ' < $dir/cmdline)\"; "
        "done")
    lines = [line.split() for line in listing.splitlines() if line.startswith(("kiosk ", "helper "))]
    kiosk_filters = next((int(line[1]) for line in lines if line[0] == "kiosk" and len(line) > 1 and line[1].isdigit()), None)
    helpers = [line for line in lines if line[0] == "helper" and len(line) > 4 and line[1].isdigit()]
    results.check("the uploads were decoded in sandboxed helpers: the kiosk's children, `vitrine decode-helper`, each in "
                  "seccomp filter mode with one filter more than the kiosk",
                  kiosk_filters is not None and helpers != [] and len(helpers) <= 2
                  and all(line[3:5] == ["vitrine", "decode-helper"] and line[2] == "2" and int(line[1]) == kiosk_filters + 1
                          for line in helpers),
                  "; ".join(" ".join(line) for line in lines))


def numbered_clip(path, seconds, fps=25):
    """A 320x240 H.264 clip whose frames carry their numbers as ten bars (bit b of the
    frame number lights bar b), as Tests/PictureTestSupport/NumberedClips.swift makes them."""
    bars = "geq=lum='if(bitand(N\\,pow(2\\,floor(X*10/W)))\\,235\\,16)'"
    subprocess.run(["ffmpeg", "-v", "error", "-y", "-f", "lavfi", "-i", f"color=c=black:s=320x240:r={fps}:d={seconds}",
                    "-vf", f"format=gray,{bars},format=yuv420p", "-c:v", "libx264", "-preset", "ultrafast", "-g", "12", path],
                   check=True)


def frame_number(image):
    """The number a numbered clip's frame carries, filling the screen (a 4:3 screen, fit contain)."""
    number = 0
    for bit in range(10):
        red, green, blue = image.pixel((2 * bit + 1) * image.width // 20, image.height // 2)
        if green > 128:
            number |= 1 << bit
    return number


def video_checks(guest, results, measurements, base, token, work):
    """A video slide under the shipped unit: uploaded as an asset, shown by the
    package's /usr/libexec/vitrine/vitrine-video (a sandboxed child of the kiosk),
    playing at its own pace. Both packages ship the helper: amd64's against
    bookworm's FFmpeg 5.1, arm64's against trixie's 7.1."""
    clip = os.path.join(work, "numbered.mp4")
    numbered_clip(clip, 8)
    with open(clip, "rb") as f:
        data = f.read()
    has_helper = guest.value("test -x /usr/libexec/vitrine/vitrine-video && echo yes || echo no") == "yes"
    try:
        status, body = http("POST", base + "/api/v1/assets?name=numbered.mp4", token, data, "video/mp4", timeout=120)
    except OSError as error:
        status, body = str(error), ""
    if not has_helper:
        results.check("the package installs its video helper, /usr/libexec/vitrine/vitrine-video", False,
                      f"none; the upload got HTTP {status} {body.strip()[:200]}")
        return
    answer = json.loads(body) if status == 201 else {}
    asset = answer.get("id")
    thumbnail = http("GET", f"{base}/api/v1/assets/{asset}/thumbnail", token, timeout=120)[0] if asset else None
    results.check("an MP4 upload is a video asset (type mp4, its size), and its thumbnail is made from a frame",
                  status == 201 and answer.get("type") == "mp4" and (answer.get("width"), answer.get("height")) == (320, 240)
                  and thumbnail == 200, f"HTTP {status} {body.strip()[:200]}; thumbnail {thumbnail}")
    if not asset:
        return
    warnings_before = guest.value("journalctl -b --no-pager -u vitrine.service -p warning -o cat | wc -l")
    # A short interval for the picture: the push after this one waits for a slide boundary.
    config = {"slides": [f"asset:{asset}", "images/04-wide.jpg"], "interval": "2s", "background": "#000000",
              "transition": {"type": "cut"}}
    status, answer = http("PUT", base + "/api/v1/config", token, json.dumps(config).encode(), timeout=60)
    # Screendumps while it plays: the frame numbers go up, at the clip's 25 frames a second.
    readings = []
    deadline = time.monotonic() + 20
    while time.monotonic() < deadline and len(readings) < 40:
        # The screen is captured somewhere between the request and the reply;
        # under TCG that span varies by tens of milliseconds and now and then
        # by more (the host busy), so each reading keeps both ends.
        asked = time.monotonic()
        shown = guest.screendump("video")
        answered = time.monotonic()
        number = frame_number(shown)
        if 0 < number < 200:
            readings.append((asked, answered, number))
        if readings and readings[-1][1] - readings[0][0] > 4:
            break
        time.sleep(0.1)
    numbers = [number for _, _, number in readings]
    rising = all(b >= a for a, b in zip(numbers, numbers[1:])) and len(set(numbers)) >= 5
    middles = [(asked + answered) / 2 for asked, answered, _ in readings]
    span = middles[-1] - middles[0] if len(readings) > 1 else 0
    rate = (numbers[-1] - numbers[0]) / span if span > 0 else 0
    measurements["video_frames_per_second_seen"] = round(rate, 1)
    # How far each screendump's frame is from the clip's clock, a line at 25
    # frames a second: the distance from the frame numbers the clock passed
    # through while that screendump was being taken (zero inside them). The
    # line's offset is the median over the readings, since when the slide came
    # to rest is not known to the host, and one slow screendump should not move
    # it. The bound is a frame and a half.
    deviation = None
    if len(readings) > 2:
        offsets = sorted(number - 25 * middle for middle, (_, _, number) in zip(middles, readings))
        offset = offsets[len(offsets) // 2]
        def distance(asked, answered, number):
            earliest, latest = 25 * asked + offset, 25 * answered + offset
            return max(0.0, earliest - number, number - latest)
        deviation = max(distance(*reading) for reading in readings)
        measurements["video_frame_deviation_max"] = round(deviation, 2)
    widest = max((answered - asked for asked, answered, _ in readings), default=0)
    results.check("each screendump shows the frame the clip's clock calls for at its instant, within 1.5 frames",
                  deviation is not None and deviation <= 1.5,
                  f"largest distance {deviation and round(deviation, 2)} frames over {len(readings)} screendumps "
                  f"(the slowest took {widest * 1000:.0f} ms); readings (ms from the first, frame) "
                  f"{[(round((asked - readings[0][0]) * 1000), round((answered - readings[0][0]) * 1000), number) for asked, answered, number in readings] if deviation and deviation > 1.5 else ''}")
    results.check("the video slide plays under the shipped unit: screendumps show its frame numbers rising at about 25 a second",
                  status == 200 and rising and 18 <= rate <= 32,
                  f"PUT {status}; numbers {numbers}; {rate:.1f} frames a second over "
                  f"{round(span, 1)} s")
    _, listing = guest.run(
        "main=$(systemctl show -p MainPID --value vitrine.service); "
        "for status in /proc/[0-9]*/status; do "
        "[ \"$(awk '/^PPid/{print $2}' $status 2>/dev/null)\" = \"$main\" ] || continue; "
        "echo \"child $(awk '/^Seccomp:/{print $2}' $status) $(tr '\\0' ' ' < ${status%/status}/cmdline)\"; done")
    videos = [line.split() for line in listing.splitlines() if line.startswith("child ") and "vitrine-video" in line]
    results.check("it is decoded by vitrine-video, a child of the kiosk in seccomp filter mode",
                  len(videos) == 1 and videos[0][1] == "2", listing.strip()[:300])
    # The video ends (8 s), the carousel pages to the picture, and the kiosk logs how the frames went.
    played = ""
    deadline = time.monotonic() + 30
    while time.monotonic() < deadline and "video played" not in played:
        played = guest.value("journalctl -b --no-pager -u vitrine.service -o cat | grep 'video played' | tail -1")
        time.sleep(1)
    measurements["video_played"] = played.strip()
    warnings_after = guest.value("journalctl -b --no-pager -u vitrine.service -p warning -o cat | wc -l")
    results.check("after its 8 s the carousel pages on, the kiosk logs the video's pacing, and nothing was logged as a warning",
                  "video played" in played and "pacing=" in played and warnings_before == warnings_after,
                  f"{played.strip()[:300]}; warning lines {warnings_before} -> {warnings_after}")


def run_suite(args):
    work = os.path.abspath(args.work)
    shutil.rmtree(work, ignore_errors=True)
    os.makedirs(work)
    # The host mirror of the guest's /etc/vitrine, so that relative slide paths resolve alike.
    mirror = os.path.join(work, "etc-vitrine")
    shutil.copytree(os.path.join(REPO, "deploy", "demo", "images"), os.path.join(mirror, "images"))
    shutil.copy(args.config, os.path.join(mirror, "vitrine.yaml"))
    shutil.copy(args.pushed, os.path.join(mirror, "pushed.json"))
    first = host_render(args.vitrine, os.path.join(mirror, "vitrine.yaml"), 1.0, SIZE, work, "render-config")
    pushed = host_render(args.vitrine, os.path.join(mirror, "pushed.json"), 1.0, SIZE, work, "render-pushed")

    disk = os.path.join(work, "disk.qcow2")
    overlay_disk(os.path.join(args.image, "disk.img"), disk)
    port = free_port()
    base = f"http://127.0.0.1:{port}"
    results = Results("image")
    measurements = {}
    # A FAT boot partition, as Raspberry Pi OS's /boot/firmware is (mkfs.vfat, 32 MiB), made empty on the host.
    card = os.path.join(work, "card.img")
    if os.path.exists(card):
        os.remove(card)
    subprocess.run(["mkfs.vfat", "-C", "-n", "BOOTFS", card, str(32 * 1024)], check=True, stdout=subprocess.DEVNULL)
    guest = ImageGuest(args.image, disk, work, port, card=card)
    try:
        # (a) Straight into the carousel.
        boot_checks(guest, results, measurements, "boot", first, "the image's configuration")
        _, watchdog = guest.run("systemctl show -p WatchdogTimestampMonotonic --value vitrine.service; "
                                "sleep 11; systemctl show -p WatchdogTimestampMonotonic --value vitrine.service")
        stamps = [int(s) for s in re.findall(r"^\d+$", watchdog, re.M)]
        results.check("the watchdog is being pinged (WatchdogTimestamp moves on)",
                      len(stamps) == 2 and stamps[1] > stamps[0] > 0, f"{stamps}")

        # The hardening: the score systemd gives the unit, and nothing in the journal complaining.
        _, security = guest.run("systemd-analyze security --no-pager vitrine.service 2>&1 | tail -1")
        measurements["systemd_analyze_security"] = security.strip()
        _, warnings = guest.run("journalctl -b --no-pager -u vitrine.service -p warning -o cat")
        results.check("systemd-analyze security rates the unit", "Overall exposure level" in security, security.strip())
        results.check("the kiosk logged no warnings or errors", warnings.strip() in ("", "-- No entries --"),
                      warnings.strip()[:300])
        # The unit's descriptor limit reaches the process (the API's connection cap is computed from it).
        _, limits = guest.run("grep 'Max open files' /proc/$(systemctl show -p MainPID --value vitrine.service)/limits")
        results.check("the kiosk runs with the unit's LimitNOFILE=4096", re.search(r"Max open files\s+4096\s+4096", limits) is not None,
                      limits.strip())

        # HDMI-CEC through the shipped unit (DeviceAllow=char-cec, the video group
        # that udev gives /dev/cec*): the kiosk found vivid's output adapter by
        # itself, and the TV (cec-follower, test-tv.service) follows the screen.
        cec_checks(guest, results, measurements, base, args.token, first)

        # Memory: the unit's MemoryMax holds, and pictures far larger than the
        # screen (a 100-megapixel PNG and JPEG, 400 MB each decoded whole) are
        # uploaded, inspected and made into thumbnails in a fraction of it.
        memory_checks(guest, results, measurements, base, args.token, work)

        # A video slide, played by the package's sandboxed video helper.
        video_checks(guest, results, measurements, base, args.token, work)

        # (b) A configuration pushed through the API shows.
        deadline = time.monotonic() + 60
        status = None
        while time.monotonic() < deadline:
            try:
                status, _ = http("GET", base + "/healthz")
                if status == 200:
                    break
            except OSError:
                pass
            time.sleep(1)
        with open(args.pushed, "rb") as f:
            body = f.read()
        # Under TCG a request can take seconds (it is also the process's first parse
        # and first fsyncs); one CI run saw more than 10 s, so allow a minute and say how long.
        put_started = time.monotonic()
        try:
            status, answer = http("PUT", base + "/api/v1/config", args.token, body, timeout=60)
        except OSError as error:
            status, answer = None, str(error)
        put_seconds = time.monotonic() - put_started
        measurements["put_config_s"] = round(put_seconds, 2)
        results.check("PUT /api/v1/config through the host port forward is accepted", status == 200,
                      f"HTTP {status} after {put_seconds:.1f} s: {answer.strip()[:200]}")
        seconds, (worst, mean) = (None, (255, 255.0)) if status != 200 else wait_for_picture(guest, pushed, 60, "pushed")
        pushed_shown = results.check("the pushed playlist is on screen", seconds is not None,
                                     f"{seconds and round(seconds, 1)} s after the PUT; max {worst}, mean {mean:.3f}")
        # What should be on screen from here on: the pushed playlist, unless the push failed.
        expected = pushed if pushed_shown else first

        # (c) It survives a reboot (asked for through the API), which boots with the root file system read-only,
        # as kiosks that protect their SD card run (with /tmp a tmpfs, which the
        # unit's PrivateTmp needs): the kiosk shows what it stored, and changes
        # answer 503 saying why. The root is made writable again afterwards.
        guest.run("cp /etc/fstab /etc/fstab.rw && printf '/dev/vda\\t/\\text4\\tro\\t0\\t1\\n"
                  "tmpfs\\t/tmp\\ttmpfs\\tmode=1777\\t0\\t0\\n' > /etc/fstab && sync")
        # The reboot is the API's (POST /api/v1/reboot): the kiosk leaves its request in
        # /run/vitrine, the package's vitrine-reboot.path starts vitrine-reboot.service
        # (root), which reboots two seconds later. Nothing else here reboots the machine.
        _, path_state = guest.run("systemctl is-enabled vitrine-reboot.path; systemctl is-active vitrine-reboot.path")
        try:
            reboot_status, reboot_answer = http("POST", base + "/api/v1/reboot", args.token)
        except OSError as error:
            reboot_status, reboot_answer = None, str(error)
        asked = time.monotonic()
        try:
            guest.wait_for(rb"reboot: Restarting system", 180)
            rebooted = time.monotonic() - asked
        except TimeoutError:
            # The API did not reboot it: reboot as before, so that the checks after still run.
            rebooted = None
            guest.process.stdin.write(b"systemctl reboot\n")
            guest.process.stdin.flush()
            guest.wait_for(rb"reboot: Restarting system", 180)
        results.check("POST /api/v1/reboot answers 202 and the board reboots through vitrine-reboot.path (the kiosk stays unprivileged)",
                      reboot_status == 202 and rebooted is not None and path_state.split()[-2:] == ["enabled", "active"],
                      f"HTTP {reboot_status} {str(reboot_answer).strip()[:120]}; vitrine-reboot.path "
                      f"{' '.join(path_state.split())}; the kernel restarted {rebooted and round(rebooted, 1)} s after the request")
        guest.started = time.monotonic()
        back = boot_checks(guest, results, measurements, "reboot", expected,
                           "the pushed playlist" if pushed_shown else "the image's configuration, as the push failed")
        results.check("after a reboot the pushed playlist is still there", pushed_shown and back,
                      "" if pushed_shown else "nothing was pushed")
        _, options = guest.run("findmnt -no OPTIONS /")
        try:
            status, answer = http("PUT", base + "/api/v1/config", args.token, body, timeout=60)
            health = http("GET", base + "/healthz")[0]
        except OSError as error:
            status, answer, health = None, str(error), None
        results.check("with the root read-only the kiosk runs, and PUT /api/v1/config answers 503 with the reason",
                      options.strip().startswith("ro") and status == 503 and "read-only" in answer.lower() and health == 200,
                      f"/ mounted {options.strip()[:40]!r}; PUT: HTTP {status} {answer.strip()[:200]}; /healthz {health}")
        guest.run("mount -o remount,rw / && mv /etc/fstab.rw /etc/fstab && sync")

        # Rotating the API token in the file: the new one works, the old one is refused,
        # and the pushed playlist stays (a new token does not count as a changed file).
        new_token = args.token + "-rotated"
        guest.run(f"sed -i 's/token: \"{args.token}\"/token: \"{new_token}\"/' /etc/vitrine/vitrine.yaml "
                  "&& systemctl restart vitrine.service")
        seconds, (worst, mean) = wait_for_picture(guest, expected, 60, "rotated")
        answers = []
        deadline = time.monotonic() + 30
        while time.monotonic() < deadline:
            try:
                answers = [http("GET", base + "/api/v1/status", token)[0] for token in (args.token, new_token)]
                break
            except OSError:
                time.sleep(1)
        results.check("after rotating api.token in the file and a restart, the new token works, the old one gets 401, "
                      "and the pushed playlist stays", answers == [401, 200] and seconds is not None,
                      f"GET /api/v1/status with the old and new token: {answers}; picture "
                      f"{'still the pushed playlist' if seconds is not None else f'not the expected one (max {worst})'}")

        # (d) kill -9 and (e) a hung kiosk: systemd brings the picture back.
        restart_checks(guest, results, measurements, expected, kill_limit_s=15)

        # (f) The package on the running system, as docs/apt-repository.md has an
        # administrator use it: removed with dpkg -r, then installed, upgraded and
        # rolled back from the signed apt repository that `make repo` built, over
        # HTTP from nginx on the host (deploy/install.sh, for machines without
        # dpkg, is checked on copies of the same tree by run-image-test.sh).
        repository_checks(guest, results, args, work, expected, base, new_token)

        # (g) Setup from the SD card (docs/card-setup.md), last: its factory reset leaves the starter.
        card_checks(guest, results, args, work, base, new_token, card)
    finally:
        save_journal(guest, work, "journal-vitrine.txt")
        guest.stop()
    write_measurements(work, measurements)
    return results


def guest_file(guest, path, data, mode="0644"):
    """Writes DATA (bytes) to PATH in the guest through the serial shell, in one line of base64."""
    encoded = base64.b64encode(data).decode()
    return guest.run(f"install -d -m 0755 {os.path.dirname(path)} && echo {encoded} | base64 -d > {path} && chmod {mode} {path}")[0]


def repository_checks(guest, results, args, work, expected, base, token):
    """dpkg -r, then the signed repository: apt refuses it without its key, then installs the
    first version, upgrades to the second (the kiosk restarts on the new binary with the pushed
    playlist and the token it had), and rolls back to the first."""
    if not args.repo or not args.repo_versions:
        results.check("the repository checks have a repository (--repo, --repo-versions)", False, "none given")
        return
    first, second = args.repo_versions  # token: the API token now (rotated earlier in the run)
    with served_repository(args.repo, work, "image") as (origin, served):
        repository_steps(guest, results, args, origin, first, second, expected, base, token)
        if args.broken_version:
            update_steps(guest, results, args, origin, served, work, first, second, args.broken_version, expected, base, token)


@contextlib.contextmanager
def served_repository(repository, work, name):
    """Debian's nginx serving a copy of REPOSITORY (a signed apt repository's public
    tree) on the host's loopback, which a QEMU guest reaches at 10.0.2.2: yields the
    origin (its `port`) and the copy's path, which update_steps publishes into.
    nginx drops to nobody, so it serves a copy in /tmp that nobody can read, wherever
    the clone is; the copy goes with the origin."""
    served = os.path.join("/tmp", f"vitrine-{name}-repo-{os.getpid()}")
    shutil.rmtree(served, ignore_errors=True)
    shutil.copytree(repository, served, symlinks=False)
    for folder, _, _ in os.walk(served):
        os.chmod(folder, 0o755)
    origin = fleetlib.Origin(work, served)
    origin.start()
    try:
        yield origin, served
    finally:
        origin.stop()
        shutil.rmtree(served, ignore_errors=True)


def repository_steps(guest, results, args, origin, first, second, expected, base, token):
    status, output = guest.run("DEBIAN_FRONTEND=noninteractive dpkg -r vitrine 2>&1", 120)
    time.sleep(2)
    states = guest.value("echo $(systemctl is-active vitrine.service) $(systemctl is-active getty@tty1.service) "
                         "$(id vitrine >/dev/null 2>&1 && echo user || echo nouser) "
                         "$(test -f /var/lib/vitrine/config.json && echo state || echo nostate) "
                         "$(test -e /usr/bin/vitrine && echo binary || echo nobinary)")
    gone = wait_until_gone(guest, expected, 10, "removed")
    results.check("dpkg -r stops the kiosk, gives tty1 back to getty, keeps the user and /var/lib/vitrine",
                  status == 0 and states.split() == ["inactive", "active", "user", "state", "nobinary"] and gone,
                  f"exit {status}; vitrine, getty@tty1, user, state, binary: {states}; picture gone: {gone}")

    # The source as the docs give it, for Debian 12; QEMU's user network reaches the host's
    # loopback at 10.0.2.2. The image's Debian mirror (its sources.list) is left out of these
    # apt runs, and its lists kept: the kiosk's libraries are installed, and the guest needs no Internet.
    sources = (f"Types: deb\nURIs: http://10.0.2.2:{origin.port}/bookworm\nSuites: bookworm\nComponents: main\n"
               "Signed-By: /etc/apt/keyrings/vitrine.asc\n")
    guest_file(guest, "/etc/apt/sources.list.d/vitrine.sources", sources.encode())
    apt = "DEBIAN_FRONTEND=noninteractive apt-get -o Dir::Etc::SourceList=/dev/null -o APT::Get::List-Cleanup=false"
    status, output = guest.run(f"{apt} update 2>&1", 180)
    results.check("without its key, apt-get update refuses the repository (its signature cannot be checked)",
                  status != 0 or "NO_PUBKEY" in output or "not signed" in output or "signatures couldn't be verified" in output,
                  f"exit {status}; " + output.strip().replace("\n", " | ")[-300:])
    with open(os.path.join(args.repo, "vitrine-archive-keyring.asc"), "rb") as f:
        guest_file(guest, "/etc/apt/keyrings/vitrine.asc", f.read())
    status, output = guest.run(f"{apt} update 2>&1", 180)
    policy = guest.run("apt-cache policy vitrine 2>&1")[1]
    # apt-cache policy's version table: "     VERSION PRIORITY", the installed one marked "***".
    listed = [match.group(1) for match in (re.match(r"^\s+(?:\*\*\* )?(\S+) -?\d+$", line) for line in policy.splitlines()) if match]
    results.check(f"with the key in /etc/apt/keyrings, apt-get update takes the signed index over HTTP, which offers {second} and {first}",
                  status == 0 and "Err:" not in output and first in listed and second in listed,
                  f"exit {status}; versions offered: {listed}; " + output.strip().replace("\n", " | ")[-200:])

    install = f"{apt} install -y -q --no-install-recommends"
    before = time.monotonic()
    status, output = guest.run(f"{install} vitrine={first} 2>&1", 300)
    seconds, _ = wait_for_picture(guest, expected, 90, "installed from the repository", since=before)
    getty = guest.value("systemctl is-active getty@tty1.service")
    results.check(f"apt-get install vitrine={first} from the repository brings the kiosk back with the pushed playlist, and stops getty on tty1",
                  status == 0 and seconds is not None and getty != "active",
                  f"exit {status}; picture {seconds and round(seconds, 1)} s after the install began; getty@tty1 {getty}; "
                  + output.strip().replace("\n", " | ")[-300:])

    def moved_to(version, command, what):
        running, started = guest.main_pid(), time.monotonic()
        status, output = guest.run(f"{command} 2>&1", 300)
        seconds, _ = wait_for_picture(guest, expected, 90, what, since=started)
        now = guest.main_pid()
        installed = guest.value("dpkg-query -W -f='${Version}' vitrine")
        # A kiosk still running the binary that dpkg replaced shows "(deleted)" here.
        executable = guest.value(f"readlink /proc/{now}/exe") if now else ""
        try:
            answer = http("GET", f"{base}/api/v1/status", token=token)[0]
        except Exception as error:  # noqa: BLE001  (the check reports it)
            answer = f"{error}"
        results.check(f"{what}: vitrine {version} is installed, the kiosk restarted on its binary, and the pushed playlist "
                      "and the API token are kept",
                      status == 0 and installed == version and now not in (None, running) and executable == "/usr/bin/vitrine"
                      and seconds is not None and answer == 200,
                      f"exit {status}; installed {installed}; PID {running} -> {now} ({executable}); picture "
                      f"{seconds and round(seconds, 1)} s after apt began; GET /api/v1/status {answer}; "
                      + output.strip().replace("\n", " | ")[-200:])

    moved_to(second, f"{apt} upgrade -y -q", f"apt-get upgrade to {second}")
    moved_to(first, f"{install} --allow-downgrades vitrine={first}", f"rolled back with apt-get install vitrine={first}")


def update_steps(guest, results, args, origin, served, work, first, second, broken, expected, base, token):
    """Updates over the air (docs/updates.md): the kiosk, at FIRST from the signed repository, follows a
    channel that names SECOND; vitrine-update.service installs it and keeps it once it runs healthy. Then
    the channel names BROKEN, which crashes at start: the helper puts SECOND back with the state it had."""
    mirror = os.path.join(work, "etc-vitrine")
    channel = os.path.join(served, "channel")
    key = os.path.join(work, "ota")
    subprocess.run([args.vitrine, "channel", "keygen", "--public", key + ".pub", "--secret", key + ".sec"],
                   check=True, capture_output=True)

    def publish(version):
        # The pushed playlist, so the screen keeps showing what `expected` is.
        done = subprocess.run([args.vitrine, "channel", "publish", "--config", os.path.join(mirror, "pushed.json"), "--dir", channel,
                               "--key", key + ".sec", "--software-version", version], capture_output=True, text=True)
        for folder, _, files in os.walk(served):
            os.chmod(folder, 0o755)
            for name in files:
                os.chmod(os.path.join(folder, name), 0o644)
        return done.returncode == 0, (done.stdout + done.stderr).strip().replace("\n", " | ")

    def report():
        # One line: value() gives the last line of what the command printed.
        text = guest.value("tr -d '\\n' < /var/lib/vitrine-update/report.json 2>/dev/null || echo '{}'")
        try:
            return json.loads(text)
        except ValueError:
            return {}

    def wait_for_report(manifest_version, timeout):
        """The helper's report on channel version MANIFEST_VERSION, written once its run ends."""
        deadline = time.monotonic() + timeout
        while time.monotonic() < deadline:
            found = report()
            if found.get("manifestVersion") == manifest_version:
                return found
            time.sleep(3)
        return report()

    def software_status(outcome):
        """The status's software section, once it reports OUTCOME (the status reads the helper's report at most every 2 s)."""
        deadline = time.monotonic() + 30
        body = {}
        while time.monotonic() < deadline:
            try:
                status, answer = http("GET", f"{base}/api/v1/status", token=token)
                body = (json.loads(answer).get("software") or {}) if status == 200 else {"status": status}
            except Exception as error:  # noqa: BLE001  (the check reports what it saw)
                body = {"error": f"{error}"}
            if body.get("outcome") == outcome:
                break
            time.sleep(3)
        return body

    published, output = publish(second)
    with open(key + ".pub", "rb") as f:
        guest_file(guest, "/etc/vitrine/channel.pub", f.read())
    section = (f"\nchannel:\n  url: http://10.0.2.2:{origin.port}/channel\n  keys: [/etc/vitrine/channel.pub]\n"
               "  poll: 5s\n  jitter: 0\n")
    guest.run(f"cp /etc/vitrine/vitrine.yaml /etc/vitrine/vitrine.yaml.before-channel && echo {base64.b64encode(section.encode()).decode()}"
              " | base64 -d >> /etc/vitrine/vitrine.yaml")
    paths = guest.value("echo $(systemctl is-enabled vitrine-update.path) $(systemctl is-active vitrine-update.path)").split()
    started = time.monotonic()
    guest.run("systemctl restart vitrine.service")
    found = wait_for_report(1, 300)
    seconds, _ = wait_for_picture(guest, expected, 60, "updated over the air", since=started)
    installed = guest.value("dpkg-query -W -f='${Version}' vitrine")
    pin = guest.value("grep '^Pin:' /etc/apt/preferences.d/vitrine-update.pref 2>/dev/null")
    # apt's version table gives the pinned version priority 1001 ("*** 0.1.0+repotest1 1001"): the pin is in effect.
    candidate = guest.value(f"apt-cache policy vitrine | grep -cE '^ +(\\*\\*\\* )?{re.escape(second)} 1001$'")
    results.check(f"a channel naming vitrine {second}: vitrine-update.service installs it from the signed repository, keeps it once "
                  "it runs healthy, and pins apt to it (priority 1001, so apt's own upgrades stay on it)",
                  published and paths == ["enabled", "active"] and found.get("outcome") == "installed" and installed == second
                  and pin == f"Pin: version {second}" and candidate == "1" and seconds is not None,
                  f"publish: {output[-160:]}; path unit {paths}; report {found}; installed {installed}; {pin}; pinned at 1001 in apt-cache policy: {candidate}; "
                  f"picture {seconds and round(seconds, 1)} s after the restart; {round(time.monotonic() - started)} s in all")
    body = software_status("installed")
    results.check("GET /api/v1/status reports the update helper's run (software.outcome installed)",
                  body.get("outcome") == "installed" and body.get("installed") == second, f"software: {body}")

    published, output = publish(broken)
    started = time.monotonic()
    found = wait_for_report(2, 420)
    seconds, _ = wait_for_picture(guest, expected, 90, "rolled back over the air", since=started)
    installed = guest.value("dpkg-query -W -f='${Version}' vitrine")
    pin = guest.value("grep '^Pin:' /etc/apt/preferences.d/vitrine-update.pref 2>/dev/null")
    failed = guest.value(f"grep -cF '\"{broken}\"' /var/lib/vitrine-update/state.json")
    executable = guest.value(f"readlink /proc/{guest.main_pid()}/exe") if guest.main_pid() else ""
    results.check(f"a channel naming vitrine {broken}, which crashes at start: the helper rolls it back on its own, with the "
                  f"state it had, to {second}, and records it as failed",
                  published and found.get("outcome") == "rolled-back" and found.get("installed") == second and installed == second
                  and pin == f"Pin: version {second}" and failed == "1" and executable == "/usr/bin/vitrine" and seconds is not None,
                  f"publish: {output[-160:]}; report {found}; installed {installed}; {pin}; failed recorded {failed}; "
                  f"kiosk {executable}; picture {seconds and round(seconds, 1)} s after publishing; {round(time.monotonic() - started)} s in all")
    body = software_status("rolled-back")
    results.check("after the rollback the kiosk answers GET /api/v1/status with the token it had (its state came back whole), "
                  "and reports the rollback (software.outcome rolled-back)",
                  body.get("outcome") == "rolled-back" and body.get("wanted") == broken, f"software: {body}")
    guest.run("mv /etc/vitrine/vitrine.yaml.before-channel /etc/vitrine/vitrine.yaml")


def card_checks(guest, results, args, work, base, token, card):
    """vitrine-setup.service takes the files on the boot partition: a configuration that shows, an API token that
    replaces the one in the state (and leaves the card), the time zone; a card left as it was is not taken again;
    then a factory reset. The partition is a FAT file system on a second disk (CARD, /dev/vdb), mounted at
    /boot/firmware as Raspberry Pi OS mounts its own; afterwards the host reads it with mtools, as another
    computer would, and looks for the token's bytes anywhere in it."""
    mirror = os.path.join(work, "etc-vitrine")
    card_config = ("# From the SD card: the second demo picture alone.\nslides:\n  - images/03-exif-rotated.jpg\n"
                   "autoplay: false\nbackground: \"#101418\"\noutput: { display: drm, mode: 800x600 }\n")
    with open(os.path.join(mirror, "card.yaml"), "w") as f:
        f.write(card_config)
    shown = host_render(args.vitrine, os.path.join(mirror, "card.yaml"), 1.0, SIZE, work, "render-card")
    card_token = "card-token-" + base64.b32encode(os.urandom(15)).decode().lower()
    zone = "Europe/Paris"
    has_zone = guest.value(f"test -e /usr/share/zoneinfo/{zone} && echo yes || echo no") == "yes"

    _, mounted = guest.run("mkdir -p /boot/firmware && mount -t vfat -o fmask=0022,dmask=0022 /dev/vdb /boot/firmware; "
                           "findmnt -no FSTYPE /boot/firmware")
    # Wi-Fi: two mac80211_hwsim radios, the second an access point (hostapd, WPA2, with dnsmasq for DHCP), which
    # NetworkManager, managing the first, is to join from the card's vitrine-wifi.txt alone.
    wifi_password = "vitrine-wifi-" + base64.b32encode(os.urandom(10)).decode().lower()
    _, radios = guest.run("modprobe mac80211_hwsim radios=2 && udevadm settle; ls /sys/class/net | grep '^wl' | sort | tr '\\n' ' '")
    names = radios.split()
    station, access_point = (names[0], names[1]) if len(names) >= 2 else ("wlan0", "wlan1")
    guest_file(guest, "/etc/hostapd/vitrine-test.conf",
               f"interface={access_point}\ndriver=nl80211\nssid=Vitrine Shop\nhw_mode=g\nchannel=6\nwpa=2\n"
               f"wpa_passphrase={wifi_password}\nwpa_key_mgmt=WPA-PSK\nrsn_pairwise=CCMP\n".encode())
    _, ap_output = guest.run(f"nmcli device set {access_point} managed no; ip link set {access_point} up && "
                             f"ip addr add 192.168.77.1/24 dev {access_point} && hostapd -B -P /run/hostapd-test.pid "
                             "/etc/hostapd/vitrine-test.conf > /run/hostapd-test.log 2>&1; echo hostapd $?; "
                             f"dnsmasq --conf-file=/dev/null --interface={access_point} --bind-interfaces --port=0 "
                             "--dhcp-range=192.168.77.50,192.168.77.99,1h --dhcp-leasefile=/run/dnsmasq-test.leases "
                             "--pid-file=/run/dnsmasq-test.pid; echo dnsmasq $?")
    guest_file(guest, "/boot/firmware/vitrine-wifi.txt",
               f"ssid: Vitrine Shop\npassword: {wifi_password}\ncountry: FR\n".encode())
    guest_file(guest, "/boot/firmware/vitrine.yaml", card_config.encode())
    guest_file(guest, "/boot/firmware/vitrine-token.txt", (card_token + "\n").encode())
    guest_file(guest, "/boot/firmware/vitrine-timezone.txt", (zone + "\n").encode())
    started = time.monotonic()
    # At boot the unit runs before the kiosk starts; here the kiosk is stopped around it.
    # NetworkManager starts after vitrine-setup.service at boot, and reads the keyfile then: restarted here likewise.
    status, output = guest.run("systemctl stop vitrine.service && systemctl start vitrine-setup.service; echo unit $?; "
                               "systemctl restart NetworkManager.service; systemctl start vitrine.service", 120)
    seconds, _ = wait_for_picture(guest, shown, 60, "from the card", since=started)
    answers = []
    deadline = time.monotonic() + 30
    while time.monotonic() < deadline:
        try:
            answers = [http("GET", base + "/api/v1/status", candidate)[0] for candidate in (token, card_token)]
            break
        except OSError:
            time.sleep(1)
    result = guest.run("cat /boot/firmware/vitrine-setup-result.txt")[1]
    left = guest.value("ls /boot/firmware | tr '\\n' ' '")
    localtime = guest.value("readlink /etc/localtime")
    zone_ok = localtime == f"/usr/share/zoneinfo/{zone}" if has_zone else "not taken: vitrine-timezone.txt" in result
    results.check("vitrine-setup.service takes the card's vitrine.yaml (it shows), its API token (the old one gets 401, the "
                  "card's works, and it is off the card) and its time zone, and leaves a result file on the card",
                  "unit 0" in output and seconds is not None and answers == [401, 200] and "vitrine-token.txt" not in left
                  and "took vitrine.yaml" in result and zone_ok,
                  f"{output.strip()[-80:]}; picture {seconds and round(seconds, 1)} s after; GET /api/v1/status with the old and the "
                  f"card's token: {answers}; on the card: {left}; /etc/localtime -> {localtime} (zone {'present' if has_zone else 'absent'}); "
                  f"result: {result.strip().replace(chr(10), ' | ')[-300:]}")

    # The Wi-Fi joined: NetworkManager connected the station to the access point with the card's password, and
    # DHCP gave it an address; the keyfile is root's alone, and the password is off the card.
    wifi_address, state = None, ""
    deadline = time.monotonic() + 90
    while time.monotonic() < deadline and wifi_address is None:
        state = guest.value(f"nmcli -g GENERAL.STATE,GENERAL.CONNECTION device show {station} | tr '\\n' ' '")
        found = re.search(r"192\.168\.77\.(\d+)", guest.value(f"ip -4 -o addr show {station}"))
        wifi_address = found.group(0) if found and state.startswith("100") else None
        if wifi_address is None:
            time.sleep(2)
    keyfile_mode = guest.value("stat -c '%a %U' /etc/NetworkManager/system-connections/vitrine-wifi.nmconnection")
    card_wifi = guest.run("cat /boot/firmware/vitrine-wifi.txt")[1]
    results.check("the card's vitrine-wifi.txt: NetworkManager joins the access point (mac80211_hwsim and hostapd, WPA2) "
                  "and DHCP gives the station an address; the keyfile is 0600 root's; the password is off the card",
                  wifi_address is not None and keyfile_mode == "600 root" and wifi_password not in card_wifi
                  and "Vitrine Shop" in card_wifi,
                  f"radios {names}; {' '.join(ap_output.split())}; {station}: state {state.strip()!r}, address {wifi_address}; "
                  f"keyfile {keyfile_mode!r}; card's file now: {' | '.join(card_wifi.strip().splitlines())[:160]!r}")

    # A result file the helper rewrites only when it finds something to do.
    guest.run("echo read-by-a-person > /boot/firmware/vitrine-setup-result.txt")
    before = guest.value("stat -c %Y /etc/vitrine/vitrine.yaml")
    status, output = guest.run("systemctl start vitrine-setup.service; echo unit $?; cat /boot/firmware/vitrine-setup-result.txt; "
                               "stat -c %Y /etc/vitrine/vitrine.yaml")
    results.check("the same card at the next run: nothing is taken again (the result file and vitrine.yaml untouched)",
                  "unit 0" in output and "read-by-a-person" in output and output.strip().splitlines()[-1].strip() == before,
                  output.strip().replace("\n", " | ")[-200:] + f"; vitrine.yaml's mtime before: {before}")

    # Without a vitrine.yaml beside it, the reset leaves the starter (with one, the card's is taken after it).
    guest.run("rm /boot/firmware/vitrine.yaml")
    guest_file(guest, "/boot/firmware/vitrine-factory-reset", b"")
    status, output = guest.run("systemctl stop vitrine.service && systemctl start vitrine-setup.service; echo unit $?; "
                               "echo state: $(ls -A /var/lib/vitrine | wc -l); "
                               "cmp -s /etc/vitrine/vitrine.yaml /usr/share/vitrine/vitrine.yaml && echo starter; "
                               "test -e /boot/firmware/vitrine-factory-reset && echo reset-left; "
                               "systemctl start vitrine.service; systemctl is-active vitrine.service", 180)
    results.check("a factory reset from the card empties the kiosk's state, puts the starter configuration back, removes "
                  "itself from the card, and the kiosk starts on the starter",
                  "unit 0" in output and "state: 0" in output and "starter" in output and "reset-left" not in output
                  and output.strip().splitlines()[-1].strip() == "active",
                  output.strip().replace("\n", " | ")[-240:])
    guest.run("umount /boot/firmware")
    # The card as another computer reads it (mtools, on the host), and its raw bytes: the token was read from it,
    # then overwritten in place before its file was removed, so no copy is left in the partition's free clusters.
    listing = subprocess.run(["mdir", "-b", "-i", card, "::"], capture_output=True, text=True).stdout
    files = sorted(os.path.basename(line.strip()).lower() for line in listing.splitlines() if line.strip())
    result_text = subprocess.run(["mtype", "-i", card, "::/vitrine-setup-result.txt"], capture_output=True, text=True).stdout
    with open(card, "rb") as f:
        raw = f.read()
    results.check("the card is a FAT partition (/dev/vdb at /boot/firmware); read on the host afterwards, it holds the result "
                  "file and no token file, and neither the token's nor the Wi-Fi password's bytes are anywhere in the partition",
                  "vfat" in mounted and "vitrine-setup-result.txt" in files and "vitrine-token.txt" not in files
                  and card_token.encode() not in raw and wifi_password.encode() not in raw,
                  f"mounted as {mounted.strip().splitlines()[-1:] if mounted.strip() else '?'}; on the card: {files}; "
                  f"token bytes in the image: {raw.count(card_token.encode())}, the Wi-Fi password's: "
                  f"{raw.count(wifi_password.encode())}; result: {result_text.strip()[:160]!r}")
    address_notice_checks(guest, results, wifi_address)


def address_notice_checks(guest, results, wifi_address=None):
    """The starter configuration has showAddress: a kiosk with no configuration of its own shows where to set it up,
    over its slides, in a dark box in the top-left corner (NoticePainter: text 1/27 of the screen's height, a margin
    and a padding of half that), and logs it. The addresses are the VM's own: QEMU's DHCP on the wired NIC, and
    WIFI_ADDRESS when the card's Wi-Fi joined (the notice must list it too)."""
    deadline = time.monotonic() + 90
    line, white, dark, strip, shown = None, 0, 0, [], None
    while time.monotonic() < deadline and (line is None or white < 100 or dark * 2 < len(strip)):
        if line is None:
            found = re.search(r"showing on screen: This kiosk is not set up yet\. Set it up at (http://[0-9.]+:8080/)[^\n]*",
                              guest.run("journalctl -b --no-pager -o cat -u vitrine.service | grep 'showing on screen' | tail -1")[1])
            line = found.group(0) if found and "10.0.2." in found.group(1) and (
                wifi_address is None or f"http://{wifi_address}:8080/" in found.group(0)) else None
        try:
            shown = guest.screendump("address-notice")
        except (RuntimeError, ValueError, OSError):
            shown = None
        if shown is not None:
            size = max(12, min(shown.width, shown.height) // 27)
            margin = size // 2
            # The first text line's band: white text (at least 100 pixels at 230 or more in every channel) can only be
            # the notice's, for the box darkens whatever is under it to a quarter.
            band = [shown.pixel(x, y) for y in range(margin + margin, margin + margin + size) for x in range(margin, margin + 20 * size)]
            white = sum(1 for p in band if min(p) >= 230)
            # The box's top padding, above the text: at most a quarter of the slide's brightness shows through.
            strip = [shown.pixel(x, y) for y in range(margin + 1, margin + margin - 1) for x in range(margin + 1, margin + 10 * size)]
            dark = sum(1 for p in strip if max(p) <= 67)
        time.sleep(1)
    results.check("the starter configuration (showAddress) shows the kiosk's addresses (wired, and the Wi-Fi the card set up) "
                  "over its slides: the kiosk logs them, and a screendump shows white text on a dark box in the top-left corner",
                  line is not None and white >= 100 and dark * 2 >= len(strip) > 0,
                  f"log: {line!r}; {white} white text pixels in the first line's band, {dark} of {len(strip)} box pixels dark"
                  + (f" ({shown.width}x{shown.height})" if shown is not None else ""))

    # mDNS: avahi-daemon announces the console through the package's /etc/avahi/services/vitrine.service, and the
    # host as HOST.local, which the notice lists beside the address.
    host = guest.value("hostname")
    _, browsed = guest.run("avahi-browse -rpt _http._tcp 2>&1 | grep '^=' | grep -i vitrine | head -3", 60)
    resolved = guest.value(f"avahi-resolve -4 -n {host}.local 2>&1")
    # avahi-browse -p escapes a name's spaces and punctuation as \DDD (decimal).
    announced = [[re.sub(r"\\(\d{3})", lambda m: chr(int(m.group(1))), field) for field in fields]
                 for fields in (entry.split(";") for entry in browsed.splitlines()) if len(fields) >= 9]
    results.check("avahi-daemon announces the console as \"Vitrine on HOST\" (_http._tcp, port 8080) and HOST.local resolves to "
                  "one of the VM's addresses (wired, or on the Wi-Fi), and the notice names it",
                  any(fields[3] == f"Vitrine on {host}" and fields[8] == "8080" for fields in announced)
                  and re.search(r"\s(10\.0\.2\.\d+|192\.168\.77\.\d+)$", resolved) is not None
                  and line is not None and f"http://{host}.local:8080/" in line,
                  f"browse: {browsed.strip()[:240]!r}; resolve: {resolved!r}; notice: {line!r}")


def save_journal(guest, work, name):
    """The kiosk's and systemd's lines about it, from every boot the journal kept, into WORK/NAME."""
    try:
        _, text = guest.run("journalctl --no-pager -o short-monotonic -u vitrine.service", 60)
        with open(os.path.join(work, name), "w") as f:
            f.write(text)
    except Exception as error:  # the guest may be gone: the checks already say so
        print(f"(could not save the journal: {error})", flush=True)


def write_measurements(work, measurements):
    with open(os.path.join(work, "measurements.json"), "w") as f:
        json.dump(measurements, f, indent=2)
    for key, value in measurements.items():
        print(f"MEASURED {key}: {value}", flush=True)


def main(suite=None, label="image", description=__doc__):
    """The command line of this test and of Tests/ARM64/arm64imagetest.py, which passes its own suite."""
    parser = argparse.ArgumentParser(description=description, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--image", required=True, help="the directory the image's build script wrote")
    parser.add_argument("--vitrine", required=True, help="a vitrine this machine runs, for the reference renders")
    parser.add_argument("--config", required=True, help="the configuration the image boots with, without `api`")
    parser.add_argument("--pushed", required=True, help="the configuration to PUT")
    parser.add_argument("--token", required=True, help="the API token in the image's configuration")
    parser.add_argument("--work", required=True)
    parser.add_argument("--repo", help="the signed apt repository (make repo's public tree) the guest installs from")
    parser.add_argument("--broken-version", help="a later version in the repository that crashes at start, for the over-the-air rollback")
    parser.add_argument("--repo-versions", nargs=2, metavar=("FIRST", "SECOND"),
                        help="the two versions in the repository's bookworm suite, the second the later")
    args = parser.parse_args()
    started = time.monotonic()
    results = (suite or run_suite)(args)
    print(f"{label}: {results.passed} passed, {results.failed} failed in {time.monotonic() - started:.0f} s", flush=True)
    sys.exit(1 if results.failed else 0)


if __name__ == "__main__":
    main()
