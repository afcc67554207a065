import ArgumentParser
import FoundationEssentials
import VitrineConfig
import VitrineCore
import VitrineEvdev
import VitrineRuntime

struct TouchCommand: ParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "touch", abstract: "Field tools for touch input.",
        subcommands: [TouchListCommand.self, TouchReplayCommand.self])
}

struct TouchListCommand: ParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "list", abstract: "Show every input device, how it is classified, and why.")

    @Option(help: "The directory holding the event devices.") var directory = "/dev/input"
    @Option(name: .shortAndLong, help: "A configuration whose touch.include, touch.exclude and touch.devices to apply.") var config: String?

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
        for path in paths {
            do {
                let device = try EvdevDevice(path: path)
                let (model, decision) = settings.model(for: device.description)
                let identity = device.description.identity.map { " [\($0)]" } ?? ""
                print("\(path)  \"\(device.description.name)\"\(identity)")
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
                }
            } catch {
                print("\(path)  \(error)")
            }
        }
    }
}
