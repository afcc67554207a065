#!/usr/bin/env python3
"""The fleet test: Debian's nginx serves a signed channel on loopback and 20 headless
kiosks follow it, each a process of its own with its own state directory and API port
(docs/fleet.md, "Testing").

Checked, in one run:
  1. version 1 shows on every kiosk (status and screenshot);
  2. publishing version 2 reaches every kiosk within the poll interval plus its jitter
     plus a margin;
  3. nginx's access log shows 304s for the polls while nothing changes;
  4. a tampered manifest, a replayed older signed manifest, an expired one, one signed by an
     unknown key and a corrupted blob are each refused by every kiosk (the status's
     `refused.reason` and the refusal counter), and no screen changes;
  5. with nginx stopped every kiosk keeps playing, and when it is back they converge on the
     version published meanwhile;
  6. a kiosk killed with SIGKILL in the middle of a download (its origin throttled) comes back
     showing one whole version: status, stored configuration and screen agree; and it asks for
     the rest of the picture only, after the part it had on disk (nginx answers 206);
  7. in a synced group, the slide-change instants of all kiosks (their plays logs) lie within
     one 60 Hz frame of each other (skipped while GET /api/v1/plays is not available).

    Tests/Fleet/fleet_test.py [BINARY] [--kiosks 20] [--poll 2] [--sync-group 0] [--keep]
"""
import argparse
import json
import os
import random
import shutil
import sys
import tempfile
import time

sys.dont_write_bytecode = True  # no __pycache__ in the tree
sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
from fleetlib import (ROOT, Channel, Fleet, FleetFailure, Kiosk, Origin, log, percentile,  # noqa: E402
                      slide_changes, synced_window,
                      rfc3339, run, shows, wait_until_shown)

FRAME = 1 / 60


