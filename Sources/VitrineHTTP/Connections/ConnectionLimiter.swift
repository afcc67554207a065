import NIOCore
import Synchronization

/// The API's cap on open connections, so that peers can never take the
/// descriptors the screen needs (pictures, the play log, the state store, DRM),
/// and each source's share of it, so that no one peer can take the whole API.
///
/// A connection past its source's share is closed as soon as it is accepted
/// and counted; it never waits in a queue holding a descriptor. A source is an
/// IPv4 address or an IPv6 /64 (`SourceAddressGroup`). When the cap itself is
/// full (several sources each holding their share), a source that holds fewer
/// than `guaranteedPerSource` connections still gets one: the oldest
/// connection of the source holding the most is closed for it. So a few
/// addresses acting together cannot shut everyone else out either; it would
/// take `limit / guaranteedPerSource` of them. Idle and slow connections are
/// closed by the timeouts in `ServerLimits`.
public final class ConnectionLimiter: Sendable {
    /// Connections at once, from every source together.
    public let limit: Int
    /// Connections at once from one source.
    public let limitPerSource: Int
    /// Connections a source gets even when the cap is full, by closing the
    /// oldest connection of the source holding the most.
    public let guaranteedPerSource: Int
    private let state = Mutex(Counts())

    /// One connection's place, to give back when it closes.
    struct Place: Sendable, Hashable {
        let source: String
        let id: UInt64
    }

    private struct Held {
        let id: UInt64
        let close: @Sendable () -> Void
    }

    private struct Counts {
        var open = 0
        /// Each source's connections, oldest first; only sources with one open.
        var bySource: [String: [Held]] = [:]
        var lastID: UInt64 = 0
        var refused = 0
        var refusedForShare = 0
        var evicted = 0
    }

    public struct Snapshot: Sendable, Equatable {
        public var open: Int
        public var limit: Int
        public var limitPerSource: Int
        /// Every connection closed on accept, for the cap or for a share.
        public var refused: Int
        /// Those of `refused` whose source held its whole share.
        public var refusedForShare: Int
        /// Connections closed to make room, when the cap was full, for a source holding fewer than `guaranteedPerSource`.
        public var evicted: Int
    }

    /// - Parameters:
    ///   - limitPerSource: nil for `ServerLimits.share(of: limit)`.
    ///   - guaranteedPerSource: nil for `ServerLimits.guaranteedPerSource` (at most the share).
    public init(limit: Int, limitPerSource: Int? = nil, guaranteedPerSource: Int? = nil) {
        self.limit = max(1, limit)
        self.limitPerSource = min(self.limit, max(1, limitPerSource ?? ServerLimits.share(of: limit)))
        self.guaranteedPerSource = min(self.limitPerSource, max(0, guaranteedPerSource ?? ServerLimits.guaranteedPerSource))
    }

    public var snapshot: Snapshot {
        state.withLock {
            Snapshot(open: $0.open, limit: limit, limitPerSource: limitPerSource, refused: $0.refused,
                     refusedForShare: $0.refusedForShare, evicted: $0.evicted)
        }
    }

    /// Takes a place for a new connection from `source`, which `close` closes
    /// if it must make room later; nil when its share or the cap is taken.
    func acquire(source: String, close: @escaping @Sendable () -> Void) -> Place? {
        let (place, eviction) = state.withLock { counts -> (Place?, (@Sendable () -> Void)?) in
            let held = counts.bySource[source, default: []].count
            guard held < limitPerSource else {
                counts.refused += 1
                counts.refusedForShare += 1
                return (nil, nil)
            }
            var eviction: (@Sendable () -> Void)?
            if counts.open >= limit {
                // Only a source below its guarantee may take a place, and only from one holding more than that.
                guard held < guaranteedPerSource,
                      let (victim, connections) = counts.bySource.max(by: { $0.value.count < $1.value.count }),
                      connections.count > guaranteedPerSource else {
                    counts.refused += 1
                    return (nil, nil)
                }
                // The place changes hands now; the victim's own release, when its channel goes, finds nothing to give back.
                eviction = connections[0].close
                counts.bySource[victim] = Array(connections.dropFirst())
                counts.open -= 1
                counts.evicted += 1
            }
            counts.lastID += 1
            counts.bySource[source, default: []].append(Held(id: counts.lastID, close: close))
            counts.open += 1
            return (Place(source: source, id: counts.lastID), eviction)
        }
        eviction?()
        return place
    }

    func release(_ place: Place) {
        state.withLock { counts in
            guard var held = counts.bySource[place.source], let index = held.firstIndex(where: { $0.id == place.id }) else { return }
            held.remove(at: index)
            // Forgotten at zero, so the table holds only sources with a connection open: at most `limit` entries.
            counts.bySource[place.source] = held.isEmpty ? nil : held
            counts.open -= 1
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
    private var place: ConnectionLimiter.Place?

    init(limiter: ConnectionLimiter) { self.limiter = limiter }

    func handlerAdded(context: ChannelHandlerContext) {
        let channel = context.channel
        place = limiter.acquire(source: SourceAddressGroup.key(channel.remoteAddress)) { channel.close(promise: nil) }
        if place == nil {
            // Closed once the pipeline is built: closing in the middle of
            // Hummingbird's setup would fail the handlers added after this one.
            context.eventLoop.execute { channel.close(promise: nil) }
        }
    }

    func handlerRemoved(context: ChannelHandlerContext) {
        if let place {
            self.place = nil
            limiter.release(place)
        }
    }
}
