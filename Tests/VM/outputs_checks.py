"""Two heads on one card (called by vmtest.py on the virtio boot, whose
virtio-gpu-pci has max_outputs=2).

`vitrine displays` must list both Virtual connectors, connected, each with a
CRTC of its own from the assignment, and name Virtual-1 as the one output a
configuration drives today. QEMU enables only the first head at start (a UI
enables the others when it shows them, and the VM has none), so the guest sees
Virtual-2 disconnected: it is forced on through sysfs for the listing and put
back to `detect` afterwards, so the checks that follow see the card as it
booted. Forcing a status sends no hotplug event on virtio-gpu, so the console
is not moved onto the second head meanwhile.

With Virtual-2 on, the `outputs` section on the real card: `vitrine displays
--config` prints the plan for outputs-plan.yaml (each head with a playlist of
its own, on CRTCs of their own), and a kiosk whose outputs-second.yaml names
Virtual-2 alone drives that head, at its configured 1024x768, with its own
playlist: QMP's screendump of head 1 must equal `vitrine render` of that
playlist, and the render of outputs-second.yaml itself (which renders the
first listed output) must be the same picture.
"""
import base64
import datetime
import json
import os
import re
import time

from vmtest import (MAX_CHANNEL_DIFFERENCE, MAX_MEAN_DIFFERENCE, SECOND_TABLET_SLOT, Image, api_request, crtc_states, host_render,
                    logged, tablet)

STATUS = "/sys/class/drm/card0-Virtual-2/status"


def connector_status(guest):
    """Virtual-2's status: the last line of the output, since the guest's shell
    may first print a notice of a background job that ended (the CEC checks'
    cec-follower, killed just before, is reported at the next command)."""
    _, output = guest.run(f"cat {STATUS}")
    lines = output.strip().splitlines()
    return lines[-1].strip() if lines else ""


def outputs_checks(guest, results, args, mirror, work):
    # Let the shell report any background job that ended before this check.
    guest.run("true")
    before = connector_status(guest)
    forced = before == "disconnected"
    if forced:
        waiting_checks(guest, results, args.vitrine, os.path.join(mirror, "outputs-waiting.yaml"), "/vm/outputs-waiting.yaml", work)
        guest.run(f"echo on > {STATUS}")
    status, listing = guest.run("vitrine displays")
    doctor_checks(guest, results)
    second_head_checks(guest, results, args, mirror, work)
    two_groups_checks(guest, results, args, mirror, work)
    if forced:
        guest.run(f"echo detect > {STATUS}")
    after = connector_status(guest)
    # The console is on the first head only, before and after: the second CRTC was never lit.
    crtcs_after = crtc_states(guest)
    # The kiosk on Virtual-2 has stopped; its CRTC may keep its last mode (enable 1,
    # active 1) as DRM leaves a CRTC its last master set: only the console's must be lit.
    print(f"  [{results.label}] vitrine displays with two heads (Virtual-2 was {before!r}):\n"
          + "\n".join("    " + line for line in listing.rstrip().splitlines()), flush=True)
    crtcs = dict(re.findall(r"^\s+(Virtual-\d+)\s+connected\b.*?\bCRTC (\d+)", listing, re.M))
    one = re.search(r"one output .*: (\S+) on CRTC (\d+)", listing)
    results.check("two heads: `vitrine displays` lists Virtual-1 and Virtual-2 connected, on two different CRTCs, "
                  "and Virtual-1 as today's one output",
                  status == 0 and set(crtcs) == {"Virtual-1", "Virtual-2"} and len(set(crtcs.values())) == 2
                  and one is not None and one.group(1) == "Virtual-1" and one.group(2) == crtcs["Virtual-1"],
                  f"CRTCs {crtcs}; one output {one.groups() if one else None}")
    results.check("two heads: Virtual-2's status is put back as it booted, and only the console's CRTC is lit",
                  after == before and crtcs_after.count(("1", "1")) == 1,
                  f"{before!r} -> {after!r}; CRTCs (enable, active) {crtcs_after}")