class FleetTest:
    def __init__(self, binary, work, count, poll, sync_group=0):
        self.binary, self.work, self.poll, self.sync_group = binary, work, poll, sync_group
        self.jitter = 0.2  # a fraction of poll, the default
        # Time for a change to reach a kiosk: a poll interval with its jitter, the slide
        # boundary (interval 1s), and a margin for twenty debug builds sharing the cores.
        self.reach = poll * (1 + self.jitter) + 1 + 4
        # Each request's deadline. A refused connection only fails the request at its deadline
        # (AsyncHTTPClient retries connecting until then), so this is also how long a kiosk
        # takes to notice that the origin is down.
        self.timeout = 10
        self.channel = Channel(binary, work)
        # Kiosk 0's server sends the large picture in about 6 s, well inside the deadline.
        large = os.path.getsize(self.channel.picture("cyan", large=True))
        self.origin = Origin(work, self.channel.dir, slow_rate=large // 6)
        # Kiosk 0 follows the throttled server, so that its download of a large picture stays
        # in flight long enough to kill it in the middle.
        self.kiosks = [Kiosk(binary, work, i, self.origin, self.channel.public, f"{poll}s", self.jitter, slow=(i == 0),
                             timeout=f"{self.timeout}s")
                       for i in range(count)]
        self.fleet = Fleet(self.kiosks)
        self.saved = {}  # version -> the signed manifest and signature as published
        self.current = None  # (version, colour) every kiosk shows

    # -- helpers -----------------------------------------------------------------------------

    def publish(self, colour, **kwargs):
        version, instant = self.channel.publish(colour, **kwargs)
        self.saved[version] = self.channel.save()
        log(f"published version {version} ({colour}{', large' if kwargs.get('large') else ''})")
        return version, instant

    def expect_everywhere(self, version, colour, since, timeout=None):
        """Every kiosk shows `version`; returns the latencies from `since` to each display switch."""
        timeout = timeout or self.reach
        config_versions = wait_until_shown(self.fleet, version, colour, timeout)
        latencies = []
        for kiosk in self.kiosks:
            instant = kiosk.applied_instant(config_versions[kiosk.index], after=since)
            if instant is None:
                raise FleetFailure(f"k{kiosk.index:02d}: no log line for applying configuration {config_versions[kiosk.index]}")
            latencies.append(instant - since)
        self.current = (version, colour)
        return latencies

    def refused_everywhere(self, reason, timeout=None):
        """Every kiosk reports the refusal `reason`, still shows what it showed, and counts it."""
        timeout = timeout or self.reach
        version, colour = self.current
        deadline = time.time() + timeout
        remaining = list(self.kiosks)
        last = {}
        while remaining and time.time() < deadline:
            statuses = self.fleet.each(lambda k: k.status(), remaining)
            still = []
            for kiosk, status in zip(remaining, statuses):
                refused = status["channel"]["refused"]
                if refused and refused["reason"] == reason:
                    continue
                last[kiosk.index] = refused and refused["reason"]
                still.append(kiosk)
            remaining = still
            if remaining:
                time.sleep(0.25)
        if remaining:
            raise FleetFailure(f"{reason}: not refused within {timeout:.0f} s by "
                               + ", ".join(f"k{k.index:02d} (refused: {last.get(k.index)})" for k in remaining))
        # Nothing changed: the version, the screen, and the refusal was counted.
        for kiosk, (ok, detail) in zip(self.kiosks, self.fleet.each(lambda k: shows(k, version, colour))):
            if not ok:
                raise FleetFailure(f"{reason}: k{kiosk.index:02d} no longer shows version {version} ({colour}): {detail}")
        counts = self.fleet.each(lambda k: k.metric("vitrine_channel_refusals_total", f'reason="{reason}"'))
        if any(not count or count < 1 for count in counts):
            raise FleetFailure(f"{reason}: vitrine_channel_refusals_total{{reason=\"{reason}\"}} is {counts}")
        log(f"  {reason}: refused by all {len(self.kiosks)} kiosks; each still shows version {version} ({colour})")

    def restore(self, version):
        """Serves the manifest of `version` (the one applied) again, ending a refusal."""
        self.channel.install(self.saved[version])

    def craft(self, changes, key):
        """The applied manifest with `changes`, signed by signify-openbsd with `key`
        (as a publisher with a key, or an attacker with another, would)."""
        manifest = json.loads(self.saved[self.current[0]]["channel.json"])
        manifest.update(changes)
        staging = os.path.join(self.work, "crafted")
        os.makedirs(staging, exist_ok=True)
        path = os.path.join(staging, "channel.json")
        with open(path, "w") as f:
            json.dump(manifest, f, indent=2, sort_keys=True)
        if os.path.exists(path + ".sig"):
            os.remove(path + ".sig")
        run(["signify-openbsd", "-S", "-s", key, "-m", path, "-x", path + ".sig"])
        files = {}
        for name in ("channel.json", "channel.json.sig"):
            with open(os.path.join(staging, name), "rb") as f:
                files[name] = f.read()
        return files

    # -- the checks --------------------------------------------------------------------------

    def check_first_version(self):
        version, instant = self.publish("red")
        self.origin.start()
        started = time.time()
        self.fleet.start()
        log(f"{len(self.kiosks)} kiosks started in {time.time() - started:.1f} s "
            f"(headless 320x240, poll {self.poll}s, jitter {self.jitter})")
        self.expect_everywhere(version, "red", instant, timeout=30)
        log(f"1. version {version} shows on all {len(self.kiosks)} kiosks (status and screenshot)")

    def check_publish_reaches_everyone(self):
        version, instant = self.publish("green")
        latencies = self.expect_everywhere(version, "green", instant)
        worst = max(latencies)
        if worst > self.reach:
            raise FleetFailure(f"version {version} took {worst:.2f} s to reach a kiosk (bound {self.reach:.1f} s)")
        log(f"2. version {version} reached every kiosk: publish to display switch p50 {percentile(latencies, 0.5):.2f} s, "
            f"max {worst:.2f} s (bound: poll {self.poll}s + jitter + 1 s slide boundary + 4 s margin = {self.reach:.1f} s)")

    def check_304s(self):
        mark = self.origin.log_size()
        time.sleep(self.poll * (1 + self.jitter) * 2 + 0.5)
        entries = [e for e in self.origin.entries(mark) if e["path"] in ("/channel.json", "/channel.json.sig")]
        statuses = {}
        for entry in entries:
            statuses.setdefault(entry["status"], 0)
            statuses[entry["status"]] += 1
        polled = {e["kiosk"] for e in entries if e["status"] == 304 and e["path"] == "/channel.json"}
        if set(statuses) != {304}:
            raise FleetFailure(f"unchanged polls were not all 304s: {statuses}")
        if polled != {k.index for k in self.kiosks}:
            raise FleetFailure(f"kiosks with no 304 in the idle window: {sorted({k.index for k in self.kiosks} - polled)}")
        log(f"3. nothing changed for {self.poll * (1 + self.jitter) * 2 + 0.5:.1f} s: nginx logged {statuses[304]} requests, "
            f"all 304, from all {len(polled)} kiosks")

    def check_refusals(self):
        version, colour = self.current
        log(f"4. bad manifests and blobs, each refused while every kiosk shows version {version} ({colour}):")
        good = self.saved[version]

        # Tampered: the manifest edited after signing (slides now every 10 s, not 1 s).
        tampered = good["channel.json"].replace(b'"interval" : "1s"', b'"interval" : "10s"')
        if tampered == good["channel.json"]:
            raise FleetFailure("could not find the interval to tamper with in channel.json")
        self.channel.install({"channel.json": tampered})
        self.refused_everywhere("bad-signature")
        self.restore(version)

        # Replayed: an older, validly signed manifest and its signature served again.
        self.channel.install(self.saved[version - 1])
        self.refused_everywhere("not-newer")
        self.restore(version)

        # Expired: a newer version, signed with the trusted key, whose expiry has passed.
        now = time.time()
        self.channel.install(self.craft({"version": version + 1, "published": rfc3339(now - 7200),
                                         "expires": rfc3339(now - 3600)}, self.channel.secret))
        self.refused_everywhere("expired")
        self.restore(version)

        # Unknown key: a newer version signed with a key the kiosks do not trust (made by signify).
        stranger = os.path.join(self.work, "stranger")
        run(["signify-openbsd", "-G", "-n", "-c", "stranger", "-p", stranger + ".pub", "-s", stranger + ".sec"])
        self.channel.install(self.craft({"version": version + 1, "published": rfc3339(now)}, stranger + ".sec"))
        self.refused_everywhere("unknown-key")
        self.restore(version)

        # Corrupted blob: a properly signed newer version whose new picture has one byte flipped on
        # the origin. Published into a staging copy, corrupted there, then uploaded blobs first.
        staging = os.path.join(self.work, "staging")
        shutil.rmtree(staging, ignore_errors=True)
        shutil.copytree(self.channel.dir, staging)
        self.channel.publish("blue", directory=staging)
        manifest = json.loads(open(os.path.join(staging, "channel.json"), "rb").read())
        new = [b for b in manifest["blobs"].values() if not os.path.exists(os.path.join(self.channel.dir, b["path"]))]
        if len(new) != 1:
            raise FleetFailure(f"expected one new blob in the staging channel, found {new}")
        blob = new[0]["path"]
        with open(os.path.join(staging, blob), "r+b") as f:
            f.seek(new[0]["size"] // 2)
            byte = f.read(1)
            f.seek(new[0]["size"] // 2)
            f.write(bytes([byte[0] ^ 0x55]))
        os.makedirs(os.path.dirname(os.path.join(self.channel.dir, blob)), exist_ok=True)
        shutil.copy(os.path.join(staging, blob), os.path.join(self.channel.dir, blob))
        files = {}
        for name in ("channel.json", "channel.json.sig"):
            with open(os.path.join(staging, name), "rb") as f:
                files[name] = f.read()
        self.channel.install(files)
        self.refused_everywhere("blob-mismatch")
        # Repaired on the origin (the right bytes uploaded again): the next poll completes it.
        shutil.copy(self.channel.picture("blue"), os.path.join(self.channel.dir, blob) + ".fleet-test")
        os.replace(os.path.join(self.channel.dir, blob) + ".fleet-test", os.path.join(self.channel.dir, blob))
        self.channel.colours[manifest["version"]] = "blue"
        self.saved[manifest["version"]] = files
        repaired = time.time()
        self.expect_everywhere(manifest["version"], "blue", repaired, timeout=self.reach + self.poll * 2)
        log(f"  the blob repaired on the origin: every kiosk shows version {manifest['version']} (blue)")

    def check_origin_down(self):
        version, colour = self.current
        self.origin.stop()
        down = time.time()
        log(f"5. nginx stopped; publishing version {version + 1} meanwhile")
        new_version, _ = self.publish("magenta")
        # Every kiosk notices (a failed poll, at the latest one deadline after its next poll),
        # and keeps playing what it had.
        deadline = time.time() + self.timeout + self.poll * (1 + self.jitter) + 8
        while True:
            statuses = self.fleet.each(lambda k: k.status())
            for kiosk, status in zip(self.kiosks, statuses):
                channel = status["channel"]
                if not status["playing"] or channel["version"] != version:
                    raise FleetFailure(f"origin down: k{kiosk.index:02d} playing {status['playing']}, version {channel['version']}")
            unaware = [k.index for k, st in zip(self.kiosks, statuses) if not st["channel"]["lastError"]]
            if not unaware:
                break
            if time.time() > deadline:
                raise FleetFailure(f"origin down for {time.time() - down:.1f} s: no lastError on kiosks {unaware}")
            time.sleep(0.5)
        time.sleep(self.poll)
        for kiosk, (ok, detail) in zip(self.kiosks, self.fleet.each(lambda k: shows(k, version, colour))):
            if not ok:
                raise FleetFailure(f"origin down: k{kiosk.index:02d}: {detail}")
        failures = self.fleet.each(lambda k: k.metric("vitrine_channel_consecutive_failures"))
        log(f"  after {time.time() - down:.1f} s without the origin, every kiosk plays version {version} ({colour}); "
            f"consecutive failures {int(min(failures))} to {int(max(failures))}")
        # The instant before starting it: a kiosk polling while start() waits for
        # nginx to answer may apply the version before start() returns.
        back = time.time()
        self.origin.start()
        # After n failures in a row the wait is up to min(poll, 30 s) x 2^(n-1).
        bound = self.poll * 2 ** max(failures) + self.reach
        latencies = self.expect_everywhere(new_version, "magenta", back, timeout=bound)
        log(f"  nginx back: every kiosk converged on version {new_version} (magenta) within {max(latencies):.2f} s "
            f"(p50 {percentile(latencies, 0.5):.2f} s; backoff bound {bound:.1f} s)")

    def check_kill_mid_download(self):
        kiosk = self.kiosks[0]
        old_version, old_colour = self.current
        version, instant = self.publish("cyan", large=True)
        size = max(b["size"] for b in json.loads(self.channel.manifest())["blobs"].values())
        # Kiosk 0's origin is throttled: the download takes size / slow_rate seconds.
        deadline = time.time() + self.reach + 5
        while time.time() < deadline:
            state = kiosk.status()["channel"]["state"]
            if state == "downloading":
                break
            time.sleep(0.05)
        else:
            raise FleetFailure(f"k00 never reported downloading version {version}")
        # The kill lands once part of the picture is on disk (the kiosk writes a download's
        # part 256 KiB at a time), at a random moment after that.
        large = self.blob_of(version)
        part = os.path.join(kiosk.state, "assets", f"partial-blob-{large}")
        deadline = time.time() + size / self.origin.slow_rate + 5
        while time.time() < deadline and not (os.path.exists(part) and os.path.getsize(part) > 0):
            time.sleep(0.02)
        time.sleep(random.uniform(0, 0.3))
        kiosk.kill()
        killed = time.time()
        kept = os.path.getsize(part) if os.path.exists(part) else 0
        log(f"6. k00 killed with SIGKILL while downloading the {size // 1024} KiB picture of version {version} "
            f"(throttled to {self.origin.slow_rate // 1024} KiB/s), {kept} bytes of it on disk")
        if not 0 < kept < size:
            raise FleetFailure(f"k00: {kept} bytes of the {size}-byte picture were on disk at the kill: not part of it")
        log_offset = os.path.getsize(self.origin.access_log)
        kiosk.launch()
        kiosk.wait_healthy()
        status = kiosk.status()
        applied = status["channel"]["version"]
        code, body = kiosk.request("/api/v1/config")
        config = json.loads(body)
        expected_blob = self.blob_of(applied)
        seen = kiosk.colour()
        slides = [s["path"] for s in config["slides"]]
        if applied not in (old_version, version) or seen != self.channel.colours[applied] or slides != [f"asset:{expected_blob}"]:
            raise FleetFailure(f"k00 after the restart: channel version {applied}, screen {seen}, slides {slides}: "
                               f"not one whole version")
        partial = [e for e in self.origin.entries() if e["kiosk"] == 0 and large in e["path"] and e["bytes"] < size]
        if not partial:
            raise FleetFailure(f"nginx logged no interrupted transfer of the large picture to k00: the kill did not "
                               f"land in the middle of the download")
        log(f"  restarted on the same state directory: version {applied}, its configuration and its picture "
            f"({seen}) on screen; the interrupted transfer in nginx's log: "
            f"{', '.join(str(e['bytes']) for e in partial)} of {size} bytes")
        latencies = self.expect_everywhere(version, "cyan", instant, timeout=self.reach + size / self.origin.slow_rate * 2 + 10)
        leftovers = [os.path.join(dirpath, name) for dirpath, _, names in os.walk(kiosk.state) for name in names
                     if ".tmp" in name or name.endswith(".partial") or name.startswith("partial-")]
        if leftovers:
            raise FleetFailure(f"k00: temporary files or parts of downloads left in the state directory: {leftovers}")
        # The restarted kiosk asked for the rest only: nginx answered its Range with a 206 of
        # the bytes after the part (headers included in nginx's count).
        # nginx logs the transfer the kill cut short when it notices the closed connection,
        # which may come after log_offset: that 200 of fewer bytes than the picture is the
        # interrupted one (counted in `partial` above), not a request of the restarted kiosk.
        resumed = [e for e in self.origin.entries(since=log_offset) if e["kiosk"] == 0 and large in e["path"]
                   and not (e["status"] == 200 and e["bytes"] < size)]
        if [e["status"] for e in resumed] != [206] or not size - kept <= resumed[0]["bytes"] < size - kept + 1024:
            raise FleetFailure(f"k00 did not resume the picture after the {kept} bytes it kept: nginx logged "
                               f"{[(e['status'], e['bytes']) for e in resumed]} for it after the kill (the picture is {size} bytes)")
        log(f"  it resumed the picture after the {kept} bytes on disk: nginx answered 206 with {resumed[0]['bytes']} bytes "
            f"(the rest, {size - kept}, and headers)")
        log(f"  then every kiosk shows version {version} (cyan), k00 {time.time() - killed:.1f} s after the kill")

    def blob_of(self, version):
        manifest = json.loads(self.saved[version]["channel.json"])
        return manifest["configuration"]["slides"][0]["path"].split(":", 1)[1]

    def check_sync_skew(self):
        """In a synced group, every kiosk's slide changes (the `start` of each play in
        GET /api/v1/plays, the wall time of the slide's first frame) lie within one 60 Hz
        frame of each other's."""
        code, _ = self.kiosks[1].request("/api/v1/plays")
        if code != 200:
            print("SKIP: plays log not available", flush=True)
            return
        interval, names = 1.0, ["red", "green", "blue"]
        version, epoch, blobs = self.channel.publish_synced(names, interval)
        self.saved[version] = self.channel.save()
        log(f"7. published version {version}: {len(names)} slides every {interval:g} s, cut, sync: true, epoch {epoch}")
        deadline = time.time() + self.reach + 5
        while time.time() < deadline:
            versions = self.fleet.each(lambda k: k.status()["channel"]["version"])
            if all(v == version for v in versions):
                break
            time.sleep(0.25)
        else:
            raise FleetFailure(f"sync: version {version} not applied everywhere: {versions}")
        # All the kiosks are measured (`--sync-group N` measures the first N and stops the others).
        # They are release builds with `output.preview: off`: twenty debug builds, each encoding a
        # preview PNG at the same instant, spread over up to 44 ms on two cores, which measured
        # this machine, not the sync.
        group = self.kiosks[:self.sync_group] if self.sync_group else self.kiosks
        if len(group) < len(self.kiosks):
            self.fleet.each(lambda k: k.stop(), self.kiosks[len(group):])
            log(f"  all {len(self.kiosks)} kiosks applied it; the synced group measured: k00 to k{len(group) - 1:02d} "
                f"(the other {len(self.kiosks) - len(group)} stopped, so the group does not wait for the CPU)")
        # Allow two whole rotations for rejoining, then take the changes of the next two.
        since, until = synced_window(interval, len(names), rotations=2)
        # Each slide change: the instants the kiosks logged for it, by the step it belongs to.
        changes = slide_changes(self.fleet, group, blobs, interval, since, until)
        everyone = {k.index for k in group}
        missing = {step: sorted(everyone - set(seen)) for step, seen in changes.items() if set(seen) != everyone}
        if missing or len(changes) < 3:
            raise FleetFailure(f"sync: between {rfc3339(since)} and {rfc3339(until)} the kiosks logged {len(changes)} "
                               f"slide changes; missing from some kiosks' plays: "
                               + "; ".join(f"{rfc3339(step * interval)}: k{', k'.join(f'{i:02d}' for i in who)}"
                                           for step, who in sorted(missing.items())))
        skews = {step: max(seen.values()) - min(seen.values()) for step, seen in changes.items()}
        late = {step: max(seen.values()) - step * interval for step, seen in changes.items()}
        worst = max(skews.values())
        summary = (f"{len(changes)} slide changes logged by all {len(group)} kiosks of the group: skew p50 "
                   f"{percentile(list(skews.values()), 0.5) * 1000:.2f} ms, max {worst * 1000:.2f} ms; "
                   f"latest start after the scheduled instant {max(late.values()) * 1000:.1f} ms")
        if worst > FRAME:
            step = max(skews, key=skews.get)
            raise FleetFailure(f"sync: {summary}; the change at {rfc3339(step * interval)} is spread over more than one "
                               f"60 Hz frame ({FRAME * 1000:.1f} ms): "
                               + ", ".join(f"k{i:02d} {t - step * interval:+.4f} s" for i, t in sorted(changes[step].items())))
        log(f"  {summary} (one 60 Hz frame: {FRAME * 1000:.1f} ms)")

    def check_plays_upload(self):
        """The channel names where proof of play goes (`--plays-upload`): every kiosk
        POSTs its plays there, each under its device id, from the version that names it."""
        import http.server
        import threading
        batches = []

        class Receiver(http.server.BaseHTTPRequestHandler):
            def do_POST(self):
                body = self.rfile.read(int(self.headers.get("Content-Length", 0)))
                try:
                    batches.append(json.loads(body))
                except ValueError:
                    pass
                self.send_response(204)
                self.end_headers()

            def log_message(self, *args):
                pass

        server = http.server.ThreadingHTTPServer(("127.0.0.1", 0), Receiver)
        threading.Thread(target=server.serve_forever, daemon=True).start()
        url = f"http://127.0.0.1:{server.server_address[1]}/plays"
        try:
            running = [k for k in self.kiosks if k.process and k.process.poll() is None]
            version, _ = self.publish("yellow", arguments=("--plays-upload", url))
            # The kiosks still running (`--sync-group N` stops the others).
            wait_until_shown(self.fleet, version, "yellow", self.reach, kiosks=running)
            wanted = {f"k{k.index:02d}" for k in running}
            deadline = time.monotonic() + 30
            while time.monotonic() < deadline:
                devices = {b.get("device") for b in batches if b.get("plays")}
                if wanted <= devices:
                    break
                time.sleep(0.25)
            devices = {b.get("device") for b in batches if b.get("plays")}
            if not wanted <= devices:
                raise FleetFailure(f"plays upload: no batch from {sorted(wanted - devices)} at {url} within 30 s")
            plays = sum(len(b["plays"]) for b in batches)
            log(f"  the channel's plays.upload: every one of the {len(running)} kiosks POSTed its plays there "
                f"({len(batches)} batches, {plays} plays)")
        finally:
            server.shutdown()

    def run(self):
        self.check_first_version()
        self.check_publish_reaches_everyone()
        self.check_304s()
        self.check_refusals()
        self.check_origin_down()
        self.check_kill_mid_download()
        self.check_sync_skew()
        self.check_plays_upload()

    def close(self):
        self.fleet.stop()
        self.origin.stop()


def main():
    parser = argparse.ArgumentParser()
    parser.add_argument("binary", nargs="?", default=os.path.join(ROOT, ".build/debug/vitrine"))
    parser.add_argument("--kiosks", type=int, default=20)
    parser.add_argument("--poll", type=int, default=2, help="the kiosks' poll interval in seconds")
    parser.add_argument("--sync-group", type=int, default=0,
                        help="how many kiosks the sync skew is measured on, the rest stopped first (0: all)")
    parser.add_argument("--keep", action="store_true", help="keep the work directory even when the test passes")
    args = parser.parse_args()
    for tool in ("nginx", "cjpeg", "signify-openbsd"):
        if not shutil.which(tool) and not os.path.exists(f"/usr/sbin/{tool}"):
            sys.exit(f"{tool} is missing (make fleet-test installs it)")
    os.environ["PATH"] += ":/usr/sbin"
    random.seed(int(os.environ.get("FLEET_SEED", str(int(time.time())))))
    started = time.time()
    work = tempfile.mkdtemp(prefix="vitrine-fleet-")
    os.chmod(work, 0o755)  # nginx (nobody when the test runs as root) reads the channel here
    test = FleetTest(os.path.abspath(args.binary), work, args.kiosks, args.poll, args.sync_group)
    try:
        test.run()
    except FleetFailure as failure:
        print(f"FAIL: {failure}", flush=True)
        print(f"work directory kept: {work} (kiosk logs in k*/kiosk.log, nginx's in nginx/)")
        return 1
    finally:
        test.close()
    if args.keep:
        print(f"work directory kept: {work}")
    else:
        shutil.rmtree(work, ignore_errors=True)
    print(f"PASS: {args.kiosks} kiosks followed the channel through every check in {time.time() - started:.0f} s")
    return 0


if __name__ == "__main__":
    sys.exit(main())
