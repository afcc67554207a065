import FoundationEssentials
import VitrineConfig
import VitrineCore
import VitrineSystem

/// Why a publish did not happen. Nothing is half-published: the manifest
/// (and signature) are replaced only after every blob is in place.
public enum ChannelPublishError: Error, Sendable, CustomStringConvertible {
    case configuration(ConfigError)
    /// Pictures that cannot be published: missing, unreadable, or `asset:` references.
    case pictures(file: String, [ConfigIssue])
    /// The channel's current manifest cannot be read, so the next version is unknown.
    case previousManifest(path: String, reason: String)
    case versionNotNewer(requested: UInt64, previous: UInt64)
    case file(SystemError)
    case signing(String)
    /// The manifest just made does not read back: a bug, reported rather than published.
    case selfCheck(ChannelManifestError)

    public var description: String {
        switch self {
        case .configuration(let error):
            return error.description
        case .pictures(let file, let issues):
            return issues.map { "\(file): \($0)" }.joined(separator: "\n")
        case .previousManifest(let path, let reason):
            return "\(path): \(reason); the next version is unknown: fix or move the file, or give --version"
        case .versionNotNewer(let requested, let previous):
            return "version \(requested) is not newer than the channel's current version \(previous): kiosks would refuse it"
        case .file(let error):
            return error.description
        case .signing(let reason):
            return "cannot sign the manifest: \(reason)"
        case .selfCheck(let error):
            return "the manifest made does not read back (a bug in vitrine): \(error)"
        }
    }
}

/// Writes a configuration and its pictures into a channel directory, the
/// I/O edge of the channel (the verifier is pure):
///
///     CHANNEL/channel.json       the manifest
///     CHANNEL/channel.json.sig   its signify signature
///     CHANNEL/blobs/ab/ab12…     each picture, by the SHA-256 of its bytes
///
/// Blobs are only ever added: a picture already there is neither rewritten
/// nor touched (its name is its content), and old ones stay, because a kiosk
/// that fetched the previous manifest a moment ago may still be downloading
/// them. One publisher at a time per directory.
public enum ChannelPublisher {
    /// How long a manifest is valid when the publisher does not say: 7 days.
    public static let defaultValiditySeconds: Int64 = 7 * 86_400

    public enum Signing: Sendable {
        /// Sign in-process with an unencrypted signify key; `comment` is the
        /// signature file's comment (signify writes "verify with KEY.pub").
        case key(SignifySecretKey, comment: String)
        /// Leave the manifest unsigned, for `signify-openbsd -S` offline.
        case unsigned
    }

    public struct Request: Sendable {
        public var configurationFile: String
        public var directory: String
        public var signing: Signing
        /// Nil: the current version plus one (1 for a new channel).
        public var version: UInt64?
        /// How long after `now` the manifest expires. Every manifest expires:
        /// kiosks refuse one without `expires` (a stale manifest replayed to a
        /// kiosk would otherwise look current for ever).
        public var expiresAfterSeconds: Int64
        public var epoch: WallInstant?
        /// Each group's playlist: the group's name and a configuration file
        /// that sets only what a group may (`GroupPlaylist.keys`).
        public var groupFiles: [(name: String, file: String)]
        /// A file of per-device values by device id (`DeviceValues.parseDevices`).
        public var devicesFile: String?
        /// Where the kiosks POST their plays (the manifest's `plays.upload`).
        public var playsUpload: String?
        /// The package version the kiosks should run (`software`).
        public var software: SoftwareChoice

        public init(configurationFile: String, directory: String, signing: Signing, version: UInt64? = nil,
                    expiresAfterSeconds: Int64 = ChannelPublisher.defaultValiditySeconds, epoch: WallInstant? = nil,
                    groupFiles: [(name: String, file: String)] = [], devicesFile: String? = nil, playsUpload: String? = nil,
                    software: SoftwareChoice = .keep) {
            self.configurationFile = configurationFile
            self.directory = directory
            self.signing = signing
            self.version = version
            self.expiresAfterSeconds = expiresAfterSeconds
            self.epoch = epoch
            self.groupFiles = groupFiles
            self.devicesFile = devicesFile
            self.playsUpload = playsUpload
            self.software = software
        }
    }

