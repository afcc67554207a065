#!/usr/bin/env python3
"""Idle sockets cannot take the screen's descriptors (issue: hardening, item 2).

Runs the real binary headless under `ulimit -n 1024` (systemd's default soft
limit) with real JPEG pictures rotating every second, and opens three times the
API's connection cap of idle TCP connections, sending nothing, holding them
for HOLD seconds. It checks that:

- the connections past the cap were closed by the kiosk straight away (and
  counted in /metrics once the API answers again);
- slides kept changing on time with the real pictures, never the placeholder:
  every play recorded during the hold has its picture's SHA-256, one per second;
- plays were recorded (the play log's file could be written);
- nothing in the log says "Too many open files", and the process is alive;
- the API answers again within a second once the sockets close.

    Tests/Remote/descriptor_test.py [BINARY] [--hold SECONDS]
"""
import argparse
import hashlib
import json
import os
import resource
import shutil
import socket
import subprocess
import sys
import tempfile
import time
import urllib.error
import urllib.request

ROOT = os.path.dirname(os.path.dirname(os.path.dirname(os.path.abspath(__file__))))
TOKEN = "descriptor-test-token-0123456789"
DESCRIPTORS = 1024
# ServerLimits.connections(forDescriptorLimit: 1024): (1024 - 256) / 2.
CAP = 384
PICTURES = ["01-welcome.jpg", "02-portrait.jpg", "04-wide.jpg", "06-photo-like.jpg"]


def free_port():
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        return s.getsockname()[1]


def get(port, path, timeout=2):
    request = urllib.request.Request(f"http://127.0.0.1:{port}{path}")
    request.add_header("Authorization", f"Bearer {TOKEN}")
    try:
        with urllib.request.urlopen(request, timeout=timeout) as response:
            return response.status, response.read()
    except urllib.error.HTTPError as error:
        return error.code, error.read()


def limit_descriptors():
    resource.setrlimit(resource.RLIMIT_NOFILE, (DESCRIPTORS, DESCRIPTORS))


def raise_own_descriptor_limit():
    """This process opens the sockets: it needs more descriptors than the kiosk has."""
    soft, hard = resource.getrlimit(resource.RLIMIT_NOFILE)
    resource.setrlimit(resource.RLIMIT_NOFILE, (min(hard, 8192), hard))


class Kiosk:
    """The real binary, headless, under `ulimit -n 1024`, rotating real JPEG
    pictures every second, with the API on 127.0.0.1 at a free port."""

    def __init__(self, binary, prefix, extra_slides=(), api_settings=""):
        """`extra_slides` go after the real pictures (a URL slide, say); `api_settings`
        are more keys of `api`, written as YAML flow (", allowAddresses: [loopback]")."""
        self.work = tempfile.mkdtemp(prefix=prefix)
        self.port = free_port()
        for name in PICTURES + ["placeholder.jpg"]:
            shutil.copy(os.path.join(ROOT, "deploy/demo/images", name), self.work)
        self.digests = {hashlib.sha256(open(os.path.join(self.work, name), "rb").read()).hexdigest(): name for name in PICTURES}
        self.placeholder = hashlib.sha256(open(os.path.join(self.work, "placeholder.jpg"), "rb").read()).hexdigest()
        slides = PICTURES + [f'"{slide}"' for slide in extra_slides]
        with open(os.path.join(self.work, "vitrine.yaml"), "w") as config:
            config.write("slides: [" + ", ".join(slides) + "]\n"
                         "interval: 1s\nplaceholder: placeholder.jpg\ntransition: {type: cut}\n"
                         + ("onImageError: skip\n" if extra_slides else "")
                         + "output: {display: headless, width: 1280, height: 720}\n"
                         f'api: {{listen: "127.0.0.1:{self.port}", token: {TOKEN}{api_settings}}}\n')
        self.log_path = os.path.join(self.work, "kiosk.log")
        log = open(self.log_path, "wb")
        self.process = subprocess.Popen([binary, "run", "--config", os.path.join(self.work, "vitrine.yaml"),
                                         "--state-dir", os.path.join(self.work, "state"), "--display", "headless",
                                         "--preview", os.path.join(self.work, "preview.png")],
                                        stdout=log, stderr=log, preexec_fn=limit_descriptors)

    def wait_until_answering(self):
        deadline = time.monotonic() + 30
        while time.monotonic() < deadline:
            try:
                if get(self.port, "/healthz")[0] == 200:
                    return
            except OSError:
                pass
            if self.process.poll() is not None:
                sys.exit(f"the kiosk exited with {self.process.returncode}; see {self.log_path}")
            time.sleep(0.1)
        sys.exit(f"the kiosk did not answer within 30 s; see {self.log_path}")

    def runs_with_its_descriptor_limit(self):
        limits = open(f"/proc/{self.process.pid}/limits").read()
        return any(line.startswith("Max open files") and f" {DESCRIPTORS} " in line for line in limits.splitlines())

    def check_slides_on_time(self, check, start, end):
        """Checks the plays recorded between the wall times `start` and `end`:
        one a second, each its real picture (never the placeholder), each shown 1 s."""
        time.sleep(1.5)  # the play that was showing at the end ends
        status, body = get(self.port, "/api/v1/plays?limit=1000")
        plays = json.loads(body)["plays"] if status == 200 else []

        def epoch(text):
            from datetime import datetime
            return datetime.fromisoformat(text.replace("Z", "+00:00")).timestamp()
        during = [play for play in plays if start <= epoch(play["start"]) <= end]
        expected = int(end - start)
        check("plays were recorded meanwhile", len(during) >= expected - 2, f"{len(during)} plays in {end - start:.1f} s")
        real = [play for play in during if play.get("sha256") in self.digests]
        check("every slide shown was its real picture, none the placeholder",
              len(real) == len(during) and all(play.get("sha256") != self.placeholder for play in during),
              f"{len(real)} of {len(during)}")
        durations = [play["durationMs"] for play in during if "durationMs" in play]
        check("slides changed on time (each shown 1 s, within 100 ms)",
              durations != [] and all(900 <= duration <= 1100 for duration in durations),
              f"min {min(durations, default=0)} ms, max {max(durations, default=0)} ms")

    def check_log_is_clean(self, check):
        text = open(self.log_path, errors="replace").read()
        check('nothing in the log says "Too many open files"', "Too many open files" not in text)
        check("no slide fell back to the placeholder", "showing the placeholder" not in text)

    def stop(self):
        self.process.terminate()
        try:
            self.process.wait(timeout=10)
        except subprocess.TimeoutExpired:
            self.process.kill()


