import Logging
import Testing
import VitrineCore
@testable import VitrineRuntime

/// The power owner alone, on virtual time, against the headless display.
@Suite("Kiosk owners: screen power")
struct KioskPowerTests {
    func at(_ milliseconds: Int64) -> MonotonicInstant { MonotonicInstant(nanoseconds: milliseconds * 1_000_000) }

    @Test func offDarkensTheDisplayAndHoldsRotationAndATouchWakesItWithoutPaging() {
        let display = HeadlessDisplay(size: PixelSize(width: 8, height: 6), previewPath: nil, logger: Logger(label: "test"))
        let settings = CarouselSettings.uniform(count: 3, rotation: RotationPolicy(interval: .seconds(1)),
                                                transition: TransitionStyle(kind: .slide, duration: .milliseconds(400), easing: .linear))
        var engine = CarouselEngine(settings: settings, start: at(0))
        let power = KioskPower(wakeOnTouch: .seconds(30), logger: Logger(label: "test"))

        #expect(power.apply(at: at(0), display: display, engine: &engine) == .cameOn, "the first call reports the state it starts in")
        #expect(display.isPoweredOn && engine.isPlaying)

        power.request(.off)
        #expect(power.apply(at: at(100), display: display, engine: &engine) == .wentDark)
        #expect(!display.isPoweredOn && !display.isReadyForFrame)
        #expect(engine.scheduler.pauseReasons == [.screenOff])
        #expect(engine.nextWakeup() == .idle, "a dark screen has no rotation deadline to wake for")

        // The touch that wakes the screen is kept from the carousel, from press to release.
        let point = TouchPoint(x: 4, y: 3)
        #expect(!power.admits(.pressed(point, at: at(5000)), at: at(5000)))
        #expect(power.apply(at: at(5000), display: display, engine: &engine) == .cameOn, "it has just come on")
        #expect(display.isPoweredOn && engine.scheduler.pauseReasons.isEmpty)
        #expect(!power.admits(.tap(point, at: at(5050)), at: at(5050)))
        #expect(!power.admits(.released(at: at(5050)), at: at(5050)))
        // The next touch, on a lit screen, is the carousel's, and keeps the screen awake.
        #expect(power.admits(.pressed(point, at: at(20_000)), at: at(20_000)))
        #expect(power.admits(.released(at: at(20_100)), at: at(20_100)))
        #expect(power.nextChange(after: at(20_100)) == at(50_000))
        #expect(power.apply(at: at(49_999), display: display, engine: &engine) == nil)
        #expect(display.isPoweredOn)
        #expect(power.apply(at: at(50_000), display: display, engine: &engine) == .wentDark)
        #expect(!display.isPoweredOn && engine.scheduler.pauseReasons == [.screenOff])

        power.request(.on)
        #expect(power.apply(at: at(60_000), display: display, engine: &engine) == .cameOn)
        #expect(display.isPoweredOn && engine.scheduler.pauseReasons.isEmpty)
    }
}
