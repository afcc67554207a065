#!/usr/bin/env python3
"""Boot-to-kiosk on arm64: boots the trixie arm64 image of build-arm64-image.sh
in qemu-system-aarch64 (-M virt, TCG) with virtio-gpu-pci and a virtio tablet,
on Debian's own arm64 kernel, and proves the appliance through QMP screendumps.

    arm64imagetest.py --image DIR --vitrine REFERENCE --config CONFIG --pushed PUSHED --token TOKEN --work DIR

DIR holds disk.img, vmlinuz/initrd.img (linux-image-arm64, 4K pages) and
vmlinuz-16k/initrd-16k.img (linux-image-arm64-16k). REFERENCE is the vitrine
that renders the expected pictures on this machine: the package's own arm64
binary run through qemu-aarch64-static (run-arm64-image-test.sh makes that
wrapper), so the screen is compared with the very code the image runs.

This is Tests/Image/imagetest.py's machinery (its boot checks, screendump
polling and HTTP helper, and Tests/VM/vmtest.py's QMP, serial console and
tablet), imported, not copied; only the QEMU command line differs. The checks:

  4K kernel, -cpu cortex-a72 (a Raspberry Pi 4's core):
    the first slide with no login, under the shipped unit, equal to `vitrine render`;
    the watchdog is pinged; a tablet swipe pages to the second slide;
    PUT /api/v1/config shows the pushed playlist; HDMI-CEC (vivid's adapters,
    cec-follower as the TV) follows PUT /api/v1/power; kill -9 brings the picture
    back; a hung (SIGSTOPped) kiosk is killed by the watchdog and restarted.
  16K kernel, -cpu max (a Raspberry Pi 5 runs 16K pages), a fresh copy of the
  same image: the same first frame, and the page size is 16384; then two heads
  (the second waiting for its display until it is plugged in)
  at once (virtio-gpu's max_outputs=2), each its own loop on a DRM lease, each
  equal to `vitrine render --output`, the first paging on time while the
  second is unplugged and plugged back, a canvas spanned across both with
  its bezel skipped, and a mirror (Tests/VM/outputs_checks.py).
Writes WORK/measurements.json.
"""
import base64
import os
import re
import shutil
import subprocess
import sys
import time

HERE = os.path.dirname(os.path.abspath(__file__))
REPO = os.path.abspath(os.path.join(HERE, "..", ".."))
sys.path.insert(0, os.path.join(REPO, "Tests", "Image"))
sys.path.insert(0, os.path.join(REPO, "Tests", "VM"))
sys.dont_write_bytecode = True  # no __pycache__ left in Tests/Image or Tests/VM
import imagetest  # noqa: E402
from imagetest import (boot_checks, cec_checks, free_port, http, overlay_disk, restart_checks, save_journal,  # noqa: E402
                       wait_for_picture, write_measurements)
from vmtest import QMP, SECOND_TABLET, Results, host_render, tablet  # noqa: E402
from outputs_checks import (STATUS, connector_status, mirror_checks, two_heads_checks, waiting_checks,  # noqa: E402
                            wall_checks, virtio_tablets_checks)

SIZE = imagetest.SIZE


class Arm64Guest(imagetest.ImageGuest):
    """The image on QEMU's virt machine; everything but the command line is ImageGuest's."""

    def __init__(self, image, disk, work, port, flavour="", cpu="cortex-a72"):
        self.work = work
        self.qmp_path = os.path.join(work, f"qmp{flavour}.sock")
        command = [
            "qemu-system-aarch64", "-machine", "virt", "-cpu", cpu, "-accel", "tcg", "-m", "1024", "-smp", "2",
            "-kernel", os.path.join(image, f"vmlinuz{flavour}"), "-initrd", os.path.join(image, f"initrd{flavour}.img"),
            # ttyAMA0: the virt machine's PL011 UART, which -serial stdio is.
            "-append", "root=/dev/vda rw console=ttyAMA0",
            "-drive", f"file={disk},format=qcow2,if=none,id=root", "-device", "virtio-blk-pci,drive=root",
            "-netdev", f"user,id=net0,hostfwd=tcp:127.0.0.1:{port}-:8080", "-device", "virtio-net-pci,netdev=net0",
            # Two heads, as a Raspberry Pi's two HDMI ports: the kiosk's own service
            # drives the first; the two-head checks drive both.
            "-device", "virtio-gpu-pci,max_outputs=2,id=gpu0", "-device", "virtio-tablet-pci", "-device", SECOND_TABLET,
            "-display", "none", "-monitor", "none", "-serial", "stdio",
            "-qmp", f"unix:{self.qmp_path},server=on,wait=off",
        ]
        self.started = time.monotonic()
        self.process = subprocess.Popen(command, stdin=subprocess.PIPE, stdout=subprocess.PIPE, stderr=subprocess.STDOUT)
        self.output = b""
        self.transcript = open(os.path.join(work, f"serial{flavour}.log"), "ab")
        self.qmp = QMP(self.qmp_path)


