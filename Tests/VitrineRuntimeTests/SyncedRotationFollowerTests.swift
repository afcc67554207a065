import Logging
import Testing
import VitrineConfig
import VitrineCore
@testable import VitrineRuntime

/// Rotation in step on virtual clocks: kiosks whose monotonic clocks differ
/// (each board has its own) and whose wall clocks agree change slides at the
/// same wall-clock instants, whenever they started.
@Suite struct SyncedRotationFollowerTests {
    static let second: Int64 = 1_000_000_000

    /// One kiosk: its engine, its owner, and its monotonic clock's offset from the shared wall clock.
    struct SimulatedKiosk {
        var engine: CarouselEngine
        let inStep: SyncedRotationFollower
        /// wall = monotonic + offset, in nanoseconds.
        let offset: Int64
        /// (wall nanoseconds, slide) of each page change.
        var changes: [(Int64, Int)] = []

        init(configuration: KioskConfiguration, startWall: Int64, offset: Int64) {
            engine = CarouselEngine(settings: configuration.carouselSettings,
                                    start: MonotonicInstant(nanoseconds: startWall - offset))
            inStep = SyncedRotationFollower(logger: Logger(label: "test"))
            inStep.update(for: configuration)
            self.offset = offset
        }

        func monotonic(_ wall: Int64) -> MonotonicInstant { MonotonicInstant(nanoseconds: wall - offset) }

        /// One turn of the display loop at wall time `wall`.
        mutating func turn(at wall: Int64) {
            let now = monotonic(wall)
            inStep.keep(&engine, at: KioskInstant(monotonic: now, wallNanoseconds: wall))
            for event in engine.advance(to: now) {
                if case .pageChanged(_, let to, _) = event { changes.append((wall, to)) }
            }
            inStep.keep(&engine, at: KioskInstant(monotonic: now, wallNanoseconds: wall))
        }

        /// When the loop would wake next, on the wall clock: a deadline, or the next frame while animating.
        func nextWake(after wall: Int64) -> Int64? {
            switch engine.nextWakeup() {
            case .at(let deadline): return deadline.nanoseconds + offset
            case .everyFrame: return wall + 16_666_667
            case .idle: return nil
            }
        }
    }

    static func configuration(_ yaml: String) throws -> KioskConfiguration {
        try ConfigLoader.parse(yaml + "\nslides: [a.jpg, b.jpg, c.jpg]\ntransition: {type: cut}\n", baseDirectory: "/tmp")
    }

    /// Runs every kiosk from deadline to deadline until `end`.
    static func run(_ kiosks: inout [SimulatedKiosk], from start: Int64, until end: Int64) {
        var wall = start
        while wall <= end {
            for index in kiosks.indices { kiosks[index].turn(at: wall) }
            guard let next = kiosks.compactMap({ $0.nextWake(after: wall) }).filter({ $0 > wall }).min() else { return }
            wall = next
        }
    }

    @Test func kiosksStartedAtDifferentTimesChangeSlidesAtTheSameInstants() throws {
        let configuration = try Self.configuration("sync: {epoch: 2026-01-01T00:00:00Z}\ninterval: 4s")
        let epoch = Int64(1_767_225_600) * Self.second
        let startA = epoch + 1_000 * Self.second + 300_000_000, startB = startA + 2_700_000_000
        var kiosks = [
            SimulatedKiosk(configuration: configuration, startWall: startA, offset: 5 * Self.second),
            SimulatedKiosk(configuration: configuration, startWall: startB, offset: -77 * Self.second),
        ]
        Self.run(&kiosks, from: startA, until: startA + 60 * Self.second)
        // Each joins at its first change and then changes exactly at epoch + k * 4 s, to slide k mod 3.
        for kiosk in kiosks {
            #expect(kiosk.changes.count >= 12)
            for (wall, slide) in kiosk.changes.dropFirst() {
                #expect((wall - epoch) % (4 * Self.second) == 0, "\(wall - epoch)")
                #expect(slide == Int(((wall - epoch) / (4 * Self.second)) % 3))
            }
        }
        let instantsA = Set(kiosks[0].changes.dropFirst().map(\.0)), instantsB = Set(kiosks[1].changes.dropFirst().map(\.0))
        #expect(instantsB.isSubset(of: instantsA) && instantsB.count >= 12)
    }

    @Test func aTouchTakesAKioskOutOfStepUntilItsRotationResumes() throws {
        let configuration = try Self.configuration("sync: true\ninterval: 4s\ntouch: {resumeDelay: 3s}")
        let start = Int64(1_800_000_000) * Self.second
        var kiosks = [SimulatedKiosk(configuration: configuration, startWall: start, offset: 0)]
        Self.run(&kiosks, from: start, until: start + 10 * Self.second)
        // A swipe to the next slide at +10.5 s.
        let touch = start + 10_500_000_000
        let settings = GestureSettings(outputWidth: 1000)
        let at = kiosks[0].monotonic(touch)
        kiosks[0].engine.handle(.pressed(TouchPoint(x: 500, y: 300), at: at), at: at, settings: settings)
        kiosks[0].engine.handle(.dragBegan(at: at), at: at, settings: settings)
        kiosks[0].engine.handle(.dragMoved(offset: -600, at: at), at: at, settings: settings)
        kiosks[0].engine.handle(.dragEnded(offset: -600, velocity: 0, at: at), at: at, settings: settings)
        kiosks[0].engine.handle(.released(at: at), at: at, settings: settings)
        let swiped = kiosks[0].engine.currentSlide
        Self.run(&kiosks, from: touch, until: start + 40 * Self.second)
        let after = kiosks[0].changes.filter { $0.0 > touch }
        // The swipe's page change, then nothing until the touch's resume delay
        // has passed (10.5 s + 3 s), then a change on the group's instant to the
        // group's slide, and in step from then on.
        let automatic = after.filter { $0.0 > touch + 1_000_000_000 }
        let first = try #require(automatic.first)
        #expect(first.0 >= touch + 3 * Self.second && first.0 <= touch + 3 * Self.second + 8 * Self.second,
                "first automatic change \(Double(first.0 - start) / 1e9) s after the start")
        #expect(automatic.count >= 4)
        for (wall, slide) in automatic {
            #expect((wall - start) % (4 * Self.second) == 0, "\(Double(wall - start) / 1e9)")
            #expect(slide == Int(((wall / Self.second) / 4) % 3))
        }
        #expect(swiped != nil)
    }

    @Test func withoutSyncTheKioskKeepsItsOwnTime() throws {
        let configuration = try Self.configuration("interval: 4s")
        let start = Int64(1_800_000_000) * Self.second + 123_456_789
        var kiosks = [SimulatedKiosk(configuration: configuration, startWall: start, offset: 0)]
        Self.run(&kiosks, from: start, until: start + 20 * Self.second)
        #expect(kiosks[0].changes.map(\.0) == [4, 8, 12, 16, 20].map { start + $0 * Self.second })
    }
}
