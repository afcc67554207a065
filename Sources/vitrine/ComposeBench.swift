import ArgumentParser
import FoundationEssentials
import Logging
import VitrineCore
import VitrineRuntime

struct ComposeBench: ParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "compose",
        abstract: "Compose 1920x1080 frames (resting, sliding, crossfading) against a plain copy of one frame.")

    @Option(help: "Timed frames per case.") var frames = 300

    func run() throws {
        let size = PixelSize(width: 1920, height: 1080)
        let slides = [SyntheticPhoto.make(size: size), SyntheticPhoto.make(size: size)]
        let target = PixelImage(size: size)
        let compositor = Compositor(background: .black, indicator: IndicatorStyle())
        let indicator = IndicatorState(count: 6, position: 0.4)
        let cases: [(name: String, scene: Scene)] = [
            ("resting slide + indicator", Scene(layers: [Scene.Layer(content: .slide(0))], indicator: indicator)),
            ("slide transition (2 layers) + indicator", Scene(layers: [
                Scene.Layer(content: .slide(0), offset: -0.4), Scene.Layer(content: .slide(1), offset: 0.6)], indicator: indicator)),
            ("crossfade (2 layers blended) + indicator", Scene(layers: [
                Scene.Layer(content: .slide(0)), Scene.Layer(content: .slide(1), opacity: 0.4)], indicator: indicator)),
        ]
        func frame(_ content: SlideContent) -> PixelImage? {
            if case .slide(let index) = content { return slides[index] }
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
        // Every round times each operation once, in an order that rotates from
        // round to round, and every round alternates which slide comes first: all
        // operations see the same memory and the same machine noise. Ratios are
        // taken within a round, against that round's plain copy.
        var operations: [(Int) throws -> Void] = [{ iteration in
            target.pixels.baseAddress!.update(from: slides[iteration % 2].pixels.baseAddress!, count: size.pixelCount)
        }]
        for entry in cases {
            operations.append { iteration in compositor.compose(swapped(entry.scene, iteration), into: target.canvas, frame: frame) }
        }
        operations.append { iteration in
            // Compose into the display's own buffer and present it, as the kiosk loop does.
            compositor.compose(swapped(cases[1].scene, iteration), into: display.acquireCanvas()!, frame: frame)
            try display.present(at: MonotonicClock.now())
        }
        var samples = Array(repeating: [Duration](), count: operations.count)
        var ratios = Array(repeating: [Double](), count: operations.count)
        for round in 0..<(frames + 20) {
            var times = Array(repeating: Duration.zero, count: operations.count)
            for step in operations.indices {
                let index = (step + round) % operations.count
                times[index] = try timeInProcess { try operations[index](round) }
            }
            guard round >= 20 else { continue }
            for index in operations.indices {
                samples[index].append(times[index])
                ratios[index].append(Double(times[index].nanoseconds) / Double(max(times[0].nanoseconds, 1)))
            }
        }
        func medianRatio(_ values: [Double]) -> Double { values.sorted()[values.count / 2] }
        let copyTimes = samples[0]
        let caseTimes = Array(samples[1...cases.count])
        let presentTimes = samples[cases.count + 1]
        let copy = medianMilliseconds(copyTimes)
        print("Composing one \(size) XRGB8888 frame; median of \(frames) frames")
        print("")
        print("| operation | median ms | median ratio to the same round's copy |")
        print("| --- | ---: | ---: |")
        print("| memcpy of one frame (\(size.pixelCount * 4 / 1024 / 1024) MiB) | \(format(copy, decimals: 2)) | 1.00x |")
        for (index, entry) in cases.enumerated() {
            let median = medianMilliseconds(caseTimes[index])
            print("| \(entry.name) | \(format(median, decimals: 2)) | \(format(medianRatio(ratios[index + 1]), decimals: 2))x |")
        }
        let present = medianMilliseconds(presentTimes)
        print("| compose slide transition + present (headless) | \(format(present, decimals: 2)) | \(format(medianRatio(ratios[cases.count + 1]), decimals: 2))x |")
        print("")
        print("Sustained transition frame rate on the headless backend (compose + present, no vsync): \(format(1000 / present, decimals: 0)) frames/s")
    }
}
