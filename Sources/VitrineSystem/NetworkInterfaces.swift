import Glibc
import VitrineCore

/// This machine's network addresses and name, for the notice a kiosk being
/// set up shows (`AddressNotice`).
public enum NetworkInterfaces {
    /// Every IPv4 and IPv6 address of an interface that is up (`getifaddrs`),
    /// in the kernel's order, each as `inet_ntop` writes it; empty if the
    /// kernel cannot be asked.
    public static func addresses() -> [AddressNotice.InterfaceAddress] {
        var list: UnsafeMutablePointer<ifaddrs>?
        guard getifaddrs(&list) == 0 else { return [] }
        defer { freeifaddrs(list) }
        var result: [AddressNotice.InterfaceAddress] = []
        var entry = list
        while let current = entry?.pointee {
            defer { entry = current.ifa_next }
            guard let socketAddress = current.ifa_addr, current.ifa_flags & UInt32(IFF_UP) != 0 else { continue }
            let name = String(cString: current.ifa_name)
            var text = [CChar](repeating: 0, count: Int(INET6_ADDRSTRLEN))
            switch Int32(socketAddress.pointee.sa_family) {
            case AF_INET:
                var address = socketAddress.withMemoryRebound(to: sockaddr_in.self, capacity: 1) { $0.pointee.sin_addr }
                let bytes = withUnsafeBytes(of: &address) { Array($0) }
                guard inet_ntop(AF_INET, &address, &text, socklen_t(text.count)) != nil else { continue }
                result.append(.init(interface: name, bytes: bytes, text: String(decoding: text.prefix { $0 != 0 }.map(UInt8.init), as: UTF8.self)))
            case AF_INET6:
                var address = socketAddress.withMemoryRebound(to: sockaddr_in6.self, capacity: 1) { $0.pointee.sin6_addr }
                let bytes = withUnsafeBytes(of: &address) { Array($0) }
                guard inet_ntop(AF_INET6, &address, &text, socklen_t(text.count)) != nil else { continue }
                result.append(.init(interface: name, bytes: bytes, text: String(decoding: text.prefix { $0 != 0 }.map(UInt8.init), as: UTF8.self)))
            default:
                continue
            }
        }
        return result
    }

    /// The machine's host name (`gethostname`), nil if it has none.
    public static func hostName() -> String? {
        var buffer = [CChar](repeating: 0, count: 256)
        guard gethostname(&buffer, buffer.count - 1) == 0 else { return nil }
        let name = String(decoding: buffer.prefix { $0 != 0 }.map(UInt8.init), as: UTF8.self)
        return name.isEmpty || name == "(none)" ? nil : name
    }

    /// The name mDNS announces this machine under (`HOST.local`) when Avahi's
    /// daemon runs (its socket is there), nil otherwise: a `.local` name that
    /// nothing answers for would only mislead.
    public static func mdnsName(avahiSocket: String = "/run/avahi-daemon/socket") -> String? {
        guard let host = hostName(), access(avahiSocket, F_OK) == 0 else { return nil }
        // A name with a domain is announced by its first label.
        let label = host.split(separator: ".").first.map(String.init) ?? host
        return label + ".local"
    }
}
