import ArgumentParser
import FoundationEssentials
import Glibc
import VitrineCore
import VitrineDRM

/// The planes path against the CPU path on a real card, frame by frame: for a
/// slide at rest, a slide transition, a crossfade and a Ken Burns slide (each
/// with the page dots), the plan the planner takes (tested with
/// `DRM_MODE_ATOMIC_TEST_ONLY`), the display thread's CPU time per frame on
/// that plan and on the CPU's, side by side in one run, and, where the card
/// has a writeback connector, the composed output of both against the
/// compositor's frame. Needs the card to itself (DRM master): VKMS in the VM.
struct PlanesBench: ParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "planes",
        abstract: "Transition frames on a card's planes and composed on the CPU, side by side (CPU time, path, writeback).")

    @Option(help: "The card, e.g. /dev/dri/card1.") var card: String?
    @Option(help: "The first card whose driver has this name, e.g. vkms.") var driver: String?
    @Option(help: "The mode, WIDTHxHEIGHT.") var size = "1920x1080"
    @Option(help: "Timed frames of each kind on each path.") var frames = 10
    @Option(help: "Compose on the CPU only (the output.planes: cpu setting).") var mode: String = "auto"
    @Option(help: "Write the figures as JSON here.") var json: String?

    func run() throws {
        guard let output = PixelSize(parsing: size) else { throw ValidationError("bad --size \(size): expected WIDTHxHEIGHT") }
        guard let planesMode = PlanePlanner.Mode(rawValue: mode) else { throw ValidationError("bad --mode \(mode): auto or cpu") }
        let path = try cardPath()
        let card = try DRMCard(path: path)
        try card.acquireMaster()
        guard card.enableAtomic() else { throw ValidationError("\(path) (\(card.driver)) has no atomic modesetting") }
        let outputs = try card.outputs()
        guard let (connector, routed) = outputs.singleOutput, let crtcIndex = routed else {
            throw ValidationError("\(path): no connected output with a CRTC")
        }
        let matching = connector.modes.filter { $0.width == output.width && $0.height == output.height }
        guard let displayMode = matching.min(by: { abs($0.refreshMillihertz - 60_000) < abs($1.refreshMillihertz - 60_000) }) else {
            throw ValidationError("\(connector.name) has no \(size) mode; it has \(connector.modes.map(\.description).joined(separator: ", "))")
        }
        let planes = (try card.planeDetails() ?? []).filter { $0.plane.canFeed(crtc: crtcIndex) }.map(\.displayPlane)
        let committer = try DRMPlaneCommitter(card: card, connectorID: connector.id, crtcID: outputs.crtcIDs[crtcIndex],
                                              planeIDs: planes.map(\.id))
        let writeback = try DRMWriteback.find(on: card)
        let planner = PlanePlanner(planes: planes, traits: .of(driver: card.driver),
                                   refreshHz: Double(displayMode.refreshMillihertz) / 1000, mode: planesMode)
        let bench = try PlanesBenchRun(card: card, output: output, planes: planes, committer: committer, writeback: writeback,
                                       planner: planner)
        try committer.modeset(displayMode, settings: bench.backgroundSettings())

        print("planes on \(path) (\(card.driver)), \(connector.name) at \(displayMode), \(planes.count) planes "
              + "(\(planes.filter { $0.kind == .overlay }.count) overlays), writeback: \(writeback == nil ? "none" : "yes")")
        print("kind                 path    CPU µs/frame planes  CPU path   ratio   writeback max/mean (planes, cpu)   why not planes")
        var report = PlanesBenchReport(card: path, driver: card.driver, connector: connector.name, mode: displayMode.description,
                                       width: output.width, height: output.height, planes: planes.count, frames: frames,
                                       writeback: writeback != nil, kinds: [])
        for (kind, sceneAt) in PlanesBenchRun.kinds {
            let row = try bench.measure(kind, sceneAt, frames: frames)
            let captures = [row.writebackPlanes, row.writebackCPU].map { $0.map { "\($0.max)/\(format($0.mean, decimals: 3))" } ?? "-" }
            print(kind.padding(20) + " " + row.path.padding(7) + " " + format(row.planesCPUMicroseconds, decimals: 0).padding(19)
                  + " " + format(row.cpuPathCPUMicroseconds, decimals: 0).padding(10) + " " + format(row.ratio, decimals: 3).padding(7)
                  + " " + captures.joined(separator: ", ").padding(34) + " " + (row.refusal ?? ""))
            report.kinds.append(row)
        }
        if let json {
            let encoder = JSONEncoder()
            encoder.outputFormatting = [.prettyPrinted, .sortedKeys]
            try encoder.encode(report).write(to: URL(fileURLWithPath: json))
        }
    }

    private func cardPath() throws -> String {
        if let card { return card }
        guard let driver else { return "/dev/dri/card0" }
        for path in DRMCard.cardPaths() {
            if let candidate = try? DRMCard(path: path), candidate.driver == driver { return path }
        }
        throw ValidationError("no DRM card with driver \(driver) in /dev/dri")
    }
}

private extension String {
    func padding(_ width: Int) -> String { count >= width ? self : self + String(repeating: " ", count: width - count) }
}
