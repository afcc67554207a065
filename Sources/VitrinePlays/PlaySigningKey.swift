import Logging
import VitrineChannel

/// The kiosk's own key for proof of play: every upload batch is signed with it
/// (signify's Ed25519, as channels are), so that whoever receives the plays can
/// tell them from plays forged by anyone else on the way or on the network.
/// The pair is made at the first start, in the log's directory
/// (`STATE_DIRECTORY/plays/device.sec`, 0600, and `device.pub`), and kept: an
/// operator registers `device.pub` with the receiver once, or provisions a
/// pair of its own there before the first start.
public enum PlaySigningKey {
    public static let secretFileName = "device.sec"
    public static let publicFileName = "device.pub"

    /// The key in `directory`, made there if there is none. Nil, logged, when it
    /// can neither be read nor made (a read-only state directory on first
    /// start): batches then go unsigned, and the receiver decides.
    public static func loadOrCreate(directory: String, device: String, logger: Logger) -> SignifySecretKey? {
        let secretPath = directory + "/" + secretFileName
        if ChannelFiles.exists(secretPath) {
            do {
                return try ChannelKeys.loadSecretKey(secretPath)
            } catch {
                logger.error("proof of play: cannot read the signing key \(secretPath): \(error); uploads go unsigned until it can be read")
                return nil
            }
        }
        do {
            let key = try ChannelKeys.generate(publicKeyPath: directory + "/" + publicFileName, secretKeyPath: secretPath,
                                               comment: "vitrine plays \(device)")
            logger.notice("proof of play: made the signing key \(directory)/\(publicFileName) (key number \(key.keyNumber)); give it to the plays receiver to check uploads with")
            return key
        } catch {
            logger.error("proof of play: cannot make a signing key in \(directory): \(error); uploads go unsigned")
            return nil
        }
    }

    /// The public key's base64 line (the second line of `device.pub`).
    public static func publicLine(_ key: SignifySecretKey) -> String {
        secondLine(key.publicKey.fileBytes)
    }

    /// The signature's base64 line, for the `Vitrine-Signature` header.
    public static func signatureLine(_ body: [UInt8], key: SignifySecretKey) throws -> String {
        secondLine(try key.sign(body, comment: "verify with \(publicFileName)").fileBytes)
    }

    private static func secondLine(_ file: [UInt8]) -> String {
        String(String(decoding: file, as: UTF8.self).split(separator: "\n").dropFirst().first ?? "")
    }
}
