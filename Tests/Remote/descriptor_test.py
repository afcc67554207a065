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


def main():
    parser = argparse.ArgumentParser()
    parser.add_argument("binary", nargs="?", default=os.path.join(ROOT, ".build/debug/vitrine"))
    parser.add_argument("--hold", type=float, default=12.0)
    args = parser.parse_args()
    # This process opens the sockets: it needs more descriptors than the kiosk has.
    soft, hard = resource.getrlimit(resource.RLIMIT_NOFILE)
    resource.setrlimit(resource.RLIMIT_NOFILE, (min(hard, 8192), hard))

    work = tempfile.mkdtemp(prefix="vitrine-descriptors-")
    port = free_port()
    for name in PICTURES + ["placeholder.jpg"]:
        shutil.copy(os.path.join(ROOT, "deploy/demo/images", name), work)
    digests = {hashlib.sha256(open(os.path.join(work, name), "rb").read()).hexdigest(): name for name in PICTURES}
    placeholder = hashlib.sha256(open(os.path.join(work, "placeholder.jpg"), "rb").read()).hexdigest()
    with open(os.path.join(work, "vitrine.yaml"), "w") as config:
        config.write("slides: [" + ", ".join(PICTURES) + "]\n"
                     "interval: 1s\nplaceholder: placeholder.jpg\ntransition: {type: cut}\n"
                     "output: {display: headless, width: 1280, height: 720}\n"
                     f'api: {{listen: "127.0.0.1:{port}", token: {TOKEN}}}\n')
    log_path = os.path.join(work, "kiosk.log")
    log = open(log_path, "wb")
    kiosk = subprocess.Popen([args.binary, "run", "--config", os.path.join(work, "vitrine.yaml"),
                              "--state-dir", os.path.join(work, "state"), "--display", "headless",
                              "--preview", os.path.join(work, "preview.png")],
                             stdout=log, stderr=log, preexec_fn=limit_descriptors)
    failures = []

    def check(name, ok, detail=""):
        print(f"{'PASS' if ok else 'FAIL'}: {name}" + (f" ({detail})" if detail else ""), flush=True)
        if not ok:
            failures.append(name)

    sockets = []
    try:
        deadline = time.monotonic() + 30
        while time.monotonic() < deadline:
            try:
                if get(port, "/healthz")[0] == 200:
                    break
            except OSError:
                pass
            if kiosk.poll() is not None:
                sys.exit(f"the kiosk exited with {kiosk.returncode}; see {log_path}")
            time.sleep(0.1)
        limits = open(f"/proc/{kiosk.pid}/limits").read()
        check("the kiosk runs with 1024 descriptors", any(line.startswith("Max open files") and " 1024 " in line
                                                          for line in limits.splitlines()))
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
        check(f"connections past the cap of {CAP} are closed at once", closed >= 3 * CAP - CAP - 2,
              f"{closed} of {3 * CAP} closed within {time.monotonic() - opened:.1f} s")
        time.sleep(max(0.0, args.hold - (time.monotonic() - opened)))
        flood_end = time.time()
        check("the kiosk is alive with the sockets held", kiosk.poll() is None)
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
        time.sleep(1.5)  # the play that was showing at the end of the hold ends
        status, body = get(port, "/api/v1/plays?limit=1000")
        plays = json.loads(body)["plays"] if status == 200 else []

        def epoch(text):
            from datetime import datetime
            return datetime.fromisoformat(text.replace("Z", "+00:00")).timestamp()
        during = [play for play in plays if flood_start <= epoch(play["start"]) <= flood_end]
        expected = int(flood_end - flood_start)
        check("plays were recorded while the sockets were held", len(during) >= expected - 2,
              f"{len(during)} plays in {flood_end - flood_start:.1f} s")
        real = [play for play in during if play.get("sha256") in digests]
        check("every slide shown was its real picture, none the placeholder",
              len(real) == len(during) and all(play.get("sha256") != placeholder for play in during),
              f"{len(real)} of {len(during)}")
        durations = [play["durationMs"] for play in during if "durationMs" in play]
        check("slides changed on time (each shown 1 s, within 100 ms)",
              durations != [] and all(900 <= duration <= 1100 for duration in durations),
              f"min {min(durations, default=0)} ms, max {max(durations, default=0)} ms")
        status, body = get(port, "/metrics")
        refused = [line for line in body.decode().splitlines() if line.startswith("vitrine_api_connections_refused_total ")]
        check("the refusals are counted in /metrics", refused != [] and int(refused[0].split()[1]) >= 2 * CAP - 2, refused)
        text = open(log_path, errors="replace").read()
        check('nothing in the log says "Too many open files"', "Too many open files" not in text)
        check("no slide fell back to the placeholder", "showing the placeholder" not in text)
    finally:
        for connection in sockets:
            connection.close()
        kiosk.terminate()
        try:
            kiosk.wait(timeout=10)
        except subprocess.TimeoutExpired:
            kiosk.kill()
    print(f"descriptor test: {'FAIL' if failures else 'PASS'}")
    if failures:
        print(f"kiosk log: {log_path}")
        sys.exit(1)
    shutil.rmtree(work, ignore_errors=True)


if __name__ == "__main__":
    main()
