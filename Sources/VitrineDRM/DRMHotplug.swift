/// Which kernel uevents are display hotplugs for one output.
///
/// When a connector's status changes (a cable pulled or plugged), the kernel
/// sends a `change` uevent for the card with `HOTPLUG=1`; newer kernels add
/// `CONNECTOR=<id>` when they know which connector changed. A uevent only says
/// "look again": what changed is read by probing the connector.
///
/// A synthetic `change` of the card (`udevadm trigger`, or `change` written to
/// /sys/class/drm/cardN/uevent; it carries `SYNTH_UUID`) counts too. Forcing a
/// connector's state through /sys/class/drm/cardN-CONNECTOR/status sends no
/// uevent at all on drivers that do not poll their connectors (bochs-drm and
/// virtio-gpu on Debian's 6.1 kernel, as the VM tests saw), so that trigger is
/// how an operator, or a test, asks the kiosk to look again.
public enum DRMHotplugFilter {
    /// Whether `event` (a uevent's KEY=value fields) may concern the connector
    /// `connectorID` on the card whose device number is `device`.
    ///
    /// The card is matched by device number (`MAJOR`, `MINOR`), not by name:
    /// `DEVNAME` is relative to /dev (`dri/card1`), while the configured card
    /// may be a symlink (`/dev/dri/by-path/…`), and a suffix test would take
    /// `card11` for `card1`.
    public static func concerns(_ event: [String: String], device: (major: UInt32, minor: UInt32),
                                connectorID: UInt32) -> Bool {
        let hotplug = event["HOTPLUG"] == "1" || (event["ACTION"] == "change" && event["SYNTH_UUID"] != nil)
        guard event["SUBSYSTEM"] == "drm", hotplug,
              event["MAJOR"].flatMap(UInt32.init) == device.major, event["MINOR"].flatMap(UInt32.init) == device.minor
        else { return false }
        // An event about one connector that is another one changes nothing here.
        if let connector = event["CONNECTOR"].flatMap(UInt32.init) { return connector == connectorID }
        return true
    }
}
