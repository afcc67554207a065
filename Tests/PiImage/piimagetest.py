#!/usr/bin/env python3
"""The Raspberry Pi image of deploy/pi-image/build-pi-image.sh, booted as a
card would be: the kernel, initramfs, command line and (on the Pi model) the
device tree are taken from the image's own FAT partition, and the whole image
is the disk.

    piimagetest.py --image IMG --work DIR [--repo DIR --next-version V] [--skip-raspi]

1. QEMU's virt machine (-cpu cortex-a72, a Pi 4's core), the card as a virtio
   disk grown to 4 GiB, virtio-gpu and a user network, with setup files on the
   card's boot partition (an API token and a time zone) as someone would copy
   them from any computer. A root shell for the checks comes from systemd's
   debug shell on a virtio console (test only: the kernel command line of
   this test turns it on; the image has no login). Checked: the read-only
   root, the data partition with /etc's overlay, /var and /home on it and
   grown to the card; the card's files taken (the token off the card); the
   kiosk on screen with its address; the API with the card's token; Debian's
   security updates and Vitrine's source; dpkg writing to the read-only root
   through the remount, and the root read-only again after it; after a
   reboot, the same machine-id, the token and the time zone. With --repo (the
   signed repository the image was made from, holding a later version too),
   served by nginx on the host: the board upgrades to the later version over
   HTTP on its read-only root, and the kiosk restarts on it with its state.
2. QEMU's Raspberry Pi 3 model (-M raspi3b), the same card as its SD card:
   the image's kernel, initramfs and bcm2837-rpi-3-b.dtb, and cmdline.txt.
   QEMU runs no Pi firmware (config.txt is not read) and has no HVS, so the
   kiosk runs headless: the checks read the serial consoles' log.
"""
import argparse
import json
import os
import re
import shutil
import subprocess
import sys
import time
import urllib.request

HERE = os.path.dirname(os.path.abspath(__file__))
REPO = os.path.abspath(os.path.join(HERE, "..", ".."))
sys.path.insert(0, os.path.join(REPO, "Tests", "VM"))
sys.path.insert(0, os.path.join(REPO, "Tests", "Image"))
sys.dont_write_bytecode = True
import vmtest  # noqa: E402
from vmtest import QMP, Results  # noqa: E402
from imagetest import free_port, http, served_repository  # noqa: E402

TOKEN = "pi-image-test-token-5f1c3a9e"
ZONE = "Europe/Berlin"
CARD_BYTES = 4 << 30


def mtools(*arguments, card, offset):
    return subprocess.run([arguments[0], "-i", f"{card}@@{offset}", *arguments[1:]],
                          check=True, capture_output=True, text=True).stdout


def partitions(card):
    """(start byte, size byte) of each partition, from sfdisk's JSON."""
    table = json.loads(subprocess.run(["sfdisk", "--json", card], check=True, capture_output=True, text=True).stdout)
    sector = table["partitiontable"].get("sectorsize", 512)
    return [(p["start"] * sector, p["size"] * sector) for p in table["partitiontable"]["partitions"]], table


