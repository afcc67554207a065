import Testing
@testable import VitrineCore

// Shared helpers for the VitrineCore tests. Everything runs on virtual time.

/// The instant `ms` milliseconds after the origin.
func ms(_ ms: Int64) -> MonotonicInstant { MonotonicInstant(nanoseconds: ms * 1_000_000) }

/// The instant `ns` nanoseconds after the origin.
func ns(_ ns: Int64) -> MonotonicInstant { MonotonicInstant(nanoseconds: ns) }

/// A reference wrapper around a `CarouselEngine`, so mutating calls can sit
/// inside `#expect` (the macro cannot call a mutating method on a `var`).
@dynamicMemberLookup
final class EngineHarness {
    var engine: CarouselEngine
    init(_ engine: CarouselEngine) { self.engine = engine }

    subscript<T>(dynamicMember keyPath: KeyPath<CarouselEngine, T>) -> T { engine[keyPath: keyPath] }

    @discardableResult
    func advance(to now: MonotonicInstant, isReady: (Int) -> Bool = { _ in true }) -> [CarouselEvent] {
        engine.advance(to: now, isReady: isReady)
    }
    @discardableResult
    func perform(_ command: CarouselCommand, at now: MonotonicInstant) -> Bool { engine.perform(command, at: now) }
    func pause(_ reason: PauseReason, at now: MonotonicInstant) { engine.pause(reason, at: now) }
    func resume(_ reason: PauseReason, at now: MonotonicInstant) { engine.resume(reason, at: now) }
    func markUnavailable(_ slide: Int, at now: MonotonicInstant) { engine.markUnavailable(slide, at: now) }
    func hide(_ slides: Set<Int>, at now: MonotonicInstant) { engine.hide(slides, at: now) }
    func showHidden(at now: MonotonicInstant) { engine.showHidden(at: now) }
    func takeEvents() -> [CarouselEvent] { engine.takeEvents() }
    func position(at now: MonotonicInstant) -> Double { engine.position(at: now) }
    func scene(at now: MonotonicInstant) -> Scene { engine.scene(at: now) }
    func nextWakeup() -> CarouselWakeup { engine.nextWakeup() }
    func slidesToPrefetch(radius: Int = 1) -> [Int] { engine.slidesToPrefetch(radius: radius) }
    /// Applies `gesture` at its own time.
    func handle(_ gesture: GestureEvent, settings: GestureSettings = GestureSettings(outputWidth: 1000)) {
        engine.handle(gesture, at: gesture.time, settings: settings)
    }
}

/// An engine with `count` slides of `dwell` each, a 400 ms transition of `kind`,
/// and a 3 s resume delay after touch.
func makeEngine(
    count: Int, dwell: Duration = .seconds(5), dwells: [Duration]? = nil, loop: Bool = true,
    kind: TransitionKind = .slide, easing: Easing = .easeOut, duration: Duration = .milliseconds(400),
    autoplay: Bool = true, resumeDelay: Duration = .seconds(3), start: MonotonicInstant = .zero
) -> EngineHarness {
    let rotation = RotationPolicy(autoplay: autoplay, interval: dwell, resumeDelayAfterTouch: resumeDelay)
    let transition = TransitionStyle(kind: kind, duration: duration, easing: easing)
    let settings = CarouselSettings(
        slideDwells: dwells ?? Array(repeating: dwell, count: count), loop: loop,
        rotation: rotation, transition: transition)
    return EngineHarness(CarouselEngine(settings: settings, start: start))
}

/// The slide contents of the scene's layers, bottom to top.
func contents(_ scene: Scene) -> [SlideContent] { scene.layers.map(\.content) }

/// An image whose pixel at (x, y) is `value(x, y)`.
func makeImage(width: Int, height: Int, _ value: (Int, Int) -> UInt32) -> PixelImage {
    let image = PixelImage(size: PixelSize(width: width, height: height))
    for y in 0..<height {
        for x in 0..<width { image[x, y] = value(x, y) }
    }
    return image
}

/// The pixels of `image` as rows.
func grid(_ image: PixelImage) -> [[UInt32]] {
    (0..<image.height).map { y in (0..<image.width).map { x in image[x, y] } }
}

/// An image from rows of pixels.
func makeImage(rows: [[UInt32]]) -> PixelImage {
    makeImage(width: rows.first?.count ?? 0, height: rows.count) { x, y in rows[y][x] }
}

/// An XRGB pixel from channels.
func xrgb(_ r: Int, _ g: Int, _ b: Int) -> UInt32 {
    0xFF00_0000 | UInt32(r) << 16 | UInt32(g) << 8 | UInt32(b)
}

func red(_ pixel: UInt32) -> Int { Int((pixel >> 16) & 0xFF) }
func green(_ pixel: UInt32) -> Int { Int((pixel >> 8) & 0xFF) }
func blue(_ pixel: UInt32) -> Int { Int(pixel & 0xFF) }

extension Scene {
    /// The scene with every layer's playback at its start: for tests of where
    /// the slides are, not of how far their own motion has run.
    var withoutPlayback: Scene {
        Scene(layers: layers.map { Scene.Layer(content: $0.content, offset: $0.offset, opacity: $0.opacity) }, indicator: indicator)
    }
}
