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
public final class ServiceNotifier {
    private let socketPath: String?
    /// Half the watchdog timeout, as systemd recommends; nil without a watchdog.
    public let watchdogInterval: Duration?
    private var lastPing: MonotonicInstant?

    public init(environment: [String: String] = ServiceNotifier.processEnvironment()) {
        socketPath = environment["NOTIFY_SOCKET"].flatMap { $0.isEmpty ? nil : $0 }
        // WATCHDOG_PID, when set, must be ours: a child must not ping for its parent.
        let forUs = environment["WATCHDOG_PID"].map { Int32($0) == getpid() } ?? true
        if forUs, socketPath != nil, let text = environment["WATCHDOG_USEC"], let microseconds = Int64(text), microseconds > 0 {
            watchdogInterval = .microseconds(microseconds / 2)
        } else {
            watchdogInterval = nil
        }
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

    /// `WATCHDOG=1` if one is due at `now`; returns when the next one is due.
    @discardableResult
    public func pingIfDue(at now: MonotonicInstant) -> MonotonicInstant? {
        guard let watchdogInterval else { return nil }
        if let lastPing, now < lastPing + watchdogInterval { return lastPing + watchdogInterval }
        send("WATCHDOG=1")
        lastPing = now
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
