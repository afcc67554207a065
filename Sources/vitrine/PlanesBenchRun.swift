import FoundationEssentials
import Glibc
import VitrineCore
import VitrineDRM
import VitrineSystem

/// What `vitrine bench planes` measured, per kind of frame.
struct PlanesBenchReport: Codable {
    struct Capture: Codable {
        /// The largest channel difference from the compositor's frame, and the mean.
        var max: Int
        var mean: Double
        /// The rectangle holding every pixel more than 2 levels off, if any: where to look.
        var differing: String?
    }

    struct Row: Codable {
        var kind: String
        /// "planes", "mixed" or "cpu": the plan the planner took and the driver accepted.
        var path: String
        var refusal: String?
        var overlays: Int
        var composedLayers: Int
        var bytesPerRefresh: Double
        /// The display thread's CPU time per frame (user and system), in microseconds.
        var planesCPUMicroseconds: Double
        var cpuPathCPUMicroseconds: Double
        var ratio: Double
        var writebackPlanes: Capture?
        /// Only when the planes' capture is off: the capture against the frame without the dots.
        var writebackPlanesWithoutDots: Capture?
        /// Only when the planes' capture is off: the dots' buffer's pixels that are not transparent,
        /// and the capture again after a commit that sent every plane's setting.
        var dotsBufferPixels: Int?
        var writebackPlanesAllSent: Capture?
        /// Of the planes path's time per frame: laying out and planning; drawing (the dots, and the
        /// layers the planes cannot take into the primary plane's buffer); committing.
        var planesPlanMicroseconds: Double
        var planesDrawMicroseconds: Double
        var planesCommitMicroseconds: Double
        /// Of the CPU path's: laying out and composing, committing.
        var cpuComposeMicroseconds: Double
        var cpuCommitMicroseconds: Double
        var writebackCPU: Capture?
    }

    var card: String
    var driver: String
    var connector: String
    var mode: String
    var width: Int
    var height: Int
    var planes: Int
    var frames: Int
    var writeback: Bool
    var kinds: [Row]
}

/// The buffers and frames of one `vitrine bench planes` run: two output-sized
/// slides and a Ken Burns frame a quarter larger, each in memory (what the CPU
/// path reads) and in a dumb buffer (what a plane scans out), a still black
/// background, two composition buffers for the CPU path (it flips between
/// them, as the kiosk does), two buffers for the dots, and the writeback target.
final class PlanesBenchRun {
    static let indicator = IndicatorStyle()
    static let kenBurnsFrom = FrameRect(x: 0.02, y: 0.03, width: 0.9, height: 0.9)
    static let kenBurnsTo = FrameRect(x: 0.15, y: 0.12, width: 0.8, height: 0.8)

    /// Each kind's frame at `t` (0...1) of its way: slides 0 and 1 are
    /// output-sized, slide 2 the Ken Burns frame; dots on each, moving with
    /// the page change.
    static let kinds: [(String, @Sendable (Double) -> Scene)] = {
        @Sendable func slide(_ index: Int, offset: Double = 0, opacity: Double = 1) -> Scene.Layer {
            Scene.Layer(content: .slide(index), offset: offset, opacity: opacity)
        }
        return [
            ("rest", { _ in Scene(layers: [slide(0)], indicator: IndicatorState(count: 5, position: 0)) }),
            ("slide transition", { t in
                Scene(layers: [slide(0, offset: -t), slide(1, offset: 1 - t)], indicator: IndicatorState(count: 5, position: t)) }),
            ("crossfade", { t in Scene(layers: [slide(0), slide(1, opacity: t)], indicator: IndicatorState(count: 5, position: t)) }),
            ("Ken Burns", { _ in Scene(layers: [slide(2)], indicator: IndicatorState(count: 5, position: 2)) }),
        ]
    }()

    let output: PixelSize
    let planes: [DisplayPlane]
    let committer: DRMPlaneCommitter
    let writeback: DRMWriteback?
    let planner: PlanePlanner
    private let card: DRMCard
    private let frames: [Int: PixelImage]
    private let buffers: [Int: DRMLayerBuffer]
    private let background: DRMLayerBuffer
    private let compositions: [DRMLayerBuffer]
    private let capture: DRMLayerBuffer?

