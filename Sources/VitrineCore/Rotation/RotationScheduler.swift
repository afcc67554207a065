/// Why auto-rotation is paused. Rotation plays only while no reason holds.
public enum PauseReason: String, Sendable, CaseIterable, Codable, Comparable {
    /// A finger is on the screen, or was lifted less than the resume delay ago.
    case touch
    /// An operator paused the kiosk through the API.
    case remote
    /// The screen is switched off: nobody sees the slides, so they wait.
    case screenOff
    /// A visitor is using the kiosk (attract mode): the slide they chose stays
    /// until nobody has touched the screen for `touch.attract.after`.
    case visitor

    public static func < (lhs: Self, rhs: Self) -> Bool { lhs.rawValue < rhs.rawValue }
}

/// The auto-rotation settings.
public struct RotationPolicy: Hashable, Sendable {
    /// Whether slides advance on their own at all.
    public var autoplay: Bool
    /// How long each slide stays, unless the slide sets its own duration.
    public var interval: Duration
    /// After the last finger lifts, rotation waits this long, then a full dwell of
    /// the current slide, before the next page change.
    public var resumeDelayAfterTouch: Duration

    public init(autoplay: Bool = true, interval: Duration = .seconds(5), resumeDelayAfterTouch: Duration = .seconds(3)) {
        self.autoplay = autoplay
        self.interval = interval
        self.resumeDelayAfterTouch = resumeDelayAfterTouch
    }
}

/// Decides when the next automatic page change is due.
///
/// Deadlines are absolute instants on the monotonic clock. When a slide is
/// shown because its predecessor's deadline arrived, its own deadline is that
/// deadline plus its dwell: never "now plus dwell". However late the display
/// thread wakes, the error does not accumulate, so 10,000 rotations end exactly
/// where the sum of their dwells says.
///
/// Resume policy (documented in docs/configuration.md):
/// - a manual page change (command or swipe) restarts the new slide's full dwell;
/// - resuming from `.remote` schedules a full dwell from the moment of resuming;
/// - resuming from `.touch` schedules the resume delay plus a full dwell from the
///   moment the last finger lifted.
public struct RotationScheduler: Hashable, Sendable {
    public private(set) var policy: RotationPolicy
    public private(set) var pauseReasons: Set<PauseReason> = []
    /// The next automatic page change, or nil when none is scheduled.
    public private(set) var deadline: MonotonicInstant?
    /// The dwell of the slide on screen, kept to re-arm after a pause.
    private var currentDwell: Duration

    public init(policy: RotationPolicy, firstDwell: Duration, start: MonotonicInstant) {
        self.policy = policy
        self.currentDwell = firstDwell
        self.deadline = policy.autoplay ? start + firstDwell : nil
    }

    /// Rotation runs: autoplay is on and nothing pauses it.
    public var isPlaying: Bool { policy.autoplay && pauseReasons.isEmpty }

    /// A slide with `dwell` began at `start`: the start of its transition in,
    /// which for automatic rotation is exactly the previous deadline.
    public mutating func slideBegan(at start: MonotonicInstant, dwell: Duration) {
        currentDwell = dwell
        deadline = isPlaying ? start + dwell : nil
    }

    /// The slide on screen stays `dwell` instead of the dwell it began with (a
    /// video's length, known once the video is open): a scheduled change moves
    /// by the difference, so that it still counts from the slide's start.
    public mutating func dwellChanged(to dwell: Duration) {
        if let deadline { self.deadline = deadline + (dwell - currentDwell) }
        currentDwell = dwell
    }

    public mutating func pause(_ reason: PauseReason) {
        pauseReasons.insert(reason)
        deadline = nil
    }

    /// Lifts `reason`; if nothing else pauses rotation, re-arms per the resume policy.
    public mutating func resume(_ reason: PauseReason, at now: MonotonicInstant) {
        guard pauseReasons.remove(reason) != nil else { return }
        guard isPlaying else { return }
        let delay: Duration = reason == .touch ? policy.resumeDelayAfterTouch : .zero
        deadline = now + delay + currentDwell
    }

    /// Moves a scheduled change to `deadline`; nothing while none is scheduled (paused, or waiting).
    public mutating func align(deadline: MonotonicInstant) {
        guard self.deadline != nil else { return }
        self.deadline = deadline
    }

    /// Holds rotation without a pause reason, while the engine waits for the next
    /// slide's picture to be decoded.
    public mutating func clearDeadline() { deadline = nil }

    public mutating func update(policy: RotationPolicy, at now: MonotonicInstant) {
        let wasPlaying = isPlaying
        self.policy = policy
        if !isPlaying {
            deadline = nil
        } else if !wasPlaying || deadline == nil {
            deadline = now + currentDwell
        }
    }
}
