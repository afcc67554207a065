import Testing
@testable import VitrineCore

/// The TV power link on virtual time, against TVs that behave as real ones do:
/// slow to switch, missing a first message, not answering, or switched by hand.
@Suite struct TVPowerSyncTests {
    /// A TV on the bus, as cec-follower plays one: for `reportsOldFor` after a
    /// change it still reports the old state, then the transition until `settlesAfter`.
    struct SimulatedTV {
        var on = true
        var changedAt: MonotonicInstant?
        var previous = true
        var reportsOldFor: Duration = .seconds(4)
        var settlesAfter: Duration = .seconds(8)
        /// Acknowledged commands it ignores, as a TV that misses the first message.
        var ignoresCommands = 0
        var answersStatus = true
        /// Deliveries that fail before one gets through (a NACK, the cable out).
        var failingDeliveries = 0
        var commands: [(TVPowerSync.Action, MonotonicInstant)] = []
        var questions = 0

        mutating func receive(_ action: TVPowerSync.Action, at now: MonotonicInstant) -> TVPowerSync.Delivery {
            if failingDeliveries > 0 {
                failingDeliveries -= 1
                return .failed("not acknowledged")
            }
            commands.append((action, now))
            if ignoresCommands > 0 {
                ignoresCommands -= 1
                return .delivered
            }
            let wanted = action == .turnOn
            if wanted != on {
                previous = on
                on = wanted
                changedAt = now
            }
            return .delivered
        }

        mutating func report(at now: MonotonicInstant) -> TVPowerStatus? {
            questions += 1
            guard answersStatus else { return nil }
            guard let changedAt else { return on ? .on : .standby }
            let since = now - changedAt
            if since <= reportsOldFor { return previous ? .on : .standby }
            if since < settlesAfter { return on ? .turningOn : .turningToStandby }
            return on ? .on : .standby
        }
    }

    /// Runs the link against `tv` until `end`, going from deadline to deadline as the CEC thread does.
    static func run(_ sync: inout TVPowerSync, _ tv: inout SimulatedTV, from start: MonotonicInstant, until end: MonotonicInstant) {
        var now = start
        var steps = 0
        while now <= end, steps < 10_000 {
            steps += 1
            if let action = sync.due(at: now) {
                switch action {
                case .turnOn, .standby: sync.commandSent(tv.receive(action, at: now), at: now)
                case .askPowerStatus: sync.statusAnswered(tv.report(at: now), reason: tv.answersStatus ? nil : "no reply", at: now)
                }
                continue
            }
            guard let next = sync.nextDeadline else { return }
            now = max(now, next)
        }
    }

    @Test func aSlowTVIsWaitedOutWithoutSendingAgain() {
        var sync = TVPowerSync()
        var tv = SimulatedTV()
        sync.want(false, at: .zero)
        #expect(sync.due(at: .zero) == .standby)
        Self.run(&sync, &tv, from: .zero, until: .seconds(30))
        // Old state for 4 s and a transition until 8 s are progress, not failure.
        #expect(tv.commands.map(\.0) == [.standby])
        #expect(sync.reported == .standby && sync.isConfirmed && sync.problem == nil)
        guard case .settled(let checkAt) = sync.phase else { Issue.record("\(sync.phase)"); return }
        #expect(checkAt > .seconds(60), "then it is only watched, once a minute")
    }

    @Test func aMissedFirstMessageIsSentAgain() {
        var sync = TVPowerSync()
        var tv = SimulatedTV(on: false, previous: false, ignoresCommands: 1)
        sync.want(true, at: .seconds(100))
        Self.run(&sync, &tv, from: .seconds(100), until: .seconds(160))
        #expect(tv.commands.map(\.0) == [.turnOn, .turnOn])
        // Sent again once the TV had reported standby for `resendAfter` (10 s), not before.
        #expect(tv.commands[1].1 - tv.commands[0].1 >= .seconds(10) && tv.commands[1].1 - tv.commands[0].1 <= .seconds(12))
        #expect(sync.reported == .on && sync.isConfirmed)
    }