def kernel_facts(guest, results, measurements, label, page_size):
    _, facts = guest.run("echo $(uname -m) $(uname -r) $(getconf PAGESIZE)")
    words = facts.split()
    measurements[f"{label}_kernel"] = facts.strip()
    results.check(f"{label}: Debian's arm64 kernel with {page_size // 1024}K pages",
                  len(words) >= 3 and words[-3] == "aarch64" and words[-1] == str(page_size), facts.strip())


def swipe_left(guest):
    """Press at 75 % of the width, move to 25 % over about 300 ms, release (as Tests/VM/vmtest.py's touch check)."""
    tablet(guest, 0.75, 0.5, button=True)
    for step in range(1, 16):
        tablet(guest, 0.75 - step * 0.5 / 15, 0.5)
        time.sleep(0.02)
    tablet(guest, 0.25, 0.5, button=False)


def two_heads(guest, results, args, mirror, work):
    """The amd64 VM's two-head checks (Tests/VM/outputs_checks.py) on arm64:
    the shipped service stopped, Virtual-2 forced on, and outputs-two.yaml
    (its slide paths made the image's) run by hand as root, so that each head
    has its own display loop on a DRM lease of its own."""
    guest.run("systemctl stop vitrine.service")
    for name in ("outputs-two.yaml", "outputs-wall.yaml", "outputs-mirror.yaml"):
        with open(os.path.join(REPO, "Tests", "VM", "configs", name)) as f:
            text = f.read().replace("demo/images/", "images/")
        with open(os.path.join(mirror, name), "w") as f:
            f.write(text)
        encoded = base64.b64encode(text.encode()).decode()
        guest.run(f"echo {encoded} | base64 -d > /etc/vitrine/{name}")
    try:
        # QEMU lights only the first head: Virtual-2 waits until it is forced on.
        if connector_status(guest) == "disconnected":
            waiting_checks(guest, results, args.vitrine, os.path.join(mirror, "outputs-two.yaml"),
                           "/etc/vitrine/outputs-two.yaml", work)
        guest.run(f"echo on > {STATUS}")
        # Under TCG on a shared host a loop's wakeup may come late; the amd64 VM holds 0.25 s.
        two_heads_checks(guest, results, args.vitrine, os.path.join(mirror, "outputs-two.yaml"),
                         "/etc/vitrine/outputs-two.yaml", work, tolerance=0.5)
        wall_checks(guest, results, args.vitrine, os.path.join(mirror, "outputs-wall.yaml"), "/etc/vitrine/outputs-wall.yaml", work)
        mirror_checks(guest, results, args.vitrine, os.path.join(mirror, "outputs-mirror.yaml"),
                      "/etc/vitrine/outputs-mirror.yaml", work)
        virtio_tablets_checks(guest, results, "/etc/vitrine")
    finally:
        guest.run(f"echo detect > {STATUS}")


