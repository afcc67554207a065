import Crypto
import FoundationEssentials

// OpenBSD signify's files, byte for byte (signify.c, which Debian ships as
// signify-openbsd), so an operator can sign with the stock tool and a key
// kept offline, and verify what Vitrine signs with it. Every file is
//
//     untrusted comment: <comment, not empty>\n
//     <base64 of a fixed-size binary record>\n
//
// and every record starts with the algorithm, "Ed" (Ed25519):
//
//     public key  "Ed" keynum[8] publicKey[32]
//     signature   "Ed" keynum[8] signature[64]              over the message's exact bytes
//     secret key  "Ed" "BK" kdfrounds[4, big-endian] salt[16] checksum[8] keynum[8] secretKey[64]
//
// The keynum is 8 random bytes chosen at key generation; a signature carries
// its key's, which is how a verifier trusting several keys picks one. The
// secret key is libsodium's form: the 32-byte seed, then the public key. It
// is XORed with a bcrypt_pbkdf key derived from a passphrase, unless
// kdfrounds is 0 (`signify -G -n`), when it is stored as is. The checksum is
// the first 8 bytes of the SHA-512 of the (decrypted) secret key.

/// A signify key number: 8 random bytes naming a key pair.
public struct KeyNumber: Hashable, Sendable, CustomStringConvertible {
    public let bytes: [UInt8]

    public init?(_ bytes: some Collection<UInt8>) {
        guard bytes.count == 8 else { return nil }
        self.bytes = Array(bytes)
    }

    /// Lowercase hex, as Vitrine prints it: `51ba000d1a13ce38`.
    public var description: String { hex(bytes) }
}

/// Why a signify file could not be read.
public struct SignifyFileError: Error, Hashable, Sendable, CustomStringConvertible {
    /// The file, or what it is (`channel.json.sig`).
    public var file: String
    public var message: String

    public init(file: String, message: String) {
        self.file = file
        self.message = message
    }

    public var description: String { "\(file): \(message)" }
}

/// The two lines of a signify file: its comment and its decoded record.
enum SignifyFile {
    static let commentHeader = "untrusted comment: "
    static let algorithm: [UInt8] = Array("Ed".utf8)
    /// signify's COMMENTMAXLEN, including the terminating NUL.
    static let commentLimit = 1024

    /// Reads the comment and the record of exactly `length` bytes, as
    /// signify's parseb64file does: anything after the second line is ignored
    /// (signify reads no further either; an embedded signature puts the
    /// message there).
    static func parse(_ bytes: [UInt8], length: Int, file: String) throws(SignifyFileError) -> (comment: String, record: [UInt8]) {
        let header = Array(commentHeader.utf8)
        guard let firstNewline = bytes.firstIndex(of: 0x0A), firstNewline > header.count,
              Array(bytes.prefix(header.count)) == header else {
            throw SignifyFileError(file: file, message: "not a signify file: it must start with a line \"\(commentHeader)...\"")
        }
        let comment = String(decoding: bytes[header.count..<firstNewline], as: UTF8.self)
        guard firstNewline - header.count < commentLimit else {
            throw SignifyFileError(file: file, message: "the comment is longer than signify allows (\(commentLimit - 1) bytes)")
        }
        let rest = bytes[(firstNewline + 1)...]
        guard let secondNewline = rest.firstIndex(of: 0x0A) else {
            throw SignifyFileError(file: file, message: "the base64 line must end with a newline")
        }
        var line = rest[rest.startIndex..<secondNewline]
        if line.last == 0x0D { line = line.dropLast() }  // Tolerate a file edited on Windows.
        guard let record = Data(base64Encoded: Data(line)).map(Array.init), record.count == length else {
            throw SignifyFileError(file: file, message: "the second line is not the base64 of a \(length)-byte signify record")
        }
        guard Array(record.prefix(2)) == algorithm else {
            throw SignifyFileError(file: file, message: "unsupported algorithm (only Ed25519, \"Ed\", exists in signify)")
        }
        return (comment, record)
    }

