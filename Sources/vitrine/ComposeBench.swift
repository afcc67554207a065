import ArgumentParser
import FoundationEssentials
import Logging
import VitrineCore
import VitrineFreeType
import VitrineRuntime
import VitrineSystem

struct ComposeBench: ParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "compose",
        abstract: "Compose 1920x1080 frames (resting, sliding, crossfading, Ken Burns) and resample a slide, and a 3840x2160 Ken Burns frame, on every SIMD path this CPU has, against a plain copy of one frame of the same size.")

    @Option(help: "Timed frames per case and path; 0 checks the paths' pixels and times nothing.") var frames = 300
    @Option(help: "Untimed frames before them, per path.") var warmup = 20

    func run() throws {
        let size = PixelSize(width: 1920, height: 1080)
        let slides = [SyntheticPhoto.make(size: size), SyntheticPhoto.make(size: size)]
        // A 4032x3024 phone photo after libjpeg's 1/2 DCT scaling: the resampler's usual 1-2x step to the screen.
        let decoded = SyntheticPhoto.make(size: PixelSize(width: 2016, height: 1512))
        let target = PixelImage(size: size)
        let compositor = Compositor(background: .black, indicator: IndicatorStyle())
        let indicator = IndicatorState(count: 6, position: 0.4)
        var cases: [(name: String, scene: Scene)] = [
            ("resting slide + indicator", Scene(layers: [Scene.Layer(content: .slide(0))], indicator: indicator)),
            ("slide transition (2 layers) + indicator", Scene(layers: [
                Scene.Layer(content: .slide(0), offset: -0.4), Scene.Layer(content: .slide(1), offset: 0.6)], indicator: indicator)),
            ("crossfade (2 layers blended) + indicator", Scene(layers: [
                Scene.Layer(content: .slide(0)), Scene.Layer(content: .slide(1), opacity: 0.4)], indicator: indicator)),
        ]
        // The starter's address notice (showAddress), drawn once as the kiosk does, then blended over every frame.
        let face = try FontFace()
        let notice = AddressNotice.notice(listening: .address(host: "0.0.0.0", port: 8080, https: false), addresses: [
            AddressNotice.InterfaceAddress(interface: "eth0", bytes: [192, 168, 178, 123], text: "192.168.178.123"),
        ], mdnsName: "vitrine-kiosk.local")
        let noticeImage = try NoticePainter.paint(notice, output: size, indicator: .bottomCenter, with: face)
        var withNotice = cases[0].scene
        withNotice.notice = noticeImage
        cases.append(("resting slide + indicator + address notice", withNotice))
        let fitted = PixelRect(x: 240, y: 0, width: 1440, height: 1080)
        let region = AreaResampler.SourceRegion(x: 0, y: 0, width: Double(decoded.width), height: Double(decoded.height))
        func frame(_ layer: Scene.Layer) -> PixelImage? {
            if case .slide(let index) = layer.content { return slides[index] }
            return nil
        }
        func swapped(_ scene: Scene, _ iteration: Int) -> Scene {
            guard iteration % 2 == 1 else { return scene }
            var copy = scene
            for index in copy.layers.indices {
                if case .slide(let slide) = copy.layers[index].content { copy.layers[index].content = .slide(1 - slide) }
            }
            return copy
        }
        let display = HeadlessDisplay(size: size, previewPath: nil, logger: Logger(label: "bench"))
        var names = ["memcpy of one frame (\(size.pixelCount * 4 / 1024 / 1024) MiB)"]
        // Each operation's ratio is taken against the plain copy of a frame of its own size.
        var references = [0]
        var operations: [(Int) throws -> Void] = [{ iteration in
            target.pixels.baseAddress!.update(from: slides[iteration % 2].pixels.baseAddress!, count: size.pixelCount)
        }]
        for entry in cases {
            names.append(entry.name)
            references.append(0)
            operations.append { iteration in compositor.compose(swapped(entry.scene, iteration), into: target.canvas, frame: frame) }
        }
        names.append("compose slide transition + present (headless)")
        references.append(0)
        operations.append { iteration in
            // Compose into the display's own buffer and present it, as the kiosk loop does.
            compositor.compose(swapped(cases[1].scene, iteration), into: display.acquireCanvas()!, frame: frame)
            try display.present(at: MonotonicClock.now())
        }
        names.append("draw the address notice for 1920x1080 (FreeType, 4 lines)")
        references.append(0)
        operations.append { _ in _ = try NoticePainter.paint(notice, output: size, indicator: .bottomCenter, with: face) }
        names.append("resample a 2016x1512 slide to 1440x1080 (area, 1.4x)")
        references.append(0)
        operations.append { _ in AreaResampler.resample(decoded, region: region, into: target.canvas, at: fitted) }

        // Ken Burns: a slide's frame decoded 1.25 times the output (a seeded
        // choice's default closest zoom), moving from the whole frame (shrunk
        // 1.25x) to its closest view (1:1); each frame is a step further on.
        let motion = KenBurnsMotion(from: .whole, to: FrameRect(x: 0.1, y: 0.15, width: 0.8, height: 0.8),
                                    duration: .seconds(1), easing: .linear)
        func kenBurnsPicture(_ stored: PixelImage, _ iteration: Int) -> LayerPicture {
            LayerPicture(frame: stored, region: motion.rect(at: LayerPlayback(elapsed: .milliseconds(Int64(iteration % 60) * 1000 / 60))))
        }
        let stored = SyntheticPhoto.make(size: PixelSize(width: 2400, height: 1350))
        let resting = Scene(layers: [Scene.Layer(content: .slide(0))], indicator: indicator)
        names.append("Ken Burns slide at rest + indicator (2400x1350 frame, zoom 1-1.25)")
        references.append(0)
        operations.append { iteration in
            compositor.compose(resting, into: target.canvas) { _ in kenBurnsPicture(stored, iteration) }
        }
        names.append("Ken Burns slide transition (2 layers, one Ken Burns) + indicator")
        references.append(0)
        operations.append { iteration in
            compositor.compose(cases[1].scene, into: target.canvas) { layer in
                layer.content == .slide(0) ? kenBurnsPicture(stored, iteration) : LayerPicture(frame: slides[1])
            }
        }
        let large = PixelSize(width: 3840, height: 2160)
        let largeSlide = SyntheticPhoto.make(size: large), largeTarget = PixelImage(size: large)
        let largeStored = SyntheticPhoto.make(size: PixelSize(width: 4800, height: 2700))
        names.append("memcpy of one \(large) frame (\(large.pixelCount * 4 / 1024 / 1024) MiB)")
        let largeCopy = operations.count
        references.append(largeCopy)
        operations.append { _ in largeTarget.pixels.baseAddress!.update(from: largeSlide.pixels.baseAddress!, count: large.pixelCount) }
        names.append("Ken Burns slide at rest at \(large) + indicator (4800x2700 frame)")
        references.append(largeCopy)
        operations.append { iteration in
            compositor.compose(resting, into: largeTarget.canvas) { _ in kenBurnsPicture(largeStored, iteration) }
        }
        let kenBurnsRows = (operations.count - 4)..<operations.count
        precondition(references.count == operations.count && names.count == operations.count)

        // Every path must give the portable path's pixels: checked here on the
        // benchmark's own frames before anything is timed.
        let paths = PixelRowKernels.available
        let initial = PixelRowKernels.current
        defer { PixelRowKernels.select(initial) }
        var outputs: [String: [[UInt32]]] = [:]
        for path in paths {
            PixelRowKernels.select(path)
            outputs[path] = [2, 3, 5, 6, 7, 9].map { index in
                try? operations[index](7)
                return Array(index == 9 ? largeTarget.pixels : target.pixels)
            }
        }
        let different = paths.filter { outputs[$0] != outputs["portable"] }
        guard different.isEmpty else {
            throw ValidationError("the \(different.joined(separator: ", ")) kernels give other pixels than the portable ones")
        }

        guard frames > 0 else {
            print("Paths on this CPU: \(paths.joined(separator: ", ")) (\(initial) is the one the kiosk uses)")
            print("Each path's frames and resampled slide equal the portable path's; nothing timed (--frames 0)")
            return
        }

        // Every round times each operation once, in an order that rotates from
        // round to round, and every round alternates which slide comes first: all
        // operations see the same memory and the same machine noise. Ratios are
        // taken within a round, against that round's plain copy.
        var medians: [String: [(milliseconds: Double, ratio: Double)]] = [:]
        for path in paths {
            PixelRowKernels.select(path)
            medians[path] = try timeSideBySide(operations, references: references, rounds: frames, warmup: warmup)
        }
        print("Composing one \(size) XRGB8888 frame (and \(large) in the last two rows); median of \(frames) frames per path; "
              + "each path's pixels equal the portable path's; ratios against the same round's copy of a frame of the same size")
        print("Paths on this CPU: \(paths.joined(separator: ", ")) (\(initial) is the one the kiosk uses)")
        print("")
        print("| operation | " + paths.map { "\($0) ms | \($0) x copy" }.joined(separator: " | ") + " |")
        print("| --- |" + String(repeating: " ---: | ---: |", count: paths.count))
        for (index, name) in names.enumerated() {
            let cells = paths.map { path in
                let median = medians[path]![index]
                return "\(format(median.milliseconds, decimals: 2)) | \(format(median.ratio, decimals: 2))x"
            }
            print("| \(name) | " + cells.joined(separator: " | ") + " |")
        }
        let present = medians[initial]![cases.count + 1].milliseconds
        print("")
        print("Sustained transition frame rate on the headless backend with \(initial) (compose + present, no vsync): \(format(1000 / present, decimals: 0)) frames/s")
        let kenBurns = kenBurnsRows.map { medians[initial]![$0].milliseconds }
        print("Ken Burns frames with \(initial): \(format(1000 / kenBurns[0], decimals: 0)) frames/s at \(size), "
              + "\(format(1000 / kenBurns[3], decimals: 0)) frames/s at \(large) (compose only, one core)")
    }
}
