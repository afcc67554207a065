#!/usr/bin/env python3
"""Memory growth per operation: an accelerated soak.

An hour-long soak (soak.py) sees a slope per hour, which mixes every kind of
work and cannot say which one grows. This runs each kind of operation
thousands of times, far faster than a kiosk ever sees it, one kind after the
other, against one release kiosk (headless, 1920x1080, nothing rotating by
itself), and reports the growth of two measures per 1,000 operations:

  - the heap in use: glibc's own count of bytes allocated and not freed
    (mallinfo2's uordblks + hblkhd, served as vitrine_malloc_in_use_bytes on
    /metrics). It does not move when the allocator keeps freed memory
    cached, so it is what a leak raises;
  - the resident set (VmRSS), which also holds what the allocator cached.

Each kind runs a warm-up batch first (caches, pools and lazily made objects
reach their size; pushes first run --push-warmup more, 5,000 by default), then `--rounds` measured batches; growth is the
least-squares slope over the batches, so one early jump does not count. A
kind fails when its heap grows more than --max-heap-kib per 1,000 operations
(default 64: a kiosk doing that many pushes a day would grow a megabyte in
about three weeks).

The kinds (N per batch, set with --scale):
  push        PUT /api/v1/config, alternating two playlists (apply, decode, store)
  screenshot  GET /api/v1/screenshot (a 1080p PNG encode)
  events      GET /api/v1/events, one event read, connection closed (SSE reconnect)
  transition  POST /api/v1/control next (a 40 ms slide transition and a decode)
  channel     a new channel version published and applied (nginx-free: a
              loopback HTTP server of Python's serves the channel directory)
  status      GET /api/v1/status and /metrics

    Tests/Soak/per_op.py BINARY [--scale 1.0] [--rounds 4] [--kinds push,events] [--json out.json]

Prints a table (KiB per 1,000 operations, heap and RSS) for docs/benchmarks.md;
exit status 1 when a kind's heap grows past the limit, the kiosk dies, or an
operation fails.
"""
import argparse
import functools
import http.server
import json
import os
import re
import shutil
import signal
import subprocess
import sys
import tempfile
import threading
import time
import urllib.request

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
import soak  # noqa: E402  (its request helper, token, pictures and RSS reader)
from soak import IMAGES, ROOT, TOKEN, free_port, read_rss_kib  # noqa: E402


class Kiosk:
    """The kiosk's API on loopback, with soak.py's token."""

    def __init__(self, port):
        self.port = port

    def request(self, method, path, body=None, content_type=None, timeout=60):
        return soak.request(self.port, method, path, body, content_type, timeout)

    def heap_bytes(self):
        _, body = self.request("GET", "/metrics")
        match = re.search(rb"^vitrine_malloc_in_use_bytes (\d+)", body, re.M)
        return int(match.group(1)) if match else None


def settled_heap(kiosk, within=256 << 10, timeout=60):
    """The heap in use once two readings a second apart differ by less than `within` bytes."""
    deadline = time.monotonic() + timeout
    last = kiosk.heap_bytes()
    while time.monotonic() < deadline:
        time.sleep(1)
        now = kiosk.heap_bytes()
        if abs(now - last) < within:
            return now
        last = now
    return last


def slope(points):
    n = len(points)
    mean_x = sum(x for x, _ in points) / n
    mean_y = sum(y for _, y in points) / n
    var = sum((x - mean_x) ** 2 for x, _ in points)
    return 0.0 if var == 0 else sum((x - mean_x) * (y - mean_y) for x, y in points) / var


