import Glibc
import Logging
import VitrineConfig
import VitrineCore
import VitrineSystem

/// What the kiosk tells systemd and the log about its life: READY once the
/// first complete frame is on screen, watchdog pings from the display loop
/// itself (so a hung loop stops them), STOPPING at exit.
final class LifecycleReporter {
    private let notifier: ServiceNotifier
    private let logger: Logger
    let startedAt: MonotonicInstant
    private(set) var firstFrameReported = false
    /// When the next watchdog ping is due; nil without a watchdog.
    private(set) var nextWatchdogPing: MonotonicInstant?

    init(notifier: ServiceNotifier, logger: Logger, startedAt: MonotonicInstant) {
        self.notifier = notifier
        self.logger = logger
        self.startedAt = startedAt
    }

    /// Pings the watchdog if a ping is due; once every loop turn. A ping held
    /// back for a hung companion loop is logged once, as is its recovery.
    func pingIfDue(at now: MonotonicInstant) {
        let before = notifier.withheldFor
        nextWatchdogPing = notifier.pingIfDue(at: now)
        switch (before, notifier.withheldFor) {
        case (nil, let hung?):
            logger.error("the display loop of output \(hung.name) has not turned for \(DurationSyntax.format(.milliseconds((now - hung.lastBeat).nanoseconds / 1_000_000))); the systemd watchdog is no longer pinged, so the kiosk will be restarted unless it recovers")
        case (let hung?, nil):
            logger.notice("the display loop of output \(hung.name) turns again; the systemd watchdog is pinged again")
        default:
            break
        }
    }

    /// The first frame with every visible picture decoded is on screen: tell
    /// systemd, and log the time it took (what boot-to-first-frame measurements
    /// and the VM tests wait for). Only the first call counts.
    func firstCompleteFrame(at now: MonotonicInstant, status: @autoclosure () -> String) {
        guard !firstFrameReported else { return }
        firstFrameReported = true
        notifier.ready(status: status())
        let elapsed = Double((now - startedAt).nanoseconds) / 1e6
        logger.notice("first frame on screen", metadata: [
            "ms_since_start": "\(Int(elapsed))", "process_uptime_ms": "\(Self.processUptimeMilliseconds())",
        ])
    }

    func stopping() { notifier.stopping() }

    /// Milliseconds since the process started (from /proc/self/stat), so that
    /// the first-frame line also counts runtime start-up.
    static func processUptimeMilliseconds() -> Int {
        guard let stat = try? FileIO.read("/proc/self/stat"), let uptime = try? FileIO.read("/proc/uptime") else { return -1 }
        // Field 22 (starttime, in clock ticks since boot) follows the ")" of the command name.
        let text = String(decoding: stat, as: UTF8.self)
        guard let close = text.lastIndex(of: ")") else { return -1 }
        let fields = text[text.index(after: close)...].split(separator: " ")
        guard fields.count > 19, let start = Double(fields[19]),
              let boot = Double(String(decoding: uptime, as: UTF8.self).split(separator: " ").first ?? "") else { return -1 }
        let ticks = Double(sysconf(Int32(_SC_CLK_TCK)))
        return Int((boot - start / ticks) * 1000)
    }
}
