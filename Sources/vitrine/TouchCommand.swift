import ArgumentParser
import FoundationEssentials
import VitrineConfig
import VitrineCore
import VitrineDRM
import VitrineEvdev
import VitrineRuntime

struct TouchCommand: ParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "touch", abstract: "Field tools for touch input.",
        subcommands: [TouchListCommand.self, TouchReplayCommand.self])
}

struct TouchListCommand: ParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "list", abstract: "Show every input device, how it is classified, and why.",
        discussion: """
            With --config, each touch device also says which output its touches page and why: configured by \
            which outputs[].touch matcher, automatic by size or bus, or by default. The outputs' sizes and which \
            are driven come from the DRM card (read only); when it cannot be read, the binding is by the \
            configuration alone and the reason is printed.
            """)

    @Option(help: "The directory holding the event devices.") var directory = "/dev/input"
    @Option(name: .shortAndLong, help: "A configuration whose touch.include, touch.exclude, touch.devices and outputs[].touch to apply.") var config: String?
    @Option(help: "The directory holding the DRM cards, for the outputs' sizes (with --config).") var dri = "/dev/dri"

    func run() throws {
        let configuration = try config.map { path in
            do { return try ConfigLoader.load(file: path) } catch { throw ValidationError("\(error)") }
        }
        let settings = TouchInputSettings(configuration?.touch ?? TouchConfiguration(),
                                          rotation: DisplayRotation(rawValue: configuration?.output.rotation ?? 0) ?? .none,
                                          output: configuration?.outputSize ?? PixelSize(width: 1920, height: 1080))
        let paths = EvdevDevice.devicePaths(in: directory)
        guard !paths.isEmpty else {
            print("no input devices: \(directory) has no event*")
            throw ExitCode(1)
        }
        let listed = paths.map { path in
            Result { () throws(EvdevError) in try EvdevDevice(path: path).description }.map { ($0, settings.model(for: $0)) }
        }
        // The binding needs every touch device at once: the automatic rule looks for the only one.
        let (bindings, placements) = configuration.map { outputBindings(for: listed, configuration: $0) } ?? ([:], [:])
        for (path, entry) in zip(paths, listed) {
            guard case .success(let (device, (model, decision))) = entry else {
                if case .failure(let error) = entry { print("\(path)  \(error)") }
                continue
            }
            let identity = device.identity.map { " [\($0)]" } ?? ""
            print("\(path)  \"\(device.name)\"\(identity)")
            switch decision.status {
            case .used: print("  uses it as \(decision.kind?.rawValue ?? ""): \(decision.reason)")
            case .unsupported: print("  cannot use it: \(decision.reason)")
            case .notTouch, .leftOut: print("  does not use it: \(decision.reason)")
            }
            if let mapper = model?.mapper {
                let size = mapper.xAxis.lengthMillimetres.flatMap { w in mapper.yAxis.lengthMillimetres.map { "\(Int(w.rounded()))x\(Int($0.rounded())) mm" } }
                print("  x \(mapper.xAxis.minimum)...\(mapper.xAxis.maximum), y \(mapper.yAxis.minimum)...\(mapper.yAxis.maximum)"
                      + (size.map { ", \($0)" } ?? ", no resolution reported: thresholds assume 96 dpi"))
                if let pattern = decision.calibratedBy {
                    print("  calibration \(mapper.calibration) from touch.devices (\"\(pattern)\")")
                }
                // What outputs[].touch can match besides the name and vendor:product.
                let bus = device.identity.map { "bus \($0.busName)" }
                let phys = device.physicalPath.flatMap { $0.isEmpty ? nil : "phys \($0)" }
                if bus != nil || phys != nil { print("  " + [bus, phys].compactMap { $0 }.joined(separator: ", ")) }
            }
            if let assignment = bindings[path] {
                print("  output: \(assignment.output ?? "none"): \(assignment.reason)")
                // A canvas screen's touches land on its part of the picture alone.
                if let placement = assignment.output.flatMap({ placements[$0] }) {
                    print("  touches land on its part of the canvas: \(placement)")
                }
            }
        }
    }

    /// Each touch device's output, by path: the outputs as the card plans
    /// them when it can be read, else as the configuration lists them; and
    /// each planned output's part of a canvas, by name.
    private func outputBindings(for listed: [Result<(InputDeviceDescription, (model: TouchDeviceModel?, decision: TouchDeviceSelection.Decision)), EvdevError>],
                                configuration: KioskConfiguration)
        -> (bindings: [String: TouchOutputBinding.Assignment], placements: [String: CanvasPlacement]) {
        var touch: [(path: String, device: TouchOutputBinding.Device)] = []
        for (path, entry) in zip(EvdevDevice.devicePaths(in: directory), listed) {
            if case .success(let (description, (_, decision))) = entry, let kind = decision.kind {
                touch.append((path, TouchOutputBinding.Device(description, kind: kind)))
            }
        }
        let card = plannedCard(configuration)
        var outputs: [TouchOutputBinding.Output]
        var placements: [String: CanvasPlacement] = [:]
        switch card {
        case .success(let (path, drm, plan)):
            for output in plan.driven + plan.waiting {
                if case .canvas(let placement) = output.showing { placements[output.connector] = placement }
            }
            if let layout = configuration.outputs {
                var context = TouchOutputContext(taken: [], outputs: layout.outputs.map { TouchOutputBinding.Output(name: $0.name, touch: $0.touch) })
                context.plan(plan, connectors: drm.planConnectors)
                outputs = context.outputs
            } else {
                let one = plan.driven.first.map(\.connector)
                let connector = drm.planConnectors.first { $0.name == one }
                outputs = one.map { [TouchOutputBinding.Output(name: $0, size: connector?.size)] } ?? []
            }
            let sizes = outputs.map { output in
                "\(output.name)" + (output.isDriven ? output.size.map { " \($0)" } ?? " (no size reported)" : " (not driven)")
            }
            print("outputs (\(path)): " + (sizes.isEmpty ? "none driven" : sizes.joined(separator: ", ")))
        case .failure(let reason):
            print("outputs: unknown (\(reason)); bound by the configuration alone")
            outputs = configuration.outputs?.outputs.map { TouchOutputBinding.Output(name: $0.name, touch: $0.touch) }
                ?? [TouchOutputBinding.Output(name: "the one output")]
        }
        let binding = TouchOutputBinding(devices: touch.map(\.device), outputs: outputs)
        return (Dictionary(uniqueKeysWithValues: zip(touch.map(\.path), binding.assignments)), placements)
    }

    /// The card the kiosk would drive (`output.card`, else the first whose
    /// plan drives an output), its connectors and its plan; or why there is none.
    private func plannedCard(_ configuration: KioskConfiguration) -> Result<(String, DRMOutputs, OutputPlan), PlainReason> {
        let cards = configuration.output.card.map { [$0] } ?? DRMCard.cardPaths(in: dri)
        guard !cards.isEmpty else { return .failure(PlainReason(DRMError.noCard(directory: dri).description)) }
        var reasons: [String] = []
        for path in cards {
            do {
                let outputs = try DRMCard(path: path).outputs()
                let plan = outputs.plan(configuration.outputs, single: configuration.singleOutput)
                if !plan.driven.isEmpty { return .success((path, outputs, plan)) }
                reasons.append("\(path): drives no output")
            } catch {
                reasons.append("\(error)")
            }
        }
        return .failure(PlainReason(reasons.joined(separator: "; ")))
    }
}

/// A reason in words, as a `Result`'s failure.
private struct PlainReason: Error, CustomStringConvertible {
    let description: String
    init(_ description: String) { self.description = description }
}
