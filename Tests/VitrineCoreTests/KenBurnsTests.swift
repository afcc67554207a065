import Testing
@testable import VitrineCore

/// Ken Burns pan and zoom in the pure core: the generator and hash the seeded
/// choice rests on (against their reference implementations' outputs), the
/// way between two rectangles, and the rectangle at each playback of a real
/// engine on virtual time.
@Suite("Ken Burns motion")
struct KenBurnsTests {
    /// The first outputs of Vigna's splitmix64.c for these seeds.
    @Test func splitMix64GivesTheReferenceSequence() {
        var zero = SplitMix64(seed: 0)
        #expect([zero.next(), zero.next(), zero.next()] == [0xE220_A839_7B1D_CDAF, 0x6E78_9E6A_A1B9_65F4, 0x06C4_5D18_8009_454F])
        var other = SplitMix64(seed: 1_234_567)
        #expect([other.next(), other.next()] == [0x599E_D017_FB08_FC85, 0x2C73_F084_5854_0FA5])
        var units = SplitMix64(seed: 99)
        for _ in 0..<1000 {
            let value = units.unit()
            #expect(value >= 0 && value < 1)
        }
    }

    @Test func thePictureHashIsFNV1a() {
        #expect(KenBurnsChoice.fnv1a("images/a.jpg") == 0x04BC_553F_DE4F_E7AA)
        #expect(KenBurnsChoice.fnv1a("") == 0xCBF2_9CE4_8422_2325)
    }

    @Test func powersFromSquareRootsAreExactEnough() {
        #expect(abs(FrameRect.power(0.5, 0.5) - 0.5.squareRoot()) < 1e-9)
        #expect(abs(FrameRect.power(2, 0.25) - 1.189_207_115_002_721) < 1e-8)
        #expect(abs(FrameRect.power(0.8, 0.3) - 0.935_248_447_822_621_4) < 1e-8)
        #expect(FrameRect.power(0.7, 0) == 1)
        #expect(FrameRect.power(0.7, 1) == 0.7)
    }

    @Test func theWayBetweenTwoRectanglesZoomsEvenlyAndStaysInside() {
        let a = FrameRect(x: 0, y: 0, width: 1, height: 1), b = FrameRect(x: 0.5, y: 0.25, width: 0.5, height: 0.5)
        #expect(a.interpolated(to: b, by: 0) == a)
        #expect(a.interpolated(to: b, by: 1) == b)
        let middle = a.interpolated(to: b, by: 0.5)
        // The size halfway is the geometric mean (zoom √2), the centre halfway between the centres.
        #expect(abs(middle.width - 0.5.squareRoot()) < 1e-9)
        #expect(abs(middle.centre.x - 0.625) < 1e-12 && abs(middle.centre.y - 0.5) < 1e-12)
        // Any two rectangles inside the frame: every step between them is inside too.
        var random = SplitMix64(seed: 5)
        func rect() -> FrameRect {
            let side = 0.5 + 0.5 * random.unit()
            return FrameRect(x: (1 - side) * random.unit(), y: (1 - side) * random.unit(), width: side, height: side)
        }
        for _ in 0..<500 {
            let from = rect(), to = rect()
            for step in 0...20 {
                let r = from.interpolated(to: to, by: Double(step) / 20)
                #expect(r.x >= -1e-12 && r.y >= -1e-12 && r.x + r.width <= 1 + 1e-12 && r.y + r.height <= 1 + 1e-12, "\(from) → \(to) at \(step)")
            }
        }
    }

    /// The rectangle of each layer of a real engine's scenes: from the start of
    /// the rest, eased to the end of the dwell, held through the transition
    /// out, standing still under a finger; the incoming slide waits at its start.
    @Test func theRectangleFollowsTheSlidesPlaybackOnVirtualTime() {
        let engine = makeEngine(count: 3, dwell: .seconds(5))
        let from = FrameRect.whole, to = FrameRect(x: 0.2, y: 0.1, width: 0.8, height: 0.8)
        let motion = KenBurnsMotion(from: from, to: to, duration: .seconds(5), easing: .linear)
        func rect(of slide: Int, at t: Int64) -> FrameRect? {
            engine.scene(at: ms(t)).layers.first { $0.content == .slide(slide) }.map { motion.rect(at: $0.playback) }
        }
        #expect(rect(of: 0, at: 0) == from)
        let quarter = rect(of: 0, at: 1250)!
        #expect(abs(quarter.width - FrameRect.power(0.8, 0.25)) < 1e-9)
        #expect(abs(quarter.centre.x - (0.5 + 0.1 * 0.25)) < 1e-12)
        // The automatic change at 5 s: the outgoing slide holds its end, the incoming one waits at its start.
        engine.advance(to: ms(5200))
        #expect(rect(of: 0, at: 5200) == to)
        #expect(rect(of: 1, at: 5200) == from)
        let outgoing = engine.scene(at: ms(5200)).layers.first { $0.content == .slide(0) }!.playback
        #expect(!motion.isMoving(at: outgoing))
        #expect(motion.drawn(outgoing) == motion.drawn(LayerPlayback(elapsed: .seconds(60))))
        engine.advance(to: ms(5400))
        let resting = engine.scene(at: ms(6400)).layers[0].playback
        #expect(motion.isMoving(at: resting))
        #expect(rect(of: 1, at: 6400) == from.interpolated(to: to, by: 0.2))
        // A finger holds it: the rectangle stands still however long the finger stays.
        let finger = Finger(engine)
        finger.down(500, at: 7000)
        finger.move(470, at: 7020)
        let held = engine.scene(at: ms(9000)).layers.first { $0.content == .slide(1) }!.playback
        #expect(held.isHeld && !motion.isMoving(at: held))
        #expect(rect(of: 1, at: 9000) == rect(of: 1, at: 7500))
        #expect(motion.drawn(held) == LayerPlayback(elapsed: held.elapsed))
    }