def doctor_checks(guest, results):
    """`vitrine doctor` on the two-head card: its JSON has every section in
    order, the card's connectors, and each plane virtio-gpu offers (a primary
    and a cursor per CRTC, no overlay); the saved file is the printed report."""
    guest.run("mkdir -p /tmp/doctor-state")
    status, output = guest.run("vitrine doctor --json --state-dir /tmp/doctor-state")
    _, saved = guest.run("cat /tmp/doctor-state/doctor.json")
    try:
        report = json.loads(output[output.index("{"):output.rindex("}") + 1])
        ids = [section["id"] for section in report["sections"]]
        displays = next(section for section in report["sections"] if section["id"] == "displays")
        card = displays["subsections"][0]
        facts = {fact["name"]: fact["value"] for fact in card["facts"]}
        planes = next(sub for sub in card["subsections"] if sub["id"] == "planes")
        kinds = [fact["name"].split()[0] for fact in planes["facts"]]
        same = json.loads(saved[saved.index("{"):saved.rindex("}") + 1]) == report
        detail = (f"exit {status}; sections {ids}; card {card['title']!r}: Virtual-1 {facts.get('Virtual-1')!r}, "
                  f"Virtual-2 {facts.get('Virtual-2')!r}; planes {planes['summary']!r}; saved file the same: {same}")
        # The VM has no /usr/share/vitrine/doctor: its decoding section says the pictures are missing.
        ok = (status in (0, 1)
              and ids == ["board", "power", "storage", "displays", "cec", "touch", "decoding", "video", "software", "network"]
              and "virtio_gpu" in card["title"] and facts.get("Virtual-1", "").startswith("connected")
              and facts.get("Virtual-2", "").startswith("connected")
              and kinds.count("primary") == 2 and kinds.count("cursor") == 2 and kinds.count("overlay") == 0 and same)
    except (ValueError, KeyError, StopIteration, IndexError) as error:
        ok, detail = False, f"exit {status}; {error!r}; output {output.strip()[-300:]!r}"
    results.check("doctor: `vitrine doctor` reports both heads and virtio-gpu's planes, and saves what it printed", ok, detail)


def second_head_checks(guest, results, args, mirror, work):
    status, listing = guest.run("vitrine displays --config /vm/outputs-plan.yaml")
    plan = {name: (playlist, crtc, mode) for name, playlist, crtc, mode in
            re.findall(r"^\s+(Virtual-\d+): playlist (\w+); CRTC (\d+)[^,\n]*, (\d+x\d+)", listing, re.M)}
    print(f"  [{results.label}] vitrine displays --config outputs-plan.yaml:\n"
          + "\n".join("    " + line for line in listing.rstrip().splitlines() if "modes:" not in line), flush=True)
    results.check("outputs: the plan on the real card gives each head its own playlist and CRTC, Virtual-2 at 1024x768",
                  status == 0 and plan.get("Virtual-1", ("",))[0] == "first" and plan.get("Virtual-2", ("",))[0] == "second"
                  and plan["Virtual-1"][1] != plan["Virtual-2"][1] and plan["Virtual-2"][2] == "1024x768"
                  and "note:" not in listing,
                  f"plan {plan}")

    log, pid = "/tmp/outputs-second.log", "/tmp/outputs-second.pid"
    guest.run(f"vitrine run --config /vm/outputs-second.yaml > {log} 2>&1 & echo $! > {pid}")
    try:
        guest.wait_for_log(log, "first frame on screen")
        path = os.path.join(work, "outputs-second-head1.ppm")
        guest.qmp.execute("screendump", filename=path, device="gpu0", head=1)
        dump = Image.load_ppm(path)
        crtcs = crtc_states(guest)
        _, opened = guest.run(f"grep -m1 'Virtual-2' {log} || true")
    finally:
        guest.stop_kiosk(pid)
    expected = host_render(args.vitrine, os.path.join(mirror, "outputs-second-expected.yaml"), 1.0, "1024x768", work,
                           "outputs-second-expected")
    # The render of outputs-second.yaml itself: its first listed output, Virtual-2 (--wall: a schedule's playlist).
    rendered = host_render(args.vitrine, os.path.join(mirror, "outputs-second.yaml"), 1.0, "1024x768", work,
                           "outputs-second-render", wall="2026-11-23T12:00:00Z")
    size_ok = (dump.width, dump.height) == (1024, 768)
    worst, mean = dump.difference(expected) if size_ok else (255, 255.0)
    results.check("outputs: a kiosk whose outputs name Virtual-2 drives the second head at 1024x768 with its own playlist, "
                  "equal to `vitrine render` of it",
                  size_ok and worst <= MAX_CHANNEL_DIFFERENCE and mean <= MAX_MEAN_DIFFERENCE
                  and rendered.difference(expected) == (0, 0.0),
                  f"head 1 {dump.width}x{dump.height}: max {worst}, mean {mean:.3f}; render of the file vs its playlist "
                  f"{rendered.difference(expected)}; CRTCs (enable, active) {crtcs}; log: {opened.strip()[:160]!r}")


TWO_INTERVAL = 3.0
WALL = "2026-11-23T12:00:00Z"


