import Testing
import VitrineUpdate

/// The health watch on virtual time: samples as systemd would give them a second apart.
@Suite struct ServiceHealthWatchTests {
    typealias Sample = ServiceHealthWatch.Sample

    func run(_ samples: (Int) -> Sample, steady: Int = 30, deadline: Int = 180) -> (ServiceHealthWatch.Verdict, Int) {
        var watch = ServiceHealthWatch(startedAt: .seconds(100), steady: .seconds(steady), deadline: .seconds(deadline))
        for second in 0...1000 {
            let verdict = watch.observe(samples(second), at: .seconds(100 + second))
            if verdict != .watching { return (verdict, second) }
        }
        return (.watching, 1000)
    }

    @Test func healthyAfterThirtySecondsActiveOnOneProcess() {
        // Activating for 12 s (the first frame), then active.
        let (verdict, at) = run { $0 < 12 ? Sample(activeState: "activating", restarts: 0, mainPID: 700) : Sample(activeState: "active", restarts: 0, mainPID: 700) }
        #expect(verdict == .healthy)
        #expect(at == 42)
    }

    @Test func aCrashLoopIsUnhealthyAtTheSecondRestart() {
        // Restart=always, RestartSec=2 s: a binary that exits at once restarts every ~2 s.
        let (verdict, at) = run { Sample(activeState: $0 % 2 == 0 ? "activating" : "failed", restarts: UInt64($0 / 2), mainPID: 0) }
        #expect(verdict == .unhealthy("vitrine.service restarted 2 times within 4 s of the installation"))
        #expect(at == 4)
    }

    @Test func aNewProcessStartsTheSteadySpellOver() {
        // Active, but the main process changes at 20 s (restarted by someone, not counted by systemd).
        let (verdict, at) = run { Sample(activeState: "active", restarts: 0, mainPID: $0 < 20 ? 700 : 800) }
        #expect(verdict == .healthy)
        #expect(at == 50)
    }

    @Test func neverSteadyByTheDeadline() {
        // Active 20 s, then activating 5 s, over and over (a watchdog kill that systemd counts as a new start).
        let (verdict, at) = run { Sample(activeState: $0 % 25 < 20 ? "active" : "activating", restarts: 0, mainPID: Int32(1000 + $0 / 25)) }
        #expect(verdict == .unhealthy("vitrine.service was not active for 30 s in a row within 180 s of the installation (it is active)"))
        #expect(at == 180)
    }

    @Test func theRestartCountFallingToZeroAtAStartOnPurposeIsNoRestart() {
        // NRestarts read as 5 before the package's postinst restarted the unit, 0 after.
        let (verdict, _) = run { Sample(activeState: $0 < 3 ? "activating" : "active", restarts: $0 == 0 ? 5 : 0, mainPID: 900) }
        #expect(verdict == .healthy)
    }
}
