import Logging
import Testing
import VitrineConfig
import VitrineCore
@testable import VitrineRuntime

/// Attract mode's edge on the display loop: gestures in, the engine held and
/// sent home, on virtual time with a real engine and configuration.
@Suite("Kiosk attract mode")
struct KioskAttractTests {
    static func instant(_ seconds: Double, wall: Int64 = 1_800_000_000) -> KioskInstant {
        KioskInstant(monotonic: .seconds(seconds), wallNanoseconds: wall * 1_000_000_000 + Int64(seconds * 1e9))
    }

    @Test("a press engages and holds rotation; 30 s after the lift the engine pages to home with the transition and rotates again")
    func engageAndReturn() throws {
        let configuration = try ConfigLoader.parse("slides: [a.jpg, b.jpg, c.jpg, d.jpg]\ninterval: 5s\ntouch: {attract: {after: 30s, home: 2}}")
        var engine = CarouselEngine(settings: configuration.carouselSettings, start: .zero)
        let attract = KioskAttract(settings: configuration.touch.attract, attractOnly: [], logger: Logger(label: "test"))
        #expect(attract.status?.state == .attracting)
        let pressed = GestureEvent.pressed(TouchPoint(x: 10, y: 10), at: .seconds(1))
        #expect(attract.handle(pressed, engine: &engine, at: .seconds(1)) == .engaged(slide: 0))
        engine.handle(pressed, at: .seconds(1), settings: GestureSettings(outputWidth: 1000))
        #expect(engine.scheduler.pauseReasons.contains(.visitor))
        #expect(attract.handle(.pressed(TouchPoint(x: 10, y: 10), at: .seconds(1)), engine: &engine, at: .seconds(1)) == nil)
        _ = attract.handle(.released(at: .seconds(2)), engine: &engine, at: .seconds(2))
        engine.handle(.released(at: .seconds(2)), at: .seconds(2), settings: GestureSettings(outputWidth: 1000))
        #expect(attract.deadline == .seconds(32))
        #expect(attract.status?.state == .idle(since: .seconds(2)))
        // The touch's own resume delay (3 s) and a dwell pass: still held.
        #expect(attract.turn(engine: &engine, configuration: configuration, at: Self.instant(31.999)) == nil)
        #expect(engine.advance(to: .seconds(31.999)).isEmpty)
        #expect(engine.currentSlide == 0)
        #expect(attract.turn(engine: &engine, configuration: configuration, at: Self.instant(32)) == .returned(slide: 2))
        #expect(engine.scheduler.pauseReasons.isEmpty)
        #expect(Presentation(engine: engine, power: ScreenPower(wakeOnTouch: nil), at: .seconds(32.2)).isAnimating)
        #expect(engine.advance(to: .seconds(32.4)) == [.pageChanged(from: 0, to: 2, cause: .automatic)])
        #expect(engine.nextWakeup() == .at(.seconds(37)))
        #expect(attract.deadline == nil)
    }

    @Test("in step with a group, the return goes to the group's slide now, not to home")
    func inStepReturn() throws {
        // Slide k of 4 begins at the epoch plus 5k s, round the playlist: at 1970 + 1,800,000,032 s
        // the group is 32 s into a 20 s cycle, at slide 2 (12 s into it: 10 to 15 s).
        let configuration = try ConfigLoader.parse("slides: [a.jpg, b.jpg, c.jpg, d.jpg]\ninterval: 5s\nsync: true\ntouch: {attract: {after: 30s, home: 0}}")
        var engine = CarouselEngine(settings: configuration.carouselSettings, start: .zero)
        let attract = KioskAttract(settings: configuration.touch.attract, attractOnly: [], logger: Logger(label: "test"))
        _ = attract.handle(.pressed(TouchPoint(x: 1, y: 1), at: .seconds(1)), engine: &engine, at: .seconds(1))
        _ = attract.handle(.released(at: .seconds(2)), engine: &engine, at: .seconds(2))
        let now = Self.instant(32)
        let group = try #require(SyncedRotationFollower.groupSlide(for: configuration, atWallNanoseconds: now.wallNanoseconds))
        #expect(group == 2)
        #expect(attract.turn(engine: &engine, configuration: configuration, at: now) == .returned(slide: group))
    }

    @Test("switched off by a new configuration while a visitor is there: rotation is let go at once")
    func switchedOff() throws {
        let configuration = try ConfigLoader.parse("slides: [a.jpg, b.jpg]\ntouch: {attract: {after: 30s}}")
        var engine = CarouselEngine(settings: configuration.carouselSettings, start: .zero)
        let attract = KioskAttract(settings: configuration.touch.attract, attractOnly: [], logger: Logger(label: "test"))
        _ = attract.handle(.pressed(TouchPoint(x: 1, y: 1), at: .seconds(1)), engine: &engine, at: .seconds(1))
        #expect(engine.scheduler.pauseReasons == [.visitor])
        attract.update(settings: nil, attractOnly: [], engine: &engine, at: .seconds(5))
        #expect(engine.scheduler.pauseReasons.isEmpty)
        #expect(attract.status == nil && attract.deadline == nil)
        // Changed settings keep the visitor's session.
        let again = KioskAttract(settings: configuration.touch.attract, attractOnly: [], logger: Logger(label: "test"))
        _ = again.handle(.pressed(TouchPoint(x: 1, y: 1), at: .seconds(1)), engine: &engine, at: .seconds(1))
        _ = again.handle(.released(at: .seconds(2)), engine: &engine, at: .seconds(2))
        again.update(settings: AttractMode.Settings(idle: .seconds(10)), attractOnly: [], engine: &engine, at: .seconds(3))
        #expect(again.deadline == .seconds(12))
    }

