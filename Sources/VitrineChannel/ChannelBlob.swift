import Crypto
import VitrineConfig

/// One picture a channel carries: `blobs/<first two hex digits>/<sha256>`,
/// named by the SHA-256 of its bytes, so a blob never changes once written
/// and can be cached forever; a changed picture is a new blob.
public struct ChannelBlob: Hashable, Sendable {
    /// The SHA-256 of the bytes, 64 lowercase hex digits.
    public var sha256: String
    /// Where it is, relative to the channel's directory (or URL).
    public var path: String
    public var size: UInt64

    public init(sha256: String, size: UInt64) {
        self.sha256 = sha256
        self.path = Self.path(for: sha256)
        self.size = size
    }

    /// The only path format 1 allows for a blob. Fixing it (rather than
    /// trusting the manifest's string) means a manifest cannot point a kiosk
    /// at `../../etc/passwd` or another origin.
    public static func path(for sha256: String) -> String { "blobs/\(sha256.prefix(2))/\(sha256)" }

    /// The `blob:` reference a manifest's configuration uses for a slide.
    public var reference: String { Self.referencePrefix + sha256 }
    public static let referencePrefix = SlideSource.blobPrefix

    /// Checks downloaded (or stored) bytes against the manifest.
    public func check(_ bytes: [UInt8]) throws(BlobMismatch) {
        try check(sha256: ChannelDigest.sha256(bytes), size: UInt64(bytes.count))
    }

    /// Checks a download hashed as it arrived (`AssetUpload`) against the manifest.
    public func check(sha256 actual: String, size actualSize: UInt64) throws(BlobMismatch) {
        guard actualSize == size, actual == sha256 else {
            throw BlobMismatch(path: path, expectedSHA256: sha256, actualSHA256: actual, expectedSize: size, actualSize: actualSize)
        }
    }
}

/// A blob whose bytes are not what the manifest says.
public struct BlobMismatch: Error, Hashable, Sendable, CustomStringConvertible {
    public var path: String
    public var expectedSHA256: String
    public var actualSHA256: String
    public var expectedSize: UInt64
    public var actualSize: UInt64

    /// A download that went on past the manifest's size (and was cut there):
    /// its digest was never computed.
    public static func tooLarge(_ blob: ChannelBlob) -> BlobMismatch {
        BlobMismatch(path: blob.path, expectedSHA256: blob.sha256, actualSHA256: "", expectedSize: blob.size, actualSize: blob.size + 1)
    }

    public var description: String {
        if actualSHA256.isEmpty {
            return "\(path): more than the \(expectedSize) bytes the manifest says"
        }
        if expectedSize != actualSize {
            return "\(path): \(actualSize) bytes, the manifest says \(expectedSize) (SHA-256 \(actualSHA256))"
        }
        return "\(path): SHA-256 is \(actualSHA256), the manifest says \(expectedSHA256)"
    }
}

public enum ChannelDigest {
    /// SHA-256 in lowercase hex.
    public static func sha256(_ bytes: [UInt8]) -> String { hex(SHA256.hash(data: bytes)) }

    /// 64 lowercase hex digits.
    public static func isSHA256(_ text: String) -> Bool {
        text.utf8.count == 64 && text.utf8.allSatisfy { (0x30...0x39).contains($0) || (0x61...0x66).contains($0) }
    }
}
