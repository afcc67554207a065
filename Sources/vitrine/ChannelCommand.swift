import ArgumentParser
import FoundationEssentials
import VitrineChannel
import VitrineCore

/// `vitrine channel keygen|publish|verify`: a fleet channel, a directory of a
/// signed manifest and pictures that any static HTTP origin can serve
/// (docs/fleet.md). Kiosks following a channel is not built yet.
struct ChannelCommand: ParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "channel",
        abstract: "Make signing keys, publish a configuration to a channel directory, and verify a channel.",
        discussion: """
            A channel is a directory: channel.json (the manifest: version, configuration, pictures), \
            channel.json.sig (its signify signature) and blobs/ (the pictures by SHA-256). Keys and signatures \
            are OpenBSD signify's, so signify-openbsd can make keys, sign and verify too. See docs/fleet.md.
            """,
        subcommands: [ChannelKeygenCommand.self, ChannelPublishCommand.self, ChannelVerifyCommand.self, ChannelRotateCommand.self])
}

struct ChannelKeygenCommand: ParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "keygen",
        abstract: "Make an Ed25519 key pair in signify's format (as signify-openbsd -G -n does).",
        discussion: """
            The secret key is written unencrypted with mode 0600, so that vitrine channel publish --key can sign \
            with it: keep it on the publishing machine only. For a key protected by a passphrase, use \
            signify-openbsd -G and sign offline (vitrine channel publish --unsigned, then signify-openbsd -S). \
            Neither file may exist already.
            """)

    @Option(name: .customLong("public"), help: ArgumentHelp("Where to write the public key (give it to the kiosks).", valueName: "FILE.pub"))
    var publicKey: String

    @Option(name: .customLong("secret"), help: ArgumentHelp("Where to write the secret key.", valueName: "FILE.sec"))
    var secretKey: String

    @Option(help: "The keys' comment, as signify -c has it: the files say \"COMMENT public key\" and \"COMMENT secret key\".")
    var comment = "vitrine channel"

    func run() throws {
        let key: SignifySecretKey
        do {
            key = try ChannelKeys.generate(publicKeyPath: publicKey, secretKeyPath: secretKey, comment: comment)
        } catch {
            throw CommandFailure("\(error)")
        }
        print("public key: \(publicKey) (key number \(key.keyNumber)): give this one to the kiosks")
        print("secret key: \(secretKey) (mode 0600, unencrypted): keep it on the publishing machine only")
    }
}

