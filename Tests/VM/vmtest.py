#!/usr/bin/env python3
"""End-to-end tests of Vitrine's KMS/DRM output on a real Linux kernel.

Boots Debian's stock kernel under qemu-system-x86_64 (TCG) with one display
device, drives the guest through its serial console (a busybox shell), and
looks at the display through QMP `screendump`. Standard library only.

    vmtest.py --gpu bochs|virtio --kernel VMLINUZ --initrd INITRD --vitrine HOST_BINARY --work DIR

Prints one line per check and closes with "N passed, M failed".
"""
import argparse
import json
import os
import re
import select
import shutil
import socket
import subprocess
import sys
import time

HERE = os.path.dirname(os.path.abspath(__file__))
REPO = os.path.abspath(os.path.join(HERE, "..", ".."))

# Screendump against `vitrine render` of the same frame: both come from the
# same code and libjpeg-turbo, so they should agree exactly; the tolerance
# only absorbs a different libjpeg-turbo build on the host.
MAX_CHANNEL_DIFFERENCE = 8
MAX_MEAN_DIFFERENCE = 0.5
# What Tests/VM/init prints when the harness's shell ends and it starts another.
SHELL_ENDED = rb"VITRINE-GUEST-SHELL-ENDED status=(\d+)"


class Image:
    def __init__(self, width, height, rgb):
        self.width, self.height, self.rgb = width, height, rgb

    @staticmethod
    def load_ppm(path):
        with open(path, "rb") as f:
            data = f.read()
        fields, index = [], 0
        while len(fields) < 4:
            while data[index:index + 1].isspace():
                index += 1
            start = index
            while not data[index:index + 1].isspace():
                index += 1
            fields.append(data[start:index])
        if fields[0] != b"P6" or fields[3] != b"255":
            raise ValueError(f"{path}: not an 8-bit P6 PPM")
        width, height = int(fields[1]), int(fields[2])
        return Image(width, height, data[index + 1:index + 1 + width * height * 3])

    def pixel(self, x, y):
        i = (y * self.width + x) * 3
        return tuple(self.rgb[i:i + 3])

    def difference(self, other):
        """(largest channel difference, mean absolute channel difference)"""
        if (self.width, self.height) != (other.width, other.height):
            return (255, 255.0)
        worst, total = 0, 0
        a, b = self.rgb, other.rgb
        # Compare in blocks: equal blocks (the common case) cost one comparison.
        step = 3 * 1024
        for start in range(0, len(a), step):
            x, y = a[start:start + step], b[start:start + step]
            if x == y:
                continue
            for p, q in zip(x, y):
                d = p - q if p > q else q - p
                total += d
                if d > worst:
                    worst = d
        return worst, total / len(a)

    def distinct_colours(self, limit=3):
        seen = set()
        for i in range(0, len(self.rgb), 3 * 97):
            seen.add(self.rgb[i:i + 3])
            if len(seen) >= limit:
                break
        return len(seen)


class QMP:
    def __init__(self, path):
        self.sock = socket.socket(socket.AF_UNIX, socket.SOCK_STREAM)
        for _ in range(200):
            try:
                self.sock.connect(path)
                break
            except OSError:
                time.sleep(0.05)
        self.buffer = b""
        self._read()  # greeting
        self.execute("qmp_capabilities")

    def _read(self):
        while b"\n" not in self.buffer:
            chunk = self.sock.recv(65536)
            if not chunk:
                raise RuntimeError("QMP connection closed")
            self.buffer += chunk
        line, self.buffer = self.buffer.split(b"\n", 1)
        return json.loads(line)

    def execute(self, command, **arguments):
        self.sock.sendall(json.dumps({"execute": command, "arguments": arguments}).encode() + b"\n")
        while True:
            reply = self._read()
            if "return" in reply:
                return reply["return"]
            if "error" in reply:
                raise RuntimeError(f"QMP {command}: {reply['error']}")
            # An asynchronous event: skip.


