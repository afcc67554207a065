import CLinuxEvents
import Glibc
import VitrineCore

/// Talks to systemd through `$NOTIFY_SOCKET` (the sd_notify protocol: one
/// datagram of `KEY=value` lines), without linking libsystemd.
///
/// The display loop sends `READY=1` once the first frame is on screen and
/// `WATCHDOG=1` from the loop itself: if the display thread hangs, the pings
/// stop and systemd restarts the service (`WatchdogSec=` in the unit). Outside
/// systemd (no `NOTIFY_SOCKET`) every call does nothing.
///
/// With several output groups, only the first group's loop has the process's
/// notifier. Each other loop has a companion notifier
/// (`companion(beating:)`) that sends nothing and beats a `LoopHeartbeat` at
/// the same interval; the first loop's pings stop while any companion's
/// heartbeat is older than the watchdog's timeout (`watch(_:)`).
public final class ServiceNotifier {
    private let socketPath: String?
    /// Half the watchdog timeout, as systemd recommends; nil without a watchdog.
    public let watchdogInterval: Duration?
    private var lastPing: MonotonicInstant?
    /// A companion's: beaten where the process's notifier would ping.
    private let heartbeat: LoopHeartbeat?
    /// The other loops' heartbeats, each of which must be fresh for a ping.
    private var companions: [LoopHeartbeat] = []
    /// The companion whose heartbeat held back the last ping due; nil when it was sent.
    public private(set) var withheldFor: LoopHeartbeat?

    public init(environment: [String: String] = ServiceNotifier.processEnvironment()) {
        socketPath = environment["NOTIFY_SOCKET"].flatMap { $0.isEmpty ? nil : $0 }
        // WATCHDOG_PID, when set, must be ours: a child must not ping for its parent.
        let forUs = environment["WATCHDOG_PID"].map { Int32($0) == getpid() } ?? true
        if forUs, socketPath != nil, let text = environment["WATCHDOG_USEC"], let microseconds = Int64(text), microseconds > 0 {
            watchdogInterval = .microseconds(microseconds / 2)
        } else {
            watchdogInterval = nil
        }
        heartbeat = nil
    }

    private init(companionBeating heartbeat: LoopHeartbeat, every interval: Duration?) {
        socketPath = nil
        watchdogInterval = interval
        self.heartbeat = heartbeat
    }

    /// The notifier for another output group's loop: it tells systemd nothing
    /// (one process, one service state) and beats `heartbeat` at this
    /// notifier's watchdog interval, which wakes that loop as often. Pass the
    /// heartbeats to `watch(_:)`.
    public func companion(beating heartbeat: LoopHeartbeat) -> ServiceNotifier {
        ServiceNotifier(companionBeating: heartbeat, every: watchdogInterval)
    }

    /// Makes each watchdog ping wait for every one of `heartbeats` to have
    /// beaten within the watchdog's timeout (twice the interval). Call before
    /// the loops run.
    public func watch(_ heartbeats: [LoopHeartbeat]) {
        companions = heartbeats
    }

    public static func processEnvironment() -> [String: String] {
        var result: [String: String] = [:]
        for key in ["NOTIFY_SOCKET", "WATCHDOG_USEC", "WATCHDOG_PID"] {
            if let value = getenv(key) { result[key] = String(cString: value) }
        }
        return result
    }

    public var isActive: Bool { socketPath != nil }

    /// `READY=1` with a status line.
    public func ready(status: String) {
        send("READY=1\nSTATUS=\(status)")
    }

    /// `WATCHDOG=1` if one is due at `now` (a companion's heartbeat instead);
    /// returns when the next one is due.
    ///
    /// A ping due while a companion loop has not turned for the whole timeout
    /// is withheld (`withheldFor`), and tried again an interval later: if that
    /// loop stays hung, systemd's timeout runs out and it restarts the kiosk.
    @discardableResult
    public func pingIfDue(at now: MonotonicInstant) -> MonotonicInstant? {
        guard let watchdogInterval else { return nil }
        if let lastPing, now < lastPing + watchdogInterval { return lastPing + watchdogInterval }
        lastPing = now
        if let heartbeat {
            heartbeat.beat(at: now)
            return now + watchdogInterval
        }
        withheldFor = companions.first { now - $0.lastBeat > watchdogInterval * 2 }
        if withheldFor == nil { send("WATCHDOG=1") }
        return now + watchdogInterval
    }

    public func stopping() {
        send("STOPPING=1")
    }

    /// One datagram to the notify socket; a leading `@` means the abstract namespace.
    private func send(_ message: String) {
        guard let socketPath else { return }
        let fd = socket(AF_UNIX, Int32(SOCK_DGRAM.rawValue) | Int32(SOCK_CLOEXEC.rawValue), 0)
        guard fd >= 0 else { return }
        defer { close(fd) }
        var address = sockaddr_un()
        address.sun_family = sa_family_t(AF_UNIX)
        var path = Array(socketPath.utf8)
        if path.first == UInt8(ascii: "@") { path[0] = 0 }
        let capacity = MemoryLayout.size(ofValue: address.sun_path)
        guard path.count < capacity else { return }
        withUnsafeMutableBytes(of: &address.sun_path) { raw in
            for (index, byte) in path.enumerated() { raw[index] = byte }
        }
        let length = socklen_t(MemoryLayout<sa_family_t>.size + path.count)
        _ = message.withCString { text in
            withUnsafePointer(to: &address) {
                $0.withMemoryRebound(to: sockaddr.self, capacity: 1) { sendto(fd, text, strlen(text), 0, $0, length) }
            }
        }
    }
}