struct ChannelPublishCommand: ParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "publish",
        abstract: "Publish a configuration and its pictures to a channel directory.",
        discussion: """
            Copies each picture to blobs/ unless it is already there, then writes channel.json with the next \
            version (the current one plus one, or --version), and signs it: with --key, in-process with an \
            unencrypted signify secret key; with --unsigned, not at all: sign it afterwards, offline, with \
            signify-openbsd -S -s KEY.sec -m CHANNEL/channel.json -x CHANNEL/channel.json.sig. \
            Pictures are named by relative or absolute paths or http(s) URLs; asset: references cannot be published. \
            The manifest is replaced last, after every picture it names is in place. \
            --group NAME=FILE gives the kiosks of a group (channel.group) their own playlist: FILE is a configuration \
            file that sets only playlist keys (slides or schedule, interval, transition, ...). --devices FILE gives \
            per-device values by device id (channel.device): output.rotation, touch.calibration, touch.devices. \
            --software-version names the vitrine package version the kiosks run, which each board's update helper \
            installs from the signed apt repository (docs/updates.md); --software-group NAME=VERSION gives a group \
            its own (a staged rollout), and --software-floor raises the lowest version boards will ever accept. \
            Without any of these a new version keeps what the current manifest says; --no-software drops it.
            """)

    @Option(name: .shortAndLong, help: "The configuration file (YAML or JSON).")
    var config: String

    @Option(help: ArgumentHelp("The channel directory (created if need be).", valueName: "CHANNEL"))
    var dir: String

    @Option(help: ArgumentHelp("Sign with this unencrypted signify secret key.", valueName: "FILE.sec"))
    var key: String?

    @Flag(help: "Leave the manifest unsigned, to sign offline with signify-openbsd -S.")
    var unsigned = false

    @Option(help: ArgumentHelp("The new version; it must be greater than the channel's current one. Default: current + 1.", valueName: "N"))
    var version: UInt64?

    @Option(help: ArgumentHelp("Kiosks refuse the manifest this long after publishing (30m, 12h, 7d, 2w): publish again before then. Default: 7d.", valueName: "DURATION"))
    var expires: String?

    @Option(name: .customLong("group"),
            help: ArgumentHelp("A group's playlist: the group's name (channel.group) and a configuration file of playlist keys; repeat for each group.",
                               valueName: "NAME=FILE"))
    var groups: [String] = []

    @Option(help: ArgumentHelp("Per-device values by device id (channel.device): output.rotation and touch calibration.", valueName: "FILE"))
    var devices: String?

    @Option(help: ArgumentHelp("The instant rotation in step counts from (sync: true), RFC 3339 (2026-03-28T00:00:00Z).", valueName: "TIME"))
    var epoch: String?

    @Option(name: .customLong("plays-upload"),
            help: ArgumentHelp("Where the kiosks POST their proof of play in batches (unless a kiosk's own file sets plays.upload).", valueName: "URL"))
    var playsUpload: String?

    @Option(name: .customLong("software-version"),
            help: ArgumentHelp("The vitrine package version the channel's kiosks run (format 3's software).", valueName: "VERSION"))
    var softwareVersion: String?

    @Option(name: .customLong("software-group"),
            help: ArgumentHelp("A group's own package version (channel.group), for a staged rollout; repeat for each group.",
                               valueName: "NAME=VERSION"))
    var softwareGroups: [String] = []

    @Option(name: .customLong("software-floor"),
            help: ArgumentHelp("Boards never install a version under this one again, whatever a later manifest says.", valueName: "VERSION"))
    var softwareFloor: String?

    @Flag(name: .customLong("no-software"), help: "Name no package version: boards keep the one they run.")
    var noSoftware = false

    func validate() throws {
        guard (key != nil) != unsigned else { throw ValidationError("give exactly one of --key FILE.sec and --unsigned") }
        if noSoftware, softwareVersion != nil || softwareFloor != nil || !softwareGroups.isEmpty {
            throw ValidationError("--no-software cannot go with --software-version, --software-group or --software-floor")
        }
        if softwareVersion == nil, softwareFloor != nil || !softwareGroups.isEmpty {
            throw ValidationError("--software-group and --software-floor need --software-version (the version for kiosks without a group)")
        }
        for (option, value) in [("--software-version", softwareVersion), ("--software-floor", softwareFloor)] {
            if let value, let problem = ChannelSoftware.versionProblem(value) {
                throw ValidationError("\(option): \"\(value)\" \(problem)")
            }
        }
        for group in softwareGroups {
            guard let (name, version) = groupFile(group) else {
                throw ValidationError("--software-group must be NAME=VERSION, such as canary=1.3.0, found \(group)")
            }
            if let problem = ChannelSoftware.versionProblem(version) {
                throw ValidationError("--software-group \(name): \"\(version)\" \(problem)")
            }
        }
        if let expires, ChannelDuration.seconds(expires) == nil {
            throw ValidationError("--expires must be a whole number and a unit: 30m, 12h, 7d or 2w, found \(expires)")
        }
        if let epoch, RFC3339.parse(epoch) == nil {
            throw ValidationError("--epoch must be an RFC 3339 date and time such as 2026-03-28T00:00:00Z, found \(epoch)")
        }
        for group in groups where groupFile(group) == nil {
            throw ValidationError("--group must be NAME=FILE, such as lobby=lobby.yaml, found \(group)")
        }
    }

    /// `NAME=FILE`, split at the first `=`.
    private func groupFile(_ option: String) -> (name: String, file: String)? {
        guard let equals = option.firstIndex(of: "="), equals != option.startIndex, option.index(after: equals) != option.endIndex else { return nil }
        return (String(option[..<equals]), String(option[option.index(after: equals)...]))
    }

    private var softwareChoice: ChannelPublisher.SoftwareChoice {
        if noSoftware { return .remove }
        guard let softwareVersion else { return .keep }
        let groups = Dictionary(softwareGroups.compactMap(groupFile), uniquingKeysWith: { _, last in last })
        return .set(ChannelSoftware(version: softwareVersion, groups: groups, floor: softwareFloor))
    }

    func run() throws {
        let signing: ChannelPublisher.Signing
        if let key {
            do {
                let secret = try ChannelKeys.loadSecretKey(key)
                signing = .key(secret, comment: ChannelKeys.signatureComment(secretKeyPath: key, key: secret))
            } catch {
                throw CommandFailure("\(error)")
            }
        } else {
            signing = .unsigned
        }
        let request = ChannelPublisher.Request(
            configurationFile: config, directory: dir, signing: signing, version: version,
            expiresAfterSeconds: expires.flatMap(ChannelDuration.seconds) ?? ChannelPublisher.defaultValiditySeconds, epoch: epoch.flatMap(RFC3339.parse),
            groupFiles: groups.compactMap(groupFile), devicesFile: devices, playsUpload: playsUpload, software: softwareChoice)
        let outcome: ChannelPublisher.Outcome
        do {
            outcome = try ChannelPublisher.publish(request, now: WallInstant(secondsSinceEpoch: Int64(Date().timeIntervalSince1970)))
        } catch {
            throw CommandFailure(error.description)
        }
        let manifest = try? ChannelManifest.parse(outcome.manifest)
        var line = "\(outcome.manifestPath): version \(outcome.version)"
        line += outcome.previousVersion.map { " (was \($0))" } ?? " (a new channel)"
        if let manifest {
            line += ", published \(RFC3339.format(manifest.published))"
            line += manifest.expires.map { ", expires \(RFC3339.format($0))" } ?? ", does not expire"
        }
        print(line)
        if let manifest, !manifest.groups.isEmpty || !manifest.devices.isEmpty {
            print("groups: \(manifest.groups.isEmpty ? "none" : manifest.groups.keys.sorted().joined(separator: ", ")); devices: \(manifest.devices.count)")
        }
        if let software = manifest?.software {
            let groups = software.groups.sorted { $0.key < $1.key }.map { "\($0.key) \($0.value)" }
            print("software: vitrine \(software.version)" + (groups.isEmpty ? "" : "; groups: " + groups.joined(separator: ", "))
                  + (software.floor.map { "; floor \($0)" } ?? ""))
        }
        print("blobs: \(outcome.blobsWritten.count) written, \(outcome.blobsKept.count) already there")
        if let signature = outcome.signature {
            print("\(outcome.signaturePath): signed with key \(signature.keyNumber)")
        } else {
            print("unsigned: kiosks refuse it until it is signed; sign it offline with")
            print("  signify-openbsd -S -s KEY.sec -m \(outcome.manifestPath) -x \(outcome.signaturePath)")
        }
    }
}