class PiGuest(vmtest.Guest):
    """The card on QEMU's virt machine; the shell is systemd's debug shell on hvc0."""

    def __init__(self, boot, card, work, port, cmdline, name):
        self.work = work
        self.qmp_path = os.path.join(work, f"qmp-{name}.sock")
        command = [
            "qemu-system-aarch64", "-machine", "virt", "-cpu", "cortex-a72", "-accel", "tcg", "-m", "1024", "-smp", "2",
            "-kernel", boot["kernel"], "-initrd", boot["initrd"],
            # The card's own command line; the console and the debug shell are the test's
            # (systemd's getty generator would put a login prompt on hvc0 over the shell).
            "-append", f"{cmdline} console=ttyAMA0 systemd.debug_shell=hvc0 systemd.mask=serial-getty@hvc0.service",
            "-drive", f"file={card},format=raw,if=none,id=card", "-device", "virtio-blk-pci,drive=card",
            "-netdev", f"user,id=net0,hostfwd=tcp:127.0.0.1:{port}-:8080", "-device", "virtio-net-pci,netdev=net0",
            "-device", "virtio-gpu-pci", "-display", "none", "-monitor", "none",
            "-serial", f"file:{os.path.join(work, f'console-{name}.log')}",
            "-device", "virtio-serial-pci", "-chardev", "stdio,id=shell", "-device", "virtconsole,chardev=shell",
            "-qmp", f"unix:{self.qmp_path},server=on,wait=off",
        ]
        self.started = time.monotonic()
        self.process = subprocess.Popen(command, stdin=subprocess.PIPE, stdout=subprocess.PIPE, stderr=subprocess.STDOUT)
        self.output = b""
        self.shell_restarts = 0
        self.transcript = open(os.path.join(work, f"shell-{name}.log"), "ab")
        self.qmp = QMP(self.qmp_path)

    def login(self, timeout=600):
        """Waits for the debug shell's prompt, then makes it quiet."""
        deadline = time.monotonic() + timeout
        while True:
            try:
                self.wait_for(rb"# $", 5)
                break
            except TimeoutError:
                if time.monotonic() > deadline:
                    raise
                self.process.stdin.write(b"\n")
                self.process.stdin.flush()
        self.run("stty -echo; PS1=''; export SYSTEMD_PAGER= SYSTEMD_COLORS=0 TERM=dumb")

    def value(self, command):
        _, output = self.run(command)
        lines = output.replace("\r", "").strip().splitlines()
        return lines[-1].strip() if lines else ""

    def wait_until(self, command, timeout, interval=1.0):
        deadline = time.monotonic() + timeout
        while time.monotonic() < deadline:
            status, output = self.run(command)
            if status == 0:
                return True, output
            time.sleep(interval)
        return False, output

    def power_off(self, timeout=180):
        self.process.stdin.write(b"systemctl poweroff\n")
        self.process.stdin.flush()
        try:
            self.process.wait(timeout)
        except subprocess.TimeoutExpired:
            self.process.kill()
            self.process.wait()
            return False
        return True


def api_status(base, timeout):
    """GET /api/v1/status with the card's token every 2 s until it answers 200 or
    `timeout` seconds pass: the last status, or the error that stood for it."""
    code = 0
    deadline = time.monotonic() + timeout
    while time.monotonic() < deadline:
        try:
            code, _ = http("GET", f"{base}/api/v1/status", token=TOKEN)
        except Exception as error:  # noqa: BLE001
            code = str(error)
        if code == 200:
            break
        time.sleep(2)
    return code


def boot_files(card, work, start):
    """The kernel, initramfs, device tree and the two text files, copied off the FAT partition."""
    boot = os.path.join(work, "boot")
    shutil.rmtree(boot, ignore_errors=True)
    os.makedirs(boot)
    names = mtools("mdir", "-b", "::/", card=card, offset=start).split()
    names = [n.lstrip(":").lstrip("/") for n in names]
    files = {}
    for key, pattern in (("kernel", r"vmlinuz-.*-arm64$"), ("initrd", r"initrd\.img-.*-arm64$"),
                         ("dtb", r"bcm2837-rpi-3-b\.dtb$"), ("config", r"config\.txt$"), ("cmdline", r"cmdline\.txt$")):
        found = sorted(n for n in names if re.search(pattern, n))
        if not found:
            raise RuntimeError(f"no {pattern} on the card's boot partition (it has {' '.join(names)})")
        files[key] = os.path.join(boot, found[-1])
        mtools("mcopy", f"::/{found[-1]}", files[key], card=card, offset=start)
    return files, names