    init(card: DRMCard, output: PixelSize, planes: [DisplayPlane], committer: DRMPlaneCommitter, writeback: DRMWriteback?,
         planner: PlanePlanner) throws {
        self.card = card
        self.output = output
        self.planes = planes
        self.committer = committer
        self.writeback = writeback
        self.planner = planner
        let larger = PixelSize(width: output.width * 5 / 4, height: output.height * 5 / 4)
        frames = [0: Self.picture(output, seed: 1), 1: Self.picture(output, seed: 2), 2: Self.picture(larger, seed: 3)]
        var buffers: [Int: DRMLayerBuffer] = [:]
        for (slide, frame) in frames {
            let buffer = try DRMLayerBuffer(card: card, size: frame.size, format: .xrgb8888)
            buffer.canvas.copyPixels(from: frame.canvas)
            buffers[slide] = buffer
        }
        self.buffers = buffers
        background = try DRMLayerBuffer(card: card, size: output, format: .xrgb8888)
        compositions = try (0..<2).map { _ in try DRMLayerBuffer(card: card, size: output, format: .xrgb8888) }
        capture = writeback == nil ? nil : try DRMLayerBuffer(card: card, size: output, format: .xrgb8888)
    }

    /// The still black background on the primary plane and every other plane off: what the modeset shows.
    func backgroundSettings() -> [DRMPlaneSetting] {
        let empty = LayerStack(output: output, layers: [])
        return DRMPlaneSetting.settings(for: planner.cpuPlan(for: empty), of: empty, planes: planes,
                                        composition: background.framebufferID) { _ in 0 }
    }