def page_change_times(guest, log, output="Virtual-1"):
    """The UTC timestamps of one head's page changes: Virtual-2's loop logs
    with `output=Virtual-2`, the first group's (Virtual-1) with no output."""
    select = f"grep 'output={output}'" if output != "Virtual-1" else "grep -v 'output='"
    _, text = guest.run(f"grep 'page changed' {log} | {select} || true")
    stamps = re.findall(r"^(\d{4}-\d\d-\d\dT\d\d:\d\d:\d\d\.\d+)Z .*page changed", text, re.M)
    return [datetime.datetime.fromisoformat(stamp).timestamp() for stamp in stamps]


def dump_head(guest, work, name, head):
    path = os.path.join(work, f"{name}.ppm")
    guest.qmp.execute("screendump", filename=path, device="gpu0", head=head)
    return Image.load_ppm(path)


def two_groups_checks(guest, results, args, mirror, work):
    two_heads_checks(guest, results, args.vitrine, os.path.join(mirror, "outputs-two.yaml"), "/vm/outputs-two.yaml", work,
                     monitoring=True)
    wall_checks(guest, results, args.vitrine, os.path.join(mirror, "outputs-wall.yaml"), "/vm/outputs-wall.yaml", work)
    mirror_checks(guest, results, args.vitrine, os.path.join(mirror, "outputs-mirror.yaml"), "/vm/outputs-mirror.yaml", work)
    legacy_mirror_checks(guest, results, work)
    touch_checks(guest, results)
    virtio_tablets_checks(guest, results, "/vm")


def crop(image, x, width):
    """Columns x..x+width of `image`, every row."""
    rows = [image.rgb[(y * image.width + x) * 3:(y * image.width + x + width) * 3] for y in range(image.height)]
    return Image(width, image.height, b"".join(rows))


def run_and_dump(guest, work, name, guest_config):
    """Runs the kiosk on `guest_config` until both loops' first frames, and dumps both heads."""
    log, pid = f"/tmp/{name}.log", f"/tmp/{name}.pid"
    guest.run(f"vitrine run --config {guest_config} --state-dir /tmp/{name}-state > {log} 2>&1 & echo $! > {pid}")
    try:
        guest.wait_for_log(log, "first frame on screen")
        time.sleep(1.0)
        heads = [dump_head(guest, work, f"{name}-head{head}", head) for head in (0, 1)]
        _, shown = guest.run(f"grep -m1 'displaying' {log} || true")
    finally:
        guest.stop_kiosk(pid)
    return heads, shown.strip()


WALL_WIDTH, HEAD_WIDTH, BEZEL = 2088, 1024, 40


def wall_checks(guest, results, vitrine, config, guest_config, work):
    """A picture spanned across both heads: head 0 shows canvas columns
    0-1023 and head 1 columns 1064-2087 of `vitrine render` of the canvas
    (the configuration at the canvas's size), so the 40 columns of the 10 mm
    bezel show on neither; head 1 is not the columns straight after head 0's."""
    (left, right), shown = run_and_dump(guest, work, "outputs-wall", guest_config)
    canvas = host_render(vitrine, config, 1.0, f"{WALL_WIDTH}x768", work, "outputs-wall-canvas", output="Virtual-1")
    first, second = crop(canvas, 0, HEAD_WIDTH), crop(canvas, HEAD_WIDTH + BEZEL, HEAD_WIDTH)
    unbroken = crop(canvas, HEAD_WIDTH, HEAD_WIDTH)
    sizes = [(left.width, left.height), (right.width, right.height)]
    worst0, mean0 = left.difference(first)
    worst1, mean1 = right.difference(second)
    skipped = right.difference(unbroken)
    results.check("outputs: a canvas across both heads lines up at the seam with the 10 mm bezel skipped: each head equals "
                  "its columns of `vitrine render` of the canvas",
                  sizes == [(1024, 768)] * 2 and worst0 <= MAX_CHANNEL_DIFFERENCE and mean0 <= MAX_MEAN_DIFFERENCE
                  and worst1 <= MAX_CHANNEL_DIFFERENCE and mean1 <= MAX_MEAN_DIFFERENCE and skipped[1] > 5 * MAX_MEAN_DIFFERENCE,
                  f"heads {sizes}; head 0 vs columns 0-1023: max {worst0}, mean {mean0:.3f}; head 1 vs columns 1064-2087: "
                  f"max {worst1}, mean {mean1:.3f}; head 1 vs columns 1024-2047 (no bezel): mean {skipped[1]:.3f}; log: {shown[-140:]!r}")


