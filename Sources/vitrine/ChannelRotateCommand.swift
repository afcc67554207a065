import ArgumentParser
import VitrineChannel
import VitrineCore
import VitrineRuntime
import VitrineSystem

/// `vitrine channel rotate`: a new `root.json`, signed with the offline root
/// key, naming the keys that sign manifests from now on (docs/fleet.md, "Key
/// rotation").
struct ChannelRotateCommand: ParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "rotate",
        abstract: "Name the keys that sign the channel from now on, in a root.json signed with the offline root key.",
        discussion: """
            Writes root.json (the next root version, the keys given with --key) and root.json.sig into the channel \
            directory. Kiosks whose channel.root trusts the root key take it at their next poll: manifests signed \
            by any other key are refused from then on as unknown-key, and versions count again from nothing under \
            the new keys, so a leaked key's version 18446744073709551615 does not block them. Publish with the new \
            key afterwards. The root expires (--expires, a year by default): past that, kiosks take no update \
            until a newer root is served, so sign one (the same keys, the next version) before then. Keep the root \
            key offline; bring it out only for this.
            """)

    @Option(help: ArgumentHelp("The channel directory (where channel.json is).", valueName: "DIR"))
    var dir: String

    @Option(name: .customLong("root-key"), help: ArgumentHelp("The root's signify secret key (unencrypted).", valueName: "FILE.sec"))
    var rootKey: String

    @Option(name: .customLong("key"), help: ArgumentHelp("A public key that may sign manifests from now on (repeat for several).", valueName: "FILE.pub"))
    var keys: [String] = []

    @Option(help: ArgumentHelp("The new root version; it must be greater than the current one. Default: current + 1.", valueName: "N"))
    var version: UInt64?

    @Option(help: ArgumentHelp("How long the root is trusted: a whole number and a unit, 30d or 52w (default: 365d).", valueName: "DURATION"))
    var expires: String?

    func validate() throws {
        guard !keys.isEmpty else { throw ValidationError("give at least one --key FILE.pub: the keys that sign manifests from now on") }
        if let expires, ChannelDuration.seconds(expires) == nil {
            throw ValidationError("--expires must be a whole number and a unit: 30d, 52w, found \(expires)")
        }
    }

    func run() throws {
        let root: ChannelRoot
        do {
            let secret = try ChannelKeys.loadSecretKey(rootKey)
            let signingKeys = try keys.map { try ChannelKeys.loadPublicKey($0) }
            root = try ChannelRootPublisher.publish(
                directory: dir, rootKey: secret, signatureComment: ChannelKeys.signatureComment(secretKeyPath: rootKey, key: secret),
                signingKeys: signingKeys, version: version, now: WallClock.now(),
                lifetimeSeconds: expires.flatMap(ChannelDuration.seconds) ?? ChannelRoot.defaultLifetimeSeconds)
        } catch {
            throw CommandFailure("\(error)")
        }
        print("root version \(root.version) in \(dir)/\(ChannelRoot.fileName): manifests must now be signed with "
              + root.keys.map { "key \($0.keyNumber)" }.joined(separator: " or ")
              + "; it expires at \(root.expires.map(RFC3339.format) ?? "never"): sign a newer one before then")
    }
}