class Checks:
    """PASS/FAIL lines, and the failures' names."""

    def __init__(self):
        self.failures = []

    def __call__(self, name, ok, detail=""):
        print(f"{'PASS' if ok else 'FAIL'}: {name}" + (f" ({detail})" if detail else ""), flush=True)
        if not ok:
            self.failures.append(name)

    def finish(self, test, kiosk):
        """The verdict; on a failure, the kiosk's log is kept and named and the exit status is 1."""
        print(f"{test} test: {'FAIL' if self.failures else 'PASS'}")
        if self.failures:
            print(f"kiosk log: {kiosk.log_path}")
            sys.exit(1)
        shutil.rmtree(kiosk.work, ignore_errors=True)


def arguments(hold, more=None):
    """The binary (the debug build by default) and --hold SECONDS (`hold` by
    default); `more(parser)` adds a test's own options."""
    parser = argparse.ArgumentParser()
    parser.add_argument("binary", nargs="?", default=os.path.join(ROOT, ".build/debug/vitrine"))
    parser.add_argument("--hold", type=float, default=hold)
    if more:
        more(parser)
    return parser.parse_args()


def main():
    args = arguments(hold=12.0)
    raise_own_descriptor_limit()
    kiosk = Kiosk(args.binary, "vitrine-descriptors-")
    port = kiosk.port
    check = Checks()
    sockets = []
    try:
        kiosk.wait_until_answering()
        check("the kiosk runs with 1024 descriptors", kiosk.runs_with_its_descriptor_limit())
        time.sleep(2)  # a few plays before the flood
        flood_start = time.time()
        for _ in range(3 * CAP):
            connection = socket.create_connection(("127.0.0.1", port), timeout=5)
            sockets.append(connection)
        opened = time.monotonic()
        time.sleep(2)
        closed = 0
        for connection in sockets:
            connection.setblocking(False)
            try:
                if connection.recv(1) == b"":
                    closed += 1
            except BlockingIOError:
                pass
            except ConnectionResetError:
                closed += 1
        # One address: past its share of the cap (a quarter), or past the cap itself, closed at once.
        check(f"connections past the cap of {CAP} are closed at once", closed >= 3 * CAP - CAP - 2,
              f"{closed} of {3 * CAP} closed within {time.monotonic() - opened:.1f} s")
        time.sleep(max(0.0, args.hold - (time.monotonic() - opened)))
        flood_end = time.time()
        check("the kiosk is alive with the sockets held", kiosk.process.poll() is None)
        for connection in sockets:
            connection.close()
        sockets = []
        released = time.monotonic()
        status = None
        while time.monotonic() - released < 5:
            try:
                status = get(port, "/healthz", timeout=1)[0]
                if status == 200:
                    break
            except OSError:
                pass
            time.sleep(0.02)
        answered = time.monotonic() - released
        check("the API answers within a second of the sockets closing", status == 200 and answered < 1.0,
              f"{status} after {answered * 1000:.0f} ms")
        kiosk.check_slides_on_time(check, flood_start, flood_end)
        status, body = get(port, "/metrics")
        refused = [line for line in body.decode().splitlines() if line.startswith("vitrine_api_connections_refused_total ")]
        check("the refusals are counted in /metrics", refused != [] and int(refused[0].split()[1]) >= 2 * CAP - 2, refused)
        kiosk.check_log_is_clean(check)
    finally:
        for connection in sockets:
            connection.close()
        kiosk.stop()
    check.finish("descriptor", kiosk)


if __name__ == "__main__":
    main()
