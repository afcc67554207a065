#!/usr/bin/env python3
"""A hostile picture as a URL slide costs a refused picture, nothing more
(issue 39, isolation: decoding in a sandboxed helper).

Runs the real binary headless (descriptor_test.py's `Kiosk`: real JPEG slides
rotating every second) with one more slide whose URL, served by a local HTTP
server, is a HEIF grid that names itself as its own tile: before the sandbox,
libheif hung on it, piled up threads and aborted the kiosk. For HOLD seconds
it checks, every second, that:

- the kiosk is alive, and its thread count and its child processes (the
  decoding helpers, at most two) stay flat;
- the hostile picture is refused with a reason and listed in the status's
  refusedPictures; when it stopped a helper, it stopped one only and each
  later download of it is refused without decoding;
- the other slides keep changing on time with their real pictures;
- the kiosk stops cleanly on SIGTERM.

    Tests/Remote/hostile_picture_test.py [BINARY] [--hold SECONDS] [--picture HEIF]

CI holds 40 s (make remote-test); `make soak` holds 600 s.
"""
import functools
import http.server
import json
import os
import shutil
import tempfile
import threading
import time

from descriptor_test import ROOT, Checks, Kiosk, arguments, get

HOSTILE = os.path.join(ROOT, "Tests/VitrineHEIFTests/Fixtures/grid-self-reference.heic")


def threads_of(pid):
    for line in open(f"/proc/{pid}/status"):
        if line.startswith("Threads:"):
            return int(line.split()[1])
    return 0


def children_of(pid):
    found = []
    for entry in os.listdir("/proc"):
        if entry.isdigit():
            try:
                fields = open(f"/proc/{entry}/stat").read().rsplit(")", 1)[1].split()
            except OSError:
                continue
            if int(fields[1]) == pid:
                found.append(int(entry))
    return found


class QuietHandler(http.server.SimpleHTTPRequestHandler):
    def log_message(self, *args):
        pass


def main():
    args = arguments(hold=40.0, more=lambda parser: parser.add_argument("--picture", default=HOSTILE))
    served = tempfile.mkdtemp(prefix="vitrine-hostile-origin-")
    shutil.copy(args.picture, os.path.join(served, "hostile.heic"))
    origin = http.server.ThreadingHTTPServer(("127.0.0.1", 0), functools.partial(QuietHandler, directory=served))
    threading.Thread(target=origin.serve_forever, daemon=True).start()
    url = f"http://127.0.0.1:{origin.server_address[1]}/hostile.heic"
    # Revalidated every 5 s, so that a download the kiosk refused is fetched again meanwhile.
    kiosk = Kiosk(args.binary, "vitrine-hostile-", extra_slides=[url], api_settings=", allowAddresses: [loopback], urlRefresh: 5s")
    check = Checks()
    try:
        kiosk.wait_until_answering()
        time.sleep(5)  # the download, its inspection and a first round of slides
        pid = kiosk.process.pid
        start = time.time()
        threads, helpers = [], []
        while time.time() - start < args.hold and kiosk.process.poll() is None:
            threads.append(threads_of(pid))
            helpers.append(len(children_of(pid)))
            time.sleep(1)
        end = time.time()
        check("the kiosk is alive after the hold", kiosk.process.poll() is None, f"held {end - start:.0f} s")
        check("its thread count stays flat", threads != [] and max(threads) - min(threads) <= 2,
              f"{min(threads, default=0)} to {max(threads, default=0)} threads")
        check("at most two decoding helpers run, and they do not pile up", helpers != [] and max(helpers) <= 2,
              f"{min(helpers, default=0)} to {max(helpers, default=0)} child processes")
        text = open(kiosk.log_path, errors="replace").read()
        named = [line for line in text.splitlines() if url in line and "cannot download" in line]
        check("the hostile picture is refused with a reason, in the log", named != [], named[0] if named else "")
        status, body = get(kiosk.port, "/api/v1/status")
        refused = json.loads(body).get("refusedPictures", []) if status == 200 else []
        listed = [entry for entry in refused if entry.get("file") == url]
        check("the status lists it with its reason", listed != [] and bool(listed[0].get("reason")), json.dumps(listed)[:300])
        if listed and listed[0].get("heldBack"):
            # It stopped a helper (libheif itself hung or crashed on it): held back from then on.
            stops = [line for line in named if "decoding stopped" in line and "not tried again" not in line]
            held = [line for line in named if "not tried again" in line]
            check("it stopped one helper only: each later download is refused without decoding",
                  len(stops) == 1 and listed[0].get("refusals") == 1 and held != [],
                  f"{len(stops)} helper stopped, {len(held)} downloads refused as held back")
        else:
            # Vitrine's own HEIF checks refused it in the helper, before libheif decoded it.
            reason = listed[0].get("reason", "") if listed else ""
            check("it was refused by the checks, before libheif decoded it", listed != [] and "decoding stopped" not in reason, reason)
        kiosk.check_slides_on_time(check, start, end)
    finally:
        kiosk.process.terminate()
        try:
            code = kiosk.process.wait(timeout=10)
            check("the kiosk itself never aborted: it stops cleanly on SIGTERM", code == 0, f"exit status {code}")
        except Exception:
            kiosk.process.kill()
            check("the kiosk stops on SIGTERM", False)
        origin.shutdown()
        shutil.rmtree(served, ignore_errors=True)
    check.finish("hostile picture", kiosk)


if __name__ == "__main__":
    main()
