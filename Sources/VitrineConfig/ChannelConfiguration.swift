/// The `channel` section: the signed channel this kiosk follows (docs/fleet.md).
/// Like `api`, only the local configuration file may set it: a pushed
/// configuration, or a channel's own, that has one is refused, so that nobody
/// who can push can point the kiosk at another origin or another key.
public struct ChannelConfiguration: Hashable, Sendable {
    /// The channel's directory on its origin: `channel.json`, its signature and
    /// `blobs/` are under it.
    public var url: String
    /// The signify public keys whose signatures are accepted, in order; more
    /// than one while a key is being rotated.
    public var keys: [ChannelKeySource]
    /// Offline root keys (TUF's root role): a `root.json` on the origin signed
    /// by one of them replaces `keys` and resets the version floor, which is
    /// how a leaked signing key is recovered from. Empty: `keys` are final.
    public var rootKeys: [ChannelKeySource] = []
    /// How often `channel.json` is checked.
    public var poll: Duration = .seconds(30)
    /// A random extra wait added to each poll, so a fleet started at once does
    /// not poll at once.
    public var jitter: ChannelJitter = .fraction(0.2)
    /// How long one request (the manifest, its signature, one blob) may take.
    public var timeout: Duration = .seconds(60)
    /// The kiosk's group, reported in status; per-group configurations will use it.
    public var group: String?
    /// The kiosk's id in the fleet, reported in status; per-device values will use it.
    public var device: String?
    /// Whether `PUT /api/v1/config` and rollback still work while following
    /// (false: they answer 409 naming the channel).
    public var allowLocalPush = false

    public init(url: String, keys: [ChannelKeySource]) {
        self.url = url
        self.keys = keys
    }

    /// The URL of a file in the channel, `channel.json` or `blobs/ab/<sha256>`.
    public func url(of path: String) -> String {
        (url.hasSuffix("/") ? url : url + "/") + path
    }
}

/// One trusted public key, as the configuration gives it.
public enum ChannelKeySource: Hashable, Sendable, CustomStringConvertible {
    /// The key's base64 line (the second line of a signify `.pub` file).
    case inline(String)
    /// A signify `.pub` file, absolute (made so against the configuration file's directory).
    case file(String)

    public var description: String {
        switch self {
        case .inline(let base64): "key \(base64.prefix(12))…"
        case .file(let path): path
        }
    }

    /// Whether `text` has the shape of a signify public key's base64 line:
    /// 56 base64 characters, 42 bytes starting with "Ed" (`RWQ`…`RWT`).
    public static func isInlineKey(_ text: String) -> Bool {
        text.utf8.count == 56 && text.hasPrefix("RW")
            && text.utf8.allSatisfy { byte in
                (0x41...0x5A).contains(byte) || (0x61...0x7A).contains(byte) || (0x30...0x39).contains(byte)
                    || byte == UInt8(ascii: "+") || byte == UInt8(ascii: "/")
            }
    }
}

/// The random part of each wait between polls.
public enum ChannelJitter: Hashable, Sendable, CustomStringConvertible {
    /// Up to this fraction of `poll` (0 to 1).
    case fraction(Double)
    /// Up to this long.
    case duration(Duration)

    /// The largest extra wait for a poll period.
    public func maximum(for poll: Duration) -> Duration {
        switch self {
        case .fraction(let fraction): poll * fraction
        case .duration(let duration): duration
        }
    }

    public var description: String {
        switch self {
        case .fraction(let fraction): "\(fraction)"
        case .duration(let duration): DurationSyntax.format(duration)
        }
    }
}