    /// What a new version says of the package version to run.
    public enum SoftwareChoice: Sendable {
        /// What the current manifest says, if it says anything: publishing a
        /// new playlist must not drop a fleet's version choice (or its floor)
        /// unnoticed.
        case keep
        /// Nothing: the boards keep the version they have, and the update
        /// helper's pin to it (`--no-software`).
        case remove
        case set(ChannelSoftware)
    }

    public struct Outcome: Sendable {
        public var version: UInt64
        public var previousVersion: UInt64?
        public var manifest: [UInt8]
        public var signature: SignifySignature?
        public var blobsWritten: [ChannelBlob]
        public var blobsKept: [ChannelBlob]
        public var manifestPath: String
        public var signaturePath: String
    }

    public static func publish(_ request: Request, now: WallInstant) throws(ChannelPublishError) -> Outcome {
        let directory = request.directory
        let manifestPath = directory + "/" + ChannelManifest.fileName
        let signaturePath = directory + "/" + ChannelManifest.signatureFileName

        var configuration: KioskConfiguration
        do {
            configuration = try ConfigLoader.load(file: request.configurationFile)
        } catch {
            throw .configuration(error)
        }
        let (groups, devices) = try readGroupsAndDevices(request)

        // Every picture the configuration and the groups name, checked before anything is written.
        try checkPictures(of: configuration, file: request.configurationFile)
        for (name, group) in groups.sorted(by: { $0.key < $1.key }) {
            try checkPictures(of: group.configuration, file: request.groupFiles.first { $0.name == name }?.file ?? name)
        }

        let previousVersion = try currentVersion(at: manifestPath, required: request.version == nil)
        let version: UInt64
        if let requested = request.version {
            if let previousVersion, requested <= previousVersion {
                throw .versionNotNewer(requested: requested, previous: previousVersion)
            }
            version = requested
        } else {
            guard (previousVersion ?? 0) < UInt64.max else {
                throw .previousManifest(path: manifestPath, reason: "the version is at its maximum")
            }
            version = (previousVersion ?? 0) + 1
        }

        // Hash every picture and video, of every group too, a chunk at a time;
        // remember where those the channel lacks are, to copy them the same way.
        // Nothing is held whole: a channel of large videos publishes in
        // constant memory.
        var blobs: [String: ChannelBlob] = [:]
        var missing: [String: (file: String, label: String, keyPath: String)] = [:]
        var kept: [ChannelBlob] = []
        /// `configuration` as the channel carries it: pictures by blob.
        func carried(_ configuration: KioskConfiguration, file label: String) throws(ChannelPublishError) -> KioskConfiguration {
            var pictures = configuration.allSlides.map { (keyPath: $0.keyPath + ".path", path: $0.slide.path) }
            if let placeholder = configuration.placeholder { pictures.append((keyPath: "placeholder", path: placeholder)) }
            var referenceByPath: [String: String] = [:]
            for picture in pictures where referenceByPath[picture.path] == nil {
                guard case .file = SlideSource(picture.path), let file = configuration.resolve(picture.path) else { continue }
                let blob: ChannelBlob
                do {
                    blob = try ChannelFiles.blob(of: file)
                } catch {
                    throw .pictures(file: label, [ConfigIssue(path: picture.keyPath, message: error.description)])
                }
                referenceByPath[picture.path] = blob.reference
                guard blobs[blob.sha256] == nil else { continue }
                blobs[blob.sha256] = blob
                // Its name is its content: a blob already there at its size is this
                // picture, written whole by an earlier publish (blobs too are renamed
                // into place), so it is left alone.
                if ChannelFiles.size(directory + "/" + blob.path) == blob.size {
                    kept.append(blob)
                } else {
                    missing[blob.sha256] = (file, label, picture.keyPath)
                }
            }
            return configuration.replacingPicturePaths { referenceByPath[$0] ?? $0 }
        }
        configuration = try carried(configuration, file: request.configurationFile)
        var carriedGroups: [String: GroupPlaylist] = [:]
        for (name, group) in groups.sorted(by: { $0.key < $1.key }) {
            let file = request.groupFiles.first { $0.name == name }?.file ?? name
            carriedGroups[name] = GroupPlaylist(sets: group.sets, configuration: try carried(group.configuration, file: file))
        }

        let manifest = ChannelManifest.document(
            version: version, published: now, expires: now + request.expiresAfterSeconds, epoch: request.epoch,
            configuration: configuration, blobs: blobs.values.sorted { $0.sha256 < $1.sha256 },
            groups: carriedGroups, devices: devices, playsUpload: request.playsUpload,
            software: try software(for: request.software, previousAt: manifestPath))
        // What kiosks will parse must parse here first.
        do {
            _ = try ChannelManifest.parse(manifest)
        } catch {
            throw .selfCheck(error)
        }
        var signature: SignifySignature?
        if case .key(let key, let comment) = request.signing {
            do {
                signature = try key.sign(manifest, comment: comment)
            } catch {
                throw .signing("\(error)")
            }
        }

        // 1. Blobs first, each copied and renamed into place whole. Until the
        //    manifest changes nobody asks for the new ones; afterwards they are
        //    all there. A file that changed since it was hashed (an editor
        //    saving it mid-publish) would be a blob whose name is not its
        //    content: it is refused, and nothing is published.
        var written: [ChannelBlob] = []
        var touchedDirectories = Set<String>()
        for blob in blobs.values.sorted(by: { $0.sha256 < $1.sha256 }) {
            guard let source = missing[blob.sha256] else { continue }
            let path = directory + "/" + blob.path
            let blobDirectory = String(path[..<path.lastIndex(of: "/")!])
            let copied: ChannelBlob
            do throws(SystemError) {
                try ChannelFiles.makeDirectories(blobDirectory)
                let temporary: String
                (temporary, copied) = try ChannelFiles.writeTemporary(copying: source.file, for: path)
                if copied == blob {
                    try ChannelFiles.commit(temporary, to: path)
                } else {
                    try? ChannelFiles.remove(temporary)
                }
            } catch {
                throw .file(error)
            }
            guard copied == blob else {
                throw .pictures(file: source.label, [ConfigIssue(
                    path: source.keyPath,
                    message: "\(source.file) changed while it was being published (\(blob.size) bytes when hashed, "
                        + "\(copied.size) when copied); nothing was published: publish again")])
            }
            touchedDirectories.insert(blobDirectory)
            written.append(blob)
        }

        do throws(SystemError) {
            for blobDirectory in touchedDirectories.sorted() { try FileIO.sync(directory: blobDirectory) }
            if !touchedDirectories.isEmpty { try FileIO.sync(directory: directory + "/blobs") }
            try ChannelFiles.makeDirectories(directory)

            // 2. The manifest goes in last, after every blob it names is durable:
            //    a client fetching mid-publish sees the old manifest (whose blobs
            //    are all still there: none is ever removed) or the new one (whose
            //    blobs are all there already), never a manifest naming a missing blob.
            //
            // The manifest and its signature are two files and cannot change in one
            // step; a client may always see one old and one new (it fetched across
            // a publish), which it refuses as a bad signature and retries at the next
            // poll, keeping what it shows. To keep that rare, both are written and
            // fsynced before either is renamed, so they change within microseconds
            // of each other, and the manifest changes first: a follower fetches the
            // manifest first and the signature second, so it can only get "new
            // manifest, old signature" if both of its fetches land between the two
            // renames. (Renaming the signature first would mismatch whenever a
            // publish started between its two fetches and ended after the first.)
            if let signature {
                try ChannelFiles.commitPair(manifest, to: manifestPath, signature.fileBytes, to: signaturePath, directory: directory)
            } else {
                // Unsigned: the old signature goes first, so clients see an
                // unsigned manifest (old, then new) until the operator signs it
                // offline, never a signature that does not match (which would look
                // like tampering in every kiosk's log).
                let manifestTemporary = try ChannelFiles.writeTemporary(manifest, for: manifestPath)
                try ChannelFiles.remove(signaturePath)
                try ChannelFiles.commit(manifestTemporary, to: manifestPath)
                try FileIO.sync(directory: directory)
            }
            return Outcome(version: version, previousVersion: previousVersion, manifest: manifest, signature: signature,
                           blobsWritten: written, blobsKept: kept, manifestPath: manifestPath, signaturePath: signaturePath)
        } catch {
            throw .file(error)
        }
    }