def main():
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("binary")
    parser.add_argument("--scale", type=float, default=1.0, help="multiplies every kind's batch size")
    parser.add_argument("--rounds", type=int, default=4, help="measured batches per kind, after one warm-up batch")
    parser.add_argument("--max-heap-kib", type=float, default=64, help="heap growth allowed per 1,000 operations")
    parser.add_argument("--kinds", help="only these kinds, comma-separated (default: all)")
    parser.add_argument("--push-warmup", type=int, default=5000,
                        help="pushes before the push kind's first batch (its caches fill until about 5,000: docs/benchmarks.md)")
    parser.add_argument("--json")
    args = parser.parse_args()

    work = tempfile.mkdtemp(prefix="vitrine-per-op-")
    for name in IMAGES:
        shutil.copy(os.path.join(ROOT, "deploy/demo/images", name), work)
    channel_dir = os.path.join(work, "origin", "lobby")
    os.makedirs(channel_dir)
    subprocess.run([args.binary, "channel", "keygen", "--public", os.path.join(work, "lobby.pub"), "--secret",
                    os.path.join(work, "lobby.sec"), "--comment", "per-op"], check=True, capture_output=True)
    handler = functools.partial(QuietHandler, directory=os.path.join(work, "origin"))
    origin = http.server.ThreadingHTTPServer(("127.0.0.1", 0), handler)
    threading.Thread(target=origin.serve_forever, daemon=True).start()
    publish_config = os.path.join(work, "publish.yaml")

    def publish(version):
        order = IMAGES[version % len(IMAGES):] + IMAGES[:version % len(IMAGES)]
        with open(publish_config, "w") as f:
            f.write(f"slides: [{', '.join(order)}]\ninterval: 10m\n")
        subprocess.run([args.binary, "channel", "publish", "--config", publish_config, "--dir", channel_dir, "--key",
                        os.path.join(work, "lobby.sec")], check=True, capture_output=True)

    # Version 1 is there before the kiosk starts: an origin without a channel
    # would put the follower into its backoff.
    publish(1)
    port = free_port()
    common = ("interval: 10m\ntransition: {type: slide, duration: 40ms}\n"
              "output: {display: headless, width: 1920, height: 1080}\n")
    playlists = [f"slides: [{', '.join(IMAGES)}]\n{common}", f"slides: [{', '.join(reversed(IMAGES))}]\nfit: cover\n{common}"]
    # Two kiosks' worth of configuration: the channel kind needs a kiosk that follows
    # one (with local pushes allowed, so the push kind runs on the same process).
    with open(os.path.join(work, "vitrine.yaml"), "w") as f:
        f.write(playlists[0] + f"api: {{listen: \"127.0.0.1:{port}\", token: {TOKEN}, allowAddresses: [loopback]}}\n"
                f"channel: {{url: \"http://127.0.0.1:{origin.server_port}/lobby/\", keys: [lobby.pub], poll: 1s, "
                "jitter: 0, allowLocalPush: true}\n")
    binary = os.path.join(work, "vitrine")
    shutil.copy(args.binary, binary)
    log_path = os.path.join(work, "kiosk.log")
    log = open(log_path, "w")
    process = subprocess.Popen([binary, "run", "--config", os.path.join(work, "vitrine.yaml"), "--state-dir",
                                os.path.join(work, "state")], stdout=log, stderr=log)
    kiosk = Kiosk(port)
    signal.signal(signal.SIGTERM, lambda *_: sys.exit(143))
    failures, rows = [], []
    try:
        for _ in range(600):
            try:
                urllib.request.urlopen(f"http://127.0.0.1:{port}/healthz", timeout=1)
                break
            except OSError:
                if process.poll() is not None:
                    sys.exit(f"the kiosk exited with {process.returncode}; see {log_path}")
                time.sleep(0.1)
        if kiosk.heap_bytes() is None:
            sys.exit("no vitrine_malloc_in_use_bytes on /metrics")

        state = {"push": 0, "version": 1}

        def push():
            state["push"] += 1
            return kiosk.request("PUT", "/api/v1/config", playlists[state["push"] % 2].encode(), "application/yaml")[0] == 200

        def screenshot():
            return kiosk.request("GET", "/api/v1/screenshot")[0] == 200

        def events():
            req = urllib.request.Request(f"http://127.0.0.1:{port}/api/v1/events")
            req.add_header("Authorization", f"Bearer {TOKEN}")
            with urllib.request.urlopen(req, timeout=30) as stream:
                return stream.readline() != b""

        def transition():
            ok = kiosk.request("POST", "/api/v1/control", b'{"command": "next"}', "application/json")[0] == 202
            time.sleep(0.05)  # the 40 ms transition runs; the next one starts after it
            return ok

        def channel():
            state["version"] += 1
            publish(state["version"])
            deadline = time.monotonic() + 20
            while time.monotonic() < deadline:
                _, body = kiosk.request("GET", "/api/v1/status")
                if (json.loads(body).get("channel") or {}).get("version") == state["version"]:
                    return True
                time.sleep(0.05)
            return False

        def status():
            return kiosk.request("GET", "/api/v1/status")[0] == 200 and kiosk.request("GET", "/metrics")[0] == 200

        kinds = [("push", push, 250), ("screenshot", screenshot, 100), ("events", events, 500),
                 ("transition", transition, 500), ("channel", channel, 30), ("status", status, 1000)]
        if args.kinds:
            kinds = [kind for kind in kinds if kind[0] in args.kinds.split(",")]
        print(f"per-op: kiosk pid {process.pid}, {args.rounds} measured batches per kind after one warm-up; log {log_path}", flush=True)
        for name, action, per_batch in kinds:
            count = max(1, int(per_batch * args.scale))
            heap_points, rss_points = [], []
            done, errors = 0, 0
            started = time.monotonic()
            # Pushes fill glibc's and libdispatch's caches for about 5,000 of them
            # before the heap holds still (measured with malloc_info and /metrics
            # in one process, docs/benchmarks.md): they warm up that long first.
            for _ in range(args.push_warmup if name == "push" else 0):
                action()
            for batch in range(args.rounds + 1):
                for _ in range(count):
                    try:
                        ok = action()
                    except OSError as error:
                        ok = False
                        if errors < 3:
                            print(f"  {name}: {error}", flush=True)
                    errors += 0 if ok else 1
                    done += 1
                if process.poll() is not None:
                    failures.append(f"the kiosk exited with {process.returncode} during {name}")
                    break
                # Work the batch queued (decodes for each push, the play log) runs on
                # after the last answer: wait until the heap holds still, or the
                # measurement catches frames in flight (pushes at this rate keep a
                # few hundred MB of them for a moment).
                heap = settled_heap(kiosk)
                if batch > 0:  # the first batch warms up
                    heap_points.append((done, heap / 1024))
                    rss_points.append((done, read_rss_kib(process.pid)))
            if process.poll() is not None:
                break
            heap_per_k = slope(heap_points) * 1000
            rss_per_k = slope(rss_points) * 1000
            seconds = time.monotonic() - started
            rows.append({"kind": name, "operations": done, "errors": errors, "seconds": round(seconds, 1),
                         "heapKiBPer1000": round(heap_per_k, 1), "rssKiBPer1000": round(rss_per_k, 1),
                         "heapKiB": [round(v) for _, v in heap_points], "rssKiB": [v for _, v in rss_points]})
            print(f"{name:>10}: {done:5d} ops in {seconds:6.1f} s, {errors} failed; heap {heap_per_k:+8.1f} KiB/1000 "
                  f"({' '.join(str(round(v)) for _, v in heap_points)} KiB); RSS {rss_per_k:+8.1f} KiB/1000 "
                  f"({' '.join(str(v) for _, v in rss_points)} KiB)", flush=True)
            if errors:
                failures.append(f"{name}: {errors} of {done} operations failed")
            if heap_per_k > args.max_heap_kib:
                failures.append(f"{name}: the heap grows {heap_per_k:.1f} KiB per 1,000 (limit {args.max_heap_kib})")
    finally:
        if process.poll() is None:
            process.send_signal(signal.SIGTERM)
            try:
                process.wait(timeout=30)
            except subprocess.TimeoutExpired:
                process.kill()
        log.close()
        origin.shutdown()

    print()
    print("| kind | operations | heap KiB per 1,000 | RSS KiB per 1,000 | seconds |")
    print("| --- | ---: | ---: | ---: | ---: |")
    for row in rows:
        print(f"| {row['kind']} | {row['operations']} | {row['heapKiBPer1000']:+.1f} | {row['rssKiBPer1000']:+.1f} | {row['seconds']} |")
    if args.json:
        with open(args.json, "w") as f:
            json.dump({"rows": rows, "failures": failures}, f, indent=1)
    for failure in failures:
        print("FAIL " + failure)
    print(f"per-op: {'failed' if failures else 'passed'}; work directory {work}")
    if not failures:
        shutil.rmtree(work, ignore_errors=True)
    return 1 if failures else 0


class QuietHandler(http.server.SimpleHTTPRequestHandler):
    def log_message(self, *args):
        pass


if __name__ == "__main__":
    sys.exit(main())
