import NIOCore

/// Which connections count as one peer for the per-source share of the
/// connection cap (`ConnectionLimiter`): an IPv4 address, or an IPv6 /64.
///
/// A /64 is what one IPv6 host is given (SLAAC, privacy addresses): counting
/// each address alone would let one machine take the whole cap by cycling
/// through its 2⁶⁴ addresses. An IPv4 address mapped into IPv6
/// (`::ffff:192.0.2.1`, a dual-stack listener's view of an IPv4 peer) is that
/// IPv4 address, so it is not lumped with every other IPv4 peer.
enum SourceAddressGroup {
    /// The group's key: `192.0.2.1`, `2001:db8:1:2::/64`; `local` for a peer
    /// with no IP address (a Unix socket, a test channel).
    static func key(_ peer: SocketAddress?) -> String {
        guard let peer else { return "local" }
        switch peer {
        case .v4:
            return peer.ipAddress ?? "local"
        case .v6(let address):
            let bytes = withUnsafeBytes(of: address.address.sin6_addr) { Array($0) }
            if bytes[0..<10].allSatisfy({ $0 == 0 }), bytes[10] == 0xFF, bytes[11] == 0xFF {
                return bytes[12...].map(String.init).joined(separator: ".")
            }
            let groups = stride(from: 0, to: 8, by: 2).map { String(UInt16(bytes[$0]) << 8 | UInt16(bytes[$0 + 1]), radix: 16) }
            return groups.joined(separator: ":") + "::/64"
        case .unixDomainSocket:
            return "local"
        }
    }
}
