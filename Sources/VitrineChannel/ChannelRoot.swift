import VitrineCore
import VitrineSystem

/// `root.json`: which keys may sign the channel's manifests, signed by an
/// offline root key (TUF's root role, reduced to one role). Kiosks whose
/// `channel.root` lists that key replace their `channel.keys` with `keys` when
/// a root with a higher `version` appears, and the manifest version floor
/// starts again under the new keys. A signing key that leaked, and was used to
/// publish version 2⁶⁴−1 so that nothing later can be newer, is recovered from
/// by a root without it: its manifests become `unknown-key`, and the new key's
/// version 1 is accepted.
///
///     {
///       "type" : "vitrine-channel-root",
///       "format" : 1,
///       "version" : 2,
///       "published" : "2026-11-24T12:00:00Z",
///       "expires" : "2027-11-24T12:00:00Z",
///       "keys" : [ "RWQ…" ]
///     }
///
/// `expires` bounds how long a kiosk trusts the root without hearing of a
/// newer one: whoever controls the origin can withhold a rotation (answer 404,
/// or keep serving the old root) only until then (`ChannelRootTrust`). A root
/// written before roots had an expiry has none; a kiosk reads it, reports it,
/// and lets it last `defaultLifetimeSeconds` from when it first took it.
public struct ChannelRoot: Hashable, Sendable {
    public static let fileName = "root.json"
    public static let signatureFileName = "root.json.sig"
    public static let type = "vitrine-channel-root"

    /// Only ever increases; each increase replaces the signing keys.
    public var version: UInt64
    public var published: WallInstant
    /// After this, the root is not trusted (nil: a root from before roots expired).
    public var expires: WallInstant?
    /// The signify public keys' base64 lines, in order.
    public var keyLines: [String]

    /// How long a root lasts: `vitrine channel rotate`'s default, and what a
    /// root without `expires` is given from when a kiosk first took it. A year:
    /// the root key comes out of its safe once a year to sign the root again
    /// (the same keys, the next version), and a withheld rotation is noticed within that.
    public static let defaultLifetimeSeconds: Int64 = 365 * 86_400

    public init(version: UInt64, published: WallInstant, expires: WallInstant? = nil, keyLines: [String]) {
        self.version = version
        self.published = published
        self.expires = expires
        self.keyLines = keyLines
    }

    /// The signing keys, each checked when the root is parsed.
    public var keys: [SignifyPublicKey] {
        keyLines.enumerated().compactMap { index, line in try? Self.key(line, index: index) }
    }

    static func key(_ line: String, index: Int) throws(SignifyFileError) -> SignifyPublicKey {
        try SignifyPublicKey(parsing: Array("untrusted comment: \(fileName) keys[\(index)]\n\(line)\n".utf8), file: "\(fileName): keys[\(index)]")
    }

    /// The file's bytes, as `vitrine channel rotate` writes them.
    public var json: [UInt8] {
        let keys = keyLines.map { "    \"\($0)\"" }.joined(separator: ",\n")
        let expiresLine = expires.map { "\n  \"expires\" : \"\(RFC3339.format($0))\"," } ?? ""
        return Array("""
            {
              "type" : "\(Self.type)",
              "format" : 1,
              "version" : \(version),
              "published" : "\(RFC3339.format(published))",\(expiresLine)
              "keys" : [
            \(keys)
              ]
            }

            """.utf8)
    }

    /// Reads `bytes` (already verified); every problem named by field.
    public static func parse(_ bytes: [UInt8]) throws(ChannelRootRefusal) -> ChannelRoot {
        let document: ManifestJSON
        do {
            document = try ManifestJSON.parse(bytes)
        } catch {
            throw .malformed("\(fileName): \(ManifestJSON.position(of: error.offset, in: bytes)): \(error.message)")
        }
        guard case .object(let members) = document.value else { throw .malformed("\(fileName): must be a JSON object") }
        func member(_ name: String) -> ManifestJSON.Value? { members.first { $0.key == name }?.value.value }
        guard case .string(type) = member("type") else {
            throw .malformed("\(fileName): type must be \"\(type)\" (is this a channel manifest?)")
        }
        guard case .number("1") = member("format") else {
            throw .malformed("\(fileName): format must be 1; this kiosk reads only format 1 roots")
        }
        guard case .number(let versionText) = member("version"), let version = UInt64(versionText), version > 0 else {
            throw .malformed("\(fileName): version must be a whole number from 1 to 18446744073709551615")
        }
        guard case .string(let publishedText) = member("published"), let published = RFC3339.parse(publishedText) else {
            throw .malformed("\(fileName): published must be an RFC 3339 time")
        }
        var expires: WallInstant?
        if let node = member("expires") {
            guard case .string(let text) = node, let instant = RFC3339.parse(text), instant > published else {
                throw .malformed("\(fileName): expires must be an RFC 3339 time after published")
            }
            expires = instant
        }
        guard case .array(let keyNodes) = member("keys"), !keyNodes.isEmpty else {
            throw .malformed("\(fileName): keys must list at least one signify public key (its base64 line)")
        }
        var lines: [String] = []
        for (index, node) in keyNodes.enumerated() {
            guard case .string(let line) = node.value else { throw .malformed("\(fileName): keys[\(index)] must be a string") }
            do {
                _ = try key(line, index: index)
            } catch {
                throw .malformed(error.description)
            }
            lines.append(line)
        }
        let known: Set = ["type", "format", "version", "published", "expires", "keys"]
        if let unknown = members.first(where: { !known.contains($0.key) }) {
            throw .malformed("\(fileName): \(unknown.key) is not a format-1 root field")
        }
        return ChannelRoot(version: version, published: published, expires: expires, keyLines: lines)
    }
}