struct ChannelVerifyCommand: ParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "verify",
        abstract: "Check a channel directory as a kiosk would: signature, form, expiry, version, and every blob.",
        discussion: """
            Prints the verdict. Exit status: 0 when a kiosk trusting these keys would apply the channel and every \
            blob is present and matches; 1 otherwise, with the refusal's code (bad-signature, unknown-key, \
            not-newer, expired, malformed) or the blobs that do not match.
            """)

    @Option(help: ArgumentHelp("The channel directory.", valueName: "CHANNEL"))
    var dir: String

    @Option(name: .customLong("key"), parsing: .upToNextOption,
            help: ArgumentHelp("Trusted public keys (signify .pub files); repeat or list several for key rotation.", valueName: "FILE.pub"))
    var keys: [String]

    @Option(help: ArgumentHelp("The version a kiosk last applied: the manifest must be newer.", valueName: "N"))
    var appliedVersion: UInt64?

    @Option(help: ArgumentHelp("Judge expiry at this instant (RFC 3339) instead of now.", valueName: "TIME"))
    var at: String?

    @Option(help: ArgumentHelp("Decide as a kiosk of this group (channel.group) would, and say what it shows.", valueName: "NAME"))
    var group: String?

    @Option(help: ArgumentHelp("Decide as this device (channel.device) would, and say which values it takes.", valueName: "ID"))
    var device: String?

    func validate() throws {
        guard !keys.isEmpty else { throw ValidationError("give at least one trusted key: --key FILE.pub") }
        if let at, RFC3339.parse(at) == nil {
            throw ValidationError("--at must be an RFC 3339 date and time such as 2026-03-28T12:00:00Z, found \(at)")
        }
    }

    func run() throws {
        var trusted: [SignifyPublicKey] = []
        for path in keys {
            do {
                trusted.append(try ChannelKeys.loadPublicKey(path))
            } catch {
                throw CommandFailure("\(error)")
            }
        }
        let manifestPath = dir + "/" + ChannelManifest.fileName
        let signaturePath = dir + "/" + ChannelManifest.signatureFileName
        let manifestBytes: [UInt8]
        do {
            manifestBytes = try ChannelFiles.read(manifestPath)
        } catch {
            throw CommandFailure("\(error)")
        }
        let now = at.flatMap(RFC3339.parse) ?? WallInstant(secondsSinceEpoch: Int64(Date().timeIntervalSince1970))
        let verified: VerifiedManifest
        do throws(ChannelRefusal) {
            guard ChannelFiles.exists(signaturePath) else {
                throw ChannelRefusal.badSignature("\(ChannelManifest.signatureFileName) is missing: the manifest is unsigned")
            }
            let signatureBytes: [UInt8]
            do {
                signatureBytes = try ChannelFiles.read(signaturePath, limit: 4096)
            } catch {
                throw ChannelRefusal.badSignature(error.description)
            }
            verified = try ChannelVerifier(trustedKeys: trusted)
                .verify(manifest: manifestBytes, signature: signatureBytes, appliedVersion: appliedVersion, now: now)
        } catch {
            print("\(manifestPath): refused: \(error) [\(error.code)]")
            throw ExitCode(1)
        }
        let manifest: ChannelManifest
        do {
            manifest = try verified.manifest.selecting(group: group, device: device)
        } catch {
            print("\(manifestPath): refused: \(ChannelRefusal.malformed(error)) [malformed]")
            throw ExitCode(1)
        }
        let keyFile = zip(keys, trusted).first { $0.1.keyNumber == verified.keyNumber }?.0 ?? "?"
        print("\(manifestPath): verified: version \(manifest.version), published \(RFC3339.format(manifest.published)), signed with key \(verified.keyNumber) (\(keyFile))")
        if let expires = manifest.expires {
            let hours = (expires - now) / 3600
            print("expires \(RFC3339.format(expires)) (in \(hours >= 48 ? "\(hours / 24) days" : "\(hours) hours"))")
        } else {
            print("does not expire")
        }
        let slides = manifest.configuration.allSlides.count
        print("configuration: \(slides) slide\(slides == 1 ? "" : "s")\(manifest.configuration.schedule == nil ? "" : " (with a schedule)"), \(manifest.blobs.count) blob\(manifest.blobs.count == 1 ? "" : "s")")
        for (name, playlist) in manifest.groups.sorted(by: { $0.key < $1.key }) {
            print("group \(name): sets \(playlist.sets.sorted().joined(separator: ", "))\(name == group ? " (this kiosk's)" : "")")
        }
        if !manifest.devices.isEmpty { print("devices: \(manifest.devices.keys.sorted().joined(separator: ", "))") }
        if let device, let values = manifest.devices[device] {
            print("device \(device): sets \(values.setKeyPaths.joined(separator: ", "))")
        }

        var problems: [String] = []
        for blob in manifest.blobs.values.sorted(by: { $0.sha256 < $1.sha256 }) {
            do {
                // Hashed a chunk at a time: a channel's videos may be larger than memory.
                let actual = try ChannelFiles.blob(of: dir + "/" + blob.path)
                try blob.check(sha256: actual.sha256, size: actual.size)
            } catch let mismatch as BlobMismatch {
                problems.append(mismatch.description)
            } catch {
                problems.append("\(blob.path): \(error)")
            }
        }
        if problems.isEmpty {
            print("blobs: all \(manifest.blobs.count) present and matching")
        } else {
            for problem in problems { print("blob refused: \(problem)") }
            throw ExitCode(1)
        }
    }
}

/// `--expires`: a whole number and a unit.
enum ChannelDuration {
    static func seconds(_ text: String) -> Int64? {
        let units: [Character: Int64] = ["s": 1, "m": 60, "h": 3600, "d": 86_400, "w": 604_800]
        guard let unit = text.last.flatMap({ units[$0] }), let count = Int64(text.dropLast()), count > 0,
              count <= Int64.max / unit / 2 else { return nil }
        return count * unit
    }
}
