import VitrineConfig
import VitrineCore
import VitrineSystem

/// How people reach the kiosk: the addresses another machine can use, where
/// the API listens, and whether mDNS announces it (`avahi-daemon` with the
/// package's `/etc/avahi/services/vitrine.service`), whose port must be the API's.
public struct NetworkCheck: DoctorCheck {
    static let avahiSocket = "/run/avahi-daemon/socket"
    static let serviceFile = "/etc/avahi/services/vitrine.service"

    let api: APIConfiguration
    let addresses: @Sendable () -> [AddressNotice.InterfaceAddress]
    let hostName: @Sendable () -> String?

    public init(api: APIConfiguration) {
        self.init(api: api, addresses: NetworkInterfaces.addresses, hostName: NetworkInterfaces.hostName)
    }

    init(api: APIConfiguration, addresses: @escaping @Sendable () -> [AddressNotice.InterfaceAddress],
         hostName: @escaping @Sendable () -> String?) {
        self.api = api
        self.addresses = addresses
        self.hostName = hostName
    }

    public func run(on system: DoctorSystem) -> DoctorSection {
        var facts: [DoctorFact] = []
        var findings: [String] = []
        // No address is not a finding: at boot DHCP may not have answered yet, and the screen says so (showAddress).
        let reachable = AddressNotice.reachable(addresses())
        facts.append(DoctorFact("addresses", reachable.isEmpty ? "none another machine can reach (yet)"
            : reachable.map { "\($0.interface) \($0.text)" }.joined(separator: ", ")))
        facts.append(DoctorFact("API", "\(api.listen)\(api.tls == nil ? "" : " (https)")"))

        let summary: String
        let running = system.exists(Self.avahiSocket)
        let service = system.text(Self.serviceFile, limit: 64 << 10)
        switch (running, service) {
        case (false, _):
            facts.append(DoctorFact("mDNS", "avahi-daemon is not running: the kiosk is not found by name (apt install avahi-daemon)"))
            summary = "\(reachable.count) address\(reachable.count == 1 ? "" : "es"); not announced over mDNS"
        case (true, nil):
            facts.append(DoctorFact("mDNS", "avahi-daemon runs, but \(Self.serviceFile) is missing: the console is not announced"))
            summary = "\(reachable.count) address\(reachable.count == 1 ? "" : "es"); the console is not announced"
        case (true, let text?):
            let name = hostName().map { "\($0.split(separator: ".").first.map(String.init) ?? $0).local" } ?? "the host name"
            let port = Self.element("port", in: text).flatMap { Int($0) }
            let type = Self.element("type", in: text)
            facts.append(DoctorFact("mDNS", "announced by avahi-daemon as \(name), the console as \(type ?? "?") on port \(port.map(String.init) ?? "?")"))
            summary = "\(reachable.count) address\(reachable.count == 1 ? "" : "es"); announced as \(name)"
            if case .address(_, let listening) = api.listen {
                if port != listening {
                    findings.append("\(Self.serviceFile) announces port \(port.map(String.init) ?? "none"), but the API listens on \(listening) "
                                    + "(api.listen): change its <port>, or people who find the kiosk by name reach nothing.")
                }
                if api.tls != nil, type == "_http._tcp" {
                    findings.append("The API serves HTTPS (api.tls), but \(Self.serviceFile) announces _http._tcp: change its <type> to _https._tcp.")
                }
            } else {
                findings.append("\(Self.serviceFile) announces the console, but the API is off (api.listen: off): remove the file or turn the API on.")
            }
        }
        return DoctorSection(id: "network", title: "Network", status: findings.isEmpty ? .ok : .warning,
                             summary: summary, facts: facts, findings: findings)
    }

    /// The text of the first `<name>...</name>` in an Avahi service file.
    static func element(_ name: String, in text: String) -> String? {
        let open = Array("<\(name)>".utf8), close = Array("</\(name)>".utf8), bytes = Array(text.utf8)
        func find(_ needle: [UInt8], from start: Int) -> Int? {
            guard bytes.count >= needle.count, start <= bytes.count - needle.count else { return nil }
            return (start...(bytes.count - needle.count)).first { bytes[$0..<($0 + needle.count)].elementsEqual(needle) }
        }
        guard let first = find(open, from: 0), let last = find(close, from: first + open.count) else { return nil }
        return String(decoding: bytes[(first + open.count)..<last], as: UTF8.self).trimmingWhitespace
    }
}
