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
"""
import re

from vmtest import crtc_states

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
        guest.run(f"echo on > {STATUS}")
    status, listing = guest.run("vitrine displays")
    if forced:
        guest.run(f"echo detect > {STATUS}")
    after = connector_status(guest)
    # The console is on the first head only, before and after: the second CRTC was never lit.
    crtcs_after = crtc_states(guest)
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
