import Crypto
import VitrineRuntime
import VitrineSystem

/// SHA-256 in lowercase hex: asset ids, configuration versions, seed digests.
package enum ContentDigest {
    package static func sha256(_ bytes: [UInt8]) -> String {
        hex(SHA256.hash(data: bytes))
    }

    /// The SHA-256 of a file, read 1 MiB at a time (a picture need not fit in
    /// memory twice); nil if it cannot be read.
    package static func sha256(file path: String) -> String? {
        var hasher = SHA256()
        do {
            try FileIO.forEachChunk(of: path) { hasher.update(data: $0) }
        } catch {
            return nil
        }
        return hex(hasher.finalize())
    }

    package static func hex(_ digest: SHA256.Digest) -> String {
        digest.map { byte in
            let text = String(byte, radix: 16)
            return byte < 16 ? "0" + text : text
        }.joined()
    }

    /// A configuration version: the first 64 bits of the SHA-256 of its canonical JSON.
    package static func version(of canonicalJSON: [UInt8]) -> String {
        String(sha256(canonicalJSON).prefix(16))
    }
}
