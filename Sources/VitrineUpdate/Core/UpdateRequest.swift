import VitrineChannel
import VitrineCore

/// What the kiosk hands the update helper: the channel manifest it verified
/// and applied, exactly as signed, with the root it trusts (when the channel
/// has one). The helper verifies all of it again against the keys in
/// `/etc/vitrine/vitrine.yaml`: the request is a hint that there is
/// something to look at, never a reason to believe anything.
public struct UpdateRequest: Equatable, Sendable {
    /// In the kiosk's runtime directory (`/run/vitrine`), which
    /// `vitrine-update.path` watches.
    public static let directoryName = "update-request"
    /// Each file's size limit when the helper reads it back.
    public static let manifestLimit = 4 << 20
    public static let signatureLimit = 4 << 10

    public var manifest: [UInt8]
    public var signature: [UInt8]
    public var root: [UInt8]?
    public var rootSignature: [UInt8]?

    public init(manifest: [UInt8], signature: [UInt8], root: [UInt8]? = nil, rootSignature: [UInt8]? = nil) {
        self.manifest = manifest
        self.signature = signature
        self.root = root
        self.rootSignature = rootSignature
    }

    /// The files in the request directory, by name.
    public var files: [(name: String, bytes: [UInt8])] {
        var files = [(ChannelManifest.fileName, manifest), (ChannelManifest.signatureFileName, signature)]
        if let root, let rootSignature {
            files += [(ChannelRoot.fileName, root), (ChannelRoot.signatureFileName, rootSignature)]
        }
        return files
    }
}

/// A request checked as the helper checks it: the root (when `channel.root`
/// is set) with the offline root keys, the manifest with the keys that root
/// names (else `channel.keys`), its expiry against the wall clock, and its
/// version against the newest one the helper acted on. Pure.
public enum UpdateRequestCheck {
    public struct Verified: Equatable, Sendable {
        public var manifest: ChannelManifest
        /// The root version the manifest was checked under (0: `channel.keys`).
        public var rootVersion: UInt64
    }

    public static func verify(_ request: UpdateRequest, channelKeys: [SignifyPublicKey], rootKeys: [SignifyPublicKey],
                              state: UpdateHelperState, now: WallInstant) -> Result<Verified, UpdateFileError> {
        var keys = channelKeys
        var rootVersion: UInt64 = 0
        if !rootKeys.isEmpty, let root = request.root, let rootSignature = request.rootSignature {
            do {
                // The newest root this helper saw is the floor: an older one (whose
                // keys were replaced, perhaps because they leaked) is refused.
                let current = state.rootVersion.map { $0 > 0 ? $0 - 1 : 0 } ?? 0
                let taken = try ChannelRootVerifier(rootKeys: rootKeys).verify(root: root, signature: rootSignature, currentVersion: current)
                keys = taken.keys
                rootVersion = taken.version
            } catch {
                return .failure(UpdateFileError(message: "the request's \(ChannelRoot.fileName) does not verify with channel.root: \(error)"))
            }
        } else if let seen = state.rootVersion, seen > 0 {
            return .failure(UpdateFileError(message: "the request carries no \(ChannelRoot.fileName), but this board took root version \(seen) before: channel.keys alone is no longer trusted"))
        }
        let verified: VerifiedManifest
        do {
            verified = try ChannelVerifier(trustedKeys: keys).verify(manifest: request.manifest, signature: request.signature,
                                                                     appliedVersion: nil, now: now)
        } catch {
            return .failure(UpdateFileError(message: "the request's \(ChannelManifest.fileName) is refused: \(error)"))
        }
        if let handled = state.manifestVersion, verified.manifest.version < handled {
            return .failure(UpdateFileError(message: "the request's \(ChannelManifest.fileName) is version \(verified.manifest.version), older than version \(handled), which this board acted on already (a replay)"))
        }
        return .success(Verified(manifest: verified.manifest, rootVersion: rootVersion))
    }
}