    static func encode(comment: String, record: [UInt8]) -> [UInt8] {
        Array((commentHeader + comment + "\n" + Data(record).base64EncodedString() + "\n").utf8)
    }

    /// signify refuses an empty comment, and a newline would end it early.
    static func validComment(_ comment: String) -> Bool {
        !comment.isEmpty && !comment.contains("\n") && !comment.contains("\r") && comment.utf8.count < commentLimit - 20
    }
}

/// A signify public key: `untrusted comment: ... public key` and
/// base64("Ed" || keynum || Ed25519 public key).
public struct SignifyPublicKey: Sendable {
    public let keyNumber: KeyNumber
    public let key: Curve25519.Signing.PublicKey
    public var comment: String

    public static let recordLength = 2 + 8 + 32

    public init(keyNumber: KeyNumber, key: Curve25519.Signing.PublicKey, comment: String) {
        self.keyNumber = keyNumber
        self.key = key
        self.comment = comment
    }

    /// Reads a `.pub` file's bytes; `file` names it in errors.
    public init(parsing bytes: [UInt8], file: String = "public key") throws(SignifyFileError) {
        let (comment, record) = try SignifyFile.parse(bytes, length: Self.recordLength, file: file)
        guard let key = try? Curve25519.Signing.PublicKey(rawRepresentation: record[10..<42]) else {
            throw SignifyFileError(file: file, message: "not a valid Ed25519 public key")
        }
        self.init(keyNumber: KeyNumber(record[2..<10])!, key: key, comment: comment)
    }

    public var fileBytes: [UInt8] {
        SignifyFile.encode(comment: comment, record: SignifyFile.algorithm + keyNumber.bytes + Array(key.rawRepresentation))
    }

    /// Whether `signature` is this key's signature of `message`.
    public func isValid(_ signature: SignifySignature, for message: [UInt8]) -> Bool {
        signature.keyNumber == keyNumber && key.isValidSignature(signature.bytes, for: message)
    }
}

/// A signify signature file (`channel.json.sig`): base64("Ed" || keynum || signature).
public struct SignifySignature: Sendable {
    public let keyNumber: KeyNumber
    /// The 64-byte Ed25519 signature.
    public let bytes: [UInt8]
    public var comment: String

    public static let recordLength = 2 + 8 + 64

    public init(keyNumber: KeyNumber, bytes: [UInt8], comment: String) {
        precondition(bytes.count == 64, "an Ed25519 signature is 64 bytes")
        self.keyNumber = keyNumber
        self.bytes = bytes
        self.comment = comment
    }

    public init(parsing bytes: [UInt8], file: String = "signature") throws(SignifyFileError) {
        let (comment, record) = try SignifyFile.parse(bytes, length: Self.recordLength, file: file)
        self.init(keyNumber: KeyNumber(record[2..<10])!, bytes: Array(record[10..<74]), comment: comment)
    }

    public var fileBytes: [UInt8] {
        SignifyFile.encode(comment: comment, record: SignifyFile.algorithm + keyNumber.bytes + bytes)
    }
}

/// An unencrypted signify secret key (`signify-openbsd -G -n`, or
/// `vitrine channel keygen`), for signing in-process.
public struct SignifySecretKey: Sendable {
    public let keyNumber: KeyNumber
    public let key: Curve25519.Signing.PrivateKey
    public var comment: String

    public static let recordLength = 2 + 2 + 4 + 16 + 8 + 8 + 64
    static let kdfAlgorithm: [UInt8] = Array("BK".utf8)

    public init(keyNumber: KeyNumber, key: Curve25519.Signing.PrivateKey, comment: String) {
        self.keyNumber = keyNumber
        self.key = key
        self.comment = comment
    }

    /// A new key pair with a random key number. `comment` is the base of both
    /// files' comments, as `signify -G -c` has it: "<comment> secret key" and
    /// "<comment> public key".
    public static func generate(comment: String) -> SignifySecretKey {
        var generator = SystemRandomNumberGenerator()
        let keyNumber = KeyNumber((0..<8).map { _ in UInt8.random(in: .min ... .max, using: &generator) })!
        return SignifySecretKey(keyNumber: keyNumber, key: Curve25519.Signing.PrivateKey(), comment: comment + " secret key")
    }

