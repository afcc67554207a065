#!/usr/bin/env python3
"""The fleet benchmark (docs/benchmarks.md, "Fleet: a channel against pushes"), measured side
by side in one run against the same kiosks and the same origin:

  1. publish -> screen: the time from `vitrine channel publish` returning (the new manifest in
     place) until each kiosk's display switched to the new version (its log line
     "configuration ID applied", to the millisecond; each also checked by status and
     screenshot), over several rounds: p50, p99 and max over kiosks;
  2. the origin's load while nothing changes: requests and bytes (sent, headers included:
     nginx's $bytes_sent; and received: $request_length) per kiosk-hour, from nginx's access
     log over a measured window;
  3. the slide-change skew of a synced group (`sync: true`, from the plays logs), when the
     kiosk has GET /api/v1/plays: all kiosks, then a group of 4 with the others stopped;
  4. for comparison, `vitrine push` of the same kind of change to the same kiosks one by one
     (they set allowLocalPush), timed the same way from the start of the loop.

    Tests/Fleet/fleet_bench.py [BINARY] [--kiosks 50] [--poll 30] [--jitter 0.2] [--rounds 4]
                               [--idle 180] [--push-rounds 3]
"""
import argparse
import json
import os
import platform
import random
import shutil
import sys
import tempfile
import time

sys.dont_write_bytecode = True  # no __pycache__ in the tree
sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
from fleetlib import (ROOT, COLOURS, Channel, Fleet, FleetFailure, Kiosk, Origin, log,  # noqa: E402
                      percentile, run, slide_changes, synced_window, wait_until_shown)


def summary(values):
    return {"n": len(values), "p50": percentile(values, 0.5), "p99": percentile(values, 0.99), "max": max(values),
            "min": min(values)}


def show(label, s):
    log(f"{label}: p50 {s['p50']:.2f} s, p99 {s['p99']:.2f} s, max {s['max']:.2f} s (n={s['n']})")


