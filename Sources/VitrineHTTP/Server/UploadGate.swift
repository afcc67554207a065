import Synchronization

/// How many uploads (`POST /api/v1/assets`, an override's picture) are received
/// and inspected at once. Each is staged on disk as it arrives (`AssetUpload`),
/// so its memory is a 256 KiB buffer and its decode's strip; but each also holds a
/// staging file of up to `api.maxUploadSize` (50 MB by default), a thread-pool
/// thread while it decodes, and the decode's memory. Without a bound, a token
/// holder sending many at once could spend those many times over. Past the bound
/// the answer is 503 with `Retry-After`, before any of the body is read.
public final class UploadGate: Sendable {
    public let limit: Int
    private let inProgress = Mutex(0)

    public init(limit: Int = 2) {
        self.limit = limit
    }

    /// Takes a place; false when all are taken.
    public func enter() -> Bool {
        inProgress.withLock { count in
            guard count < limit else { return false }
            count += 1
            return true
        }
    }

    public func leave() {
        inProgress.withLock { $0 = max(0, $0 - 1) }
    }

    public var current: Int { inProgress.withLock { $0 } }
}