    /// `[promo (attract only), menu, map, offer (attract only)]`, home 0.
    static let attractOnlyPlaylist = """
        slides: [{path: promo.jpg, attractOnly: true}, menu.jpg, map.jpg, {path: offer.jpg, attractOnly: true}]
        interval: 5s
        touch: {attract: {after: 30s, home: 0}}
        """

    @Test("attract-only slides: a touch on one shows the next slide a visitor may see; they leave paging until the kiosk goes home, then rotate again")
    func attractOnlySlides() throws {
        let configuration = try ConfigLoader.parse(Self.attractOnlyPlaylist)
        #expect(configuration.attractOnlySlides == [0, 3])
        var engine = CarouselEngine(settings: configuration.carouselSettings, start: .zero)
        let attract = KioskAttract(settings: configuration.touch.attract, attractOnly: configuration.attractOnlySlides,
                                   logger: Logger(label: "test"))
        let settings = GestureSettings(outputWidth: 1000)
        // Nobody there: every slide rotates, the attract-only ones too.
        #expect(engine.pageCount == 4)
        #expect(engine.advance(to: .seconds(5.4)) == [.pageChanged(from: 0, to: 1, cause: .automatic)])
        #expect(engine.advance(to: .seconds(10.4)) == [.pageChanged(from: 1, to: 2, cause: .automatic)])
        #expect(engine.advance(to: .seconds(15.4)) == [.pageChanged(from: 2, to: 3, cause: .automatic)])
        // A visitor touches the offer (attract only): the menu, the next slide for visitors, takes its place.
        let pressed = GestureEvent.pressed(TouchPoint(x: 10, y: 10), at: .seconds(16))
        #expect(attract.handle(pressed, engine: &engine, at: .seconds(16)) == .engaged(slide: 1))
        engine.handle(pressed, at: .seconds(16), settings: settings)
        #expect(engine.currentSlide == 1 && engine.pageCount == 2 && engine.hidden == [0, 3])
        _ = attract.handle(.released(at: .seconds(16.1)), engine: &engine, at: .seconds(16.1))
        engine.handle(.released(at: .seconds(16.1)), at: .seconds(16.1), settings: settings)
        // Paging goes menu, map, menu: never to a slide meant for nobody.
        engine.perform(.next, at: .seconds(17))
        _ = engine.advance(to: .seconds(17.5))
        #expect(engine.currentSlide == 2)
        engine.perform(.next, at: .seconds(18))
        _ = engine.advance(to: .seconds(18.5))
        #expect(engine.currentSlide == 1)
        // A tap action's goto to a hidden slide finds nothing to go to.
        engine.perform(.goTo(3), at: .seconds(19))
        _ = engine.advance(to: .seconds(19.5))
        #expect(engine.currentSlide == 1)
        // Idle for 30 s after the lift: all four slides page again, from home (the promo).
        #expect(attract.turn(engine: &engine, configuration: configuration, at: Self.instant(46.1)) == .returned(slide: 0))
        #expect(engine.pageCount == 4 && engine.hidden.isEmpty)
        _ = engine.advance(to: .seconds(46.6))
        #expect(engine.currentSlide == 0)
        #expect(engine.advance(to: .seconds(52)) == [.pageChanged(from: 0, to: 1, cause: .automatic)])
    }

    @Test("a new engine from a configuration switched in while a visitor is engaged leaves the attract-only slides out too")
    func attractOnlyAfterASwitch() throws {
        let configuration = try ConfigLoader.parse(Self.attractOnlyPlaylist)
        var engine = CarouselEngine(settings: configuration.carouselSettings, start: .zero)
        let attract = KioskAttract(settings: configuration.touch.attract, attractOnly: configuration.attractOnlySlides,
                                   logger: Logger(label: "test"))
        _ = attract.handle(.pressed(TouchPoint(x: 1, y: 1), at: .seconds(1)), engine: &engine, at: .seconds(1))
        #expect(engine.currentSlide == 1)
        engine = CarouselEngine(settings: configuration.carouselSettings, start: .seconds(2), atSlide: 2)
        attract.update(settings: configuration.touch.attract, attractOnly: configuration.attractOnlySlides, engine: &engine, at: .seconds(2))
        #expect(engine.pageCount == 2 && engine.currentSlide == 2)
        // Attract mode switched off: every slide is back, and rotation runs.
        attract.update(settings: nil, attractOnly: [], engine: &engine, at: .seconds(3))
        #expect(engine.pageCount == 4 && engine.currentSlide == 2 && engine.scheduler.pauseReasons.isEmpty)
    }
}