def run_suite(args):
    results = Results("pi-image")
    measurements = {}
    work = os.path.abspath(args.work)
    os.makedirs(work, exist_ok=True)
    card = os.path.join(work, "card.img")
    size = os.path.getsize(args.image)
    results.check("the image's size is a power of two (QEMU's SD card model needs one)", size & (size - 1) == 0, f"{size} bytes")
    # The card as a larger SD card holds it: copied (sparse), then grown, as
    # Imager's write leaves the rest of the card to the data partition's growth.
    subprocess.run(["cp", "--sparse=always", args.image, card], check=True)
    os.truncate(card, CARD_BYTES)
    parts, table = partitions(card)
    label_id = table["partitiontable"]["id"].lower().replace("0x", "")
    results.check("an MBR card with three partitions (a Pi 3's boot ROM reads only MBR)",
                  table["partitiontable"]["label"] == "dos" and len(parts) == 3, json.dumps(table["partitiontable"]["label"]))
    boot_start = parts[0][0]
    boot, names = boot_files(card, work, boot_start)
    config = open(boot["config"]).read()
    cmdline = open(boot["cmdline"]).read().strip()
    measurements["cmdline"] = cmdline
    results.check("config.txt boots the 64-bit kernel and its initramfs",
                  "arm_64bit=1" in config and re.search(r"^kernel=vmlinuz-", config, re.M) is not None
                  and re.search(r"^initramfs initrd\.img-", config, re.M) is not None,
                  " / ".join(l for l in config.splitlines() if l and not l.startswith("#")))
    results.check("cmdline.txt: the root by PARTUUID, read-only, the data partition, no console blanking, 256 MiB of CMA",
                  f"root=PARTUUID={label_id}-02" in cmdline and re.search(r"(^| )ro( |$)", cmdline) is not None
                  and f"vitrine.data=PARTUUID={label_id}-03" in cmdline and "consoleblank=0" in cmdline
                  and "cma=256M" in cmdline, cmdline)
    results.check("the firmware and the Pi 3 and 4 device trees are on the boot partition",
                  all(n in names for n in ("start.elf", "start4.elf", "fixup.dat", "bcm2711-rpi-4-b.dtb", "bcm2837-rpi-3-b.dtb", "bcm2711-rpi-400.dtb")),
                  f"{len(names)} files")

    # The setup files, as someone copies them onto the card from any computer.
    for name, text in (("vitrine-token.txt", TOKEN + "\n"), ("vitrine-timezone.txt", ZONE + "\n")):
        path = os.path.join(work, name)
        with open(path, "w") as f:
            f.write(text)
        mtools("mcopy", "-o", path, f"::/{name}", card=card, offset=boot_start)

    port = free_port()
    base = f"http://127.0.0.1:{port}"
    guest = PiGuest(boot, card, work, port, cmdline, "virt")
    try:
        guest.login()
        measurements["virt_login_s"] = round(time.monotonic() - guest.started, 1)
        mounts = guest.run("findmnt -n -o TARGET,SOURCE,FSTYPE,OPTIONS / ; findmnt -n -o TARGET,SOURCE,FSTYPE,OPTIONS /data; "
                           "findmnt -n -o TARGET,SOURCE,FSTYPE /etc; findmnt -n -o TARGET,SOURCE,FSTYPE /var")[1]
        lines = [l.split() for l in mounts.strip().splitlines() if l.strip()]
        by_target = {l[0]: l for l in lines if l}
        root = by_target.get("/", [])
        results.check("/ is the root partition, read-only", len(root) == 4 and root[1] == "/dev/vda2" and "ro" in root[3].split(","), mounts.strip())
        data = by_target.get("/data", [])
        results.check("/data is the data partition, writable", len(data) == 4 and data[1] == "/dev/vda3" and "rw" in data[3].split(","))
        results.check("/etc is an overlay over the image's /etc", by_target.get("/etc", [None, None, None])[2] == "overlay")
        results.check("/var is on the data partition", by_target.get("/var", [None, ""])[1].startswith("/dev/vda3"))
        status, output = guest.run("touch /usr/vitrine-write-test")
        results.check("writing to /usr is refused", status != 0 and "Read-only" in output, output.strip())
        grown, output = guest.wait_until("test -e /data/.grown", 180, interval=3)
        data_mib = int(guest.value("df -BM --output=size /data | tail -1").rstrip("M") or 0)
        measurements["data_mib_after_growth"] = data_mib
        results.check("the data partition grew to the 4 GiB card at the first boot", grown and data_mib > 2048, f"{data_mib} MiB")
        machine_id = guest.value("cat /etc/machine-id")
        results.check("the board made its machine-id, kept on the data partition",
                      re.fullmatch(r"[0-9a-f]{32}", machine_id) is not None
                      and guest.value("cat /data/etc.upper/machine-id") == machine_id, machine_id)

        active, _ = guest.wait_until("systemctl is-active --quiet vitrine.service", 240, interval=2)
        results.check("the kiosk runs under its unit", active, guest.value("systemctl is-active vitrine.service"))
        ordering_checks(guest, results, "the first boot")
        framed, _ = guest.wait_until("journalctl -b -u vitrine --no-pager | grep -q 'first frame'", 120, interval=2)
        results.check("the kiosk drew its first frame on virtio-gpu", framed,
                      guest.value("journalctl -b -u vitrine --no-pager | grep -m1 'first frame' || true"))
        noticed, _ = guest.wait_until("journalctl -b -u vitrine --no-pager | grep -q 'showing on screen: .*http://10.0.2.15:8080/'", 120, interval=2)
        results.check("the starter configuration shows the kiosk's address on screen", noticed,
                      guest.value("journalctl -b -u vitrine --no-pager | grep -m1 'showing on screen' || true"))
        setup = guest.run("journalctl -b -u vitrine-setup --no-pager -o cat")[1]
        results.check("vitrine-setup took the card's token and time zone",
                      "took vitrine-token.txt" in setup and f"set the time zone to {ZONE}" in setup, setup.strip()[-300:])
        results.check("the time zone is the card's", guest.value("readlink /etc/localtime").endswith(ZONE))
        code = 0
        try:
            code, _ = http("GET", f"{base}/api/v1/status", token=TOKEN)
        except Exception as error:  # noqa: BLE001
            code = str(error)
        results.check("the API answers with the card's token", code == 200, str(code))

        sources = guest.run("apt-config dump Unattended-Upgrade::Origins-Pattern; cat /etc/apt/sources.list.d/vitrine.sources; "
                            "grep -h '^deb ' /etc/apt/sources.list 2>/dev/null || true")[1]
        results.check("Debian's security updates and Vitrine's releases are allowed to unattended-upgrades, from their sources",
                      "Debian-Security" in sources and "origin=Vitrine" in sources and "trixie-security" in sources
                      and "Signed-By: /etc/apt/keyrings/vitrine.asc" in sources, sources.strip())
        timers = guest.value("systemctl is-enabled apt-daily-upgrade.timer")
        results.check("apt's daily upgrade timer is enabled", timers == "enabled", timers)

        # dpkg on the read-only root: a package that puts a file in /usr.
        deb = os.path.join(work, "vitrine-ro-probe.deb")
        stage = os.path.join(work, "probe")
        shutil.rmtree(stage, ignore_errors=True)
        os.makedirs(os.path.join(stage, "DEBIAN"))
        os.makedirs(os.path.join(stage, "usr", "share", "vitrine-ro-probe"))
        with open(os.path.join(stage, "usr", "share", "vitrine-ro-probe", "written"), "w") as f:
            f.write("written by dpkg on the read-only root\n")
        with open(os.path.join(stage, "DEBIAN", "control"), "w") as f:
            f.write("Package: vitrine-ro-probe\nVersion: 1\nArchitecture: all\nMaintainer: Vitrine tests <tests@invalid>\n"
                    "Description: the pi image test's probe of the read-only root\n")
        subprocess.run(["dpkg-deb", "--build", "-Zgzip", stage, deb], check=True, capture_output=True)
        import base64
        encoded = base64.b64encode(open(deb, "rb").read()).decode()
        guest.run(f"echo {encoded} | base64 -d > /tmp/probe.deb")
        status, output = guest.run("apt-get install -y -q /tmp/probe.deb 2>&1 | tail -3; "
                                   "test -e /usr/share/vitrine-ro-probe/written", timeout=300)
        after = guest.value("findmnt -n -o OPTIONS /")
        results.check("apt-get installs onto the read-only root, which is read-only again afterwards",
                      status == 0 and "ro" in after.split(","), f"{output.strip()[-200:]} / options after: {after}")

        guest.run("sync")
        guest.process.stdin.write(b"systemctl reboot\n")
        guest.process.stdin.flush()
        guest.output = b""
        guest.started = time.monotonic()
        guest.login()
        measurements["virt_reboot_login_s"] = round(time.monotonic() - guest.started, 1)
        results.check("after a reboot: the same machine-id", guest.value("cat /etc/machine-id") == machine_id)
        # The shutdown before it could not unmount /var (journald holds it); systemd's last
        # stage remounts the data partition read-only instead, which leaves it clean.
        fsck = guest.run("cat /run/vitrine-data-fsck.log")[1].strip()
        results.check("after a reboot: the initramfs's e2fsck found the data partition clean", "clean" in fsck, fsck)
        results.check("after a reboot: the time zone", guest.value("readlink /etc/localtime").endswith(ZONE))
        results.check("after a reboot: the probe's file, and / read-only",
                      guest.run("test -e /usr/share/vitrine-ro-probe/written")[0] == 0
                      and "ro" in guest.value("findmnt -n -o OPTIONS /").split(","))
        active, _ = guest.wait_until("systemctl is-active --quiet vitrine.service", 240, interval=2)
        ordering_checks(guest, results, "the boot after the reboot")
        code = api_status(base, 60) if active else 0
        results.check("after a reboot: the API still takes the card's token (kept in /var/lib/vitrine)", code == 200, str(code))
        if args.repo:
            upgrade_checks(guest, results, args, work, base)
        doctor = guest.run("vitrine doctor --no-decode --state-dir - 2>&1 | sed -n '/^Storage/,/^[A-Z]/p'", timeout=180)[1]
        results.check("vitrine doctor says the root is read-only on purpose", "read-only" in doctor, doctor.strip()[:400])
        results.check("the virt boot left the console clean of failures",
                      "Failed" not in guest.run("systemctl --failed --no-legend --plain")[1], guest.run("systemctl --failed --no-legend --plain")[1].strip())
        results.check("the card's boot partition is mounted writable at /boot/firmware",
                      "rw" in guest.value("findmnt -n -o OPTIONS /boot/firmware").split(","))
        off = guest.power_off()
        results.check("the board powers off cleanly", off)
    finally:
        if guest.process.poll() is None:
            guest.process.kill()
            guest.process.wait()
    names_after = mtools("mdir", "-b", "::/", card=card, offset=boot_start)
    results.check("the token is off the card; the time zone file stays", "vitrine-token.txt" not in names_after
                  and "vitrine-timezone.txt" in names_after)

    if not args.skip_raspi:
        raspi_checks(results, measurements, boot, card, cmdline, work)
    with open(os.path.join(work, "measurements.json"), "w") as f:
        json.dump(measurements, f, indent=2)
    for key, value in measurements.items():
        print(f"MEASURED {key}: {value}", flush=True)
    return results