class Guest:
    def __init__(self, gpu, kernel, initrd, work):
        self.work = work
        self.qmp_path = os.path.join(work, f"qmp-{gpu}.sock")
        # virtio-gpu with a second head (Virtual-2) for the outputs checks; every
        # other check addresses the first: the kiosk drives the first connected
        # connector, and screendumps show head 0.
        # id=gpu0: QMP's screendump names the device to take a head other than 0.
        device = {"bochs": "bochs-display", "virtio": "virtio-gpu-pci,max_outputs=2,id=gpu0"}[gpu]
        command = [
            "qemu-system-x86_64", "-machine", "q35", "-accel", "tcg", "-m", "1024", "-smp", "2",
            "-kernel", kernel, "-initrd", initrd,
            "-append", f"console=ttyS0 quiet loglevel=3 vt.global_cursor_default=0 vitrine.gpu={gpu}",
            "-vga", "none", "-device", device, "-device", "virtio-tablet-pci",
            *(["-device", SECOND_TABLET] if gpu == "virtio" else []),
            "-display", "none", "-monitor", "none", "-serial", "stdio",
            "-qmp", f"unix:{self.qmp_path},server=on,wait=off", "-no-reboot",
        ]
        self.started = time.monotonic()
        self.process = subprocess.Popen(command, stdin=subprocess.PIPE, stdout=subprocess.PIPE, stderr=subprocess.STDOUT)
        self.output = b""
        self.shell_restarts = 0
        self.transcript = open(os.path.join(work, f"serial-{gpu}.log"), "wb")
        self.wait_for(rb"VITRINE-GUEST-READY[^\n]*\n", 120)
        self.boot_seconds = time.monotonic() - self.started
        self.qmp = QMP(self.qmp_path)
        # No echo and no prompt, so that only command output comes back.
        self.run("stty -echo; PS1=''")

    def _pump(self, timeout):
        ready, _, _ = select.select([self.process.stdout], [], [], timeout)
        if ready:
            chunk = os.read(self.process.stdout.fileno(), 65536)
            if not chunk:
                raise RuntimeError("QEMU exited")
            self.transcript.write(chunk)
            self.transcript.flush()
            self.output += chunk

    def wait_for(self, pattern, timeout):
        deadline = time.monotonic() + timeout
        while time.monotonic() < deadline:
            match = re.search(pattern, self.output)
            if match:
                self.output = self.output[match.end():]
                return match
            self._pump(0.2)
        raise TimeoutError(f"guest did not print {pattern!r} within {timeout} s")

    def run(self, command, timeout=120):
        """Runs a shell command in the guest; returns (exit status, output)."""
        marker = f"__VITRINE_DONE_{time.monotonic_ns()}__"
        self.output = b""
        self.process.stdin.write(f"{command}; echo {marker}$?\n".encode())
        self.process.stdin.flush()
        match = self.wait_for(re.escape(marker).encode() + rb"(\d+)|" + SHELL_ENDED, timeout)
        if match.group(1) is None:
            # The guest's init started a new shell (Tests/VM/init): the command
            # was lost with the old one, or cut short. Set the new shell up as
            # the first was, and send the command again, once.
            print(f"NOTE guest shell ended ({match.group(0).decode(errors='replace')}) while running "
                  f"{command[:120]!r}; a new one runs it again", flush=True)
            self.shell_restarts += 1
            self.output = b""
            self.process.stdin.write(f"stty -echo; PS1=''; {command}; echo {marker}$?\n".encode())
            self.process.stdin.flush()
            match = self.wait_for(re.escape(marker).encode() + rb"(\d+)", timeout)
        text = self.output_before(match)
        return int(match.group(1)), text

    def output_before(self, match):
        # wait_for trimmed the buffer; the command's output is what preceded the marker.
        return match.string[:match.start()].decode(errors="replace")

    def screendump(self, name):
        path = os.path.join(self.work, name + ".ppm")
        self.qmp.execute("screendump", filename=path)
        return Image.load_ppm(path)

    def wait_for_log(self, path, text, timeout=90):
        deadline = time.monotonic() + timeout
        while time.monotonic() < deadline:
            _, output = self.run(f"grep -c '{text}' {path} 2>/dev/null || true")
            digits = re.findall(r"\d+", output)
            if digits and int(digits[-1]) > 0:
                return
            time.sleep(0.3)
        _, log = self.run(f"cat {path}")
        raise TimeoutError(f"{path} has no '{text}' after {timeout} s:\n{log}")

    def stop_kiosk(self, pid_file):
        """SIGTERM to the kiosk started in the background, and wait for it to exit."""
        _, output = self.run(f"cat {pid_file}")
        pid = re.findall(r"\d+", output)[-1]
        self.run(f"kill -TERM {pid}; while kill -0 {pid} 2>/dev/null; do sleep 0.1; done")

    def count_in_log(self, path, text):
        _, output = self.run(f"grep -c '{text}' {path} 2>/dev/null || true")
        digits = re.findall(r"\d+", output)
        return int(digits[-1]) if digits else 0

    def stop(self):
        try:
            self.process.stdin.write(b"poweroff -f\n")
            self.process.stdin.flush()
            self.process.wait(timeout=15)
        except Exception:
            self.process.kill()
            self.process.wait()
        self.transcript.close()


class Results:
    def __init__(self, label):
        self.label, self.passed, self.failed = label, 0, 0

    def check(self, name, condition, detail=""):
        status = "PASS" if condition else "FAIL"
        print(f"{status} [{self.label}] {name}" + (f": {detail}" if detail else ""), flush=True)
        if condition:
            self.passed += 1
        else:
            self.failed += 1
        return condition


def host_render(vitrine, config, seconds, size, work, name, wall=None, output=None):
    """`vitrine render` on the host of the same configuration and instant, as PPM;
    with `wall`, of the schedule's playlist at that wall-clock instant; with
    `output`, as that `outputs` entry shows it."""
    out = os.path.join(work, name + ".ppm")
    command = [vitrine, "render", "--config", config, "--at", str(seconds), "--size", size, "--out", out]
    command += ["--wall", wall] if wall else []
    subprocess.run(command + (["--output", output] if output else []), check=True)
    return Image.load_ppm(out)


