#!/usr/bin/env python3
"""Peak memory of large uploads, kiosk against kiosk in one run (issue 24, item 3).

Each BINARY runs headless at 320x240 with the API on loopback, one after the
other; each takes the same uploads (`POST /api/v1/assets`): a PNG of noise
and a JPEG of noise (cjpeg, quality 100), each about 40 MB, under the default
`api.maxUploadSize` of 50 MB. Noise does not compress, so the files are as
large as the uploads a kiosk allows. Peak resident memory is the process's
VmHWM after each upload, and the peaks of its anonymous memory (RssAnon: the
heap, buffers) and of its mapped file pages (RssFile: page cache, which the
kernel can drop under pressure, as a cgroup's MemoryMax does before it kills)
sampled every 5 ms during it; the time is the client's, from the first byte
sent to the answer.

    Tests/Bench/upload_memory_bench.py LABEL=BINARY [LABEL=BINARY ...]   (make bench-upload [BEFORE=binary])
"""
import os
import random
import shutil
import socket
import struct
import subprocess
import sys
import tempfile
import threading
import time
import urllib.error
import urllib.request
import zlib

TOKEN = "upload-bench-token-0123456789abcdef"


def noise_png(path, width, height):
    rng = random.Random(7)
    raw = b"".join(b"\x00" + rng.randbytes(width * 3) for _ in range(height))

    def chunk(kind, data):
        return struct.pack(">I", len(data)) + kind + data + struct.pack(">I", zlib.crc32(kind + data) & 0xFFFFFFFF)

    with open(path, "wb") as out:
        out.write(b"\x89PNG\r\n\x1a\n" + chunk(b"IHDR", struct.pack(">IIBBBBB", width, height, 8, 2, 0, 0, 0))
                  + chunk(b"IDAT", zlib.compress(raw, 1)) + chunk(b"IEND", b""))


def noise_jpeg(path, width, height):
    rng = random.Random(11)
    ppm = path + ".ppm"
    with open(ppm, "wb") as out:
        out.write(b"P6\n%d %d\n255\n" % (width, height) + rng.randbytes(width * height * 3))
    subprocess.run(["cjpeg", "-quality", "100", "-outfile", path, ppm], check=True)
    os.unlink(ppm)


def free_port():
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        return s.getsockname()[1]


def hwm_kib(pid):
    with open(f"/proc/{pid}/status") as status:
        for line in status:
            if line.startswith("VmHWM:"):
                return int(line.split()[1])
    return 0


def rss_kib(pid):
    values = {}
    with open(f"/proc/{pid}/status") as status:
        for line in status:
            if line.startswith(("RssAnon:", "RssFile:")):
                values[line.split(":")[0]] = int(line.split()[1])
    return values.get("RssAnon", 0), values.get("RssFile", 0)


class PeakSampler(threading.Thread):
    """The largest RssAnon and RssFile seen, every 5 ms, until stopped."""

    def __init__(self, pid):
        super().__init__(daemon=True)
        self.pid, self.anon, self.file, self.done = pid, 0, 0, threading.Event()

    def run(self):
        while not self.done.is_set():
            anon, mapped = rss_kib(self.pid)
            self.anon, self.file = max(self.anon, anon), max(self.file, mapped)
            time.sleep(0.005)

    def stop(self):
        self.done.set()
        self.join()
        return self.anon, self.file


def request(port, method, path, body=None):
    req = urllib.request.Request(f"http://127.0.0.1:{port}{path}", data=body, method=method)
    req.add_header("Authorization", f"Bearer {TOKEN}")
    try:
        with urllib.request.urlopen(req, timeout=300) as response:
            return response.status, response.read()
    except urllib.error.HTTPError as error:
        return error.code, error.read()


def measure(label, binary, files, work):
    state = tempfile.mkdtemp(prefix="state-", dir=work)
    port = free_port()
    config = os.path.join(state, "vitrine.yaml")
    shutil.copy(os.path.join(os.path.dirname(os.path.abspath(__file__)), "../../deploy/demo/images/01-welcome.jpg"), state)
    with open(config, "w") as out:
        out.write("slides: [01-welcome.jpg]\ninterval: 3600s\noutput: {display: headless, width: 320, height: 240}\n"
                  f'api: {{listen: "127.0.0.1:{port}", token: {TOKEN}}}\n')
    log = open(os.path.join(state, "kiosk.log"), "w")
    process = subprocess.Popen([binary, "run", "--config", config, "--state-dir", state], stdout=log, stderr=subprocess.STDOUT)
    try:
        deadline = time.time() + 60
        while time.time() < deadline:
            try:
                if request(port, "GET", "/api/v1/status")[0] == 200:
                    break
            except OSError:
                pass
            time.sleep(0.2)
        time.sleep(1)
        anon, mapped = rss_kib(process.pid)
        rows = [(label, "started", hwm_kib(process.pid), anon, mapped, None, None)]
        for name in files:
            with open(name, "rb") as f:
                body = f.read()
            sampler = PeakSampler(process.pid)
            sampler.start()
            started = time.monotonic()
            status, _ = request(port, "POST", "/api/v1/assets?name=" + os.path.basename(name), body)
            elapsed = time.monotonic() - started
            anon, mapped = sampler.stop()
            del body
            rows.append((label, os.path.basename(name), hwm_kib(process.pid), anon, mapped, status, elapsed))
        return rows
    finally:
        process.terminate()
        process.wait(timeout=30)


def main():
    kiosks = [arg.split("=", 1) for arg in sys.argv[1:]]
    if not kiosks:
        sys.exit(__doc__)
    work = tempfile.mkdtemp(prefix="vitrine-upload-bench-")
    try:
        png = os.path.join(work, "noise-3650x3650.png")
        jpeg = os.path.join(work, "noise-4000x4000.jpg")
        noise_png(png, 3650, 3650)
        noise_jpeg(jpeg, 4000, 4000)
        files = [png, jpeg]
        for name in files:
            print(f"{os.path.basename(name)}: {os.path.getsize(name):,} bytes", flush=True)
        print("| kiosk | upload | HTTP | time (s) | VmHWM after (KiB) | peak RssAnon (KiB) | peak RssFile (KiB) |")
        print("| --- | --- | ---: | ---: | ---: | ---: | ---: |")
        for label, binary in kiosks:
            for row in measure(label, binary, files, work):
                label_, what, hwm, anon, mapped, status, seconds = row
                status = "" if status is None else str(status)
                seconds = "" if seconds is None else f"{seconds:.2f}"
                print(f"| {label_} | {what} | {status} | {seconds} | {hwm:,} | {anon:,} | {mapped:,} |", flush=True)
    finally:
        shutil.rmtree(work, ignore_errors=True)


if __name__ == "__main__":
    main()
