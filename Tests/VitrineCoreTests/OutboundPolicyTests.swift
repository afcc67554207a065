import Testing
import VitrineCore

/// The outbound request policy's address classes, on bytes.
@Suite("Outbound policy: address kinds")
struct OutboundPolicyTests {
    static func ipv4(_ text: String) -> [UInt8] { text.split(separator: ".").map { UInt8($0)! } }

    static func ipv6(_ groups: [UInt16]) -> [UInt8] { groups.flatMap { [UInt8($0 >> 8), UInt8($0 & 0xff)] } }

    @Test(arguments: [
        ("127.0.0.1", NetworkAddressKind.loopback), ("127.255.0.9", .loopback), ("0.0.0.0", .loopback),
        ("169.254.169.254", .metadata), ("100.100.100.200", .metadata), ("169.254.1.7", .linkLocal),
        ("10.1.2.3", .privateNetwork), ("172.16.0.1", .privateNetwork), ("172.31.255.255", .privateNetwork),
        ("192.168.1.20", .privateNetwork), ("100.64.0.1", .privateNetwork), ("172.32.0.1", .publicInternet),
        ("8.8.8.8", .publicInternet), ("224.0.0.1", .unroutable), ("255.255.255.255", .unroutable), ("240.0.0.1", .unroutable),
    ])
    func ipv4Kinds(address: String, kind: NetworkAddressKind) {
        #expect(NetworkAddressKind(bytes: Self.ipv4(address)) == kind, "\(address)")
    }

    @Test func ipv6Kinds() {
        #expect(NetworkAddressKind(bytes: Self.ipv6([0, 0, 0, 0, 0, 0, 0, 1])) == .loopback)
        #expect(NetworkAddressKind(bytes: Self.ipv6([0, 0, 0, 0, 0, 0, 0, 0])) == .loopback, ":: connects to this machine")
        #expect(NetworkAddressKind(bytes: Self.ipv6([0xfe80, 0, 0, 0, 1, 2, 3, 4])) == .linkLocal)
        #expect(NetworkAddressKind(bytes: Self.ipv6([0xfd00, 0xec2, 0, 0, 0, 0, 0, 0x254])) == .metadata)
        #expect(NetworkAddressKind(bytes: Self.ipv6([0xfd12, 0x3456, 0, 0, 0, 0, 0, 1])) == .privateNetwork)
        #expect(NetworkAddressKind(bytes: Self.ipv6([0xff02, 0, 0, 0, 0, 0, 0, 1])) == .unroutable)
        #expect(NetworkAddressKind(bytes: Self.ipv6([0x2001, 0xdb8, 0, 0, 0, 0, 0, 1])) == .publicInternet)
        // IPv4 inside IPv6 is judged as the IPv4 address it reaches.
        #expect(NetworkAddressKind(bytes: Self.ipv6([0, 0, 0, 0, 0, 0xffff, 0x7f00, 1])) == .loopback)
        #expect(NetworkAddressKind(bytes: Self.ipv6([0, 0, 0, 0, 0, 0xffff, 0xa9fe, 0xa9fe])) == .metadata)
        #expect(NetworkAddressKind(bytes: Self.ipv6([0x64, 0xff9b, 0, 0, 0, 0, 0x7f00, 1])) == .loopback)
        #expect(NetworkAddressKind(bytes: [1, 2, 3]) == nil)
    }

    @Test func thePolicyAllowsTheLANAndThePublicAndOnlyWhatItListsBesides() {
        let strict = OutboundPolicy()
        #expect(strict.refusal(for: .publicInternet) == nil && strict.refusal(for: .privateNetwork) == nil)
        for kind in [NetworkAddressKind.loopback, .linkLocal, .metadata, .unroutable] {
            #expect(strict.refusal(for: kind) != nil, "\(kind)")
        }
        #expect(strict.refusal(for: .loopback)?.contains("api.allowAddresses lists loopback") == true)
        let loose = OutboundPolicy(allowed: [.loopback, .linkLocal, .metadata])
        #expect(loose.refusal(for: .loopback) == nil && loose.refusal(for: .metadata) == nil)
        #expect(loose.refusal(for: .unroutable) != nil, "nothing allows multicast")
        #expect(OutboundPolicy.refusal(forScheme: "https") == nil && OutboundPolicy.refusal(forScheme: "HTTP") == nil)
        for scheme in ["file", "ftp", "gopher", "data"] { #expect(OutboundPolicy.refusal(forScheme: scheme) != nil) }
    }
}
