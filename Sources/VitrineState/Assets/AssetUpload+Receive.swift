import NIOCore
import NIOPosix

extension AssetUpload {
    /// How much of a body is buffered before it is written to the staging
    /// file: what a kill loses of a resumable download's part.
    package static let receiveChunkBytes = 256 << 10

    /// Appends a body as it arrives (an upload's request, a download's
    /// response), 256 KiB at a time, each write on NIO's blocking thread
    /// pool: memory stays at one chunk whatever the size, and no event loop
    /// waits on the disk. Throws `tooLarge()` as soon as the staging file
    /// would pass `limit` bytes, before writing what would pass it; what came
    /// before stays staged (a resumable download goes on from there).
    ///
    /// Throws `DiskFloorReached` and `SystemError` from `append`, and the
    /// body's own errors (a download that broke off).
    package func receive<Body: AsyncSequence>(_ body: Body, limit: Int, tooLarge: @Sendable () -> any Error) async throws
    where Body.Element == ByteBuffer {
        var pending: [UInt8] = []
        pending.reserveCapacity(Self.receiveChunkBytes)
        // Bytes written before a failure are staged; those still pending are lost with it.
        do {
            for try await buffer in body {
                guard size + pending.count + buffer.readableBytes <= limit else { throw tooLarge() }
                pending.append(contentsOf: buffer.readableBytesView)
                if pending.count >= Self.receiveChunkBytes {
                    // Taken out first: a write that fails part way is not written again below.
                    let chunk = pending
                    pending.removeAll(keepingCapacity: true)
                    try await write(chunk)
                }
            }
        } catch {
            // What arrived before the body broke off (or ran past the limit) is kept for the next attempt.
            if !pending.isEmpty { try? await write(pending) }
            throw error
        }
        try await write(pending)
    }

    private func write(_ chunk: [UInt8]) async throws {
        guard !chunk.isEmpty else { return }
        try await NIOThreadPool.singleton.runIfActive { try self.append(chunk) }
    }
}
