import VitrineConfig
import VitrineCore
import VitrineRuntime

/// `on` or `off`, as the power bodies say it.
public enum PowerState: String, Codable, Hashable, Sendable {
    case on, off

    package init(_ request: ScreenPower.Request) {
        switch request {
        case .on: self = .on
        case .off: self = .off
        }
    }

    package var request: ScreenPower.Request {
        switch self {
        case .on: .on
        case .off: .off
        }
    }
}

/// `GET /api/v1/power`'s answer: `components/schemas/Power` in docs/api/openapi.yaml.
public struct PowerStatus: Codable, Hashable, Sendable {
    /// Whether the screen is lit.
    public var state: PowerState
    /// What an operator (or a schedule) last asked for.
    public var requested: PowerState
    /// Lit by a touch although `requested` is off.
    public var wokenByTouch: Bool
    /// Seconds until a touch's wake ends; null unless `wokenByTouch`.
    @ExplicitNull public var wakeEndsInSeconds: Double?
    /// Lit because an emergency override is on screen.
    public var heldByOverride: Bool

    public init(state: PowerState, requested: PowerState, wokenByTouch: Bool, wakeEndsInSeconds: Double?, heldByOverride: Bool) {
        self.state = state
        self.requested = requested
        self.wokenByTouch = wokenByTouch
        self.wakeEndsInSeconds = wakeEndsInSeconds
        self.heldByOverride = heldByOverride
    }

    /// The power of the kiosk's `status` at `now`.
    package init(_ status: KioskStatus, now: MonotonicInstant) {
        var wakeEnds: Double?
        if case .wokenByTouch(let until) = status.screen { wakeEnds = max(0, (until - now).secondsValue) }
        self.init(state: status.screen.isLit ? .on : .off, requested: PowerState(status.screenRequested),
                  wokenByTouch: wakeEnds != nil, wakeEndsInSeconds: wakeEnds,
                  heldByOverride: status.screen == .heldByOverride)
    }
}

/// `PUT /api/v1/power`'s body: `components/schemas/PowerRequest`.
public struct PowerRequest: Codable, Hashable, Sendable, APIRequestBody {
    public static let keys = ["state"]
    public static let example = #"{"state": "off"}"#

    public var state: PowerState

    public init(state: PowerState) { self.state = state }

    private enum CodingKeys: String, CodingKey { case state }

    public init(from decoder: any Decoder) throws {
        let container = try decoder.container(keyedBy: CodingKeys.self)
        guard let value = try? container.decodeIfPresent(String.self, forKey: .state), let state = PowerState(rawValue: value) else {
            throw DecodingError.refused(.state, in: container, "must be on or off")
        }
        self.state = state
    }
}

/// `PUT /api/v1/power`'s answer: what the display loop was asked for.
public struct PowerAccepted: Codable, Hashable, Sendable {
    public var requested: PowerState

    public init(requested: PowerState) { self.requested = requested }
}
