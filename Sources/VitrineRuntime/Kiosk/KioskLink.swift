import VitrineCore

/// The display loop's link with everything outside the display thread: commands
/// and queries come in through `KioskControl`; the status, events, counters,
/// recent errors and systemd's lifecycle (READY, watchdog, the first frame) go
/// out from here. Owned by the display thread; `control` and `metrics` are
/// shared with other threads.
final class KioskLink {
    /// Commands in, status out, from any thread.
    let control: KioskControl
    /// Counters for monitoring, readable from any thread.
    let metrics: KioskMetrics
    let lifecycle: LifecycleReporter
    /// Called on the display thread for every event (the API streams them).
    var onEvent: ((KioskEvent) -> Void)?
    private var recentErrors = RecentErrors()

    init(control: KioskControl, metrics: KioskMetrics, lifecycle: LifecycleReporter) {
        self.control = control
        self.metrics = metrics
        self.lifecycle = lifecycle
    }

    func send(_ event: KioskEvent) { onEvent?(event) }

    /// An error an operator should see: kept for the status (the newest
    /// `KioskStatus.errorLimit`) and sent as an event.
    func reportError(_ message: String) {
        recentErrors.append(message)
        onEvent?(.error(message))
    }

    var recentErrorMessages: [String] { recentErrors.messages }
}