    public init(parsing bytes: [UInt8], file: String = "secret key") throws(SignifyFileError) {
        let (comment, record) = try SignifyFile.parse(bytes, length: Self.recordLength, file: file)
        guard Array(record[2..<4]) == Self.kdfAlgorithm else {
            throw SignifyFileError(file: file, message: "unsupported key derivation (signify uses \"BK\", bcrypt_pbkdf)")
        }
        let rounds = record[4..<8].reduce(UInt32(0)) { $0 << 8 | UInt32($1) }
        guard rounds == 0 else {
            // Decrypting needs bcrypt_pbkdf and a passphrase prompt; a key kept
            // that carefully is better used where it lives, with signify itself.
            throw SignifyFileError(
                file: file,
                message: "the key is protected by a passphrase (\(rounds) KDF rounds); vitrine signs only with unencrypted keys "
                    + "(signify-openbsd -G -n): publish with --unsigned and sign with signify-openbsd -S instead")
        }
        let checksum = Array(record[24..<32])
        let secret = Array(record[40..<104])
        guard Array(SHA512.hash(data: secret).prefix(8)) == checksum else {
            throw SignifyFileError(file: file, message: "the key's checksum does not match: the file is damaged")
        }
        // libsodium's secret key is the seed followed by the public key; the
        // public half must be the seed's, or signatures would not verify.
        guard let key = try? Curve25519.Signing.PrivateKey(rawRepresentation: secret[0..<32]),
              Array(key.publicKey.rawRepresentation) == Array(secret[32..<64]) else {
            throw SignifyFileError(file: file, message: "the key's public half does not belong to its seed: the file is damaged")
        }
        self.init(keyNumber: KeyNumber(record[32..<40])!, key: key, comment: comment)
    }

    /// The `.sec` file: unencrypted (kdfrounds 0), with a random salt as signify writes one anyway.
    public var fileBytes: [UInt8] {
        let secret = Array(key.rawRepresentation) + Array(key.publicKey.rawRepresentation)
        var generator = SystemRandomNumberGenerator()
        let salt = (0..<16).map { _ in UInt8.random(in: .min ... .max, using: &generator) }
        let checksum = Array(SHA512.hash(data: secret).prefix(8))
        // Appended piece by piece: as one chain of seven `+`, with an array
        // literal among them, Swift 6.2 (Debian's swiftlang, the arm64 build)
        // gives up type-checking the expression "in reasonable time".
        var record: [UInt8] = SignifyFile.algorithm
        record += Self.kdfAlgorithm
        record += [0, 0, 0, 0]  // kdfrounds 0: not encrypted
        record += salt
        record += checksum
        record += keyNumber.bytes
        record += secret
        return SignifyFile.encode(comment: comment, record: record)
    }

    /// The matching public key, with signify's comment for it.
    public var publicKey: SignifyPublicKey {
        let base = comment.hasSuffix(" secret key") ? String(comment.dropLast(" secret key".count)) : comment
        return SignifyPublicKey(keyNumber: keyNumber, key: key.publicKey, comment: base + " public key")
    }

    /// Signs the exact bytes of `message`. Ed25519 is deterministic, so this
    /// gives the same signature `signify -S` gives with the same key.
    /// - Parameter comment: the signature file's comment; signify writes
    ///   "verify with <key>.pub".
    public func sign(_ message: [UInt8], comment: String) throws -> SignifySignature {
        let signature = try key.signature(for: message)
        return SignifySignature(keyNumber: keyNumber, bytes: Array(signature), comment: comment)
    }
}

func hex(_ bytes: some Sequence<UInt8>) -> String {
    let digits = Array("0123456789abcdef".utf8)
    var out: [UInt8] = []
    for byte in bytes {
        out.append(digits[Int(byte >> 4)])
        out.append(digits[Int(byte & 0x0F)])
    }
    return String(decoding: out, as: UTF8.self)
}
