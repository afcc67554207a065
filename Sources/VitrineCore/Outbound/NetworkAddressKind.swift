/// What kind of place an IP address is, for the outbound request policy.
/// Pure: it looks at the address's bytes (4 for IPv4, 16 for IPv6) only.
public enum NetworkAddressKind: String, Hashable, Sendable, CustomStringConvertible {
    /// 127.0.0.0/8, ::1, and the unspecified 0.0.0.0 and :: (which Linux connects to this machine).
    case loopback
    /// 169.254.0.0/16 and fe80::/10, where a board finds other boards with no DHCP server.
    case linkLocal = "link-local"
    /// The instance-metadata services of cloud hosts: 169.254.169.254, 100.100.100.200, fd00:ec2::254.
    case metadata
    /// Multicast, broadcast and reserved ranges: never a web server.
    case unroutable
    /// RFC 1918, 100.64.0.0/10 (carrier-grade NAT) and fc00::/7: the LAN.
    case privateNetwork = "private"
    case publicInternet = "public"

    public var description: String {
        switch self {
        case .loopback: return "a loopback address"
        case .linkLocal: return "a link-local address"
        case .metadata: return "a cloud metadata address"
        case .unroutable: return "a multicast, broadcast or reserved address"
        case .privateNetwork: return "a private (LAN) address"
        case .publicInternet: return "a public address"
        }
    }

    /// The kind of `bytes`; nil unless there are 4 or 16 of them.
    public init?(bytes: [UInt8]) {
        switch bytes.count {
        case 4: self = Self.ipv4(bytes[0], bytes[1], bytes[2], bytes[3])
        case 16: self = Self.ipv6(bytes)
        default: return nil
        }
    }

    private static func ipv4(_ a: UInt8, _ b: UInt8, _ c: UInt8, _ d: UInt8) -> Self {
        switch (a, b) {
        case (169, 254) where c == 169 && d == 254: return .metadata
        case (100, 100) where c == 100 && d == 200: return .metadata
        case (0, _), (127, _): return .loopback
        case (169, 254): return .linkLocal
        case (10, _), (192, 168), (172, 16...31), (100, 64...127): return .privateNetwork
        case (224..., _): return .unroutable  // multicast, 240/4 reserved, 255.255.255.255
        default: return .publicInternet
        }
    }

    private static func ipv6(_ bytes: [UInt8]) -> Self {
        let leadingZeros = bytes.prefix(10).allSatisfy { $0 == 0 }
        // ::ffff:a.b.c.d (IPv4-mapped) and 64:ff9b::a.b.c.d (NAT64) reach the IPv4 address they carry.
        if leadingZeros && bytes[10] == 0xff && bytes[11] == 0xff { return ipv4(bytes[12], bytes[13], bytes[14], bytes[15]) }
        if bytes.prefix(12) == [0x00, 0x64, 0xff, 0x9b, 0, 0, 0, 0, 0, 0, 0, 0] { return ipv4(bytes[12], bytes[13], bytes[14], bytes[15]) }
        if leadingZeros && bytes[10] == 0 && bytes[11] == 0 && bytes[12] == 0 && bytes[13] == 0 && bytes[14] == 0 && bytes[15] <= 1 {
            return .loopback  // :: and ::1
        }
        if bytes == [0xfd, 0x00, 0x0e, 0xc2, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0x02, 0x54] { return .metadata }
        if bytes[0] == 0xfe && bytes[1] & 0xc0 == 0x80 { return .linkLocal }
        if bytes[0] & 0xfe == 0xfc { return .privateNetwork }
        if bytes[0] == 0xff { return .unroutable }
        return .publicInternet
    }
}

/// Where the kiosk's own requests (URL slides, the channel, play uploads, tap
/// actions) may go. http and https only; public and LAN addresses always;
/// loopback, link-local and cloud metadata addresses only where the local
/// configuration allows them (`api.allowAddresses`); multicast and reserved
/// ranges never. Every redirect hop is judged again.
public struct OutboundPolicy: Hashable, Sendable {
    /// The kinds allowed besides public and private addresses.
    public var allowed: Set<NetworkAddressKind>
    /// Redirects followed at most, for GET; a POST follows none.
    public var maximumRedirects: Int

    /// The kinds `api.allowAddresses` may name.
    public static let allowable: [NetworkAddressKind] = [.loopback, .linkLocal, .metadata]

    public init(allowed: Set<NetworkAddressKind> = [], maximumRedirects: Int = 5) {
        self.allowed = allowed
        self.maximumRedirects = maximumRedirects
    }

    /// Loopback allowed as well: tests, and a kiosk whose origin runs on the board itself.
    public static let loopbackAllowed = OutboundPolicy(allowed: [.loopback])

    /// Why a request must not go to an address of `kind`; nil when it may.
    public func refusal(for kind: NetworkAddressKind) -> String? {
        switch kind {
        case .publicInternet, .privateNetwork: return nil
        case .unroutable: return "\(kind) is never a web server"
        case .loopback, .linkLocal, .metadata:
            return allowed.contains(kind) ? nil : "\(kind) is refused unless the local configuration's api.allowAddresses lists \(kind.rawValue)"
        }
    }

    /// Why `scheme` is refused; nil for http and https.
    public static func refusal(forScheme scheme: String?) -> String? {
        guard let scheme else { return "the URL has no scheme; only http and https are fetched" }
        return ["http", "https"].contains(scheme.lowercased()) ? nil : "\(scheme): URLs are not fetched; only http and https are"
    }
}