    /// `count` frames of one kind on each path, side by side, then one of
    /// each captured by writeback and compared with the compositor's frame.
    func measure(_ kind: String, _ sceneAt: @Sendable (Double) -> Scene, frames count: Int) throws -> PlanesBenchReport.Row {
        func stack(_ t: Double) -> LayerStack {
            LayerStack(scene: sceneAt(t), output: output, indicator: Self.indicator) { layer in
                self.picture(of: layer, at: t).map { LayerStack.Picture(frameSize: $0.frame.size, region: $0.region) }
            }
        }
        // The dots' buffers (one drawn while the other shows), at least the card's smallest
        // framebuffer: the dots show their top-left corner (the layer's source).
        let minimum = try card.minimumFramebufferSize()
        let first = stack(0)
        let dotsLayer = first.layers.first { if case .indicator = $0.content { true } else { false } }
        let painter = dotsLayer.map { IndicatorLayer(count: 5, style: Self.indicator, output: output, bounds: $0.destination) }
        let dots = try dotsLayer.map { layer in
            try (0..<2).map { _ in
                try DRMLayerBuffer(card: card, size: PixelSize(width: max(layer.bufferSize.width, minimum.width),
                                                               height: max(layer.bufferSize.height, minimum.height)), format: .argb8888)
            }
        } ?? []
        var dotsShown = 0, dotsState: IndicatorState?
        var compositionShown = 0
        // A plan's shape the driver accepted or refused: tested once, as a kiosk would.
        var tested: [PlanShape: Bool] = [:]
        let compositor = Compositor(background: .black, indicator: Self.indicator)

        func settings(_ plan: PlanePlan, _ stack: LayerStack, composition: DRMLayerBuffer, dots: DRMLayerBuffer?) -> [DRMPlaneSetting] {
            let primaryBuffer = plan.primary == .composition(composed: 0..<0) ? background : composition
            return DRMPlaneSetting.settings(for: plan, of: stack, planes: planes, composition: primaryBuffer.framebufferID) { index in
                switch stack.layers[index].content {
                case .slide(let layer): if case .slide(let slide) = layer.content { self.buffers[slide]?.framebufferID ?? 0 } else { 0 }
                case .indicator: dots?.framebufferID ?? 0
                case .fill, .notice: 0
                }
            }
        }
        /// One frame at `t` on the planes: plan it, draw what changed into the back
        /// buffers, and commit. What the display thread would do for it.
        var planTimes: [Double] = [], drawTimes: [Double] = [], commitTimes: [Double] = []
        func planesFrame(_ t: Double, timed: Bool = false) throws -> PlanePlan {
            let started = Self.threadCPUTime()
            let stack = stack(t)
            let plan = planner.plan(for: stack) { candidate in
                let key = PlanShape(candidate, stack)
                if let known = tested[key] { return known }
                let accepted = committer.test(settings(candidate, stack, composition: compositions[compositionShown],
                                                       dots: dots.first)) == nil
                tested[key] = accepted
                return accepted
            }
            let planned = Self.threadCPUTime()
            var dotsBuffer = dots.isEmpty ? nil : dots[dotsShown]
            if let painter, let index = stack.layers.firstIndex(where: { if case .indicator = $0.content { true } else { false } }),
               plan.overlays.contains(where: { $0.layer == index }), case .indicator(let state) = stack.layers[index].content,
               state != dotsState {
                dotsShown = 1 - dotsShown
                let back = dots[dotsShown]
                painter.draw(state, into: back.canvas.cropped(to: PixelRect(x: 0, y: 0, width: painter.bounds.width,
                                                                            height: painter.bounds.height)))
                dotsBuffer = back
                dotsState = state
            }
            var composition = compositions[compositionShown]
            if !plan.composedLayers.isEmpty {
                // The layers the planes cannot take, drawn as the CPU path draws them.
                compositionShown = 1 - compositionShown
                composition = compositions[compositionShown]
                compositor.compose(stack.scene(composing: plan.composedLayers), into: composition.canvas,
                                   picture: { self.picture(of: $0, at: t) })
            }
            let drawn = Self.threadCPUTime()
            try committer.commit(settings(plan, stack, composition: composition, dots: dotsBuffer))
            if timed {
                planTimes.append(planned - started)
                drawTimes.append(drawn - planned)
                commitTimes.append(Self.threadCPUTime() - drawn)
            }
            return plan
        }
        /// One frame at `t` on the CPU path: today's compose into the back buffer, then a flip to it.
        var composeTimes: [Double] = [], cpuCommitTimes: [Double] = []
        func cpuFrame(_ t: Double, timed: Bool = false) throws {
            // The CPU path lays out nothing for the planes: its stack and plan are made before the clock starts.
            let stack = stack(t), cpuPlan = planner.cpuPlan(for: stack), scene = sceneAt(t)
            let started = Self.threadCPUTime()
            compositionShown = 1 - compositionShown
            let composition = compositions[compositionShown]
            compositor.compose(scene, into: composition.canvas, picture: { self.picture(of: $0, at: t) })
            let composed = Self.threadCPUTime()
            try committer.commit(settings(cpuPlan, stack, composition: composition, dots: nil))
            if timed {
                composeTimes.append(composed - started)
                cpuCommitTimes.append(Self.threadCPUTime() - composed)
            }
        }

        var plan = planner.cpuPlan(for: first)
        // Blocks of consecutive frames per path, each sweeping the page change, in the order
        // planes, CPU, CPU, planes: each path's commits follow its own previous frame, as a
        // kiosk's do, and both paths see the same machine. The first frame of each block,
        // which moves the planes over from the other path's state, is not counted.
        let perBlock = max(count / 2, 1) + 1
        for isPlanes in [true, false, false, true] {
            for frame in 0..<perBlock {
                let t = 0.05 + 0.9 * Double(frame) / Double(perBlock - 1)
                if isPlanes { plan = try planesFrame(t, timed: frame > 0) } else { try cpuFrame(t, timed: frame > 0) }
            }
        }
        let planeTimes = zip(zip(planTimes, drawTimes), commitTimes).map { $0.0 + $0.1 + $1 }
        let cpuTimes = zip(composeTimes, cpuCommitTimes).map { $0 + $1 }
        let at = 0.3
        let captured = stack(at)
        plan = planner.plan(for: captured) { tested[PlanShape($0, captured)] ?? false }
        var row = PlanesBenchReport.Row(
            kind: kind, path: plan.path, refusal: planner.refusal(for: captured)?.description, overlays: plan.overlays.count,
            composedLayers: plan.composedLayers.count, bytesPerRefresh: plan.bytesPerRefresh,
            planesCPUMicroseconds: Self.median(planeTimes), cpuPathCPUMicroseconds: Self.median(cpuTimes),
            ratio: Self.median(cpuTimes) > 0 ? Self.median(planeTimes) / Self.median(cpuTimes) : 0,
            planesPlanMicroseconds: Self.median(planTimes), planesDrawMicroseconds: Self.median(drawTimes),
            planesCommitMicroseconds: Self.median(commitTimes), cpuComposeMicroseconds: Self.median(composeTimes),
            cpuCommitMicroseconds: Self.median(cpuCommitTimes))
        if let writeback, let capture {
            let reference = PixelImage(size: output)
            compositor.compose(sceneAt(at), into: reference.canvas, picture: { self.picture(of: $0, at: at) })
            _ = try planesFrame(at)
            try committer.commit([], capture: DRMWriteback.Capture(writeback: writeback, buffer: capture))
            row.writebackPlanes = Self.difference(capture.canvas, reference)
            if row.writebackPlanes?.differing != nil {
                // Whether the dots' buffer on screen holds dots at all.
                if !dots.isEmpty {
                    let shown = dots[dotsShown].canvas
                    var opaque = 0
                    for y in 0..<shown.size.height { for x in 0..<shown.size.width where shown.row(y)[x] >> 24 != 0 { opaque += 1 } }
                    row.dotsBufferPixels = opaque
                }
                // Again with every plane's setting sent, not only the changed ones.
                committer.resendAll()
                _ = try planesFrame(at)
                try committer.commit([], capture: DRMWriteback.Capture(writeback: writeback, buffer: capture))
                row.writebackPlanesAllSent = Self.difference(capture.canvas, reference)

                // Where the planes' frame is off, whether it is the dots missing altogether.
                let withoutDots = PixelImage(size: output)
                compositor.compose(Scene(layers: sceneAt(at).layers, indicator: nil), into: withoutDots.canvas,
                                   picture: { self.picture(of: $0, at: at) })
                row.writebackPlanesWithoutDots = Self.difference(capture.canvas, withoutDots)
            }
            try cpuFrame(at)
            try committer.commit([], capture: DRMWriteback.Capture(writeback: writeback, buffer: capture))
            row.writebackCPU = Self.difference(capture.canvas, reference)
        }
        try committer.commit(backgroundSettings())
        // The planes no longer show the dots' buffers: they may go now (their IDs are the kernel's to reuse).
        withExtendedLifetime(dots) {}
        for buffer in dots { committer.forget(framebuffer: buffer.framebufferID) }
        return row
    }

