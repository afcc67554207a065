import Dispatch
import FoundationEssentials
import Glibc
import Logging
import VitrineConfig
import VitrineCore
import VitrineDRM
import VitrineDoctor
import VitrineJPEG
import VitrineRuntime

/// `vitrine doctor --pacing SECONDS`: the kiosk itself, on each connected
/// output of each card in turn, showing a slide transition, a crossfade and a
/// Ken Burns slide for SECONDS each, with the page dots, on the display path
/// it uses for real (the planes where the output has them, `output.planes`);
/// then what its metrics counted: the gaps between consecutive frames of each
/// motion, and each frame's path and CPU time.
///
/// It needs DRM master, so the kiosk must be stopped first (`systemctl stop
/// vitrine`); an output it cannot open is listed with the reason. The
/// pictures are made here (two synthetic photos at the output's size), so the
/// run is the same on every board.
struct PacingRun {
    let seconds: Int
    let planes: PlaneOptions
    let logger: Logger

    /// The kinds of frame, as configuration: each a playlist that moves for the whole run.
    static let kinds: [(name: String, motion: FrameMotion, yaml: String)] = [
        ("slide transition", .transition, "slides: [a.jpg, b.jpg]\ninterval: 1s\ntransition: {type: slide, duration: 600ms}\n"),
        ("crossfade", .transition, "slides: [a.jpg, b.jpg]\ninterval: 1s\ntransition: {type: crossfade, duration: 600ms}\n"),
        ("Ken Burns", .kenBurns,
         "slides:\n  - {path: a.jpg, kenBurns: {from: [0, 0, 1, 1], to: [0.3, 0.2, 0.6, 0.6], easing: linear}}\n"
             + "  - b.jpg\ninterval: 10m\n"),
    ]

    /// One subsection per connected output of every card; the reason where one cannot be driven.
    func section() -> DoctorSection {
        var outputs: [(name: String, mode: String, figures: [PacingFigures])] = []
        var refusals: [String] = []
        for path in DRMCard.cardPaths() {
            // A card that lists no connectors is a render node's (v3d on a Raspberry Pi), not a display: skipped.
            guard let connectors = try? DRMCard(path: path).connectors().filter({ $0.status == .connected && !$0.modes.isEmpty })
            else { continue }
            for connector in connectors {
                do {
                    let (mode, figures) = try measure(card: path, connector: connector.name)
                    outputs.append(("\(path) \(connector.name)", mode, figures))
                } catch DRMError.masterHeld {
                    refusals.append("\(path) \(connector.name): another process holds the display (a running kiosk: stop it first)")
                } catch {
                    refusals.append("\(path) \(connector.name): \(error)")
                }
            }
        }
        var section = PacingReport.section(outputs: outputs, seconds: seconds)
        if !refusals.isEmpty {
            section.findings += refusals.map { "Not measured: \($0)." }
            if section.status == .ok { section.status = .warning }
        }
        return section
    }

    /// Each kind of frame for `seconds` on one output: its mode, and what the kiosk's metrics counted.
    private func measure(card: String, connector: String) throws -> (String, [PacingFigures]) {
        let directory = FileManager.default.temporaryDirectory.path + "/vitrine-pacing-\(getpid())"
        try FileManager.default.createDirectory(atPath: directory, withIntermediateDirectories: true)
        defer { try? FileManager.default.removeItem(atPath: directory) }
        var figures: [PacingFigures] = []
        var modeName = ""
        for kind in Self.kinds {
            let scanout = try DRMScanout(card: try DRMCard(path: card), connectorName: connector)
            modeName = "\(scanout.mode)"
            if figures.isEmpty {
                // The pictures at the output's size, made once: what the run shows.
                for (name, seed) in [("a.jpg", 1), ("b.jpg", 2)] {
                    let photo = SyntheticPhoto.make(size: scanout.size, variant: UInt32(seed))
                    try Data(try JPEGEncoder().encode(photo, quality: 90)).write(to: URL(fileURLWithPath: "\(directory)/\(name)"))
                }
            }
            let configuration = try ConfigLoader.parse(kind.yaml + "output: {display: drm}\n", baseDirectory: directory)
            let display = DRMDisplay(scanout: scanout, modeRequest: nil, planes: planes, logger: logger)
            let kiosk = try Kiosk(configuration: configuration, display: display, logger: logger, decoder: InProcessSlideDecoder(),
                                  takesSignals: false)
            let stop = kiosk.stopHandle, seconds = seconds
            DispatchQueue.global().asyncAfter(deadline: .now() + .seconds(seconds)) { stop.stop() }
            // Runs until stopped, then gives the CRTC back for the next kind.
            try kiosk.run()
            let snapshot = kiosk.metrics.snapshot
            let gaps = snapshot.frameGaps[kind.motion] ?? KioskMetrics.GapHistogram()
            figures.append(PacingFigures(
                kind: kind.name, refreshHz: scanout.mode.refreshHertz, gapBounds: KioskMetrics.frameGapBuckets,
                gapCounts: gaps.bucketCounts,
                paths: FramePath.allCases.map { path in
                    let work = snapshot.frameCPU[path] ?? KioskMetrics.GapHistogram()
                    return (path.rawValue, work.count, work.seconds)
                }))
        }
        return (modeName, figures)
    }
}
