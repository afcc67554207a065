import Crypto
import Glibc
import VitrineRuntime
import VitrineSystem
import VitrineAPI

/// A picture being received: its bytes go to a staging file in the asset
/// directory as they arrive, and are hashed on the way, so that an upload of
/// any allowed size (`api.maxUploadSize`) costs one buffer of memory, not its
/// size. `AssetStore.adopt` renames the finished file to its digest.
///
/// A staging file that is not adopted (a refused or abandoned upload) is
/// removed when the upload goes away, and at start-up by its `.tmp-` name if
/// the process died first (`StateStore.removeStaleTemporaries`).
///
/// A download that can be resumed (a channel's blob, a URL slide's file)
/// stages into `partial-<key>` instead, which outlives the upload and a
/// restart: the next attempt hashes what is there and asks the origin for the
/// rest. It goes when adopted, discarded, or left untouched for a week.
///
/// Not shared: one request appends to it, one step at a time (each `append`
/// awaited before the next), on the thread pool. `@unchecked` for that hand-over.
package final class AssetUpload: @unchecked Sendable {
    package let path: String
    private let store: AssetStore
    /// The staging file, closed exactly once, when the upload goes away.
    private let file: OpenFile
    private var hasher = SHA256()
    package private(set) var size = 0
    /// The SHA-256 in hex, once `finish` has made the file durable.
    package private(set) var digest: String?
    /// Whether the staging file is removed when the upload goes away: not once
    /// adopted (renamed to its digest) or discarded (removed already), nor for
    /// a resumable download.
    private var removeOnDeinit = true
    /// What names a resumable download's staging file in the asset directory.
    static let partialPrefix = "partial-"
    /// What the origin called the version of the file the part is of, to
    /// resume it with `If-Range` (a URL's file can change between attempts);
    /// kept beside the part, in `<part>.validator`. Nil for an upload, and
    /// for a part whose validator is not known.
    package private(set) var resumeValidator: String?
    private var validatorPath: String { path + ".validator" }

    /// Creates the staging file (`open` with `O_EXCL`). Throws `StateReadOnly`
    /// when nothing can be stored, `SystemError` when the file cannot be made.
    package init(in store: AssetStore) throws {
        if let reason = store.readOnlyReason { throw StateReadOnly(message: "nothing can be stored: \(reason)") }
        self.store = store
        path = store.directory + "/upload.tmp-\(getpid())-\(UInt64.random(in: 0...UInt64.max))"
        file = try OpenFile(path, O_WRONLY | O_CREAT | O_EXCL | O_CLOEXEC, mode: 0o644, system: store.system)
    }

    /// Opens, or creates, the staging file of a download that can be resumed,
    /// `partial-<key>`, and hashes the bytes an earlier attempt left in it:
    /// `size` is where the rest starts. `key` names what is downloaded
    /// (`blob-<sha256>`), letters, digits and `-` only.
    package init(in store: AssetStore, resuming key: String) throws {
        if let reason = store.readOnlyReason { throw StateReadOnly(message: "nothing can be stored: \(reason)") }
        precondition(!key.isEmpty && key.utf8.allSatisfy { $0 == 0x2D || (0x30...0x39).contains($0) || (0x41...0x5A).contains($0) || (0x61...0x7A).contains($0) },
                     "a partial download's key is letters, digits and -")
        self.store = store
        path = store.directory + "/" + Self.partialPrefix + key
        // O_APPEND: every write lands at the end, after the bytes read below and after a `restart`.
        file = try OpenFile(path, O_RDWR | O_CREAT | O_APPEND | O_CLOEXEC, mode: 0o644, system: store.system)
        removeOnDeinit = false
        var buffer = [UInt8](repeating: 0, count: Self.hashingChunkBytes)
        while true {
            let count = try buffer.withUnsafeMutableBytes { try file.read(into: $0) }
            guard count > 0 else { break }
            hasher.update(data: buffer[0..<count])
            size += count
        }
        if let bytes = try? FileIO.read(validatorPath, limit: 1024, system: store.system) {
            resumeValidator = String(decoding: bytes, as: UTF8.self)
        }
    }

    /// Keeps what the origin calls the version this part is of, written before
    /// its bytes, so that a part never outlives the knowledge of what it is.
    package func keepResumeValidator(_ validator: String?) throws {
        if let validator {
            try FileIO.writeAtomically(Array(validator.utf8), to: validatorPath, system: store.system)
        } else {
            removeValidator()
        }
        resumeValidator = validator
    }

    private func removeValidator() {
        if resumeValidator != nil || access(validatorPath, F_OK) == 0 { try? FileIO.remove(validatorPath, system: store.system) }
        resumeValidator = nil
    }

    /// How much of a partial download is read at a time to hash it again.
    static let hashingChunkBytes = 1 << 20

    deinit {
        // A staging file nobody adopted: a failure to remove it leaves a temporary the next start removes.
        if removeOnDeinit { try? FileIO.remove(path, system: store.system) }
    }

    /// Empties the staging file: the download starts again from its first byte
    /// (the origin ignored the range asked for, or answered another).
    package func restart() throws {
        precondition(digest == nil, "restart after finish")
        try file.truncate(to: 0)
        hasher = SHA256()
        size = 0
        removeValidator()
    }

    /// The staged bytes are not wanted, not even to resume from (they did not
    /// hash to what was promised, or do not decode): the file is removed now,
    /// so that another attempt starts from nothing.
    package func discard() {
        removeOnDeinit = false
        try? FileIO.remove(path, system: store.system)
        removeValidator()
    }

    /// Appends `bytes`. Throws `DiskFloorReached` when they would leave less free
    /// space than the floor, or when the disk is full (ENOSPC, EDQUOT).
    package func append(_ bytes: [UInt8]) throws {
        precondition(digest == nil, "append after finish")
        if let free = store.freeBytes(), let refusal = store.floor.refusal(storing: bytes.count, free: free) {
            throw DiskFloorReached(message: refusal)
        }
        // A Result keeps the error typed on both compilers (6.2 for arm64, 6.3).
        let written = Result { () throws(SystemError) in try file.write(bytes) }
        if case .failure(let failure) = written {
            guard failure.errno == .noSpace || failure.errno == .diskQuotaExceeded else { throw failure }
            throw DiskFloorReached(message: "the kiosk's disk is full (\(failure.reason)) after about \(DiskFloor.mebibytes(size)) of the upload")
        }
        hasher.update(data: bytes)
        size += bytes.count
    }

    /// Makes the bytes durable (`fsync`, before `adopt` renames them: a rename
    /// that reaches the disk before the data would leave an asset of zeros
    /// after a power cut) and returns the SHA-256 in hex.
    @discardableResult
    package func finish() throws -> String {
        if let digest { return digest }
        try file.sync()
        let digest = ContentDigest.hex(hasher.finalize())
        self.digest = digest
        return digest
    }

    /// `AssetStore.adopt` took the file: it is no longer removed on `deinit`.
    func markAdopted() {
        removeOnDeinit = false
        removeValidator()
    }
}