    /// The groups' files and the devices file, each read and checked (groups
    /// with the configuration's reader, and only the keys a group may set).
    static func readGroupsAndDevices(_ request: Request) throws(ChannelPublishError)
        -> (groups: [String: GroupPlaylist], devices: [String: DeviceValues]) {
        var groups: [String: GroupPlaylist] = [:]
        for (name, file) in request.groupFiles {
            if let problem = DeviceValues.nameProblem(name) {
                throw .configuration(ConfigError(source: file, issues: [ConfigIssue(path: "", message: "the group's name \(problem)")]))
            }
            guard groups[name] == nil else {
                throw .configuration(ConfigError(source: file, issues: [ConfigIssue(path: "", message: "group \"\(name)\" is given twice")]))
            }
            do {
                let text = try String(decoding: ChannelFiles.read(file), as: UTF8.self)
                let directory = directoryOfPath(file)
                groups[name] = try GroupPlaylist.parse(text, baseDirectory: directory.isEmpty ? "." : directory, source: file)
            } catch let error as ConfigError {
                throw .configuration(error)
            } catch {
                throw .configuration(ConfigError(source: file, issues: [ConfigIssue(path: "", message: "cannot read the file: \(error)")]))
            }
        }
        guard let devicesFile = request.devicesFile else { return (groups, [:]) }
        do {
            let text = try String(decoding: ChannelFiles.read(devicesFile), as: UTF8.self)
            return (groups, try DeviceValues.parseDevices(text, source: devicesFile))
        } catch let error as ConfigError {
            throw .configuration(error)
        } catch {
            throw .configuration(ConfigError(source: devicesFile, issues: [ConfigIssue(path: "", message: "cannot read the file: \(error)")]))
        }
    }

