#!/usr/bin/env python3
"""One peer cannot hold the API (issue 39, part 3).

Runs the real binary headless under `ulimit -n 1024` (a cap of 384
connections, 96 per source address) with real JPEG pictures rotating every
second, like descriptor_test.py, whose helpers it uses. From 127.0.0.1 an
attacker without the token keeps CAP + 20 connections going for HOLD seconds:
a third idle, a third trickling their headers a byte a second, a third sending
a protected route a 1 MB Content-Length and then a byte a second; every
connection the kiosk closes is opened again at once. Meanwhile an operator at
127.0.0.2 (another source on Linux's loopback) with the token asks /healthz,
sets an emergency override, reads it back and ends it. It checks that:

- the operator's every request is answered within a second, with the right status;
- the attacker's connections past its share were closed at once, and counted;
- the trickled bodies got their 401 and were closed, rather than held;
- slides kept changing on time with their real pictures before and after the override;
- nothing in the log says "Too many open files", and the process is alive.

    Tests/Remote/isolation_test.py [BINARY] [--hold SECONDS]
"""
import http.client
import json
import os
import socket
import threading
import time

from descriptor_test import CAP, PICTURES, TOKEN, Checks, Kiosk, arguments, raise_own_descriptor_limit

# ServerLimits.share(of: 384): a quarter of the cap.
SHARE = CAP // 4
OPERATOR = "127.0.0.2"


def operator_request(port, method, path, body=None):
    """(status, milliseconds, body) of one request from the operator's address, with the token."""
    connection = http.client.HTTPConnection("127.0.0.1", port, timeout=5, source_address=(OPERATOR, 0))
    headers = {"Authorization": f"Bearer {TOKEN}"}
    if body is not None:
        headers["Content-Type"] = "application/json"
    start = time.monotonic()
    try:
        connection.request(method, path, body=body, headers=headers)
        response = connection.getresponse()
        data = response.read()
        return response.status, (time.monotonic() - start) * 1000, data
    except OSError as error:
        return None, (time.monotonic() - start) * 1000, str(error).encode()
    finally:
        connection.close()


class Attacker:
    """CAP + 20 connections from 127.0.0.1, kept open: each one the kiosk closes is opened again."""

    KINDS = ["idle", "headers", "body"]

    def __init__(self, port):
        self.port = port
        self.sockets = []  # (socket, kind)
        self.closed_by_kiosk = {kind: 0 for kind in self.KINDS}
        self.answered_401 = 0
        self.running = True

    def open(self, kind):
        try:
            connection = socket.create_connection(("127.0.0.1", self.port), timeout=5)
        except OSError:
            return
        connection.setblocking(False)
        try:
            if kind == "headers":
                connection.send(b"GET /api/v1/status HTTP/1.1\r\nHost: k\r\n")
            elif kind == "body":
                connection.send(b"POST /api/v1/override HTTP/1.1\r\nHost: k\r\nContent-Type: application/json\r\n"
                                b"Content-Length: 1000000\r\n\r\n{")
        except OSError:
            pass
        self.sockets.append((connection, kind))

    def start(self):
        for index in range(CAP + 20):
            self.open(self.KINDS[index % 3])
        self.thread = threading.Thread(target=self.keep, daemon=True)
        self.thread.start()

    def keep(self):
        while self.running:
            kept = []
            for connection, kind in self.sockets:
                alive = True
                try:
                    data = connection.recv(65536)
                    if data.startswith(b"HTTP/1.1 401"):
                        self.answered_401 += 1
                    if data == b"":
                        alive = False
                except BlockingIOError:
                    pass
                except OSError:
                    alive = False
                if alive and kind != "idle":
                    try:
                        connection.send(b"a" if kind == "headers" else b" ")
                    except OSError:
                        alive = False
                if alive:
                    kept.append((connection, kind))
                else:
                    self.closed_by_kiosk[kind] += 1
                    connection.close()
            self.sockets = kept
            for index in range(CAP + 20 - len(self.sockets)):
                self.open(self.KINDS[index % 3])
            time.sleep(1)

    def stop(self):
        self.running = False
        self.thread.join(timeout=5)
        for connection, _ in self.sockets:
            connection.close()


def main():
    args = arguments(hold=16.0)
    raise_own_descriptor_limit()
    kiosk = Kiosk(args.binary, "vitrine-isolation-")
    port = kiosk.port
    check = Checks()
    attacker = Attacker(port)
    try:
        kiosk.wait_until_answering()
        check("the kiosk runs with 1024 descriptors", kiosk.runs_with_its_descriptor_limit())
        time.sleep(2)  # a few plays first
        hold_start = time.time()
        attacker.start()
        time.sleep(4)  # the attacker at its fullest, several refills in

        status, ms, _ = operator_request(port, "GET", "/healthz")
        check("/healthz answers another address within a second", status == 200 and ms < 1000, f"{status} in {ms:.0f} ms")
        override_set = time.time()
        slides = [os.path.join(kiosk.work, name) for name in PICTURES[:2]]
        status, ms, body = operator_request(port, "POST", "/api/v1/override",
                                            json.dumps({"slides": slides, "duration": "1m"}))
        check("the operator sets an emergency override within a second", status == 201 and ms < 1000,
              f"{status} in {ms:.0f} ms: {body[:200]!r}")
        status, ms, body = operator_request(port, "GET", "/api/v1/override")
        check("and reads it back", status == 200 and ms < 1000 and b'"scope":"all"' in body.replace(b" ", b""),
              f"{status} in {ms:.0f} ms")
        time.sleep(2)
        status, ms, _ = operator_request(port, "DELETE", "/api/v1/override")
        override_cleared = time.time()
        check("and ends it within a second", status == 204 and ms < 1000, f"{status} in {ms:.0f} ms")
        time.sleep(max(0.0, args.hold - (time.time() - hold_start)))
        hold_end = time.time()
        check("the kiosk is alive with the attack going on", kiosk.process.poll() is None)
        status, ms, body = operator_request(port, "GET", "/metrics")
        metrics = {line.split()[0]: float(line.split()[1]) for line in body.decode(errors="replace").splitlines()
                   if line.startswith("vitrine_api_connections")}
        open_now = metrics.get("vitrine_api_connections_open", -1)
        check(f"the attacker's address holds at most its share of {SHARE}", 0 < open_now <= SHARE + 1,
              f"{open_now:.0f} open (with the operator's /metrics)")
        refused = metrics.get("vitrine_api_connections_refused_for_share_total", 0)
        check("connections past the share were closed at once and counted", refused >= CAP + 20 - SHARE,
              f"{refused:.0f} refused for the share")
        attacker.stop()
        check("trickled bodies got their 401 and were closed, not held",
              attacker.answered_401 > 0 and attacker.closed_by_kiosk["body"] >= attacker.answered_401 - 2,
              f"{attacker.answered_401} answered 401, {attacker.closed_by_kiosk['body']} closed; "
              f"closed headers {attacker.closed_by_kiosk['headers']}, idle {attacker.closed_by_kiosk['idle']}")
        # Slides on time, except across the override's start and end, where a slide is cut short on purpose.
        kiosk.check_slides_on_time(check, hold_start, override_set - 1.2)
        kiosk.check_slides_on_time(check, override_cleared + 1.2, hold_end)
        kiosk.check_log_is_clean(check)
    finally:
        if attacker.running:
            attacker.stop()
        kiosk.stop()
    check.finish("isolation", kiosk)


if __name__ == "__main__":
    main()
