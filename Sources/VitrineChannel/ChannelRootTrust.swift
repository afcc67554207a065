import FoundationEssentials
import VitrineCore

/// What a kiosk whose channel has a root of trust (`channel.root`) keeps about
/// it between polls and restarts (`channel-root-trust.json`), and whether it
/// may take updates now. Pure: the wall clock, the build date and whether the
/// system clock is synchronised are parameters, so tests run it on fixed times.
///
/// - A **version floor**: the highest root version ever taken. An older root
///   is never taken again, and if the stored root is lost the configured
///   `channel.keys` (which the rotation replaced, perhaps because they leaked)
///   are not trusted in its place.
/// - The root's **expiry**: its `expires`, or for a root without one (written
///   before roots expired, or the configured `channel.keys`, version 0)
///   `ChannelRoot.defaultLifetimeSeconds` after the kiosk first trusted it.
///   Past it, updates are refused until a newer root is taken, so whoever
///   controls the origin can withhold a rotation (a 404 for root.json, or the
///   old root served for ever) only until then.
/// - The **last trusted time**: the latest wall time the kiosk believed. A
///   clock before this binary's build date, or (without time synchronisation)
///   before the last trusted time, cannot be believed: it cannot tell whether
///   the root has expired. Then updates are refused too, until the clock is set.
///
/// Meanwhile the kiosk keeps showing what it has, and its channel status says why.
public struct ChannelRootTrust: Hashable, Sendable {
    public static let fileName = "channel-root-trust.json"
    /// How far the last trusted time must advance before it is stored again:
    /// at most one write an hour to the SD card, so a clock that steps back by
    /// less across a restart is not caught (it cannot hide a root's expiry by more).
    public static let storeIntervalSeconds: Int64 = 3600

    /// The highest root version taken; 0: none yet (`channel.keys` sign).
    public var versionFloor: UInt64
    /// When the kiosk first trusted the root it trusts now (nil: not yet).
    public var trustedSince: WallInstant?
    /// The latest wall time the kiosk believed (nil: none yet).
    public var lastTrustedTime: WallInstant?

    public init(versionFloor: UInt64 = 0, trustedSince: WallInstant? = nil, lastTrustedTime: WallInstant? = nil) {
        self.versionFloor = versionFloor
        self.trustedSince = trustedSince
        self.lastTrustedTime = lastTrustedTime
    }

    /// When `root` (nil: the configured keys) stops being trusted: its own
    /// expiry, or the default lifetime from when it was first trusted.
    public func expiry(of root: ChannelRootVersion?) -> WallInstant? {
        if let expires = root?.expires { return expires }
        return trustedSince.map { $0 + ChannelRoot.defaultLifetimeSeconds }
    }

    /// Why updates must wait at `clock`, or nil when they may be taken.
    /// - Parameters:
    ///   - buildDate: when this binary was made; a clock before it is certainly wrong.
    ///   - clockSynchronized: whether the system says its clock is synchronised
    ///     (systemd-timesyncd's /run/systemd/timesync/synchronized).
    ///   - root: the root trusted now; nil while `channel.keys` sign.
    public func hold(clock: WallInstant, buildDate: WallInstant, clockSynchronized: Bool,
                     root: ChannelRootVersion?) -> ChannelRefusal? {
        if clock < buildDate {
            // The reason names fixed instants only, so that each poll's refusal is the same one (logged and counted once).
            return .clockUntrusted("the clock is before this build's date, \(RFC3339.format(buildDate)): "
                                   + "no real-time clock and no time synchronisation yet")
        }
        if !clockSynchronized, let last = lastTrustedTime, clock < last {
            return .clockUntrusted("the clock is before \(RFC3339.format(last)), which the kiosk has already seen, "
                                   + "and it is not synchronised: it stepped back")
        }
        if let expiry = expiry(of: root), clock >= expiry {
            return .rootExpired(version: root?.version ?? 0, at: expiry, assumed: root?.expires == nil)
        }
        return nil
    }

    /// Records a believed `clock` and, the first time, that the current root
    /// is trusted from now; true when the change is worth storing.
    public mutating func believe(_ clock: WallInstant, clockSynchronized: Bool) -> Bool {
        var changed = false
        if trustedSince == nil {
            trustedSince = clock
            changed = true
        }
        // A synchronised clock is believed even below the last trusted time: that was the wrong one.
        let advance = lastTrustedTime.map { clock - $0 } ?? .max
        if advance >= Self.storeIntervalSeconds || (clockSynchronized && advance < 0) {
            lastTrustedTime = clock
            changed = true
        }
        return changed
    }

    /// The first root version the origin may serve: the floor itself (the
    /// root taken last, if the stored copy was lost) or newer.
    public var lowestAcceptableVersion: UInt64 { max(1, versionFloor) }

    /// Records that `root` was taken at `clock`: the floor rises to it, and its lifetime starts.
    public mutating func took(_ root: ChannelRootVersion, at clock: WallInstant) {
        versionFloor = max(versionFloor, root.version)
        trustedSince = clock
    }

    private struct Document: Codable {
        var versionFloor: UInt64
        var trustedSince: String?
        var lastTrustedTime: String?
    }

    /// The file's bytes: JSON with sorted keys.
    public var json: [UInt8] {
        let document = Document(versionFloor: versionFloor, trustedSince: trustedSince.map(RFC3339.format),
                                lastTrustedTime: lastTrustedTime.map(RFC3339.format))
        let encoder = JSONEncoder()
        encoder.outputFormatting = [.sortedKeys, .prettyPrinted, .withoutEscapingSlashes]
        return Array((try? encoder.encode(document)) ?? Data()) + [0x0A]
    }

    /// Reads the file's bytes; nil when they are not a trust record.
    public static func parse(_ bytes: [UInt8]) -> ChannelRootTrust? {
        guard let document = try? JSONDecoder().decode(Document.self, from: Data(bytes)) else { return nil }
        let since = document.trustedSince.flatMap(RFC3339.parse)
        let last = document.lastTrustedTime.flatMap(RFC3339.parse)
        guard (document.trustedSince == nil) == (since == nil), (document.lastTrustedTime == nil) == (last == nil) else { return nil }
        return ChannelRootTrust(versionFloor: document.versionFloor, trustedSince: since, lastTrustedTime: last)
    }
}
