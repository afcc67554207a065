/// What a kiosk that has no configuration of its own shows over its slides
/// (`showAddress`): where its console is, so that whoever set the board up
/// can reach it from a phone or laptop on the same network.
///
/// Pure: the addresses, the host name and the API's settings are read by the
/// caller (`NetworkInterfaces`, every few seconds, since DHCP may answer
/// after the kiosk has started).
public enum AddressNotice {
    /// One address of this machine's interfaces, as `getifaddrs` gives it.
    public struct InterfaceAddress: Hashable, Sendable {
        /// `eth0`, `wlan0`.
        public var interface: String
        /// 4 bytes (IPv4) or 16 (IPv6).
        public var bytes: [UInt8]
        /// As `inet_ntop` writes it.
        public var text: String

        public init(interface: String, bytes: [UInt8], text: String) {
            self.interface = interface
            self.bytes = bytes
            self.text = text
        }

        var isIPv6: Bool { bytes.count == 16 }
    }

    /// Where the API listens, as the notice needs it.
    public enum Listening: Hashable, Sendable {
        /// `api.listen: off`.
        case off
        /// `HOST:PORT`: 0.0.0.0 or :: for every address.
        case address(host: String, port: Int, https: Bool)
    }

    /// At most this many addresses are listed: a board with Ethernet and
    /// Wi-Fi, each with IPv4 and IPv6, would otherwise fill the screen.
    public static let maximumAddresses = 3

    /// The notice for these addresses. `mdnsName` is the name the machine
    /// is announced under (`kiosk.local`) when an mDNS responder runs.
    public static func notice(listening: Listening, addresses: [InterfaceAddress], mdnsName: String?) -> ScreenNotice {
        let title = "This kiosk is not set up yet."
        guard case .address(let host, let port, let https) = listening else {
            return ScreenNotice(lines: [title, "Its API is off (api.listen: off in /etc/vitrine/vitrine.yaml)."])
        }
        let scheme = https ? "https" : "http"
        func url(_ host: String, ipv6: Bool) -> String { "\(scheme)://\(ipv6 ? "[\(host)]" : host):\(port)/" }
        let listensEverywhere = host == "0.0.0.0" || host == "::"
        if !listensEverywhere {
            let bytes = addresses.first { $0.text == host }?.bytes
            if host == "localhost" || bytes.flatMap(NetworkAddressKind.init(bytes:)) == .loopback
                || ["127.0.0.1", "::1"].contains(host) {
                return ScreenNotice(lines: [title, "Its API answers on this machine only (api.listen: \(host):\(port))."])
            }
            return ScreenNotice(lines: [title, "Set it up at", url(host, ipv6: host.contains(":"))])
        }
        // Linux's `::` takes IPv4 too (bindv6only is 0 by default); 0.0.0.0 takes IPv4 alone.
        let usable = addresses.filter { host == "::" || !$0.isIPv6 }
        var urls = reachable(usable).prefix(maximumAddresses).map { url($0.text, ipv6: $0.isIPv6) }
        if let mdnsName, !urls.isEmpty { urls.append(url(mdnsName, ipv6: false)) }
        guard !urls.isEmpty else {
            return ScreenNotice(lines: [title, "Waiting for a network address (Ethernet, or Wi-Fi from the SD card)."])
        }
        return ScreenNotice(lines: [title, "Set it up at"] + urls)
    }

    /// The addresses another machine can reach, best first: private IPv4 (the
    /// usual LAN), public IPv4, link-local IPv4 (a cable straight to a laptop),
    /// then IPv6 that is not link-local (which needs a zone to be typed).
    /// Each address once, in interface order within a kind.
    public static func reachable(_ addresses: [InterfaceAddress]) -> [InterfaceAddress] {
        func rank(_ address: InterfaceAddress) -> Int? {
            guard let kind = NetworkAddressKind(bytes: address.bytes) else { return nil }
            switch (kind, address.isIPv6) {
            case (.privateNetwork, false): return 0
            case (.publicInternet, false): return 1
            case (.linkLocal, false): return 2
            case (.publicInternet, true), (.privateNetwork, true): return 3
            case (.linkLocal, true), (.loopback, _), (.metadata, _), (.unroutable, _): return nil
            }
        }
        var seen: Set<String> = []
        return addresses.enumerated()
            .compactMap { index, address in rank(address).map { (rank: $0, index: index, address: address) } }
            .sorted { ($0.rank, $0.index) < ($1.rank, $1.index) }
            .map(\.address)
            .filter { seen.insert($0.text).inserted }
    }
}
