import Crypto

/// SHA-256 in lowercase hex: asset ids, configuration versions, seed digests.
enum ContentDigest {
    static func sha256(_ bytes: [UInt8]) -> String {
        SHA256.hash(data: bytes).map { byte in
            let text = String(byte, radix: 16)
            return byte < 16 ? "0" + text : text
        }.joined()
    }

    /// A configuration version: the first 64 bits of the SHA-256 of its canonical JSON.
    static func version(of canonicalJSON: [UInt8]) -> String {
        String(sha256(canonicalJSON).prefix(16))
    }
}