def mirror_checks(guest, results, vitrine, config, guest_config, work):
    """Virtual-2 mirroring Virtual-1 at the same mode: both heads equal `vitrine render` of the source."""
    (source, copy), shown = run_and_dump(guest, work, "outputs-mirror", guest_config)
    expected = host_render(vitrine, config, 1.0, "1024x768", work, "outputs-mirror-render", output="Virtual-1")
    worst0, mean0 = source.difference(expected)
    worst1, mean1 = copy.difference(expected)
    results.check("outputs: a mirror shows its source's picture: both heads equal `vitrine render` of Virtual-1",
                  worst0 <= MAX_CHANNEL_DIFFERENCE and mean0 <= MAX_MEAN_DIFFERENCE
                  and worst1 <= MAX_CHANNEL_DIFFERENCE and mean1 <= MAX_MEAN_DIFFERENCE,
                  f"head 0 {source.width}x{source.height}: max {worst0}, mean {mean0:.3f}; "
                  f"head 1 {copy.width}x{copy.height}: max {worst1}, mean {mean1:.3f}; log: {shown[-140:]!r}")


def head_matches(guest, vitrine, config, work, name, head, output, size=None):
    """A screendump of `head` against `vitrine render --output` at the slide
    its page changes so far lead to (mid-rest); retried once if a page
    change came between the count and the dump."""
    for attempt in range(2):
        changes = len(page_change_times(guest, LOG, output))
        # A page change is logged before its frame is drawn and flipped: at 5120x2160 under TCG,
        # a tenth of a second or more later. One logged just before the count may not be on
        # screen yet, so the dump waits that long; a change after the count is caught below.
        time.sleep(0.6)
        shown = dump_head(guest, work, f"{name}-{attempt}", head)
        if len(page_change_times(guest, LOG, output)) == changes:
            break
    expected = host_render(vitrine, config, TWO_INTERVAL * changes + TWO_INTERVAL / 2, f"{shown.width}x{shown.height}",
                           work, f"{name}-render", wall=WALL, output=output)
    worst, mean = shown.difference(expected)
    ok = (size is None or (shown.width, shown.height) == size) and worst <= MAX_CHANNEL_DIFFERENCE and mean <= MAX_MEAN_DIFFERENCE
    return ok, f"head {head} {shown.width}x{shown.height} after {changes} page change(s): max {worst}, mean {mean:.3f}"


LOG = "/tmp/outputs-two.log"


