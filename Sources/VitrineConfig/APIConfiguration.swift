import VitrineCore

/// The remote API's settings: the `api` section, which only the local
/// configuration file may set (a pushed configuration that has one is refused,
/// so that nobody can lock the operators out or read the token back).
public struct APIConfiguration: Hashable, Sendable {
    /// Where the HTTP server listens; `.off` runs no server.
    public var listen: APIListenAddress = .address(host: "0.0.0.0", port: 8080)
    /// The bearer token; nil generates one into the state directory on first start.
    public var token: String?
    /// Certificate and key (PEM) to serve HTTPS instead of HTTP.
    public var tls: TLSFiles?
    /// The largest upload, and the largest picture a URL slide may download.
    public var maxUploadBytes = 50_000_000
    /// Free space kept on the state directory's disk: an upload, download or
    /// channel picture that would leave less is refused (507), and the screen
    /// keeps what it shows.
    public var minimumFreeBytes = 64 << 20
    /// How often URL slides are revalidated with their server.
    public var urlRefresh: Duration = .seconds(600)
    /// How long one URL download may take.
    public var urlTimeout: Duration = .seconds(30)
    /// Where the kiosk's own requests may go (`allowAddresses`): URL slides,
    /// the channel, play uploads and tap actions. Local, like the rest of `api`,
    /// so that a pushed configuration cannot aim the kiosk at its own loopback.
    public var outbound = OutboundPolicy()
    public init() {}

    public static let minimumTokenLength = 16
}

public enum APIListenAddress: Hashable, Sendable, CustomStringConvertible {
    case off
    case address(host: String, port: Int)

    /// `HOST:PORT`, `[IPV6]:PORT`, or `off`.
    public init?(parsing text: String) {
        if text == "off" { self = .off; return }
        guard let colon = text.lastIndex(of: ":"), let port = Int(text[text.index(after: colon)...]),
              (0...65535).contains(port) else { return nil }
        var host = String(text[..<colon])
        if host.hasPrefix("[") && host.hasSuffix("]") { host = String(host.dropFirst().dropLast()) }
        guard !host.isEmpty, !host.contains(" ") else { return nil }
        self = .address(host: host, port: port)
    }

    public var description: String {
        switch self {
        case .off: return "off"
        case .address(let host, let port): return host.contains(":") ? "[\(host)]:\(port)" : "\(host):\(port)"
        }
    }
}

public struct TLSFiles: Hashable, Sendable {
    public var certificate: String
    public var key: String
    public init(certificate: String, key: String) {
        self.certificate = certificate
        self.key = key
    }
}
