import NIOCore
import Synchronization

/// The API's cap on open connections, so that peers can never take the
/// descriptors the screen needs (pictures, the play log, the state store, DRM),
/// and each source's share of it, so that no one peer can take the whole API.
///
/// A connection past the cap, or past its source's share, is closed as soon as
/// it is accepted and counted; it never waits in a queue holding a descriptor.
/// A source is an IPv4 address or an IPv6 /64 (`SourceAddressGroup`). Idle and
/// slow connections are closed by the timeouts in `ServerLimits`, so a peer
/// that opens many sockets and sends nothing holds at most its share, and only
/// for the idle timeout; meanwhile the rest of the cap answers everyone else.
public final class ConnectionLimiter: Sendable {
    /// Connections at once, from every source together.
    public let limit: Int
    /// Connections at once from one source.
    public let limitPerSource: Int
    private let state = Mutex(Counts())

    private struct Counts {
        var open = 0
        var bySource: [String: Int] = [:]
        var refused = 0
        var refusedForShare = 0
    }

    public struct Snapshot: Sendable, Equatable {
        public var open: Int
        public var limit: Int
        public var limitPerSource: Int
        /// Every connection closed on accept, for the cap or for a share.
        public var refused: Int
        /// Those of `refused` whose source held its whole share.
        public var refusedForShare: Int
    }

    /// - Parameter limitPerSource: nil for `ServerLimits.share(of: limit)`.
    public init(limit: Int, limitPerSource: Int? = nil) {
        self.limit = max(1, limit)
        self.limitPerSource = min(self.limit, max(1, limitPerSource ?? ServerLimits.share(of: limit)))
    }

    public var snapshot: Snapshot {
        state.withLock {
            Snapshot(open: $0.open, limit: limit, limitPerSource: limitPerSource, refused: $0.refused, refusedForShare: $0.refusedForShare)
        }
    }

    /// Takes a place for a new connection from `source`; false when the cap or the source's share is taken.
    func acquire(source: String) -> Bool {
        state.withLock { counts in
            let fromSource = counts.bySource[source, default: 0]
            guard counts.open < limit, fromSource < limitPerSource else {
                counts.refused += 1
                if fromSource >= limitPerSource { counts.refusedForShare += 1 }
                return false
            }
            counts.open += 1
            counts.bySource[source] = fromSource + 1
            return true
        }
    }

    func release(source: String) {
        state.withLock { counts in
            counts.open -= 1
            let left = counts.bySource[source, default: 1] - 1
            // Forgotten at zero, so the table holds only sources with a connection open: at most `limit` entries.
            counts.bySource[source] = left > 0 ? left : nil
        }
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
    private var heldFor: String?

    init(limiter: ConnectionLimiter) { self.limiter = limiter }

    func handlerAdded(context: ChannelHandlerContext) {
        let source = SourceAddressGroup.key(context.channel.remoteAddress)
        if limiter.acquire(source: source) {
            heldFor = source
        } else {
            // Closed once the pipeline is built: closing in the middle of
            // Hummingbird's setup would fail the handlers added after this one.
            let channel = context.channel
            context.eventLoop.execute { channel.close(promise: nil) }
        }
    }

    func handlerRemoved(context: ChannelHandlerContext) {
        if let source = heldFor {
            heldFor = nil
            limiter.release(source: source)
        }
    }
}