    @Test func easingShapesTheMotion() {
        let motion = KenBurnsMotion(from: .whole, to: FrameRect(x: 0.5, y: 0.5, width: 0.5, height: 0.5),
                                    duration: .seconds(4), easing: .easeInOut)
        // Ease-in-out: slow at both ends, the middle exactly halfway.
        #expect(abs(motion.rect(at: LayerPlayback(elapsed: .seconds(2))).centre.x - 0.625) < 1e-12)
        #expect(motion.rect(at: LayerPlayback(elapsed: .milliseconds(400))).centre.x < 0.5 + 0.25 * 0.1)
        #expect(motion.progress(at: LayerPlayback(elapsed: .seconds(9))) == 1)
        #expect(KenBurnsMotion(from: .whole, to: .whole, duration: .zero, easing: .linear).progress(at: .start) == 1)
        #expect(!KenBurnsMotion(from: .whole, to: .whole, duration: .seconds(3), easing: .linear).isMoving(at: .start))
    }

    /// The choice a seed makes, worked out independently (the same algorithm in
    /// Python over the reference SplitMix64 and FNV-1a): kiosks agree on it.
    @Test func aSeedChoosesTheSameRectanglesEverywhere() {
        let (from, to) = KenBurnsChoice.rectangles(seed: 7, zoom: 1.25, picture: "images/a.jpg")
        #expect(from == FrameRect(x: 0.05913735747393854, y: 0.1142685812256716, width: 0.8, height: 0.8))
        #expect(to == FrameRect(x: 0.016642138041491297, y: 0.04517579287753787, width: 0.8999049166665516, height: 0.8999049166665516))
        let other = KenBurnsChoice.rectangles(seed: 7, zoom: 1.25, picture: "images/b.jpg")
        #expect(other.from == FrameRect(x: 0.1004028713367475, y: 0.18262198603849175, width: 0.8, height: 0.8))
        let asset = "asset:" + String(repeating: "ab", count: 32)
        let closer = KenBurnsChoice.rectangles(seed: 0, zoom: 2, picture: asset)
        #expect(closer.from == FrameRect(x: 0.2218724953168693, y: 0.1714497168784474, width: 0.5, height: 0.5))
        #expect(closer.to == FrameRect(x: 0.13706875780742236, y: 0.044180620138744804, width: 0.8600846171204655, height: 0.8600846171204655))
    }

    @Test func seededChoicesAreValidAndVaried() {
        var zoomingIn = 0, seen = Set<Double>()
        for index in 0..<400 {
            let zoom = 1.1 + Double(index % 10) * 0.1
            let (from, to) = KenBurnsChoice.rectangles(seed: UInt32(index), zoom: zoom, picture: "slide-\(index).jpg")
            for rect in [from, to] { #expect(KenBurns.problem(with: rect) == nil, "\(rect)") }
            // One end is the closest view; the other between 1x and halfway to it.
            let near = max(from.zoom, to.zoom), far = min(from.zoom, to.zoom)
            #expect(abs(near - zoom) < 1e-9)
            #expect(far >= 1 && far <= 1 + (zoom - 1) / 2 + 1e-9)
            if to.zoom > from.zoom { zoomingIn += 1 }
            seen.insert(from.x)
        }
        #expect(zoomingIn > 120 && zoomingIn < 280)
        #expect(seen.count > 390)
    }

    @Test func aRectangleMustFitTheFrameAndTheOutputsShape() {
        #expect(KenBurns.problem(with: .whole) == nil)
        #expect(KenBurns.problem(with: FrameRect(x: 0.5, y: 0.5, width: 0.5, height: 0.5)) == nil)
        #expect(KenBurns.problem(with: FrameRect(x: 0.6, y: 0, width: 0.5, height: 0.5))?.contains("inside") == true)
        #expect(KenBurns.problem(with: FrameRect(x: -0.1, y: 0, width: 0.5, height: 0.5))?.contains("inside") == true)
        #expect(KenBurns.problem(with: FrameRect(x: 0, y: 0, width: 0.6, height: 0.5))?.contains("equal") == true)
        #expect(KenBurns.problem(with: FrameRect(x: 0, y: 0, width: 0.4, height: 0.4))?.contains("at most 2x") == true)
        #expect(KenBurns.problem(with: FrameRect(x: 0, y: 0, width: 0, height: 0))?.contains("greater than 0") == true)
    }

    @Test func aConfiguredKenBurnsGivesItsMotion() {
        let rectangles = KenBurns.rectangles(from: .whole, to: FrameRect(x: 0, y: 0, width: 0.5, height: 0.5), easing: .linear)
        #expect(rectangles.motion(picture: "a.jpg", dwell: .seconds(8))?.duration == .seconds(8))
        #expect(rectangles.motion(picture: "a.jpg", dwell: .seconds(8))?.largestZoom == 2)
        #expect(KenBurns.off.motion(picture: "a.jpg", dwell: .seconds(8)) == nil)
        let seeded = KenBurns.seeded(seed: 7, zoom: 1.25, easing: .linear).motion(picture: "images/a.jpg", dwell: .seconds(3))
        #expect(seeded?.from.width == 0.8 && seeded?.largestZoom == 1.25)
    }
}