    @Test func aTVThatIgnoresEveryCommandIsGivenUpAfterThreeAndStillWatched() {
        var sync = TVPowerSync()
        var tv = SimulatedTV(ignoresCommands: 99)
        sync.want(false, at: .zero)
        Self.run(&sync, &tv, from: .zero, until: .seconds(300))
        #expect(tv.commands.count == 3)
        #expect(!sync.isConfirmed && sync.reported == .on)
        #expect(sync.problem?.contains("after 3 acknowledged Standby commands") == true, "\(sync.problem ?? "")")
        guard case .gaveUp = sync.phase else { Issue.record("\(sync.phase)"); return }
        // Somebody puts it in standby by hand: the next watch sees it and settles.
        tv.on = false
        tv.changedAt = nil
        Self.run(&sync, &tv, from: .seconds(300), until: .seconds(400))
        #expect(sync.isConfirmed && sync.problem == nil && tv.commands.count == 3)
    }

    @Test func undeliveredCommandsAreRetriedWithDoublingDelaysWithoutLimit() {
        var sync = TVPowerSync()
        var tv = SimulatedTV(failingDeliveries: 8)
        sync.want(false, at: .zero)
        var attempts: [MonotonicInstant] = []
        var now = MonotonicInstant.zero
        while tv.failingDeliveries > 0 {
            #expect(sync.due(at: now) == .standby)
            attempts.append(now)
            sync.commandSent(tv.receive(.standby, at: now), at: now)
            #expect(sync.problem == "not acknowledged")
            now = sync.nextDeadline!
            #expect(sync.due(at: now - .milliseconds(1)) == nil, "not before its time")
        }
        let gaps = zip(attempts.dropFirst(), attempts).map { ($0 - $1).components.seconds }
        #expect(gaps == [1, 2, 4, 8, 16, 30, 30])
        // The ninth gets through: the TV still follows, after more than the three attempts an ignored command has.
        Self.run(&sync, &tv, from: now, until: now + .seconds(30))
        #expect(tv.commands.map(\.0) == [.standby] && sync.isConfirmed)
    }

    @Test func aNewScreenStateReplacesTheOneOnItsWay() {
        var sync = TVPowerSync()
        var tv = SimulatedTV()
        sync.want(false, at: .zero)
        Self.run(&sync, &tv, from: .zero, until: .seconds(3))
        guard case .confirming = sync.phase else { Issue.record("\(sync.phase)"); return }
        // A touch wakes the screen while the TV is still going to standby.
        sync.want(true, at: .seconds(3))
        #expect(sync.due(at: .seconds(3)) == .turnOn)
        Self.run(&sync, &tv, from: .seconds(3), until: .seconds(40))
        #expect(tv.commands.map(\.0) == [.standby, .turnOn])
        #expect(sync.reported == .on && sync.isConfirmed)
        // The same state again changes nothing.
        sync.want(true, at: .seconds(41))
        #expect(sync.due(at: .seconds(41)) == nil)
    }

    @Test func aTVSwitchedByItsOwnRemoteIsReportedNotFought() {
        var sync = TVPowerSync()
        var tv = SimulatedTV(on: false, previous: false)
        sync.want(true, at: .zero)
        Self.run(&sync, &tv, from: .zero, until: .seconds(20))
        #expect(sync.isConfirmed)
        tv.on = false
        tv.changedAt = nil
        Self.run(&sync, &tv, from: .seconds(20), until: .seconds(200))
        #expect(tv.commands.count == 1, "no Image View On behind the viewer's back")
        #expect(!sync.isConfirmed && sync.reported == .standby)
        #expect(sync.problem == "the TV reports standby while the screen is on")
    }

    @Test func aTVThatNeverReportsItsPowerIsSentThreeCommandsAndStaysUnconfirmed() {
        var sync = TVPowerSync()
        var tv = SimulatedTV(answersStatus: false)
        sync.want(false, at: .zero)
        Self.run(&sync, &tv, from: .zero, until: .seconds(120))
        #expect(tv.commands.count == 3)
        #expect(!sync.isConfirmed && sync.reported == nil)
        #expect(sync.problem == "no reply")
    }

    @Test func nothingIsSentBeforeTheScreensStateIsKnown() {
        let sync = TVPowerSync()
        #expect(sync.due(at: .seconds(1000)) == nil && sync.nextDeadline == nil && sync.phase == .idle)
    }
}