class Bench:
    def __init__(self, args, work):
        self.args, self.work = args, work
        self.binary = os.path.abspath(args.binary)
        self.channel = Channel(self.binary, work)
        self.origin = Origin(work, self.channel.dir)
        self.kiosks = [Kiosk(self.binary, work, i, self.origin, self.channel.public, f"{args.poll}s", args.jitter,
                             allow_local_push=True, timeout="10s") for i in range(args.kiosks)]
        self.fleet = Fleet(self.kiosks, threads=24)
        self.palette = [c for c in COLOURS]
        self.results = {}

    def next_colour(self, current):
        return self.palette[(self.palette.index(current) + 1) % len(self.palette)]

    def colour_everywhere(self, colour, timeout):
        """Waits until every kiosk's screen shows `colour`; returns {index: configVersion}."""
        deadline = time.time() + timeout
        remaining = list(self.kiosks)
        found = {}
        while remaining and time.time() < deadline:
            def check(k):
                status = k.status()
                return status["configVersion"] if k.colour() == colour else None
            still = []
            for kiosk, config in zip(remaining, self.fleet.each(check, remaining)):
                if config:
                    found[kiosk.index] = config
                else:
                    still.append(kiosk)
            remaining = still
            if remaining:
                time.sleep(0.5)
        if remaining:
            raise FleetFailure(f"{colour} not on screen within {timeout} s on k{', k'.join(f'{k.index:02d}' for k in remaining)}")
        return found

    def latencies(self, configs, since):
        out = []
        for kiosk in self.kiosks:
            instant = kiosk.applied_instant(configs[kiosk.index], after=since)
            if instant is None:
                raise FleetFailure(f"k{kiosk.index:02d}: no log line for applying {configs[kiosk.index]}")
            out.append(instant - since)
        return out

    def start(self):
        version, _ = self.channel.publish("red")
        self.origin.start()
        started = time.time()
        self.fleet.start()
        wait_until_shown(self.fleet, version, "red", 60)
        log(f"{len(self.kiosks)} kiosks (release build, headless 320x240, poll {self.args.poll}s, jitter {self.args.jitter}) "
            f"up and showing version {version} in {time.time() - started:.1f} s")
        self.colour = "red"

    def channel_rounds(self):
        reach = self.args.poll * (1 + self.args.jitter) + 20
        every = []
        for round_number in range(1, self.args.rounds + 1):
            # Publish at a random moment of the kiosks' poll cycles.
            time.sleep(random.uniform(1, self.args.poll))
            colour = self.next_colour(self.colour)
            before = time.time()
            version, published = self.channel.publish(colour)
            configs = wait_until_shown(self.fleet, version, colour, reach)
            values = self.latencies(configs, published)
            every += values
            self.colour = colour
            show(f"channel round {round_number}: version {version} ({colour}), publish took {published - before:.2f} s; "
                 f"publish -> screen", summary(values))
        self.results["channel"] = summary(every)
        show("channel, all rounds", self.results["channel"])

    def idle(self):
        # Let every kiosk settle on 304s, then count what the origin serves over the window.
        time.sleep(self.args.poll * (1 + self.args.jitter) + 2)
        mark = self.origin.log_size()
        started = time.time()
        time.sleep(self.args.idle)
        window = time.time() - started
        entries = self.origin.entries(mark)
        statuses = {}
        for e in entries:
            statuses[e["status"]] = statuses.get(e["status"], 0) + 1
        per_kiosk = {}
        for e in entries:
            per_kiosk.setdefault(e["kiosk"], [0, 0])
            per_kiosk[e["kiosk"]][0] += 1
            per_kiosk[e["kiosk"]][1] += e["bytes"]
        hours = window / 3600 * len(self.kiosks)
        requests = len(entries) / hours
        sent = sum(e["bytes"] for e in entries) / hours
        received = sum(e["received"] for e in entries) / hours
        self.results["idle"] = {"window_s": window, "requests": len(entries), "statuses": statuses,
                                "requests_per_kiosk_hour": requests, "bytes_per_kiosk_hour": sent,
                                "request_bytes_per_kiosk_hour": received,
                                "kiosks_seen": len(per_kiosk)}
        log(f"idle for {window:.0f} s: nginx served {len(entries)} requests ({statuses}) to {len(per_kiosk)} kiosks: "
            f"{requests:.0f} requests, {sent / 1024:.1f} KiB sent and {received / 1024:.1f} KiB received per kiosk-hour")

    def push_rounds(self):
        every, loops = [], []
        for round_number in range(1, self.args.push_rounds + 1):
            colour = self.next_colour(self.colour)
            picture = self.channel.picture(colour)
            config = os.path.join(self.work, f"push-{colour}.yaml")
            shutil.copy(picture, os.path.join(self.work, os.path.basename(picture)))
            with open(config, "w") as f:
                f.write(f"slides: [{os.path.basename(picture)}]\ninterval: 1s\n")
            started = time.time()
            for kiosk in self.kiosks:
                # The token through the environment: a generated token may start with "-", which
                # `--token TOKEN` would read as an option.
                run([self.binary, "push", config, "--to", f"http://127.0.0.1:{kiosk.port}"],
                    env=dict(os.environ, VITRINE_TOKEN=kiosk.token))
            loop = time.time() - started
            configs = self.colour_everywhere(colour, 60)
            values = self.latencies(configs, started)
            every += values
            loops.append(loop)
            self.colour = colour
            show(f"push round {round_number} ({colour}): the loop of {len(self.kiosks)} pushes took {loop:.2f} s; "
                 f"loop start -> screen", summary(values))
        self.results["push"] = summary(every)
        self.results["push"]["loop_s"] = loops
        show("push, all rounds", self.results["push"])

    def sync_skew(self):
        code, _ = self.kiosks[0].request("/api/v1/plays")
        if code != 200:
            print("SKIP: plays log not available", flush=True)
            return
        interval, names = 1.0, ["red", "green", "blue"]
        version, _, blobs = self.channel.publish_synced(names, interval)
        deadline = time.time() + self.args.poll * (1 + self.args.jitter) + 30
        while time.time() < deadline:
            if all(v == version for v in self.fleet.each(lambda k: k.status()["channel"]["version"])):
                break
            time.sleep(1)
        else:
            raise FleetFailure("the synced version did not reach every kiosk")
        self.results["sync_all"] = self.measure_skew(self.kiosks, blobs, interval, len(names))
        group = self.kiosks[:4]
        self.fleet.each(lambda k: k.stop(), self.kiosks[4:])
        self.results["sync_group4"] = self.measure_skew(group, blobs, interval, len(names))

    def measure_skew(self, group, blobs, interval, count):
        since, until = synced_window(interval, count, rotations=4)
        changes = slide_changes(self.fleet, group, blobs, interval, since, until)
        complete = {step: seen for step, seen in changes.items() if len(seen) == len(group)}
        skews = [max(seen.values()) - min(seen.values()) for seen in complete.values()]
        late = [t - step * interval for step, seen in complete.items() for t in seen.values()]
        result = {"kiosks": len(group), "changes": len(complete), "incomplete": len(changes) - len(complete),
                  "skew_p50_ms": percentile(skews, 0.5) * 1000, "skew_max_ms": max(skews) * 1000,
                  "late_p50_ms": percentile(late, 0.5) * 1000, "late_max_ms": max(late) * 1000}
        log(f"sync, {len(group)} kiosks: {len(complete)} slide changes logged by all (and {result['incomplete']} not by all): "
            f"skew p50 {result['skew_p50_ms']:.1f} ms, max {result['skew_max_ms']:.1f} ms; start after the scheduled instant "
            f"p50 {result['late_p50_ms']:.1f} ms, max {result['late_max_ms']:.1f} ms")
        return result

    def close(self):
        self.fleet.stop()
        self.origin.stop()