def ordering_checks(guest, results, boot):
    """No ordering cycle among the units: systemd breaks one by dropping a job of its choice, which
    differs from boot to boot (the card's setup once took dbus.socket, and the network with it)."""
    cycles = guest.run("journalctl -b --no-pager -o cat | grep -E 'ordering cycle|deleted to break' || true")[1].strip()
    _, dbus = guest.run("systemctl is-active dbus.socket NetworkManager.service")
    results.check(f"{boot}: no ordering cycle among the units; D-Bus and NetworkManager run",
                  not cycles and dbus.split() == ["active", "active"],
                  (cycles.replace("\n", " | ")[:600] or "no cycle") + f"; dbus.socket, NetworkManager: {' '.join(dbus.split())}")


def upgrade_checks(guest, results, args, work, base):
    """A trixie board upgrading over HTTP: the image's Vitrine source pointed at the
    repository as nginx serves it on the host (QEMU's user network reaches the host's
    loopback at 10.0.2.2), apt-get update checking its signature with the key the image
    carries, apt-get install of the later version onto the read-only root."""
    with served_repository(args.repo, work, "pi-image") as (origin, _):
        guest.run(f"sed -i 's|^URIs: .*|URIs: http://10.0.2.2:{origin.port}/trixie|' /etc/apt/sources.list.d/vitrine.sources")
        # Only Vitrine's source: the guest has no Internet for Debian's.
        apt = "DEBIAN_FRONTEND=noninteractive apt-get -o Dir::Etc::SourceList=/dev/null -o APT::Get::List-Cleanup=false"
        status, output = guest.run(f"{apt} update 2>&1", 300)
        results.check("apt-get update takes the signed trixie suite over HTTP with the key the image carries",
                      status == 0 and "Err:" not in output and f"10.0.2.2:{origin.port}" in output,
                      output.strip().replace("\n", " | ")[-300:])
        running = guest.value("systemctl show -p MainPID --value vitrine.service")
        status, output = guest.run(f"{apt} install -y -q --no-install-recommends vitrine={args.next_version} 2>&1", 600)
        installed = guest.value("dpkg-query -W -f='${Version}' vitrine")
        options = guest.value("findmnt -n -o OPTIONS /")
        active, _ = guest.wait_until("systemctl is-active --quiet vitrine.service", 120, interval=2)
        now = guest.value("systemctl show -p MainPID --value vitrine.service")
        executable = guest.value(f"readlink /proc/{now}/exe") if now and now != "0" else ""
        code = api_status(base, 90)
        results.check(f"apt-get install vitrine={args.next_version} over HTTP onto the read-only root: installed, the kiosk "
                      "restarted on the new binary with the card's token kept, and / read-only again",
                      status == 0 and installed == args.next_version and active and now not in ("", "0", running)
                      and executable == "/usr/bin/vitrine" and code == 200 and options.split(",")[0] == "ro",
                      f"exit {status}; installed {installed}; PID {running} -> {now} ({executable}); API {code}; / {options}; "
                      + output.strip().replace("\n", " | ")[-200:])


