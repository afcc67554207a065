/// How one slide gives way to the next.
public enum TransitionKind: String, Sendable, CaseIterable, Codable {
    /// The slides move sideways together, like a strip of film.
    case slide
    /// The new slide fades in over the old one.
    case crossfade
    /// The new slide replaces the old one at once.
    case cut
}

/// A timing curve mapping linear progress 0...1 to eased progress 0...1.
public enum Easing: String, Sendable, CaseIterable, Codable {
    case linear
    case easeIn = "ease-in"
    case easeOut = "ease-out"
    case easeInOut = "ease-in-out"

    public func callAsFunction(_ t: Double) -> Double {
        let t = min(max(t, 0), 1)
        switch self {
        case .linear: return t
        case .easeIn: return t * t * t
        case .easeOut:
            let u = 1 - t
            return 1 - u * u * u
        case .easeInOut:
            return t < 0.5 ? 4 * t * t * t : 1 - pow3(-2 * t + 2) / 2
        }
    }

    private func pow3(_ x: Double) -> Double { x * x * x }
}

/// The kind, length and curve of page changes.
public struct TransitionStyle: Hashable, Sendable {
    public var kind: TransitionKind
    public var duration: Duration
    public var easing: Easing

    public init(kind: TransitionKind = .slide, duration: Duration = .milliseconds(400), easing: Easing = .easeOut) {
        self.kind = kind
        self.duration = duration
        self.easing = easing
    }

    /// The length actually animated: a cut takes no time whatever its duration.
    public var effectiveDuration: Duration { kind == .cut ? .zero : duration }
}
