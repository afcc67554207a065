import VitrineConfig
import VitrineCore
import VitrineRuntime

/// `attract` in the event stream: `components/schemas/AttractEvent`.
public struct AttractEventBody: Codable, Hashable, Sendable {
    public enum State: String, Codable, Hashable, Sendable { case engaged, returned }

    public var state: State
    /// Engaged: the slide under the finger; returned: the slide gone back to.
    @ExplicitNull public var slide: Int?
    /// The output group that emitted it; nil (left out): the kiosk's only one.
    public var output: String?

    package init(_ event: AttractEvent, output: String? = nil) {
        switch event {
        case .engaged(let slide): (state, self.slide) = (.engaged, slide)
        case .returned(let slide): (state, self.slide) = (.returned, slide)
        }
        self.output = output
    }
}

/// `attract` in the status: `components/schemas/AttractStatus`.
public struct AttractStatusBody: Codable, Hashable, Sendable {
    public enum State: String, Codable, Hashable, Sendable { case attracting, touched, idle }

    public var state: State
    public var afterSeconds: Double
    public var home: Int
    /// While idle, the time left before the kiosk goes back home.
    @ExplicitNull public var returnsInSeconds: Double?

    package init(_ status: AttractStatus, now: MonotonicInstant) {
        afterSeconds = status.idle.secondsValue
        home = status.home
        switch status.state {
        case .attracting: (state, returnsInSeconds) = (.attracting, nil)
        case .touched: (state, returnsInSeconds) = (.touched, nil)
        case .idle(let since): (state, returnsInSeconds) = (.idle, max(0, (since + status.idle - now).secondsValue))
        }
    }
}
