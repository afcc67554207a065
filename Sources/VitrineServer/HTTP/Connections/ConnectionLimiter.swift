import NIOCore
import Synchronization

/// The API's cap on open connections, so that peers can never take the
/// descriptors the screen needs (pictures, the play log, the state store, DRM).
///
/// A connection past the cap is closed as soon as it is accepted and counted;
/// it never waits in a queue holding a descriptor. Idle and slow connections
/// are closed by the timeouts in `ServerLimits`, so a peer that opens many
/// sockets and sends nothing holds at most `limit` descriptors, and only for
/// the idle timeout.
public final class ConnectionLimiter: Sendable {
    public let limit: Int
    private let open = Atomic<Int>(0)
    private let refused = Atomic<Int>(0)

    public struct Snapshot: Sendable, Equatable {
        public var open: Int
        public var limit: Int
        public var refused: Int
    }

    public init(limit: Int) {
        self.limit = max(1, limit)
    }

    public var snapshot: Snapshot {
        Snapshot(open: open.load(ordering: .relaxed), limit: limit, refused: refused.load(ordering: .relaxed))
    }

    /// Takes a place for a new connection; false when all are taken.
    func acquire() -> Bool {
        let (_, nowOpen) = open.wrappingAdd(1, ordering: .acquiringAndReleasing)
        guard nowOpen > limit else { return true }
        open.wrappingSubtract(1, ordering: .acquiringAndReleasing)
        refused.wrappingAdd(1, ordering: .relaxed)
        return false
    }

    func release() {
        open.wrappingSubtract(1, ordering: .acquiringAndReleasing)
    }

    /// A handler for one connection's pipeline that holds its place, or closes it at once.
    func handler() -> ConnectionPlaceHandler { ConnectionPlaceHandler(limiter: self) }
}

/// Holds one connection's place under the cap for as long as it is in the
/// pipeline: taken when the pipeline is built (right after accept), given back
/// exactly once when the channel is torn down.
final class ConnectionPlaceHandler: ChannelInboundHandler, RemovableChannelHandler {
    typealias InboundIn = NIOAny
    private let limiter: ConnectionLimiter
    private var holdsPlace = false

    init(limiter: ConnectionLimiter) { self.limiter = limiter }

    func handlerAdded(context: ChannelHandlerContext) {
        if limiter.acquire() {
            holdsPlace = true
        } else {
            // Closed once the pipeline is built: closing in the middle of
            // Hummingbird's setup would fail the handlers added after this one.
            let channel = context.channel
            context.eventLoop.execute { channel.close(promise: nil) }
        }
    }

    func handlerRemoved(context: ChannelHandlerContext) {
        if holdsPlace {
            holdsPlace = false
            limiter.release()
        }
    }
}
