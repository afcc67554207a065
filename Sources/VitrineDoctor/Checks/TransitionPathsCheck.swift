import VitrineCore

/// For one output: which path each kind of frame would take, planes or the
/// CPU, as `PlanePlanner` decides from the planes the output can use and
/// what the driver is known for (`PlaneDriverTraits`), and why not planes.
///
/// It is the model's decision, not a test commit: the doctor runs beside the
/// kiosk without DRM master. `vitrine bench planes`, with the kiosk stopped,
/// tests the plans on the card and measures the CPU time per frame of both
/// paths (docs/raspberry-pi.md).
enum TransitionPaths {
    /// Representative frames at `output`: halfway through a slide transition
    /// and a crossfade, and a Ken Burns slide (its frame a quarter larger,
    /// zoomed in), each with the page dots of a five-slide playlist.
    static func section(planes: [DisplayPlane], driver: String, output: PixelSize, refreshHz: Double,
                        mode: PlanePlanner.Mode = .auto) -> DoctorSection {
        let planner = PlanePlanner(planes: planes, traits: .of(driver: driver), refreshHz: refreshHz, mode: mode)
        func slide(_ index: Int, offset: Double = 0, opacity: Double = 1) -> Scene.Layer {
            Scene.Layer(content: .slide(index), offset: offset, opacity: opacity)
        }
        let kinds: [(String, [Scene.Layer])] = [
            ("slide transition", [slide(0, offset: -0.5), slide(1, offset: 0.5)]),
            ("crossfade", [slide(0), slide(1, opacity: 0.5)]),
            ("Ken Burns", [slide(2)]),
        ]
        let larger = PixelSize(width: output.width * 5 / 4, height: output.height * 5 / 4)
        var facts: [DoctorFact] = []
        var onPlanes = 0
        for (name, layers) in kinds {
            let stack = LayerStack(scene: Scene(layers: layers, indicator: IndicatorState(count: 5, position: 0.5)), output: output,
                                   indicator: IndicatorStyle()) { layer in
                guard case .slide(let index) = layer.content else { return nil }
                return index == 2 ? LayerStack.Picture(frameSize: larger, region: FrameRect(x: 0.1, y: 0.1, width: 0.7, height: 0.7))
                    : LayerStack.Picture(frameSize: output)
            }
            let plan = planner.plan(for: stack)
            if plan.path == "planes" { onPlanes += 1 }
            var value = plan.path + ", \(plan.overlays.count) overlay\(plan.overlays.count == 1 ? "" : "s")"
            value += ", \(gigabytes(plan.bytesPerRefresh * refreshHz)) GB/s read"
            if let refusal = planner.refusal(for: stack) { value += "; not on planes: \(refusal)" }
            facts.append(DoctorFact(name, value))
        }
        return DoctorSection(id: "transitions", title: "Transitions at \(output.width)x\(output.height)",
                             summary: "\(onPlanes) of \(kinds.count) kinds of frame on planes (the model's decision; "
                                 + "`vitrine bench planes` tests and times them)", facts: facts)
    }

    private static func gigabytes(_ bytes: Double) -> String {
        let hundredths = Int((bytes / 1e7).rounded())
        return "\(hundredths / 100).\(hundredths % 100 < 10 ? "0" : "")\(hundredths % 100)"
    }
}
