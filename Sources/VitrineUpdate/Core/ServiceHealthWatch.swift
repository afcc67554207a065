/// Whether a freshly installed kiosk is healthy, judged from what systemd
/// says of `vitrine.service` over time. Pure: time is a parameter
/// (`ContinuousClock` offsets in the helper, any in tests).
///
/// Healthy means active, with the same main process, for `steady` without a
/// break. `vitrine.service` is `Type=notify` and sends READY=1 only once its
/// first frame is on screen, and its watchdog restarts a display loop that
/// hangs, so "active for 30 s on one PID" is a kiosk that shows pictures and
/// keeps its loop running. Unhealthy is `restartLimit` automatic restarts
/// (a crash loop, `Restart=always`), or no steady spell by `deadline`.
public struct ServiceHealthWatch: Sendable {
    /// One reading of the unit (`systemctl show -p ActiveState,NRestarts,MainPID`).
    public struct Sample: Equatable, Sendable {
        public var activeState: String
        public var restarts: UInt64
        public var mainPID: Int32

        public init(activeState: String, restarts: UInt64, mainPID: Int32) {
            self.activeState = activeState
            self.restarts = restarts
            self.mainPID = mainPID
        }
    }

    public enum Verdict: Equatable, Sendable {
        case watching
        case healthy
        case unhealthy(String)
    }

    enum State: Equatable, Sendable {
        /// Not active yet (starting, or between restarts).
        case waiting
        /// Active on `pid` since `since`.
        case active(pid: Int32, since: Duration)
        case decided(Verdict)
    }

    public var steady: Duration
    public var deadline: Duration
    public var restartLimit: UInt64
    let startedAt: Duration
    var restartBaseline: UInt64?
    private(set) var state: State = .waiting
    private var lastActiveState = "unknown"

    public init(startedAt: Duration, steady: Duration = .seconds(30), deadline: Duration = .seconds(180), restartLimit: UInt64 = 2) {
        self.startedAt = startedAt
        self.steady = steady
        self.deadline = deadline
        self.restartLimit = restartLimit
    }

    public mutating func observe(_ sample: Sample, at now: Duration) -> Verdict {
        if case .decided(let verdict) = state { return verdict }
        lastActiveState = sample.activeState
        // systemd counts automatic restarts since the unit was last started on
        // purpose (the package's postinst restarts it): the count can fall to 0.
        let baseline = min(restartBaseline ?? sample.restarts, sample.restarts)
        restartBaseline = baseline
        let restarts = sample.restarts - baseline
        if restarts >= restartLimit {
            return decide(.unhealthy("vitrine.service restarted \(restarts) times within \(seconds(now - startedAt)) of the installation"))
        }
        if sample.activeState == "active", sample.mainPID > 0 {
            switch state {
            case .active(let pid, let since) where pid == sample.mainPID:
                if now - since >= steady { return decide(.healthy) }
            case .active, .waiting:
                state = .active(pid: sample.mainPID, since: now)
            case .decided(let verdict):
                return verdict
            }
        } else {
            state = .waiting
        }
        if now - startedAt >= deadline {
            return decide(.unhealthy("vitrine.service was not active for \(seconds(steady)) in a row within \(seconds(deadline)) of the installation (it is \(lastActiveState))"))
        }
        return .watching
    }

    private mutating func decide(_ verdict: Verdict) -> Verdict {
        state = .decided(verdict)
        return verdict
    }

    private func seconds(_ duration: Duration) -> String {
        "\(duration.components.seconds) s"
    }
}