    /// The pictures a configuration (or a group) names must be files that
    /// exist, or URLs: never `asset:` references, which live in one kiosk.
    static func checkPictures(of configuration: KioskConfiguration, file: String) throws(ChannelPublishError) {
        var issues = ConfigLoader.fileIssues(in: configuration).filter { !$0.message.hasPrefix("asset ") }
        for (keyPath, slide) in configuration.allSlides.map({ ($0.keyPath + ".path", $0.slide.path) })
            + [configuration.placeholder].compactMap({ $0 }).map({ ("placeholder", $0) }) {
            if case .asset = SlideSource(slide) {
                issues.append(ConfigIssue(
                    path: keyPath,
                    message: "an asset: reference cannot be published: a channel carries pictures from files (or http(s) URLs its kiosks download)"))
            }
        }
        guard issues.isEmpty else { throw .pictures(file: file, issues) }
    }

    /// The version of the manifest already in the channel, nil for a new
    /// channel. Only the version is read: the file is the publisher's own, and
    /// an older vitrine's manifest should not stop a newer one publishing.
    /// The `software` the new version carries: the request's, or the current manifest's when kept.
    static func software(for choice: SoftwareChoice, previousAt path: String) throws(ChannelPublishError) -> ChannelSoftware? {
        switch choice {
        case .remove: return nil
        case .set(let software): return software
        case .keep:
            guard ChannelFiles.exists(path) else { return nil }
            do {
                let root = try ManifestJSON.parse(try ChannelFiles.read(path))
                guard case .object(let members) = root.value, let node = members.first(where: { $0.key == "software" })?.value else { return nil }
                var problems: [String] = []
                guard let software = ChannelSoftware.parse(node, report: { problems.append("\($0): \($1)") }) else {
                    throw ChannelPublishError.previousManifest(path: path, reason: problems.joined(separator: "; "))
                }
                return software
            } catch let error as ChannelPublishError {
                throw error
            } catch {
                // currentVersion reports an unreadable manifest already.
                return nil
            }
        }
    }

    static func currentVersion(at path: String, required: Bool) throws(ChannelPublishError) -> UInt64? {
        guard ChannelFiles.exists(path) else { return nil }
        let reason: String
        do {
            let bytes = try ChannelFiles.read(path)
            let root = try ManifestJSON.parse(bytes)
            if case .object(let members) = root.value, let node = members.first(where: { $0.key == "version" })?.value,
               case .number(let text) = node.value, let version = UInt64(text) {
                return version
            }
            reason = "has no whole-number version"
        } catch let error as SystemError {
            reason = error.description
        } catch let error as ManifestJSON.SyntaxError {
            reason = "syntax error: \(error.message)"
        } catch {
            reason = "\(error)"
        }
        if required { throw .previousManifest(path: path, reason: reason) }
        return nil
    }
}