/// Why a kiosk will not take a `root.json`.
public enum ChannelRootRefusal: Error, Hashable, Sendable, CustomStringConvertible {
    case badSignature(String)
    /// Signed by a key that is not one of `channel.root`.
    case unknownKey(KeyNumber)
    case malformed(String)
    /// Not above the root already taken: nothing new when equal, a rollback
    /// to keys already replaced when lower.
    case notNewer(version: UInt64, current: UInt64)
    /// Newer, but already past its own `expires`: taking it would trust keys for no time at all.
    case expired(version: UInt64, at: WallInstant)

    public var description: String {
        switch self {
        case .badSignature(let detail): "root: bad signature: \(detail)"
        case .unknownKey(let key):
            "root: \(ChannelRoot.signatureFileName) is signed with key \(key), which is not one of channel.root's keys"
        case .malformed(let detail): "root: malformed: \(detail)"
        case .notNewer(let version, let current) where version == current:
            "root: version \(version) is the one already taken (nothing new)"
        case .notNewer(let version, let current):
            "root: version \(version) is older than version \(current), already taken (refused as a rollback to replaced keys)"
        case .expired(let version, let at):
            "root: version \(version) expired at \(RFC3339.format(at)) (sign a newer one with vitrine channel rotate)"
        }
    }
}

/// Decides whether a fetched root may replace the signing keys. Pure. The
/// signature is checked with the root keys before anything is parsed, as for
/// manifests.
public struct ChannelRootVerifier: Sendable {
    public var rootKeys: [SignifyPublicKey]

    public init(rootKeys: [SignifyPublicKey]) {
        self.rootKeys = rootKeys
    }

    /// - Parameters:
    ///   - currentVersion: the root version taken so far (0: none, the
    ///     configured `channel.keys`); only a newer one is taken.
    ///   - now: the wall time, which a root must not have expired by; nil: not judged (a stored root read back at start).
    public func verify(root bytes: [UInt8], signature: [UInt8], currentVersion: UInt64,
                       now: WallInstant? = nil) throws(ChannelRootRefusal) -> ChannelRoot {
        do {
            _ = try SignatureCheck.verify(bytes, signature: signature, keys: rootKeys, file: ChannelRoot.fileName,
                                          signatureFile: ChannelRoot.signatureFileName)
        } catch {
            switch error {
            case .unreadable(let reason), .mismatch(let reason): throw .badSignature(reason)
            case .unknownKey(let key): throw .unknownKey(key)
            }
        }
        let root = try ChannelRoot.parse(bytes)
        guard root.version > currentVersion else { throw .notNewer(version: root.version, current: currentVersion) }
        if let now, let expires = root.expires, now >= expires { throw .expired(version: root.version, at: expires) }
        return root
    }
}

/// Writes a new `root.json` and its signature into a channel directory
/// (`vitrine channel rotate`), with the offline root key.
public enum ChannelRootPublisher {
    /// - Parameters:
    ///   - version: nil for the current root's version + 1 (1 when there is none).
    ///   - lifetimeSeconds: how long after `now` the root expires.
    public static func publish(directory: String, rootKey: SignifySecretKey, signatureComment: String, signingKeys: [SignifyPublicKey],
                               version: UInt64?, now: WallInstant,
                               lifetimeSeconds: Int64 = ChannelRoot.defaultLifetimeSeconds) throws(ChannelPublishError) -> ChannelRoot {
        let rootPath = directory + "/" + ChannelRoot.fileName
        let signaturePath = directory + "/" + ChannelRoot.signatureFileName
        let previous = try ChannelPublisher.currentVersion(at: rootPath, required: version == nil)
        if let version, let previous, version <= previous { throw .versionNotNewer(requested: version, previous: previous) }
        let lines = signingKeys.map { key in
            String(String(decoding: key.fileBytes, as: UTF8.self).split(separator: "\n")[1])
        }
        let root = ChannelRoot(version: version ?? (previous ?? 0) + 1, published: now, expires: now + lifetimeSeconds, keyLines: lines)
        let bytes = root.json
        let signature: SignifySignature
        do {
            signature = try rootKey.sign(bytes, comment: signatureComment)
        } catch {
            throw .signing("\(error)")
        }
        do throws(SystemError) {
            try ChannelFiles.makeDirectories(directory)
            // The root first, then its signature, as for the manifest: a kiosk fetches them in that order.
            try ChannelFiles.commitPair(bytes, to: rootPath, signature.fileBytes, to: signaturePath, directory: directory)
        } catch {
            throw .file(error)
        }
        return root
    }
}
