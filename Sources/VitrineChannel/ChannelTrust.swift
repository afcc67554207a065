import VitrineConfig
import VitrineSystem

/// A trusted key that cannot be used, naming the configuration key and the file.
public struct ChannelKeyError: Error, Hashable, Sendable, CustomStringConvertible {
    /// `channel.keys[1]`.
    public var field: String
    public var message: String

    public var description: String { "\(field): \(message)" }
}

/// The public keys a `channel` section trusts, read from their files or inline text.
public enum ChannelTrust {
    /// Every key, or the first problem: a kiosk follows with all of the keys it
    /// was given or not at all, so that a key file missing on one machine shows
    /// up at once rather than at the next key rotation.
    public static func keys(_ channel: ChannelConfiguration) throws(ChannelKeyError) -> [SignifyPublicKey] {
        let keys = try read(channel.keys, field: "channel.keys")
        guard !keys.isEmpty else { throw ChannelKeyError(field: "channel.keys", message: "no trusted key: a channel cannot be followed without one") }
        return keys
    }

    /// The offline root keys (`channel.root`), none when it is not set.
    public static func rootKeys(_ channel: ChannelConfiguration) throws(ChannelKeyError) -> [SignifyPublicKey] {
        try read(channel.rootKeys, field: "channel.root")
    }

    private static func read(_ sources: [ChannelKeySource], field list: String) throws(ChannelKeyError) -> [SignifyPublicKey] {
        var keys: [SignifyPublicKey] = []
        for (index, source) in sources.enumerated() {
            let field = "\(list)[\(index)]"
            do {
                switch source {
                case .inline(let base64):
                    let text = "untrusted comment: \(field)\n\(base64)\n"
                    keys.append(try SignifyPublicKey(parsing: Array(text.utf8), file: field))
                case .file(let path):
                    keys.append(try ChannelKeys.loadPublicKey(path))
                }
            } catch let error as SignifyFileError {
                throw ChannelKeyError(field: field, message: error.description)
            } catch let error as SystemError {
                throw ChannelKeyError(field: field, message: "cannot read the public key: \(error)")
            } catch {
                throw ChannelKeyError(field: field, message: "\(error)")
            }
        }
        return keys
    }
}