def two_heads_checks(guest, results, vitrine, config, guest_config, work, tolerance=0.25, monitoring=False):
    """Both heads driven at once, each by its own display loop on a DRM lease
    of its own: each head's screendump equals `vitrine render --output` of it;
    both change slides on the same deadlines, within a frame of each other;
    Virtual-1 keeps paging on time (each gap within `tolerance` seconds of the
    interval) while Virtual-2 is unplugged and plugged back (sysfs `off`, then
    `on`, each followed by the card's change uevent), and only Virtual-2 is set
    up again. `config` is the host's copy of `guest_config` (outputs-two.yaml's
    form), whose slide paths resolve alike on both; Virtual-2 must be on. The
    arm64 image test runs it too; `monitoring` adds the API's view of both loops
    (`monitoring_checks`, over the guest's busybox nc, which the amd64 VM has)."""
    log, pid = LOG, "/tmp/outputs-two.pid"
    def plug(state):
        guest.run(f"echo {state} > {STATUS} && echo change > /sys/class/drm/card0/uevent")
    guest.run(f"vitrine run --config {guest_config} --state-dir /tmp/outputs-two-state --log-level debug > {log} 2>&1 & echo $! > {pid}")
    try:
        guest.wait_for_log(log, "first frame on screen")
        both = logged(guest, log, "displaying Virtual-2", 10) and logged(guest, log, "displaying Virtual-1", 1)
        # Two first frames: one per loop.
        deadline = time.monotonic() + 20
        while guest.count_in_log(log, "first frame on screen") < 2 and time.monotonic() < deadline:
            time.sleep(0.3)
        frames = guest.count_in_log(log, "first frame on screen")
        time.sleep(0.5)
        second_ok, second = head_matches(guest, vitrine, config, work, "outputs-two-head1", 1, "Virtual-2", (1024, 768))
        first_ok, first = head_matches(guest, vitrine, config, work, "outputs-two-head0", 0, "Virtual-1")
        _, lines = guest.run(f"grep -E 'displaying' {log} | head -2")
        results.check("outputs: two heads driven at once, each by its own loop on a lease, each equal to "
                      "`vitrine render --output` of it at its slide",
                      both and frames >= 2 and first_ok and second_ok,
                      f"first frames {frames}; {second}; {first}; log: {' | '.join(l.strip()[-100:] for l in lines.splitlines())}")
        # The lessor asked for universal planes, so each lease names its planes itself
        # (PlaneShare): virtio-gpu has a primary and a cursor plane per CRTC and no overlay.
        _, leased = guest.run(f"grep -E 'leased with' {log}")
        planes = {m.group(1): set(re.findall(r"plane (\d+)", m.group(2)))
                  for m in re.finditer(r"(Virtual-\d) leased with (.*)", leased)}
        results.check("outputs: each lease holds its CRTC's own primary and cursor plane, named by the plane share, "
                      "none in both leases",
                      sorted(planes) == ["Virtual-1", "Virtual-2"] and all(len(p) == 2 for p in planes.values())
                      and not planes["Virtual-1"] & planes["Virtual-2"],
                      " | ".join(l.strip()[-110:] for l in leased.splitlines()) or "no lease logged its planes")

        if monitoring:
            monitoring_checks(guest, results, log, "/tmp/outputs-two-state")

        before_unplug = len(page_change_times(guest, log))
        plug("off")
        away = logged(guest, log, "Virtual-2 was disconnected", 20)
        # Two more of Virtual-1's page changes while Virtual-2 is away.
        deadline = time.monotonic() + 3 * TWO_INTERVAL + 10
        while len(page_change_times(guest, log)) < before_unplug + 2 and time.monotonic() < deadline:
            time.sleep(0.5)
        # `on`, not `detect`: QEMU lit only the first head, so a probe would find Virtual-2 disconnected.
        plug("on")
        back = logged(guest, log, "Virtual-2 is connected: mode set again", 20)
        deadline = time.monotonic() + TWO_INTERVAL + 5
        while len(page_change_times(guest, log)) < before_unplug + 3 and time.monotonic() < deadline:
            time.sleep(0.5)
        times = page_change_times(guest, log)
        others = page_change_times(guest, log, "Virtual-2")
        gaps = [b - a for a, b in zip(times, times[1:])]
        _, first_set_up = guest.run(f"grep -cE 'Virtual-1 (was disconnected|is connected)' {log} || true")
        refits = int(re.findall(r"\d+", first_set_up)[-1]) if re.findall(r"\d+", first_set_up) else -1
        time.sleep(0.5)
        again_ok, again = head_matches(guest, vitrine, config, work, "outputs-two-head1-again", 1, "Virtual-2", (1024, 768))
        on_time = bool(gaps) and all(abs(gap - TWO_INTERVAL) <= tolerance for gap in gaps)
        results.check("outputs: Virtual-2 unplugged and plugged back: Virtual-1 pages every 3 s throughout, is never set up "
                      "again, and Virtual-2 shows its playlist again",
                      away and back and len(times) >= before_unplug + 3 and on_time and refits == 0 and again_ok,
                      f"disconnect logged {away}, replug logged {back}; Virtual-1's page changes {len(times)} "
                      f"({before_unplug} before the unplug), gaps {[round(g, 3) for g in gaps]} s; "
                      f"Virtual-1 set up again {refits} time(s); after: {again}")
        # In step: each of Virtual-1's changes has Virtual-2's within one refresh (60 Hz: 16.7 ms).
        pairs = [min((abs(a - b) for b in others), default=None) for a in times]
        skews = [round(p * 1000, 1) for p in pairs if p is not None]
        results.check("outputs: the two loops, started together, change slides within a frame of each other",
                      len(skews) == len(times) >= 3 and max(skews) < 1000 / 60,
                      f"{len(times)} changes on Virtual-1, {len(others)} on Virtual-2; skew per change {skews} ms")
    finally:
        guest.stop_kiosk(pid)


