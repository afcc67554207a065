#!/usr/bin/env python3
"""A kiosk killed with SIGKILL in the middle of pushes comes back with a valid configuration.

Runs the real binary (headless), pushes configurations from several threads as
fast as it answers, kills the process with SIGKILL at a random moment, and
restarts it on the same state directory: every time, the configuration it
serves must be one that was pushed (or the one before), its files must parse,
and nothing half-written may survive the restart.

    Tests/Remote/crash_test.py [BINARY] [--rounds N]
"""
import argparse
import json
import os
import random
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
TOKEN = "crash-test-token-0123456789"


def free_port():
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        return s.getsockname()[1]


def request(port, method, path, body=None, content_type=None, timeout=5):
    req = urllib.request.Request(f"http://127.0.0.1:{port}{path}", data=body, method=method)
    req.add_header("Authorization", f"Bearer {TOKEN}")
    if content_type:
        req.add_header("Content-Type", content_type)
    try:
        with urllib.request.urlopen(req, timeout=timeout) as response:
            return response.status, response.read(), dict(response.headers)
    except urllib.error.HTTPError as error:
        return error.code, error.read(), dict(error.headers)


def canonical(milliseconds):
    """How the kiosk writes a duration back (DurationSyntax.format)."""
    if milliseconds % 1000 == 0:
        return f"{milliseconds // 1000}s"
    if milliseconds < 1000:
        return f"{milliseconds}ms"
    return f"{milliseconds // 1000}.{milliseconds % 1000:03d}".rstrip("0") + "s"


def start(binary, work, port):
    log = open(os.path.join(work, "kiosk.log"), "ab")
    process = subprocess.Popen([binary, "run", "--config", os.path.join(work, "vitrine.yaml"),
                                "--state-dir", os.path.join(work, "state"), "--display", "headless",
                                "--preview", os.path.join(work, "preview.png")], stdout=log, stderr=log)
    deadline = time.time() + 20
    while time.time() < deadline:
        try:
            with urllib.request.urlopen(f"http://127.0.0.1:{port}/healthz", timeout=1) as response:
                if response.status == 200:
                    return process
        except OSError:
            pass
        if process.poll() is not None:
            sys.exit(f"the kiosk exited with {process.returncode}; see {work}/kiosk.log")
        time.sleep(0.05)
    process.kill()
    sys.exit("the kiosk did not become healthy within 20 s")


def main():
    parser = argparse.ArgumentParser()
    parser.add_argument("binary", nargs="?", default=os.path.join(ROOT, ".build/debug/vitrine"))
    parser.add_argument("--rounds", type=int, default=8)
    args = parser.parse_args()
    work = tempfile.mkdtemp(prefix="vitrine-crash-")
    port = free_port()
    for name in ("red", "blue"):
        shutil.copy(os.path.join(ROOT, "Tests/VM/content", f"{name}.jpg"), work)
    with open(os.path.join(work, "vitrine.yaml"), "w") as f:
        f.write(f"slides: [red.jpg, blue.jpg]\ninterval: 1s\noutput: {{width: 160, height: 120}}\n"
                f"api: {{listen: \"127.0.0.1:{port}\", token: {TOKEN}}}\n")
    # Every configuration pushed, by the interval it sets (distinct per push).
    pushed = {"1s"}
    lock = threading.Lock()
    failures = []
    random.seed(int(os.environ.get("CRASH_SEED", "7")))

    for round_number in range(1, args.rounds + 1):
        process = start(args.binary, work, port)
        status, body, headers = request(port, "GET", "/api/v1/config")
        if status != 200:
            failures.append(f"round {round_number}: GET /api/v1/config answered {status} after the restart")
        else:
            served = json.loads(body)
            if served["interval"] not in pushed:
                failures.append(f"round {round_number}: serves interval {served['interval']}, which was never pushed")
            state_file = os.path.join(work, "state", "config.json")
            with open(state_file, "rb") as f:
                if json.loads(f.read()) != served:
                    failures.append(f"round {round_number}: config.json differs from what is served")
            # What a killed process left; the new one's own writes in flight (its doctor
            # report, made at start) carry its pid and are not leftovers.
            leftovers = [n for n in os.listdir(os.path.join(work, "state")) if ".tmp-" in n and f".tmp-{process.pid}-" not in n]
            if leftovers:
                failures.append(f"round {round_number}: temporary files survived the restart: {leftovers}")
            status, _, _ = request(port, "GET", "/api/v1/screenshot")
            if status != 200:
                failures.append(f"round {round_number}: no screenshot after the restart ({status})")
        print(f"round {round_number}: restarted with interval {json.loads(body)['interval'] if status == 200 else '?'}")

        stop = threading.Event()

        def pusher(worker):
            count = 0
            while not stop.is_set():
                count += 1
                milliseconds = int(f"{round_number}{worker}{count:04d}")
                interval = f"{milliseconds}ms"
                with lock:
                    pushed.add(canonical(milliseconds))
                text = f"slides: [red.jpg, blue.jpg]\ninterval: {interval}\n# {'x' * random.randint(0, 20000)}\n"
                try:
                    request(port, "PUT", "/api/v1/config", text.encode(), "application/yaml", timeout=2)
                except OSError:
                    return  # the kiosk is gone

        threads = [threading.Thread(target=pusher, args=(worker,)) for worker in range(1, 5)]
        for thread in threads:
            thread.start()
        time.sleep(random.uniform(0.3, 1.5))
        os.kill(process.pid, signal.SIGKILL)
        process.wait()
        stop.set()
        for thread in threads:
            thread.join()
        # The pushes a dead process never answered still count as "pushed": any of them may have landed.

    process = start(args.binary, work, port)
    status, body, _ = request(port, "GET", "/api/v1/config")
    served = json.loads(body)["interval"] if status == 200 else None
    process.terminate()
    process.wait(timeout=10)
    if served not in pushed:
        failures.append(f"final restart serves {served}")
    print(f"final: interval {served}; {len(pushed)} configurations pushed over {args.rounds} kills")
    if failures:
        print("\n".join(["FAIL"] + failures))
        print(f"work directory kept: {work}")
        return 1
    shutil.rmtree(work)
    print("PASS: every restart after SIGKILL served a configuration that was pushed, from intact files")
    return 0


if __name__ == "__main__":
    sys.exit(main())
