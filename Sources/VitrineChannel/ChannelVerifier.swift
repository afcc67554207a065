import VitrineConfig
import VitrineCore

/// Why a kiosk will not apply what a channel serves. Each has a one-line
/// description for a log line and a short stable `code` for status and
/// metrics.
public enum ChannelRefusal: Error, Hashable, Sendable, CustomStringConvertible {
    /// The signature does not verify the manifest's bytes with the key it
    /// names, or the signature file cannot be read. Also what a client sees
    /// when it fetched the manifest and the signature across a publish (one
    /// old, one new): it keeps what it has and tries again at the next poll.
    case badSignature(String)
    /// Signed by a key the kiosk does not trust.
    case unknownKey(KeyNumber)
    /// The version is not newer than the one applied: nothing new when equal,
    /// a rollback or a replay of an old manifest when older.
    case notNewer(version: UInt64, applied: UInt64)
    /// Past its expiry: the publisher stopped re-signing, or someone keeps
    /// serving an old manifest (a freeze).
    case expired(at: WallInstant)
    /// Signed, but not a manifest this kiosk can use.
    case malformed(ChannelManifestError)
    /// A blob the manifest names is not what the manifest says (size or
    /// SHA-256): damaged or replaced on the origin or on the way.
    case blobMismatch(BlobMismatch)
    /// A blob matches the manifest but is not a picture this kiosk can show
    /// (not a JPEG, PNG, WebP, GIF or HEIF, undecodable, over `decode.maxPixels`).
    case blobUnusable(path: String, reason: String)
    /// No update is taken: the root of trust (`version`; 0: `channel.keys`)
    /// expired at `at` (`assumed`: the default lifetime of a root without
    /// `expires`), and the origin has served no newer one (`ChannelRootTrust`).
    case rootExpired(version: UInt64, at: WallInstant, assumed: Bool)
    /// No update is taken: the wall clock cannot be believed yet, so neither
    /// can any expiry (`ChannelRootTrust`).
    case clockUntrusted(String)

    /// Every code, for metrics that list each reason (also at zero).
    public static let codes = ["bad-signature", "unknown-key", "malformed", "expired", "not-newer", "blob-mismatch", "blob-unusable",
                               "root-expired", "clock-untrusted"]

    public var code: String {
        switch self {
        case .badSignature: "bad-signature"
        case .unknownKey: "unknown-key"
        case .notNewer: "not-newer"
        case .expired: "expired"
        case .malformed: "malformed"
        case .blobMismatch: "blob-mismatch"
        case .blobUnusable: "blob-unusable"
        case .rootExpired: "root-expired"
        case .clockUntrusted: "clock-untrusted"
        }
    }

    public var description: String {
        switch self {
        case .badSignature(let detail):
            "bad signature: \(detail)"
        case .unknownKey(let keyNumber):
            "unknown key: \(ChannelManifest.signatureFileName) is signed with key \(keyNumber), which is not one of the trusted keys"
        case .notNewer(let version, let applied) where version == applied:
            "not newer: version \(version) is the version already applied (nothing new)"
        case .notNewer(let version, let applied):
            "not newer: version \(version) is older than the applied version \(applied) (refused as a rollback or replay)"
        case .expired(let at):
            "expired: the manifest expired at \(RFC3339.format(at)) and the publisher has not published a newer one"
        case .malformed(let error):
            "malformed manifest: \(error)"
        case .blobMismatch(let mismatch):
            "blob mismatch: \(mismatch)"
        case .blobUnusable(let path, let reason):
            "blob unusable: \(path): \(reason)"
        case .rootExpired(let version, let at, let assumed):
            (version == 0 ? "root expired: channel.keys, trusted without a root.json," : "root expired: root version \(version)")
                + (assumed ? " has no expiry of its own and was trusted for a year, until " : " expired at ")
                + "\(RFC3339.format(at)), and the origin serves no newer root.json (vitrine channel rotate): no update is taken until it does"
        case .clockUntrusted(let reason):
            "clock untrusted: \(reason); no update is taken until the clock is set"
        }
    }
}