def monitoring_checks(guest, results, log, state_dir):
    """Every output group's loop answers for the kiosk: /healthz asks each and
    lists it, /metrics has each group's counters under its output, and proof of
    play records each head's slides under its name."""
    # The initramfs leaves loopback down; the API listens on it.
    guest.run("ip link set lo up")
    # A play is logged when its slide gives way: wait for two of Virtual-2's changes.
    deadline = time.monotonic() + 3 * TWO_INTERVAL
    while len(page_change_times(guest, log, "Virtual-2")) < 2 and time.monotonic() < deadline:
        time.sleep(0.5)
    # With the token: without it, /healthz and /metrics number the outputs rather than name them.
    authorization = f"Authorization: Bearer $(cat {state_dir}/api-token)\\r\\n"
    _, health = guest.run(f"printf \"GET /healthz HTTP/1.0\\r\\n{authorization}\\r\\n\" | nc -w 10 127.0.0.1 8080")
    # The serial console echoes the command: the body is the line that starts a JSON object.
    body = next((line.strip() for line in health.splitlines() if line.strip().startswith("{")), "{}")
    try:
        listed = [(o.get("output"), o.get("status")) for o in json.loads(body).get("outputs", [])]
    except (ValueError, AttributeError):
        listed = []
    _, metrics = guest.run(f"printf \"GET /metrics HTTP/1.0\\r\\n{authorization}\\r\\n\" | nc -w 10 127.0.0.1 8080 "
                           "| grep -E '^vitrine_slide_changes_total'")
    changes = {m.group(1): int(m.group(2)) for m in re.finditer(r'vitrine_slide_changes_total\{output="([^"]+)"\} (\d+)', metrics)}
    status, plays = api_request(guest, state_dir, "GET", "/api/v1/plays?output=Virtual-2")
    named = [play.get("output") for play in (plays or {}).get("plays", [])]
    results.check("outputs: /healthz asks both loops, /metrics counts each head's page changes under its name, and "
                  "proof of play records Virtual-2's slides as its own",
                  listed == [("Virtual-1", "ok"), ("Virtual-2", "ok")] and changes.get("Virtual-1", 0) > 0
                  and changes.get("Virtual-2", 0) > 0 and status == 200 and named and all(n == "Virtual-2" for n in named),
                  f"healthz outputs {listed}; slide changes {changes}; plays?output=Virtual-2: {status}, {len(named)} play(s) "
                  f"named {sorted(set(map(str, named)))}; API in the log: {api_lines(guest, log)}")


def api_lines(guest, log):
    """What the kiosk logged about its API, for a failure's message."""
    _, lines = guest.run(f"grep -E 'API|api' {log} | tail -3")
    return " | ".join(line.strip()[-120:] for line in lines.splitlines())


def touch_checks(guest, results):
    """Two uinput touchscreens, each bound to one head by name (outputs-touch.yaml):
    `vitrine touch list --config` says so, each loop opens only its own, and a
    swipe on each pages only its own head's carousel."""
    log, pid = "/tmp/outputs-touch.log", "/tmp/outputs-touch.pid"
    for side in ("Left", "Right"):
        guest.run(f"sed 's/^N: .*/N: {side} Touch/' /vm/touch/touchscreen.desc > /tmp/{side.lower()}.desc")
    guest.run(f"vitrine run --config /vm/outputs-touch.yaml --state-dir /tmp/outputs-touch-state --log-level debug > {log} 2>&1 & echo $! > {pid}")
    nodes = {}
    try:
        guest.wait_for_log(log, "first frame on screen")
        for side in ("Left", "Right"):
            _, output = guest.run(f"evemu-device /tmp/{side.lower()}.desc > /tmp/evemu-{side}.txt 2>&1 & sleep 1; cat /tmp/evemu-{side}.txt")
            found = re.findall(r"/dev/input/event\d+", output)
            nodes[side] = found[-1] if found else None
        left_taken = bool(nodes["Left"]) and logged(guest, log, f'touch input: {nodes["Left"]} "Left Touch"', 20)
        right_taken = bool(nodes["Right"]) and logged(guest, log, f'touch input: {nodes["Right"]} "Right Touch"', 20)
        _, opened = guest.run(f"grep 'touch input: /dev/input' {log} | grep -v 'no longer' || true")
        opened_by = {side: [("Virtual-2" if "output=Virtual-2" in line else "Virtual-1") for line in opened.splitlines()
                            if f'"{side} Touch", ' in line] for side in ("Left", "Right")}
        _, listing = guest.run("vitrine touch list --config /vm/outputs-touch.yaml 2>&1 | grep -A6 'Touch\"' || true")
        # Each device's block (from its /dev/input line) names its output: `output: Virtual-1: configured: ...`.
        blocks = re.split(r"^(?=/dev/input/)", listing, flags=re.M)
        listed = {side: [m for b in blocks if f'"{side} Touch"' in b for m in re.findall(r"output: (\S+?):", b)]
                  for side in ("Left", "Right")}
        results.check("outputs: each touchscreen is opened by its own head's loop alone, and `vitrine touch list` binds it so",
                      left_taken and right_taken and opened_by == {"Left": ["Virtual-1"], "Right": ["Virtual-2"]}
                      and listed == {"Left": ["Virtual-1"], "Right": ["Virtual-2"]},
                      f"devices {nodes}; opened by {opened_by}; listed {listed}; touch list: {' | '.join(l.strip() for l in listing.splitlines())[:400]}")
        changes = lambda: page_change_times(guest, log), lambda: page_change_times(guest, log, "Virtual-2")
        if nodes["Left"] and nodes["Right"]:
            guest.run(f'evemu-play {nodes["Left"]} < /vm/touch/swipe-left.events')
            left_paged = logged(guest, log, "cause=swipe from=0 to=1", 20)
            time.sleep(1.0)
            after_left = (len(changes[0]()), len(changes[1]()))
            guest.run(f'evemu-play {nodes["Right"]} < /vm/touch/swipe-left.events')
            right_paged = logged(guest, log, "cause=swipe from=0 output=Virtual-2 to=1", 20)
            time.sleep(1.0)
            after_right = (len(changes[0]()), len(changes[1]()))
            results.check("outputs: a swipe on each touchscreen pages its own head alone; the other's carousel stays",
                          left_paged and right_paged and after_left == (1, 0) and after_right == (1, 1),
                          f"page changes (Virtual-1, Virtual-2) after the left swipe {after_left}, after the right {after_right}")
    finally:
        guest.run("killall evemu-device 2>/dev/null")
        guest.stop_kiosk(pid)