    /// Slide `index`'s frame; the Ken Burns slide's rectangle at `t` of its way.
    private func picture(of layer: Scene.Layer, at t: Double) -> LayerPicture? {
        guard case .slide(let slide) = layer.content, let frame = frames[slide] else { return nil }
        return LayerPicture(frame: frame, region: slide == 2 ? Self.kenBurnsFrom.interpolated(to: Self.kenBurnsTo, by: t) : nil)
    }

    /// A test picture cheap enough to make at 4K under emulation: two
    /// gradients and integer noise, different for each seed.
    static func picture(_ size: PixelSize, seed: UInt32) -> PixelImage {
        let image = PixelImage(size: size)
        var state = seed &* 2_654_435_761
        for y in 0..<size.height {
            let row = image.canvas.row(y)
            let g = UInt32(y * 255 / max(size.height - 1, 1))
            for x in 0..<size.width {
                state = state &* 1_664_525 &+ 1_013_904_223
                let r = UInt32(x * 255 / max(size.width - 1, 1))
                let b = (seed &* 77 &+ (state >> 26)) & 0xFF
                row[x] = 0xFF00_0000 | (seed % 2 == 0 ? 255 - r : r) << 16 | g << 8 | b
            }
        }
        return image
    }

    /// The display thread's CPU time so far, in microseconds.
    static func threadCPUTime() -> Double { ThreadCPUClock.now().secondsValue * 1e6 }

    static func median(_ values: [Double]) -> Double {
        let sorted = values.sorted()
        return sorted.isEmpty ? 0 : sorted[sorted.count / 2]
    }

    /// The largest channel difference and the mean one, over the output.
    static func difference(_ captured: PixelCanvas, _ reference: PixelImage) -> PlanesBenchReport.Capture {
        var worst = 0, total = 0
        var minX = Int.max, minY = Int.max, maxX = -1, maxY = -1
        for y in 0..<reference.height {
            let a = captured.row(y)
            for x in 0..<reference.width {
                let p = a[x], q = reference[x, y]
                guard p & 0xFF_FFFF != q & 0xFF_FFFF else { continue }
                var pixelWorst = 0
                for shift in [UInt32(0), 8, 16] {
                    let d = abs(Int((p >> shift) & 0xFF) - Int((q >> shift) & 0xFF))
                    total += d
                    pixelWorst = max(pixelWorst, d)
                }
                worst = max(worst, pixelWorst)
                if pixelWorst > 2 { minX = min(minX, x); maxX = max(maxX, x); minY = min(minY, y); maxY = max(maxY, y) }
            }
        }
        return PlanesBenchReport.Capture(max: worst, mean: Double(total) / Double(reference.size.pixelCount * 3),
                                         differing: maxX < 0 ? nil : "\(maxX - minX + 1)x\(maxY - minY + 1)+\(minX)+\(minY)")
    }
}