def main():
    parser = argparse.ArgumentParser()
    parser.add_argument("binary", nargs="?", default=os.path.join(ROOT, ".build/release/vitrine"))
    parser.add_argument("--kiosks", type=int, default=50)
    parser.add_argument("--poll", type=int, default=30, help="seconds (the default poll)")
    parser.add_argument("--jitter", type=float, default=0.2, help="a fraction of poll (the default)")
    parser.add_argument("--rounds", type=int, default=4, help="channel publishes measured")
    parser.add_argument("--idle", type=int, default=180, help="seconds of nothing changing, measured at the origin")
    parser.add_argument("--push-rounds", type=int, default=3)
    parser.add_argument("--json", help="also write the figures here")
    args = parser.parse_args()
    os.environ["PATH"] += ":/usr/sbin"
    random.seed(int(os.environ.get("FLEET_SEED", "10")))
    work = tempfile.mkdtemp(prefix="vitrine-fleet-bench-")
    os.chmod(work, 0o755)
    started = time.time()
    log(f"machine: {platform.machine()}, {os.cpu_count()} cores, {platform.platform()}; "
        f"load average {os.getloadavg()[0]:.2f}; {run([args.binary, '--version']).strip()}")
    bench = Bench(args, work)
    try:
        bench.start()
        bench.channel_rounds()
        bench.idle()
        bench.push_rounds()
        bench.sync_skew()
    except FleetFailure as failure:
        print(f"FAIL: {failure}\nwork directory kept: {work}", flush=True)
        return 1
    finally:
        bench.close()
    bench.results["wall_s"] = time.time() - started
    bench.results["load_average_end"] = os.getloadavg()
    bench.results["settings"] = vars(args)
    print(json.dumps(bench.results, indent=2, default=str))
    if args.json:
        with open(args.json, "w") as f:
            json.dump(bench.results, f, indent=2, default=str)
    shutil.rmtree(work, ignore_errors=True)
    return 0


if __name__ == "__main__":
    sys.exit(main())
