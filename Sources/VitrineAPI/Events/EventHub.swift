import FoundationEssentials
import Synchronization
import VitrineConfig
import VitrineCore
import VitrineRuntime

/// One server-sent event: its name and JSON data.
public struct ServerEvent: Hashable, Sendable {
    public var name: String
    /// Compact JSON, sorted keys.
    public var data: String

    /// An event whose data is a typed body (Sources/VitrineAPI), or nil
    /// if it cannot be encoded: an event is dropped rather than sent as `{}`,
    /// which a client would read as an event with nothing in it.
    package init?<Payload: Encodable>(_ name: String, encoding payload: Payload) {
        guard let json = try? APIJSON.encode(payload) else { return nil }
        self.name = name
        data = String(decoding: json, as: UTF8.self)
    }

    /// The wire form: `event: NAME`, `data: JSON`, and a blank line.
    public var text: String { "event: \(name)\ndata: \(data)\n\n" }

    /// The API's view of a kiosk event (drag begin and end stay internal).
    /// - Parameter output: the output group whose loop emitted it, written as
    ///   the data's `output`; nil: the key is left out (a kiosk's only group).
    public init?(_ event: KioskEvent, output: String? = nil) {
        switch event {
        case .carousel(.pageChanged(let from, let to, let cause)):
            self.init("slideChanged", encoding: SlideChangedEvent(from: from, to: to, cause: .init(cause), output: output))
        case .carousel(.tapped(let slide, let x, let y)):
            self.init("tapped", encoding: TappedEvent(slide: slide, x: Int(x.rounded()), y: Int(y.rounded()), output: output))
        case .carousel(.swiped(let from, let direction)):
            self.init("swiped", encoding: SwipedEvent(from: from, direction: .init(direction), output: output))
        case .carousel(.dragBegan), .carousel(.dragEnded), .screenChanged:
            // The screen's power is in /api/v1/status and /api/v1/power.
            return nil
        case .slideShown, .videoPlayed:
            // Plays are in GET /api/v1/plays; slideChanged already streams the page change.
            return nil
        case .configurationApplied(let version):
            self.init("configApplied", encoding: ConfigAppliedEvent(version: version, output: output))
        case .overrideEnded(let id):
            self.init("overrideCleared", encoding: OverrideClearedEvent(id: id, output: output))
        case .error(let message):
            self.init("error", encoding: ErrorEvent(message: message, output: output))
        case .attract(let event):
            self.init("attract", encoding: AttractEventBody(event, output: output))
        }
    }
}

/// Fans events out to every open event stream. Publishing never waits: each
/// subscriber has a bounded buffer that keeps the newest events, so a slow
/// client loses old events rather than holding up the display thread.
///
/// At most `maximumSubscribers` streams are open: a new one ends the oldest.
/// The server learns that a client went away only when a write to it fails
/// (the next event or keep-alive, up to 15 s later: while a response streams,
/// nothing reads the connection), so clients that reconnect quickly left
/// streams nobody read, each holding a connection, until they filled the
/// API's connection cap and every request was refused (Tests/Soak/per_op.py
/// found it). The oldest stream is the likeliest to be such a one; a live
/// client whose stream ends reconnects, as EventSource does by itself.
public final class EventHub: Sendable {
    private let subscribers = Mutex<[UInt64: AsyncStream<ServerEvent>.Continuation]>([:])
    private let nextID = Atomic<UInt64>(0)
    public let maximumSubscribers: Int

    public init(maximumSubscribers: Int = 16) {
        self.maximumSubscribers = maximumSubscribers
    }

    /// Sends `event` to every stream; nil (an event that could not be encoded) is dropped.
    public func publish(_ event: ServerEvent?) {
        guard let event else { return }
        for continuation in subscribers.withLock({ Array($0.values) }) { continuation.yield(event) }
    }

    public var subscriberCount: Int { subscribers.withLock { $0.count } }

    public func subscribe() -> AsyncStream<ServerEvent> {
        let id = nextID.add(1, ordering: .relaxed).newValue
        let (stream, continuation) = AsyncStream.makeStream(of: ServerEvent.self, bufferingPolicy: .bufferingNewest(256))
        continuation.onTermination = { [weak self] _ in
            _ = self?.subscribers.withLock { $0.removeValue(forKey: id) }
        }
        let ended = subscribers.withLock { subscribers -> [AsyncStream<ServerEvent>.Continuation] in
            subscribers[id] = continuation
            let excess = subscribers.count - maximumSubscribers
            guard excess > 0 else { return [] }
            return subscribers.keys.sorted().prefix(excess).compactMap { subscribers.removeValue(forKey: $0) }
        }
        // Outside the lock: finishing runs onTermination, which takes it.
        for oldest in ended { oldest.finish() }
        return stream
    }
}
