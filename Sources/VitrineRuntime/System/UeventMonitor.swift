import CLinuxEvents
import Glibc
import VitrineSystem

/// Kernel uevents from a NETLINK_KOBJECT_UEVENT socket: how the kiosk hears
/// about display hotplug (and, later, input devices) without udev, which an
/// appliance image or an initramfs may not run.
public final class UeventMonitor {
    public let descriptor: Int32

    /// One uevent: `ACTION`, `SUBSYSTEM`, `DEVNAME`, `HOTPLUG` and the rest, as sent.
    public typealias Event = [String: String]

    public init() throws(SystemError) {
        let fd = socket(AF_NETLINK, Int32(SOCK_DGRAM.rawValue) | Int32(SOCK_CLOEXEC.rawValue) | Int32(SOCK_NONBLOCK.rawValue),
                        NETLINK_KOBJECT_UEVENT)
        guard fd >= 0 else { throw SystemError("socket(NETLINK_KOBJECT_UEVENT)") }
        var address = sockaddr_nl()
        address.nl_family = sa_family_t(AF_NETLINK)
        address.nl_groups = 1  // the kernel's own broadcast group
        let bound = withUnsafePointer(to: &address) {
            $0.withMemoryRebound(to: sockaddr.self, capacity: 1) { bind(fd, $0, socklen_t(MemoryLayout<sockaddr_nl>.size)) }
        }
        guard bound == 0 else {
            let error = SystemError("bind(NETLINK_KOBJECT_UEVENT)")
            close(fd)
            throw error
        }
        descriptor = fd
    }

    deinit { close(descriptor) }

    /// Whether the last `read()` found that the kernel dropped uevents because
    /// the socket's buffer was full (ENOBUFS): whatever they said is unknown,
    /// so a reader must look again at everything it follows.
    public private(set) var lostEvents = false

    /// Every uevent waiting on the socket.
    public func read() -> [Event] {
        var events: [Event] = []
        var buffer = [UInt8](repeating: 0, count: 8192)
        lostEvents = false
        while true {
            let count = buffer.withUnsafeMutableBytes { recv(descriptor, $0.baseAddress, $0.count, 0) }
            if count < 0 && errno == ENOBUFS {
                // Reported once, then the socket delivers again: go on reading.
                lostEvents = true
                continue
            }
            guard count > 0 else { break }
            events.append(Self.parse(Array(buffer.prefix(count))))
        }
        return events
    }

    /// `action@devpath\0KEY=value\0…`
    static func parse(_ message: [UInt8]) -> Event {
        var event: Event = [:]
        for field in message.split(separator: 0) {
            let text = String(decoding: field, as: UTF8.self)
            if let equals = text.firstIndex(of: "=") {
                event[String(text[..<equals])] = String(text[text.index(after: equals)...])
            }
        }
        return event
    }
}