def run_suite(args):
    work = os.path.abspath(args.work)
    shutil.rmtree(work, ignore_errors=True)
    os.makedirs(work)
    # The host mirror of the guest's /etc/vitrine, so that relative slide paths resolve alike.
    mirror = os.path.join(work, "etc-vitrine")
    shutil.copytree(os.path.join(REPO, "deploy", "demo", "images"), os.path.join(mirror, "images"))
    shutil.copy(args.config, os.path.join(mirror, "vitrine.yaml"))
    shutil.copy(args.pushed, os.path.join(mirror, "pushed.json"))
    # The second slide as a swipe leaves it: the same configuration advancing by
    # itself, rendered after its first interval and transition (the kiosk's own
    # has autoplay off, so that the screen holds still for the comparisons).
    with open(args.config) as f:
        text = f.read()
    if not re.search(r"^autoplay: false$", text, re.M):
        sys.exit(f"{args.config}: expected 'autoplay: false' (the test holds the first slide)")
    with open(os.path.join(mirror, "advancing.yaml"), "w") as f:
        f.write(re.sub(r"^autoplay: false$", "autoplay: true\ninterval: 10s", text, flags=re.M))
    renders = time.monotonic()
    first = host_render(args.vitrine, os.path.join(mirror, "vitrine.yaml"), 1.0, SIZE, work, "render-config")
    second = host_render(args.vitrine, os.path.join(mirror, "advancing.yaml"), 15.0, SIZE, work, "render-second")
    pushed = host_render(args.vitrine, os.path.join(mirror, "pushed.json"), 1.0, SIZE, work, "render-pushed")
    print(f"reference renders (arm64 vitrine under qemu-user): {time.monotonic() - renders:.1f} s", flush=True)
    results = Results("arm64")
    results.check("the reference slides differ (the swipe and the push are visible)",
                  first.difference(second)[0] > 64 and first.difference(pushed)[0] > 64)

    pristine = os.path.join(args.image, "disk.img")
    disk = os.path.join(work, "disk.qcow2")
    overlay_disk(pristine, disk)
    port = free_port()
    base = f"http://127.0.0.1:{port}"
    measurements = {}

    # --- linux-image-arm64 (4K pages) on a Cortex-A72 ---------------------------
    guest = Arm64Guest(args.image, disk, work, port)
    try:
        boot_checks(guest, results, measurements, "boot", first, "the image's configuration")
        kernel_facts(guest, results, measurements, "boot", 4096)
        _, watchdog = guest.run("systemctl show -p WatchdogTimestampMonotonic --value vitrine.service; "
                                "sleep 11; systemctl show -p WatchdogTimestampMonotonic --value vitrine.service")
        stamps = [int(s) for s in re.findall(r"^\d+$", watchdog, re.M)]
        results.check("the watchdog is being pinged (WatchdogTimestamp moves on)",
                      len(stamps) == 2 and stamps[1] > stamps[0] > 0, f"{stamps}")

        # A swipe on the virtio tablet (QMP input-send-event) pages, under the shipped unit.
        swiped_at = time.monotonic()
        swipe_left(guest)
        seconds, (worst, mean) = wait_for_picture(guest, second, 60, "swiped", since=swiped_at)
        _, paged = guest.run("journalctl -b --no-pager -o cat -u vitrine.service | grep 'page changed' | grep 'cause=swipe' | tail -1")
        measurements["swipe_to_picture_s"] = round(seconds, 2) if seconds else None
        results.check("a tablet swipe pages to the second slide, equal to `vitrine render` of it",
                      seconds is not None and "from=0" in paged and "to=1" in paged,
                      f"{seconds and round(seconds, 1)} s after the swipe; max {worst}, mean {mean:.3f}; journal: {paged.strip()[:160]}")

        # The video helper built against trixie's FFmpeg 7.1: a clip uploaded, played at its pace, logged.
        # After the swipe, which expects the image's own playlist; the push below replaces the video's.
        imagetest.video_checks(guest, results, measurements, base, args.token, work)

        # A configuration pushed through the API shows.
        deadline, status = time.monotonic() + 60, None
        while time.monotonic() < deadline:
            try:
                if http("GET", base + "/healthz")[0] == 200:
                    break
            except OSError:
                pass
            time.sleep(1)
        with open(args.pushed, "rb") as f:
            body = f.read()
        put_started = time.monotonic()
        try:
            status, answer = http("PUT", base + "/api/v1/config", args.token, body, timeout=60)
        except OSError as error:
            status, answer = None, str(error)
        measurements["put_config_s"] = round(time.monotonic() - put_started, 2)
        results.check("PUT /api/v1/config through the host port forward is accepted", status == 200,
                      f"HTTP {status} after {measurements['put_config_s']} s: {answer.strip()[:200]}")
        seconds, (worst, mean) = (None, (255, 255.0)) if status != 200 else wait_for_picture(guest, pushed, 60, "pushed")
        pushed_shown = results.check("the pushed playlist is on screen", seconds is not None,
                                     f"{seconds and round(seconds, 1)} s after the PUT; max {worst}, mean {mean:.3f}")
        expected = pushed if pushed_shown else second

        # HDMI-CEC through the shipped unit: vivid's adapters on Debian's arm64
        # kernel, the TV played by cec-follower (test-tv.service), as on amd64.
        cec_checks(guest, results, measurements, base, args.token, expected)

        # kill -9 and a hung kiosk: systemd brings the picture back (the amd64 test's checks, with longer waits).
        restart_checks(guest, results, measurements, expected, slow=1.5)
        _, warnings = guest.run("journalctl -b --no-pager -u vitrine.service -p warning -o cat")
        print(f"(kiosk warnings and errors this boot, the provoked ones included: {warnings.strip()[:400]!r})", flush=True)
    finally:
        save_journal(guest, work, "journal-vitrine.txt")
        guest.stop()

    # --- linux-image-arm64-16k (16K pages) on -cpu max, a fresh overlay on the image ---
    overlay_disk(pristine, disk)
    # pauth-impdef: QEMU emulates pointer authentication (which Debian's kernels use)
    # with its own cheap hash instead of QARMA, which costs a TCG boot minutes.
    guest = Arm64Guest(args.image, disk, work, port, flavour="-16k", cpu="max,pauth-impdef=on")
    try:
        boot_checks(guest, results, measurements, "boot-16k", first, "the image's configuration")
        kernel_facts(guest, results, measurements, "boot-16k", 16384)
        two_heads(guest, results, args, mirror, work)
    finally:
        save_journal(guest, work, "journal-vitrine-16k.txt")
        guest.stop()

    write_measurements(work, measurements)
    return results


if __name__ == "__main__":
    imagetest.main(run_suite, "arm64 image", __doc__)