/// The time a kiosk judges a manifest's expiry by. A board with no real-time
/// clock and no network time starts in 1970, where every manifest looks
/// unexpired. So the clock is never believed below what the kiosk knows has
/// already happened: the publication time of the version it applied (kept in
/// channel-state.json, so it survives restarts) and the date this release was
/// made. Below those, the clock counts as unknown and the newest of them
/// stands in for it (TUF's answer to a freeze attack on a clockless client).
/// Pure: the clock and the floors are parameters.
public enum ChannelClock {
    /// The instant to judge by, and whether the clock was behind a floor.
    public static func trustedNow(clock: WallInstant, floors: [WallInstant]) -> (now: WallInstant, clockBehind: Bool) {
        guard let floor = floors.max(), clock < floor else { return (clock, false) }
        return (floor, true)
    }
}

/// A manifest whose signature checked out, with the key that signed it.
public struct VerifiedManifest: Hashable, Sendable {
    public var manifest: ChannelManifest
    public var keyNumber: KeyNumber
}

/// Decides whether a fetched manifest may be applied. Pure: it takes the
/// bytes and the wall time, and neither reads a clock nor touches a file.
///
/// The checks, in order:
/// 1. the signature, over the manifest's exact bytes, with the trusted key
///    its keynum names (several keys may be trusted at once, for rotation);
/// 2. the manifest's form (only now is it parsed);
/// 3. expiry against `now`;
/// 4. the version against the last one applied (rollback and replay).
/// Expiry comes before the version so that a kiosk that polls the same,
/// expired manifest reports `expired` (the channel is stale, which an
/// operator must hear about), not "nothing new".
public struct ChannelVerifier: Sendable {
    public var trustedKeys: [SignifyPublicKey]

    public init(trustedKeys: [SignifyPublicKey]) {
        self.trustedKeys = trustedKeys
    }

    /// - Parameters:
    ///   - manifest: `channel.json`'s bytes.
    ///   - signature: `channel.json.sig`'s bytes.
    ///   - appliedVersion: the version last applied, nil if none.
    ///   - now: the wall time (a kiosk passes its clock; tests pass any).
    public func verify(manifest: [UInt8], signature: [UInt8], appliedVersion: UInt64?,
                       now: WallInstant) throws(ChannelRefusal) -> VerifiedManifest {
        let keyNumber: KeyNumber
        do {
            keyNumber = try SignatureCheck.verify(manifest, signature: signature, keys: trustedKeys, file: ChannelManifest.fileName,
                                                  signatureFile: ChannelManifest.signatureFileName)
        } catch {
            switch error {
            case .unreadable(let reason), .mismatch(let reason): throw .badSignature(reason)
            case .unknownKey(let key): throw .unknownKey(key)
            }
        }

        // Parsed only now that the signature checked out: reading JSON (and a
        // whole configuration through YAML) is attack surface, which only the
        // holder of a trusted key gets to reach.
        let parsed: ChannelManifest
        do {
            parsed = try ChannelManifest.parse(manifest)
        } catch {
            throw .malformed(error)
        }
        // Every manifest must expire: without it, an old manifest someone keeps
        // serving (a freeze) would look current for ever.
        guard let expires = parsed.expires else {
            throw .malformed(ChannelManifestError(file: ChannelManifest.fileName, issues: [ConfigIssue(
                path: "expires", message: "is required: without it a kiosk cannot tell a stale manifest from a current one; publish again (vitrine channel publish sets it \(ChannelPublisher.defaultValiditySeconds / 86_400) days ahead unless --expires says otherwise)")]))
        }
        if now >= expires { throw .expired(at: expires) }
        if let appliedVersion, parsed.version <= appliedVersion {
            throw .notNewer(version: parsed.version, applied: appliedVersion)
        }
        return VerifiedManifest(manifest: parsed, keyNumber: keyNumber)
    }
}
