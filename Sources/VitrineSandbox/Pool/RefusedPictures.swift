import VitrineRuntime

/// The pictures the sandbox refused, and which of them are held back: a
/// picture that made a helper stop (a crash, a kill, its deadline) is not
/// decoded again, by any output or check, until an operator asks or the
/// file changes, so that a hostile file costs one helper, not one a minute.
///
/// Pure: the caller passes the wall time of each event, and the book keeps
/// the latest `capacity` entries, so what a peer can add to it is bounded.
public struct RefusedPictures: Sendable {
    /// A picture as it was when refused.
    public enum Key: Hashable, Sendable {
        /// A file on disk: a replaced file (another inode, size or modification
        /// time) is a new picture and is tried.
        case file(device: UInt64, inode: UInt64, size: Int64, modified: Int64)
        /// Bytes in memory (a download, before it is kept): their SHA-256, so
        /// the same bytes served again are not decoded again.
        case content(sha256: [UInt8])
    }

    public typealias Entry = RefusedPicture

    public static let capacity = 64

    private var entries: [Key: Entry] = [:]

    public init() {}

    /// Records a refusal of `key`'s picture at `now`.
    public mutating func record(_ key: Key, file: String, reason: String, heldBack: Bool, now: Int64) {
        var entry = entries[key] ?? RefusedPicture(file: file, reason: reason, lastRefused: now, refusals: 0, heldBack: false)
        entry.file = file
        entry.reason = reason
        entry.lastRefused = now
        entry.refusals += 1
        entry.heldBack = entry.heldBack || heldBack
        entries[key] = entry
        if entries.count > Self.capacity, let oldest = entries.min(by: { $0.value.lastRefused < $1.value.lastRefused })?.key {
            entries[oldest] = nil
        }
    }

    /// The refusal that holds `key`'s picture back, if one does.
    public func heldBack(_ key: Key) -> Entry? {
        entries[key].flatMap { $0.heldBack ? $0 : nil }
    }

    /// A picture that decoded: it leaves the book.
    public mutating func decoded(_ key: Key) { entries[key] = nil }

    /// An operator's "try again": forgets the refusals of `file` (every file
    /// when nil), so the next decode tries it. Returns how many were forgotten.
    @discardableResult
    public mutating func retry(file: String? = nil) -> Int {
        let forgotten = entries.filter { file == nil || $0.value.file == file }.map(\.key)
        for key in forgotten { entries[key] = nil }
        return forgotten.count
    }

    /// Every refusal, newest first.
    public var list: [Entry] { entries.values.sorted { ($0.lastRefused, $0.file) > ($1.lastRefused, $1.file) } }
}
