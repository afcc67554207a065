import VitrineCore

/// When an output group's display loop last turned, for the kiosk's one
/// systemd watchdog.
///
/// A process has one watchdog, and only the first group's loop talks to
/// systemd. Each other group's loop beats its heartbeat at the watchdog's
/// interval instead (`ServiceNotifier.companion(beating:)`), and the first
/// loop withholds its ping while any heartbeat is older than the watchdog's
/// timeout: a hung companion loop then gets the service restarted as a hung
/// first loop would, instead of leaving its screen frozen unnoticed.
public final class LoopHeartbeat: Sendable {
    /// The group's name in the log: its leading output.
    public let name: String
    private let mutex = Mutex()
    nonisolated(unsafe) private var last: MonotonicInstant

    /// - Parameter startedAt: when the loop started: a loop that has not turned
    ///   yet is judged from then, so a slow first turn counts as one.
    public init(name: String, startedAt: MonotonicInstant) {
        self.name = name
        last = startedAt
    }

    /// The loop turned at `now`.
    func beat(at now: MonotonicInstant) { mutex.withLock { last = max(last, now) } }

    /// When the loop last turned (or started).
    public var lastBeat: MonotonicInstant { mutex.withLock { last } }
}
