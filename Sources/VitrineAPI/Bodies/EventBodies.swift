import VitrineCore

/// The data of the event stream's events (`GET /api/v1/events`), each named
/// after its schema in docs/api/openapi.yaml.
///
/// Those a display loop emits carry `output`: the output group that emitted
/// them (its leading connector), on a kiosk with `outputs`. Without it the key
/// is left out, so a single-output kiosk's events are what they were before.

/// `slideChanged`: a page change finished.
public struct SlideChangedEvent: Codable, Hashable, Sendable {
    /// `rotation`: the slide's time was up; `swipe`: a finger; `command`: the API, or a tap action's `goto`.
    public enum Cause: String, Codable, Hashable, Sendable {
        case rotation, swipe, command

        package init(_ cause: PageChangeCause) {
            switch cause {
            case .automatic: self = .rotation
            case .swipe: self = .swipe
            case .command: self = .command
            }
        }
    }

    public var from: Int
    public var to: Int
    public var cause: Cause
    /// The output group that emitted it; nil (left out): the kiosk's only one.
    public var output: String? = nil

    public init(from: Int, to: Int, cause: Cause, output: String? = nil) {
        self.from = from
        self.to = to
        self.cause = cause
        self.output = output
    }
}

/// `tapped`: a tap on slide `slide`, at output pixels `x`, `y` (upright).
public struct TappedEvent: Codable, Hashable, Sendable {
    public var slide: Int
    public var x: Int
    public var y: Int
    /// The output group that emitted it; nil (left out): the kiosk's only one.
    public var output: String? = nil

    public init(slide: Int, x: Int, y: Int, output: String? = nil) {
        self.slide = slide
        self.x = x
        self.y = y
        self.output = output
    }
}

/// `swiped`: a finger paged away from slide `from`.
public struct SwipedEvent: Codable, Hashable, Sendable {
    /// The finger's movement: moving left brings the next slide.
    public enum Direction: String, Codable, Hashable, Sendable {
        case left, right

        package init(_ direction: SwipeDirection) {
            switch direction {
            case .next: self = .left
            case .previous: self = .right
            }
        }
    }

    public var from: Int
    public var direction: Direction
    /// The output group that emitted it; nil (left out): the kiosk's only one.
    public var output: String? = nil

    public init(from: Int, direction: Direction, output: String? = nil) {
        self.from = from
        self.direction = direction
        self.output = output
    }
}

/// `configApplied`: the configuration `version` is on screen.
public struct ConfigAppliedEvent: Codable, Hashable, Sendable {
    public var version: String
    /// The output group that emitted it; nil (left out): the kiosk's only one.
    public var output: String? = nil

    public init(version: String, output: String? = nil) {
        self.version = version
        self.output = output
    }
}

/// `overrideCleared`: the override `id` was deleted, or ended at its `until`.
public struct OverrideClearedEvent: Codable, Hashable, Sendable {
    public var id: String
    /// The output group it was cleared on: whose own override it was, or whose
    /// loop ended it at its `until`; nil (left out): the override for every
    /// output deleted through the API, or a kiosk without `outputs`.
    public var output: String?

    public init(id: String, output: String? = nil) {
        self.id = id
        self.output = output
    }
}

/// `error`: something an operator should see.
public struct ErrorEvent: Codable, Hashable, Sendable {
    public var message: String
    /// The output group that emitted it; nil (left out): the kiosk's only one.
    public var output: String? = nil

    public init(message: String, output: String? = nil) {
        self.message = message
        self.output = output
    }
}