REPO_VM_CONFIGS = os.path.join(os.path.dirname(os.path.abspath(__file__)), "configs")


def virtio_tablets_checks(guest, results, config_directory):
    """Two virtio tablets, each bound to one head by its physical path
    (`touch: [{phys: virtioN/input0}]`), each swiped through QMP: a swipe on
    each pages only its own head. The amd64 VM and the arm64 image both run it."""
    _, listing = guest.run("for e in /sys/class/input/event*; do echo \"$e $(cat $e/device/phys) "
                           "$(readlink -f $e/device) $(cat $e/device/name)\"; done | grep 'Virtio Tablet'")
    phys = {}
    for line in listing.splitlines():
        fields = line.split()
        if len(fields) >= 3 and fields[1].startswith("virtio"):
            second = re.search(rf"/0000:00:{SECOND_TABLET_SLOT}\.0/", fields[2]) is not None
            phys["Virtual-2" if second else "Virtual-1"] = fields[1]
    with open(os.path.join(REPO_VM_CONFIGS, "outputs-touch.yaml")) as f:
        text = f.read().replace("demo/images/", "images/" if config_directory == "/etc/vitrine" else "demo/images/")
    for output in ("Virtual-1", "Virtual-2"):
        text = text.replace(f"touch: [{'Left' if output == 'Virtual-1' else 'Right'} Touch]",
                            f"touch: [{{phys: {phys.get(output, 'none')}}}]")
    guest_config = f"{config_directory}/outputs-tablets.yaml"
    guest.run(f"echo {base64.b64encode(text.encode()).decode()} | base64 -d > {guest_config}")
    log, pid = "/tmp/outputs-tablets.log", "/tmp/outputs-tablets.pid"
    guest.run(f"vitrine run --config {guest_config} --state-dir /tmp/outputs-tablets-state --log-level debug > {log} 2>&1 & echo $! > {pid}")
    try:
        guest.wait_for_log(log, "first frame on screen")
        deadline = time.monotonic() + 20
        while guest.count_in_log(log, "first frame on screen") < 2 and time.monotonic() < deadline:
            time.sleep(0.3)
        def swipe(head):
            tablet(guest, 0.75, 0.5, button=True, head=head)
            for step in range(1, 16):
                tablet(guest, 0.75 - step * 0.5 / 15, 0.5, head=head)
                time.sleep(0.02)
            tablet(guest, 0.25, 0.5, button=False, head=head)
        counts = lambda: (len(page_change_times(guest, log)), len(page_change_times(guest, log, "Virtual-2")))
        swipe(None)
        first = logged(guest, log, "cause=swipe from=0 to=1", 20)
        time.sleep(1.0)
        after_first = counts()
        swipe(1)
        second = logged(guest, log, "cause=swipe from=0 output=Virtual-2 to=1", 20)
        time.sleep(1.0)
        after_second = counts()
        results.check("outputs: two virtio tablets, each bound to a head by its physical path: a swipe on each pages "
                      "its own head alone",
                      len(phys) == 2 and first and second and after_first == (1, 0) and after_second == (1, 1),
                      f"tablets {phys}; page changes (Virtual-1, Virtual-2) after the first tablet's swipe {after_first}, "
                      f"after the second's {after_second}")
    finally:
        guest.stop_kiosk(pid)