def raspi_checks(results, measurements, boot, card, cmdline, work, timeout=900):
    """The same card in QEMU's Raspberry Pi 3 model: as far as the model reaches."""
    uart0 = os.path.join(work, "raspi-uart0.log")
    uart1 = os.path.join(work, "raspi-uart1.log")
    for path in (uart0, uart1):
        open(path, "w").close()
    command = [
        "qemu-system-aarch64", "-machine", "raspi3b", "-accel", "tcg",
        "-kernel", boot["kernel"], "-initrd", boot["initrd"], "-dtb", boot["dtb"],
        # The card's command line; the kernel's messages to KERN_INFO, and the journal
        # copied to the consoles, so that the log shows the partitions and the kiosk.
        "-append", f"{cmdline} loglevel=7 console=ttyAMA0,115200 systemd.journald.forward_to_console=1",
        "-drive", f"file={card},format=raw,if=sd",
        "-serial", f"file:{uart0}", "-serial", f"file:{uart1}",
        "-display", "none", "-monitor", "none",
    ]
    started = time.monotonic()
    process = subprocess.Popen(command, stdout=subprocess.PIPE, stderr=subprocess.STDOUT)
    wanted = {
        "the kernel runs on the Pi 3's device tree": r"Machine model: Raspberry Pi 3 Model B",
        "the SD card's three partitions": r"mmcblk0: p1 p2 p3",
        "the initramfs mounts the root partition read-only": r"EXT4-fs \(mmcblk0p2\): mounted filesystem \S+ ro ",
        "and the data partition writable": r"EXT4-fs \(mmcblk0p3\): mounted filesystem \S+ r/w ",
        "systemd mounts the boot partition at /boot/firmware": r"systemd\[1\]: Mounted boot-firmware\.mount",
        "the kiosk starts, headless (QEMU has no HVS)": r"vitrine\[\d+\]:.*no DRM device.*running headless",
        "the kiosk's carousel runs": r"vitrine\[\d+\]:.*kiosk started display=\"headless",
    }
    seen = {}
    text = ""
    while time.monotonic() - started < timeout and len(seen) < len(wanted):
        time.sleep(5)
        text = open(uart0, errors="replace").read() + open(uart1, errors="replace").read()
        for name, pattern in wanted.items():
            if name not in seen and re.search(pattern, text):
                seen[name] = round(time.monotonic() - started, 1)
        if process.poll() is not None:
            break
    process.kill()
    process.wait()
    for name in wanted:
        results.check(f"raspi3b: {name}", name in seen, f"after {seen[name]} s" if name in seen else "not in the serial log")
    measurements["raspi3b_seconds"] = seen
    lines = [l for l in text.splitlines() if re.search(r"vitrine", l)]
    print("raspi3b's serial log, Vitrine's lines:\n  " + "\n  ".join(lines[:20]), flush=True)


def main():
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--image", required=True)
    parser.add_argument("--work", required=True)
    parser.add_argument("--skip-raspi", action="store_true")
    parser.add_argument("--repo", help="the signed repository the image was made from, with a later version in its trixie suite")
    parser.add_argument("--next-version", help="that later version")
    args = parser.parse_args()
    started = time.monotonic()
    results = run_suite(args)
    print(f"pi-image: {results.passed} passed, {results.failed} failed in {time.monotonic() - started:.0f} s", flush=True)
    sys.exit(1 if results.failed else 0)


if __name__ == "__main__":
    main()
