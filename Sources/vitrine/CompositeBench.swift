import ArgumentParser
import Logging
import VitrineCore
import VitrineRuntime
import VitrineSystem

/// What a composite display adds to a frame: the present of a span or a
/// mirror group on headless members (whose own present costs nothing), next
/// to a plain copy of one 1920x1080 frame in the same rounds.
struct CompositeBench: ParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "composite",
        abstract: "Present a 3840x1080 span over two 1920x1080 displays and a 1080p picture mirrored to 1080p and to 720p, and turn a frame onto a panel mounted turned, against a plain copy of one 1920x1080 frame.")

    @Option(help: "Timed frames per case.") var frames = 300
    @Option(help: "Untimed frames before them.") var warmup = 20

    func run() throws {
        let hd = PixelSize(width: 1920, height: 1080)
        func headless(_ size: PixelSize) -> HeadlessDisplay {
            HeadlessDisplay(size: size, previewPath: nil, logger: Logger(label: "bench"))
        }
        let source = SyntheticPhoto.make(size: hd), copy = PixelImage(size: hd)
        let wall = PixelSize(width: 3840, height: 1080)
        let span = SpannedDisplay(canvasSize: wall, members: [
            .init(display: headless(hd), region: PixelRect(x: 0, y: 0, width: 1920, height: 1080)),
            .init(display: headless(hd), region: PixelRect(x: 1920, y: 0, width: 1920, height: 1080))])
        // A wall whose second screen is coarser (its region shrunk 1.5 times) and one mounted turned.
        let coarser = SpannedDisplay(canvasSize: wall, members: [
            .init(display: headless(hd), region: PixelRect(x: 0, y: 0, width: 1920, height: 1080)),
            .init(display: headless(PixelSize(width: 1280, height: 720)), region: PixelRect(x: 1920, y: 0, width: 1920, height: 1080))])
        let turned = SpannedDisplay(canvasSize: wall, members: [
            .init(display: headless(hd), region: PixelRect(x: 0, y: 0, width: 1920, height: 1080)),
            .init(display: headless(hd.transposed), region: PixelRect(x: 1920, y: 0, width: 1920, height: 1080), rotation: .quarter)])
        let mirrorSame = MirroredDisplay(source: .init(display: headless(hd)), mirrors: [.init(display: headless(hd))])
        let mirror720 = MirroredDisplay(source: .init(display: headless(hd)),
                                        mirrors: [.init(display: headless(PixelSize(width: 1280, height: 720)))])
        // The kiosk's drawing is not timed: each group's frame is drawn once, and every round presents it.
        for display in [span, coarser, turned] as [DisplayBackend] {
            let canvas = display.acquireCanvas()!
            let wide = SyntheticPhoto.make(size: wall)
            canvas.copyPixels(from: wide.canvas)
        }
        for display in [mirrorSame, mirror720] as [DisplayBackend] { display.acquireCanvas()!.copyPixels(from: source.canvas) }
        // One output mounted turned (`output.rotation: 90`): a landscape panel on its side, whose
        // upright 1080x1920 frame is turned onto it every frame the CPU composes (`SceneRenderer`).
        let uprightFrame = SyntheticPhoto.make(size: hd.transposed), turnedPanel = PixelImage(size: hd)

        let cases: [(name: String, operation: (Int) throws -> Void)] = [
            ("memcpy of one \(hd) frame (\(hd.pixelCount * 4 / 1024 / 1024) MiB): the reference", { _ in
                copy.pixels.baseAddress!.update(from: source.pixels.baseAddress!, count: hd.pixelCount)
            }),
            ("span \(wall) over two \(hd): present", { _ in try span.present(at: MonotonicClock.now()) }),
            ("mirror \(hd) to \(hd) (source and mirror copied): present", { _ in try mirrorSame.present(at: MonotonicClock.now()) }),
            ("mirror \(hd) to 1280x720 (source copied, mirror scaled 1.5x): present", { _ in try mirror720.present(at: MonotonicClock.now()) }),
            ("span \(wall), second screen 1280x720 (region scaled 1.5x): present", { _ in try coarser.present(at: MonotonicClock.now()) }),
            ("span \(wall), second screen mounted turned 90 (1080x1920): present", { _ in try turned.present(at: MonotonicClock.now()) }),
            ("one output mounted turned 90: its upright \(hd.transposed) frame turned onto the \(hd) panel", { _ in
                ExifOrientation.right.draw(uprightFrame, into: turnedPanel.canvas)
            }),
        ]
        let medians = try timeSideBySide(cases.map(\.operation), references: Array(repeating: 0, count: cases.count),
                                         rounds: frames, warmup: warmup)
        print("Presenting one frame of a composite display on headless members (the kiosk's drawing not included); median of "
              + "\(frames) frames; ratios against the same round's copy of one \(hd) frame; row kernels: \(PixelRowKernels.current)")
        print("")
        print("| operation | ms | x copy |")
        print("| --- | ---: | ---: |")
        for (index, entry) in cases.enumerated() {
            print("| \(entry.name) | \(format(medians[index].milliseconds, decimals: 2)) | \(format(medians[index].ratio, decimals: 2))x |")
        }
    }
}