def waiting_checks(guest, results, vitrine, config, guest_config, work):
    """Virtual-2 disconnected when the kiosk starts (QEMU lit only the first
    head), so it `wait`s (the default): its loop runs with nothing on screen
    on a lease of its own, at the 1920x1080 stand-in (outputs-waiting.yaml
    names no mode for it), and when the display is plugged in (sysfs `on` and
    the card's change uevent) its preferred mode is set and it shows its
    playlist at the slide its timeline has reached, laid out for the real
    size, with touch mapped onto that size, while Virtual-1 is never set up
    again. Leaves Virtual-2 forced on."""
    log, pid = LOG, "/tmp/outputs-two.pid"
    guest.run(f"vitrine run --config {guest_config} --state-dir /tmp/outputs-waiting-state --log-level debug > {log} 2>&1 & echo $! > {pid}")
    try:
        guest.wait_for_log(log, "first frame on screen")
        waits = logged(guest, log, "Virtual-2 is waiting for its display", 10)
        time.sleep(1.0)
        first_ok, first = head_matches(guest, vitrine, config, work, "outputs-waiting-head0", 0, "Virtual-1")
        guest.run(f"echo on > {STATUS} && echo change > /sys/class/drm/card0/uevent")
        plugged = logged(guest, log, "Virtual-2 is connected: mode set again", 20)
        time.sleep(1.0)
        second_ok, second = head_matches(guest, vitrine, config, work, "outputs-waiting-head1", 1, "Virtual-2")
        size = re.search(r"head 1 (\d+x\d+)", second)
        # The stand-in is Virtual-2's configured mode, else 1920x1080 (outputs-waiting.yaml names
        # none; the arm64 image test passes outputs-two.yaml, which names 1024x768): touch is
        # mapped again only when the real mode differs from it.
        named = re.search(r"name: Virtual-2\s*\n\s*mode: (\d+x\d+)", open(config).read())
        stand_in = named.group(1) if named else "1920x1080"
        expected_remaps = [size.group(1)] if size and size.group(1) != stand_in else []
        # Touch follows the new size: one loop (Virtual-2's) maps onto it; Virtual-1's never changed size.
        _, mapped = guest.run(f"grep -o 'touch input: mapped onto [0-9x]*' {log} || true")
        remapped = [line.split()[-1] for line in mapped.splitlines() if "mapped onto" in line]
        _, first_set_up = guest.run(f"grep -cE 'Virtual-1 (was disconnected|is connected)' {log} || true")
        refits = int(re.findall(r"\d+", first_set_up)[-1]) if re.findall(r"\d+", first_set_up) else -1
        _, lines = guest.run(f"grep -E 'waiting for its display|Virtual-2 is connected' {log} | head -2")
        results.check("outputs: an output missing at start waits on its lease at a stand-in size, and shows its playlist at its "
                      "slide once plugged in, laid out and touch mapped for its real size; the other head is not set up again",
                      waits and first_ok and plugged and second_ok and refits == 0
                      and size is not None and remapped == expected_remaps,
                      f"before: {first}; after the plug: {second}; touch remapped onto {remapped}; Virtual-1 set up again {refits} time(s); "
                      f"log: {' | '.join(l.strip()[-110:] for l in lines.splitlines())}")
    finally:
        guest.stop_kiosk(pid)


def legacy_mirror_checks(guest, results, work):
    """The leases through legacy modesetting (outputs-mirror-legacy.yaml): a
    mirror paging every second flips on both heads with drmModePageFlip, and
    both heads show the same picture."""
    log, pid = "/tmp/outputs-legacy.log", "/tmp/outputs-legacy.pid"
    guest.run(f"vitrine run --config /vm/outputs-mirror-legacy.yaml --state-dir /tmp/outputs-legacy-state > {log} 2>&1 & echo $! > {pid}")
    try:
        guest.wait_for_log(log, "first frame on screen")
        time.sleep(3.5)
        for attempt in range(3):
            before = guest.count_in_log(log, "page changed")
            heads = [dump_head(guest, work, f"outputs-legacy-{attempt}-head{head}", head) for head in (0, 1)]
            if guest.count_in_log(log, "page changed") == before:
                break
        changes = guest.count_in_log(log, "page changed")
        _, shown = guest.run(f"grep -m1 'displaying' {log} || true")
        _, errors = guest.run(f"grep -ciE 'error|cannot' {log} || true")
        worst, mean = heads[0].difference(heads[1])
        results.check("outputs: through legacy modesetting, a mirror paging every second flips on both leases and both heads agree",
                      " legacy" in shown and changes >= 3 and worst == 0 and errors.strip().splitlines()[-1:] == ["0"],
                      f"{changes} page changes; head 0 vs head 1: max {worst}, mean {mean:.3f}; errors logged "
                      f"{errors.strip().splitlines()[-1:] }; log: {shown.strip()[-150:]!r}")
    finally:
        guest.stop_kiosk(pid)
