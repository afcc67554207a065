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
/// Not shared: one request appends to it, one step at a time (each `append`
/// awaited before the next), on the thread pool. `@unchecked` for that hand-over.
package final class AssetUpload: @unchecked Sendable {
    package let path: String
    private let store: AssetStore
    /// The staging file, closed exactly once, when the upload goes away.
    private let file: OpenFile
    private var hasher = SHA256()
    private(set) var size = 0
    /// The SHA-256 in hex, once `finish` has made the file durable.
    private(set) var digest: String?
    private var adopted = false

    /// Creates the staging file (`open` with `O_EXCL`). Throws `StateReadOnly`
    /// when nothing can be stored, `SystemError` when the file cannot be made.
    package init(in store: AssetStore) throws {
        if let reason = store.readOnlyReason { throw StateReadOnly(message: "nothing can be stored: \(reason)") }
        self.store = store
        path = store.directory + "/upload.tmp-\(getpid())-\(UInt64.random(in: 0...UInt64.max))"
        file = try OpenFile(path, O_WRONLY | O_CREAT | O_EXCL | O_CLOEXEC, mode: 0o644, system: store.system)
    }

    deinit {
        // A staging file nobody adopted: a failure to remove it leaves a temporary the next start removes.
        if !adopted { try? FileIO.remove(path, system: store.system) }
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
    func markAdopted() { adopted = true }
}