def slide_boundary(image, first, second):
    """For each sampled row, the first column closer to `second` than to `first`
    (the width when none is); a whole frame of a slide transition has one
    boundary on every row."""
    def closer_to_second(p):
        d1 = sum(abs(a - b) for a, b in zip(p, first))
        d2 = sum(abs(a - b) for a, b in zip(p, second))
        return d2 < d1
    boundaries = set()
    for y in range(0, image.height, max(1, image.height // 48)):
        boundary = image.width
        for x in range(image.width):
            if closer_to_second(image.pixel(x, y)):
                boundary = x
                break
        boundaries.add(boundary)
    return boundaries


RED, BLUE = (220, 30, 30), (30, 60, 220)


def tear_check(guest, results, config, name, dumps=40):
    """Screendumps while red and blue slide past each other: every one must be
    a single frame, one straight boundary from top to bottom."""
    log = f"/tmp/{name}.log"
    _, _ = guest.run(f"vitrine run --config /vm/{config} > {log} 2>&1 & echo $! > /tmp/{name}.pid")
    guest.wait_for_log(log, "first frame on screen")
    torn, transitional, whole = [], 0, 0
    for index in range(dumps):
        image = guest.screendump(f"{name}-{index:02d}")
        if image.distinct_colours(4) > 3:
            torn.append(f"dump {index}: unexpected colours")
            continue
        # Red on the left moving out (red→blue) or blue on the left (blue→red).
        left = image.pixel(0, image.height // 2)
        first, second = (RED, BLUE) if sum(abs(a - b) for a, b in zip(left, RED)) < 60 else (BLUE, RED)
        boundaries = slide_boundary(image, first, second)
        if len(boundaries) != 1:
            torn.append(f"dump {index}: boundaries {sorted(boundaries)}")
        elif 0 < next(iter(boundaries)) < image.width:
            transitional += 1
        else:
            whole += 1
        time.sleep(0.05)
    guest.stop_kiosk(f"/tmp/{name}.pid")
    changes = guest.count_in_log(log, "page changed")
    results.check(f"{config}: no torn frame in {dumps} screendumps", not torn, "; ".join(torn[:3]))
    results.check(f"{config}: screendumps caught transitions mid-way", transitional >= 3,
                  f"{transitional} mid-transition, {whole} resting, {changes} page changes")


TABLET_MAX = 0x7FFF  # QMP's absolute axis range


def logged(guest, log, text, timeout):
    """Whether `text` appears in the guest's `log` within `timeout` seconds."""
    try:
        guest.wait_for_log(log, text, timeout=timeout)
        return True
    except TimeoutError:
        return False


# The second virtio tablet's PCI slot, fixed on the QEMU command line
# (`SECOND_TABLET`) so that the guest can tell the two tablets apart: both are
# "QEMU Virtio Tablet". It is bound to the GPU's second head (display=, head=),
# so QMP input events sent to head 1 reach it alone, and those sent to no head
# reach the first tablet, which is bound to none, as every other check's do.
SECOND_TABLET_SLOT = "10"
SECOND_TABLET = f"virtio-tablet-pci,id=tablet1,display=gpu0,head=1,addr=0x{SECOND_TABLET_SLOT}"


def tablet(guest, x, y, button=None, head=None):
    """Moves QEMU's virtio tablet to (x, y), fractions of the screen; presses or
    releases the left button. `head` 1: the second tablet's (`SECOND_TABLET`)."""
    events = [{"type": "abs", "data": {"axis": "x", "value": int(x * TABLET_MAX)}},
              {"type": "abs", "data": {"axis": "y", "value": int(y * TABLET_MAX)}}]
    if button is not None:
        events.append({"type": "btn", "data": {"down": button, "button": "left"}})
    if head is None:
        guest.qmp.execute("input-send-event", events=events)
    else:
        guest.qmp.execute("input-send-event", device="gpu0", head=head, events=events)


def log_seconds(line):
    """The wall-clock seconds of a log line's ISO timestamp (within one day)."""
    match = re.match(r"\d{4}-\d\d-\d\dT(\d\d):(\d\d):(\d\d\.\d+)Z", line.strip())
    return int(match.group(1)) * 3600 + int(match.group(2)) * 60 + float(match.group(3)) if match else None


def touch_checks(guest, results, args, mirror, work):
    log = "/tmp/touch.log"
    guest.run(f"vitrine run --config /vm/touch.yaml --log-level debug > {log} 2>&1 & echo $! > /tmp/touch.pid")
    guest.wait_for_log(log, "first frame on screen")
    # A swipe to the left on the virtio tablet: press at 75%, move to 25% over ~300 ms, release.
    tablet(guest, 0.75, 0.5, button=True)
    for step in range(1, 16):
        tablet(guest, 0.75 - step * 0.5 / 15, 0.5)
        time.sleep(0.02)
    tablet(guest, 0.25, 0.5, button=False)
    swiped = logged(guest, log, "cause=swipe from=0 to=1", 30)
    time.sleep(1.0)
    shown = guest.screendump("touch-after-swipe")
    expected = host_render(args.vitrine, os.path.join(mirror, "touch.yaml"), 61, "800x600", work, "touch-slide-1")
    worst, mean = shown.difference(expected)
    results.check("a tablet swipe (QMP input-send-event) pages to the next slide", swiped and worst <= MAX_CHANNEL_DIFFERENCE,
                  f"page change logged: {swiped}; screen vs slide 1: max {worst}, mean {mean:.3f}")
    # A tap at the centre.
    tablet(guest, 0.5, 0.5, button=True)
    time.sleep(0.05)
    tablet(guest, 0.5, 0.5, button=False)
    tapped = logged(guest, log, "tap slide=1 x=400 y=300", 20)
    results.check("a tablet tap is reported with its slide and position", tapped)

    # A uinput protocol-B touchscreen, created while the kiosk runs: picked up by hotplug.
    status, output = guest.run("evemu-device /vm/touch/touchscreen.desc > /tmp/evemu.txt 2>&1 & sleep 1; cat /tmp/evemu.txt")
    node = re.findall(r"/dev/input/event\d+", output)
    picked_up = bool(node) and logged(guest, log, f"touch input: {node[-1]}", 20)
    results.check("a touchscreen plugged in while running is picked up", picked_up, output.strip()[-120:])
    if node:
        guest.run(f"evemu-play {node[-1]} < /vm/touch/swipe-left.events")
        swiped = logged(guest, log, "cause=swipe from=1 to=2", 30)
        results.check("a uinput protocol-B touchscreen swipe pages", swiped)
        guest.run(f"evemu-play {node[-1]} < /vm/touch/tap.events")
        tapped = logged(guest, log, "tap slide=2 x=400 y=300", 20)
        results.check("a uinput protocol-B touchscreen tap is reported", tapped)
    guest.run("killall evemu-device 2>/dev/null")
    guest.stop_kiosk("/tmp/touch.pid")
    attract_checks(guest, results, args, mirror, work)
    # Input-to-scanout latency is a benchmark, not a pass/fail figure: the
    # check is that it was measured; the numbers go to docs/benchmarks.md.
    _, latency = guest.run(f"grep -o 'input-to-scanout latency: .*' {log}")
    results.check("input-to-scanout latency of drag frames is measured", "n=" in latency, latency.strip())

    # A touch held longer than the interval keeps rotation paused; release resumes it after 1 s + 2 s.
    log = "/tmp/hold.log"
    guest.run(f"vitrine run --config /vm/hold.yaml --log-level debug > {log} 2>&1 & echo $! > /tmp/hold.pid")
    guest.wait_for_log(log, "first frame on screen")
    guest.wait_for_log(log, "cause=automatic", timeout=30)
    tablet(guest, 0.5, 0.5, button=True)
    time.sleep(5.0)
    tablet(guest, 0.5, 0.5, button=False)
    time.sleep(4.5)
    guest.stop_kiosk("/tmp/hold.pid")
    _, text = guest.run(f"cat {log}")
    lines = text.splitlines()
    pressed = [log_seconds(l) for l in lines if "touch down" in l]
    released = [log_seconds(l) for l in lines if "touch released" in l]
    automatic = [log_seconds(l) for l in lines if "cause=automatic" in l]
    ok = bool(pressed and released)
    detail = "no press/release logged"
    if ok:
        during = [t for t in automatic if pressed[0] < t < released[0]]
        after = [t for t in automatic if t > released[0]]
        # The change after release starts at release + 1 s + 2 s; it is logged when its cut completes.
        delay = after[0] - released[0] if after else None
        ok = not during and delay is not None and 2.5 <= delay <= 4.0
        detail = f"page changes while held: {len(during)}; first change {delay if delay is None else round(delay, 2)} s after release (expected 3 s)"
    results.check("rotation stays paused while a touch is held, and resumes after release + delay + interval", ok, detail)


def attract_checks(guest, results, args, mirror, work):
    """Attract mode (touch.attract: after 3s, home 0), with slide 0 attract-only:
    the swipe replayed on a uinput touchscreen finds slide 0 on screen, whose
    place slide 1 takes at the press, and pages on to slide 2; 3 s after the
    finger lifted the kiosk pages back to slide 0 by itself, with its
    transition, and shows what `vitrine render` shows for slide 0. The
    touchscreen goes before the kiosk stops, in the order the touch checks use."""
    log = "/tmp/attract.log"
    guest.run(f"vitrine run --config /vm/attract.yaml --log-level debug > {log} 2>&1 & echo $! > /tmp/attract.pid")
    guest.wait_for_log(log, "first frame on screen")
    _, output = guest.run("evemu-device /vm/touch/touchscreen.desc > /tmp/evemu-attract.txt 2>&1 & sleep 1; cat /tmp/evemu-attract.txt")
    nodes = re.findall(r"/dev/input/event\d+", output)
    device = nodes[-1] if nodes else "/dev/input/none"
    found = bool(nodes) and logged(guest, log, f"touch input: {device}", 20)
    guest.run(f"evemu-play {device} < /vm/touch/swipe-left.events")
    swiped = logged(guest, log, "cause=swipe from=1 to=2", 30)
    returned = logged(guest, log, "back to slide 0, rotating again", 20)
    paged_home = logged(guest, log, "cause=automatic from=2 to=0", 10)
    time.sleep(1.0)
    shown = guest.screendump("attract-home")
    guest.run("killall evemu-device 2>/dev/null")
    guest.stop_kiosk("/tmp/attract.pid")
    _, text = guest.run(f"cat {log}")
    lines = text.splitlines()
    released = [log_seconds(l) for l in lines if "touch released" in l]
    back = [log_seconds(l) for l in lines if "back to slide 0" in l]
    idle = round(back[0] - released[-1], 2) if back and released else None
    expected = host_render(args.vitrine, os.path.join(mirror, "attract.yaml"), 1, "800x600", work, "attract-slide-0")
    worst, mean = shown.difference(expected)
    results.check("attract mode: a touch on the attract-only slide shows slide 1, the swipe pages to 2, "
                  "and 3 s after the lift the kiosk pages back home (the attract-only slide) by itself",
                  found and swiped and returned and paged_home and idle is not None and 2.9 <= idle <= 4.5
                  and worst <= MAX_CHANNEL_DIFFERENCE,
                  f"device {found}, swiped {swiped}, returned {returned} {idle} s after the lift, paged home {paged_home}; "
                  f"screen vs slide 0: max {worst}, mean {mean:.3f}")


HOTPLUG_INTERVAL = 12  # hotplug.yaml's interval: slide k of 2 rests from 12k to 12(k + 1) s


def metric(guest, name):
    """A counter from the kiosk's /metrics (over the guest's loopback), or None."""
    # busybox nc: the static busybox's wget crashes in the guest (glibc NSS without its modules).
    _, output = guest.run(f"printf 'GET /metrics HTTP/1.0\\r\\n\\r\\n' | nc -w 5 127.0.0.1 8080 | grep '^{name} '")
    values = re.findall(rf"^{name} (\d+)", output, re.M)
    return int(values[-1]) if values else None


def hotplug_checks(guest, results, args, mirror, work, config="hotplug.yaml"):
    """The connector unplugged and plugged back while the kiosk runs, through
    sysfs: `off` forces it disconnected and `detect` probes it again. Neither
    bochs-drm nor virtio-gpu polls its connectors, so the kernel sends no
    uevent for a forced status; a `change` written to the card's uevent file
    then sends the card's change uevent (as `udevadm trigger` does), which the
    kiosk follows like a HOTPLUG=1 one. While the display is away the kiosk
    keeps its timeline (a page change is due meanwhile) and presents nothing:
    the frame counter and the screen hold still. When it is back, the mode is
    set again and the screen shows what `vitrine render` shows for that instant."""
    name = config[:-len(".yaml")]
    log = f"/tmp/{name}.log"
    _, output = guest.run("ls -d /sys/class/drm/card0-*/status")
    status_files = re.findall(r"/sys/class/drm/card0-[^/\s]+/status", output)
    if not results.check(f"{config}: the connector has a sysfs status file", bool(status_files), output.strip()[-160:]):
        return
    status_file = status_files[0]
    def plug(state):
        guest.run(f"echo {state} > {status_file} && echo change > /sys/class/drm/card0/uevent")
    guest.run("ip link set lo up")
    # Every DRM uevent the guest sees, for the record: which came from the kernel, which were synthetic.
    guest.run("rm -f /tmp/uevents.txt; uevent sh -c '[ \"$SUBSYSTEM\" = drm ] && echo \"$ACTION $DEVNAME HOTPLUG=$HOTPLUG SYNTH=$SYNTH_UUID\" >> /tmp/uevents.txt'"
              " > /dev/null 2>&1 & echo $! > /tmp/uevent.pid")
    guest.run(f"vitrine run --config /vm/{config} --state-dir /tmp/{name}-state --log-level debug > {log} 2>&1 & "
              f"echo $! > /tmp/{name}.pid")
    guest.wait_for_log(log, "first frame on screen")
    deadline = time.monotonic() + 30
    while metric(guest, "vitrine_frames_presented_total") is None and time.monotonic() < deadline:
        time.sleep(0.5)
    before = guest.screendump(f"{name}-before")
    size = f"{before.width}x{before.height}"

    plug("off")
    disconnected = logged(guest, log, "was disconnected; presenting nothing", 30)
    _, state = guest.run(f"cat {status_file}")
    frames_at_unplug = metric(guest, "vitrine_frames_presented_total")
    changes_at_unplug = guest.count_in_log(log, "page changed")
    results.check(f"{config}: `off` in sysfs: the kiosk hears the hotplug and stops presenting", disconnected and "disconnected" in state,
                  f"status {state.strip()!r}, {frames_at_unplug} frames presented so far")
    # The page change due at 12 s happens while the display is away.
    deadline = time.monotonic() + 2 * HOTPLUG_INTERVAL + 10
    while guest.count_in_log(log, "page changed") == changes_at_unplug and time.monotonic() < deadline:
        time.sleep(0.5)
    changes_while_away = guest.count_in_log(log, "page changed") - changes_at_unplug
    _, health = guest.run("printf 'GET /healthz HTTP/1.0\\r\\n\\r\\n' | nc -w 10 127.0.0.1 8080 | grep -q '^HTTP/1.1 200' && echo HEALTHY")
    time.sleep(1.0)
    frames_while_away = metric(guest, "vitrine_frames_presented_total")
    away = guest.screendump(f"{name}-away")
    alive, _ = guest.run(f"kill -0 $(cat /tmp/{name}.pid)")
    results.check(f"{config}: while disconnected the kiosk keeps running: its loop answers /healthz and pages on schedule",
                  alive == 0 and "HEALTHY" in health and changes_while_away >= 1,
                  f"alive: {alive == 0}, healthz: {'HEALTHY' in health}, page changes while away: {changes_while_away}")
    worst, mean = away.difference(before)
    results.check(f"{config}: while disconnected nothing is presented: the frame counter and the screen hold still",
                  frames_at_unplug is not None and frames_while_away == frames_at_unplug and worst == 0,
                  f"frames presented {frames_at_unplug} -> {frames_while_away} across {changes_while_away} page change(s); "
                  f"screen vs before the unplug: max {worst}, mean {mean:.3f}")

    plug("detect")
    replugged = logged(guest, log, "is connected: mode set again", 30)
    time.sleep(1.0)
    changes = guest.count_in_log(log, "page changed")
    shown = guest.screendump(f"{name}-after")
    changes_after = guest.count_in_log(log, "page changed")
    frames_after = metric(guest, "vitrine_frames_presented_total")
    _, text = guest.run(f"grep -E 'disconnected|mode set again|cannot' {log}")
    # Which interface set the mode again: the one the kiosk started with.
    interface = "legacy" if "legacy" in config else "atomic"
    _, started = guest.run(f"grep 'kiosk started' {log}")
    # The slide on screen is the one the page changes so far lead to; it rests
    # for the whole interval, so the middle of its rest is the same frame.
    expected = host_render(args.vitrine, os.path.join(mirror, config), HOTPLUG_INTERVAL * changes + HOTPLUG_INTERVAL / 2,
                           f"{shown.width}x{shown.height}", work, f"{name}-render")
    worst, mean = shown.difference(expected)
    results.check(f"{config}: `detect` in sysfs: the mode is set again and the screen matches `vitrine render` of that instant",
                  replugged and changes == changes_after and (shown.width, shown.height) == (before.width, before.height)
                  and worst <= MAX_CHANNEL_DIFFERENCE and mean <= MAX_MEAN_DIFFERENCE
                  and frames_after is not None and frames_while_away is not None and frames_after > frames_while_away
                  and f" {interface}" in started,
                  f"{interface}; slide {changes % 2} after {changes} page change(s) at {size}: max {worst}, mean {mean:.3f}; "
                  f"frames presented {frames_while_away} -> {frames_after}; log: {' | '.join(l.strip()[-110:] for l in text.splitlines()[-3:])}")
    guest.stop_kiosk(f"/tmp/{name}.pid")
    guest.run("kill $(cat /tmp/uevent.pid); rm -f /tmp/uevent.pid")
    _, uevents = guest.run("cat /tmp/uevents.txt")
    print(f"  [{results.label}] DRM uevents seen in the guest: " + " | ".join(l.strip() for l in uevents.splitlines() if l.strip()), flush=True)


def crtc_states(guest):
    """(enable, active) of every CRTC, from the DRM core's atomic state in
    debugfs: what the kernel drives, whichever interface set it."""
    guest.run("mountpoint -q /sys/kernel/debug || mount -t debugfs none /sys/kernel/debug")
    _, output = guest.run("grep -E '^crtc|enable=|active=' /sys/kernel/debug/dri/0/state")
    states, current = [], None
    for line in output.splitlines():
        line = line.strip()
        if line.startswith("crtc"):
            current = {}
            states.append(current)
        elif current is not None and "=" in line:
            key, value = line.split("=", 1)
            if key in ("enable", "active"):
                current[key] = value.strip()
    return [(state.get("enable"), state.get("active")) for state in states]


def api_request(guest, state_dir, method, path, body=None):
    """(status code, parsed JSON body or None) of a request with the kiosk's token, over the guest's loopback."""
    payload = body or ""
    request = (f"printf '{method} {path} HTTP/1.0\\r\\nAuthorization: Bearer %s\\r\\nContent-Type: application/json\\r\\n"
               f"Content-Length: {len(payload)}\\r\\n\\r\\n%s' \"$(cat {state_dir}/api-token)\" '{payload}' | nc -w 5 127.0.0.1 8080")
    _, output = guest.run(request)
    status = re.search(r"HTTP/1\.\d (\d{3})", output)
    # The serial console turns each \n into \r\n: the body is what follows the
    # first line that starts a JSON object (the echoed command starts with printf).
    lines = [line.strip() for line in output.splitlines()]
    start = next((i for i, line in enumerate(lines) if line.startswith("{")), None)
    try:
        document = json.loads("".join(lines[start:])) if start is not None else None
    except ValueError:
        document = None
    return (int(status.group(1)) if status else None), document


def api_put(guest, state_dir, path, body):
    """PUT with the kiosk's generated token over the guest's loopback; the status line."""
    _, output = guest.run(f"printf 'PUT {path} HTTP/1.0\\r\\nAuthorization: Bearer %s\\r\\nContent-Type: application/json\\r\\n"
                          f"Content-Length: {len(body)}\\r\\n\\r\\n%s' \"$(cat {state_dir}/api-token)\" '{body}' | nc -w 5 127.0.0.1 8080 | head -1")
    return output.strip()


def power_checks(guest, results, args, mirror, work, config="power.yaml"):
    """The screen switched off and on through the API. Off: the CRTC is enabled
    (mode kept) but inactive, and the frame counter stops. On: the CRTC is
    active again and the screen shows what `vitrine render` shows; rotation
    was held while the screen was dark, so that is still the first slide."""
    name = config[:-len(".yaml")]
    log, state_dir = f"/tmp/{name}.log", f"/tmp/{name}-state"
    guest.run("ip link set lo up")
    guest.run(f"vitrine run --config /vm/{config} --state-dir {state_dir} > {log} 2>&1 & echo $! > /tmp/{name}.pid")
    guest.wait_for_log(log, "first frame on screen")
    deadline = time.monotonic() + 30
    while metric(guest, "vitrine_frames_presented_total") is None and time.monotonic() < deadline:
        time.sleep(0.5)
    lit_before = crtc_states(guest)
    answer = api_put(guest, state_dir, "/api/v1/power", '{"state": "off"}')
    off = logged(guest, log, "display off", 20)
    frames_off = metric(guest, "vitrine_frames_presented_total")
    dark = crtc_states(guest)
    time.sleep(3.0)
    frames_later = metric(guest, "vitrine_frames_presented_total")
    screen_metric = metric(guest, "vitrine_screen_on")
    interface = "legacy" if "legacy" in config else "atomic"
    _, started = guest.run(f"grep 'kiosk started' {log}")
    results.check(f"{config}: PUT /api/v1/power off: the CRTC keeps its mode but goes inactive, and nothing is presented",
                  answer.startswith("HTTP/1.1 202") and off and ("1", "1") in lit_before and ("1", "0") in dark
                  and ("1", "1") not in dark and frames_off is not None and frames_later == frames_off and screen_metric == 0
                  and f" {interface}" in started,
                  f"{interface}; {answer!r}; CRTCs (enable, active) before {lit_before}, off {dark}; "
                  f"frames presented {frames_off} -> {frames_later} over 3 s; vitrine_screen_on {screen_metric}")
    answer = api_put(guest, state_dir, "/api/v1/power", '{"state": "on"}')
    on = logged(guest, log, "display on", 20)
    time.sleep(1.0)
    lit_again = crtc_states(guest)
    frames_on = metric(guest, "vitrine_frames_presented_total")
    shown = guest.screendump(f"{name}-on")
    changes = guest.count_in_log(log, "page changed")
    expected = host_render(args.vitrine, os.path.join(mirror, config), 6, f"{shown.width}x{shown.height}", work, f"{name}-render")
    worst, mean = shown.difference(expected)
    results.check(f"{config}: PUT /api/v1/power on: the CRTC is active again and the screen matches `vitrine render`",
                  answer.startswith("HTTP/1.1 202") and on and ("1", "1") in lit_again and changes == 0
                  and frames_on is not None and frames_later is not None and frames_on > frames_later
                  and worst <= MAX_CHANNEL_DIFFERENCE and mean <= MAX_MEAN_DIFFERENCE,
                  f"{answer!r}; CRTCs {lit_again}; frames presented {frames_later} -> {frames_on}; page changes {changes}; "
                  f"screen vs the render of slide 0: max {worst}, mean {mean:.3f}")
    guest.stop_kiosk(f"/tmp/{name}.pid")


def run_suite(args):
    work = os.path.abspath(args.work)
    os.makedirs(work, exist_ok=True)
    # The host mirror of the guest's /vm, so that `vitrine render` resolves the same paths.
    mirror = os.path.join(work, "vm")
    shutil.rmtree(mirror, ignore_errors=True)
    shutil.copytree(os.path.join(HERE, "configs"), mirror)
    shutil.copytree(os.path.join(REPO, "deploy", "demo"), os.path.join(mirror, "demo"))
    shutil.copytree(os.path.join(HERE, "content"), os.path.join(mirror, "content"))

    results = Results(args.gpu)
    guest = Guest(args.gpu, args.kernel, args.initrd, work)
    try:
        results.check("boots with a DRM card", True, f"{guest.boot_seconds:.1f} s to the shell")
        if args.only:
            # Development: only the named groups of checks, in this boot (not used by make vm-test).
            import importlib
            for group in args.only.split(","):
                module = importlib.import_module(f"{group}_checks")
                getattr(module, f"{group}_checks")(guest, results, args, mirror, work)
            return results
        status, listing = guest.run("vitrine displays")
        results.check("vitrine displays lists a connected connector and its modes",
                      status == 0 and " connected" in listing and "modes:" in listing, listing.strip().replace("\n", " | ")[:200])

        # Something recognisable on the console, to prove it comes back after SIGTERM.
        guest.run("printf '\\033[2J\\033[HVITRINE CONSOLE MARKER\\n\\n' > /dev/tty1")
        time.sleep(1.0)
        console = guest.screendump("console-before")
        results.check("the console shows text before the kiosk starts", console.distinct_colours() >= 2)

        status, output = guest.run("vitrine run --config /vm/badmode.yaml 2>&1")
        results.check("an unavailable mode is refused and the available ones listed",
                      status == 1 and "mode 1234x567 is not available; available modes:" in output, output.strip()[-200:])

        # The first slide, still, at a requested mode.
        guest.run("vitrine run --config /vm/static.yaml > /tmp/static.log 2>&1 & echo $! > /tmp/static.pid")
        guest.wait_for_log("/tmp/static.log", "first frame on screen")
        time.sleep(0.5)
        shown = guest.screendump("static")
        results.check("the requested mode 800x600 is the mode on screen", (shown.width, shown.height) == (800, 600),
                      f"screendump is {shown.width}x{shown.height}")
        expected = host_render(args.vitrine, os.path.join(mirror, "static.yaml"), 1.0, "800x600", work, "static-render")
        worst, mean = shown.difference(expected)
        results.check("the screen matches `vitrine render` of the same frame",
                      worst <= MAX_CHANNEL_DIFFERENCE and mean <= MAX_MEAN_DIFFERENCE,
                      f"max channel difference {worst}, mean {mean:.3f}")

        status, output = guest.run("vitrine run --config /vm/static.yaml 2>&1")
        results.check("a second kiosk is refused while the first is DRM master",
                      status == 1 and "another process is DRM master" in output, output.strip()[-160:])

        guest.stop_kiosk("/tmp/static.pid")
        _, log = guest.run("cat /tmp/static.log")
        time.sleep(1.0)
        after = guest.screendump("console-after")
        worst, mean = after.difference(console)
        results.check("after SIGTERM the console is back as it was", worst == 0 or mean < 0.01,
                      f"max channel difference {worst}, mean {mean:.4f}")
        results.check("SIGTERM is logged and the kiosk stops cleanly", "stopping signal=SIGTERM" in log, log.strip()[-160:])

        status, output = guest.run(
            "chgrp video /dev/dri/card0 && chmod 660 /dev/dri/card0 && "
            "su -s /bin/sh nobody -c 'vitrine run --config /vm/static.yaml --state-dir /tmp/nobody-state' 2>&1")
        results.check("permission denied names the device and the group to join",
                      status == 1 and "/dev/dri/card0: permission denied; add the kiosk's user to the 'video' group" in output,
                      output.strip()[-200:])

        # The demo playlist rotating at the preferred mode: each slide, once it
        # rests, matches the render of that slide resting.
        guest.run("vitrine run --config /vm/rotate.yaml > /tmp/rotate.log 2>&1 & echo $! > /tmp/rotate.pid")
        guest.wait_for_log("/tmp/rotate.log", "first frame on screen")
        matches = []
        for slide in (0, 1, 2):
            if slide > 0:
                deadline = time.monotonic() + 60
                while guest.count_in_log("/tmp/rotate.log", f"to={slide}") == 0 and time.monotonic() < deadline:
                    time.sleep(0.3)
            time.sleep(1.0)
            image = guest.screendump(f"rotate-{slide}")
            # Slide k rests from 3k + 0.4 s to 3k + 3 s in the render's timeline.
            expected = host_render(args.vitrine, os.path.join(mirror, "rotate.yaml"), 3 * slide + 1.5,
                                   f"{image.width}x{image.height}", work, f"rotate-render-{slide}")
            matches.append((slide,) + image.difference(expected))
        guest.stop_kiosk("/tmp/rotate.pid")
        results.check("the rotating demo playlist matches the renders slide by slide (preferred mode)",
                      all(w <= MAX_CHANNEL_DIFFERENCE and m <= MAX_MEAN_DIFFERENCE for _, w, m in matches),
                      ", ".join(f"slide {s}: max {w} mean {m:.3f}" for s, w, m in matches))

        from animation_checks import animation_checks
        animation_checks(guest, results, args, mirror, work)

        if args.gpu == "bochs":
            touch_checks(guest, results, args, mirror, work)
        tear_check(guest, results, "tear.yaml", "tear")
        tear_check(guest, results, "legacy.yaml", "legacy", dumps=20)
        _, log = guest.run("cat /tmp/legacy.log")
        results.check("the legacy interface was used where asked for", " legacy" in log, log.strip()[:200])
        # A Ken Burns slide at rest: frames at every refresh, steadily, and a moving picture.
        from kenburns_checks import kenburns_checks
        kenburns_checks(guest, results, args, mirror, work)
        hotplug_checks(guest, results, args, mirror, work)
        power_checks(guest, results, args, mirror, work)
        if args.gpu == "virtio":
            power_checks(guest, results, args, mirror, work, "power-legacy.yaml")
            # The replug's modeset through drmModeSetCrtc too (on the boot without the touch checks).
            hotplug_checks(guest, results, args, mirror, work, "hotplug-legacy.yaml")
        if args.gpu == "virtio":
            # HDMI-CEC does not depend on the GPU: once, in the boot without the touch checks.
            from cec_checks import cec_checks
            cec_checks(guest, results, args, mirror, work)
            from outputs_checks import outputs_checks
            outputs_checks(guest, results, args, mirror, work)
            # Planes on VKMS, a card of its own loaded for these checks and unloaded after.
            from planes_checks import planes_checks
            planes_checks(guest, results, args, mirror, work)
        # Last: it sets the guest's wall clock.
        from schedule_checks import schedule_checks
        schedule_checks(guest, results, args, mirror, work)
    finally:
        if guest.shell_restarts:
            print(f"NOTE the guest's shell ended and was started again {guest.shell_restarts} time(s) "
                  f"(serial-{args.gpu}.log has where)", flush=True)
        guest.stop()
    return results


def main():
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--gpu", choices=["bochs", "virtio"], required=True)
    parser.add_argument("--kernel", required=True)
    parser.add_argument("--initrd", required=True)
    parser.add_argument("--vitrine", required=True, help="the host's vitrine binary, for the reference renders")
    parser.add_argument("--work", required=True)
    parser.add_argument("--only", help="comma-separated groups of checks from Tests/VM/NAME_checks.py, e.g. schedule")
    args = parser.parse_args()
    results = run_suite(args)
    print(f"vm-{args.gpu}: {results.passed} passed, {results.failed} failed", flush=True)
    sys.exit(1 if results.failed else 0)


if __name__ == "__main__":
    main()
