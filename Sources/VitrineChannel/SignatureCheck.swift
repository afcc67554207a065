/// Checks a signify signature of a file against the keys trusted for it: the
/// first step of every signed file a kiosk reads (`channel.json` with the
/// signing keys, `root.json` with the root keys), before the file is parsed.
enum SignatureCheck {
    enum Failure: Error {
        /// The signature file is not a signify signature.
        case unreadable(String)
        /// Made with a key that is not among the trusted ones.
        case unknownKey(KeyNumber)
        /// The key is trusted but the signature does not verify these bytes.
        case mismatch(String)
    }

    /// The number of the trusted key whose signature of `message` `signature` is.
    /// - Parameters:
    ///   - file: the signed file's name, and `signatureFile` the signature's, for messages.
    static func verify(_ message: [UInt8], signature: [UInt8], keys: [SignifyPublicKey], file: String,
                       signatureFile: String) throws(Failure) -> KeyNumber {
        let signed: SignifySignature
        do {
            signed = try SignifySignature(parsing: signature, file: signatureFile)
        } catch {
            throw .unreadable(error.description)
        }
        let candidates = keys.filter { $0.keyNumber == signed.keyNumber }
        guard !candidates.isEmpty else { throw .unknownKey(signed.keyNumber) }
        guard candidates.contains(where: { $0.isValid(signed, for: message) }) else {
            throw .mismatch("\(signatureFile) does not verify \(file) with key \(signed.keyNumber)")
        }
        return signed.keyNumber
    }
}
