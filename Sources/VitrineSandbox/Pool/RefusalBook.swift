import Glibc
import VitrineRuntime
import VitrineSystem

/// The pool's `RefusedPictures`, shared by every decode that goes through it
/// (each output's slides, uploads, downloads, check-config), behind a lock,
/// with the wall clock the entries are stamped with.
public final class RefusalBook: @unchecked Sendable {
    private let lock = PoolLock()
    private var book = RefusedPictures()
    private let wallClock: @Sendable () -> Int64

    public init(wallClock: @escaping @Sendable () -> Int64 = { WallClock.nanoseconds() }) {
        self.wallClock = wallClock
    }

    /// The refusal holding `key`'s picture back, if one does.
    func heldBack(_ key: RefusedPictures.Key) -> RefusedPicture? { lock.withLock { book.heldBack(key) } }

    func record(_ key: RefusedPictures.Key, file: String, reason: String, heldBack: Bool) {
        let now = wallClock()
        lock.withLock { book.record(key, file: file, reason: reason, heldBack: heldBack, now: now) }
    }

    func decoded(_ key: RefusedPictures.Key) { lock.withLock { book.decoded(key) } }

    /// Every refusal, newest first.
    public var list: [RefusedPicture] { lock.withLock { book.list } }

    /// An operator's "try again": forgets the refusals of `file`, or every one.
    @discardableResult
    public func retry(file: String?) -> Int { lock.withLock { book.retry(file: file) } }

    /// The key of an open file, from `fstat`.
    static func key(of info: stat) -> RefusedPictures.Key {
        .file(device: UInt64(info.st_dev), inode: UInt64(info.st_ino), size: Int64(info.st_size),
              modified: Int64(info.st_mtim.tv_sec) * 1_000_000_000 + Int64(info.st_mtim.tv_nsec))
    }

    /// The key of bytes whose SHA-256 is `hex` (a staged download's), the same
    /// as the bytes' own; nil if `hex` is not 64 hex digits.
    static func key(ofSHA256 hex: String) -> RefusedPictures.Key? {
        let digits = Array(hex.utf8)
        guard digits.count == 64 else { return nil }
        func value(_ digit: UInt8) -> UInt8? {
            switch digit {
            case 0x30...0x39: digit - 0x30
            case 0x61...0x66: digit - 0x61 + 10
            case 0x41...0x46: digit - 0x41 + 10
            default: nil
            }
        }
        var bytes: [UInt8] = []
        bytes.reserveCapacity(32)
        for index in stride(from: 0, to: 64, by: 2) {
            guard let high = value(digits[index]), let low = value(digits[index + 1]) else { return nil }
            bytes.append(high << 4 | low)
        }
        return .content(sha256: bytes)
    }

    /// The words for a picture that is held back.
    static func heldBackReason(_ entry: RefusedPicture) -> String { "\(entry.reason); not tried again until an operator asks" }
}
