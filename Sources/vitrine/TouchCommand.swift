import ArgumentParser
import Foundation
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
    @Option(name: .shortAndLong, help: "A configuration whose touch.include/exclude to apply.") var config: String?

    func run() throws {
        let configuration = try config.map { path in
            do { return try ConfigLoader.load(file: path) } catch { throw ValidationError("\(error)") }
        }
        let settings = TouchInputSettings(include: configuration?.touch.include ?? [], exclude: configuration?.touch.exclude ?? [],
                                          output: configuration?.outputSize ?? PixelSize(width: 1920, height: 1080))
        let paths = EvdevDevice.devicePaths(in: directory)
        guard !paths.isEmpty else {
            print("no input devices: \(directory) has no event*")
            throw ExitCode(1)
        }
        for path in paths {
            do {
                let device = try EvdevDevice(path: path)
                let classification = TouchDeviceClassification(device.description)
                var verdict = classification.kind.map { "uses it as \($0.rawValue)" } ?? "does not use it"
                if classification.kind != nil, let why = settings.exclusion(of: device.description.name) {
                    verdict = "does not use it: \(why)"
                }
                print("\(path)  \"\(device.description.name)\"")
                print("  \(verdict); \(classification.reason)")
                if let kind = classification.kind {
                    let mapper = settings.mapper(for: device.description, kind: kind)
                    let size = mapper.xAxis.lengthMillimetres.flatMap { w in mapper.yAxis.lengthMillimetres.map { "\(Int(w.rounded()))x\(Int($0.rounded())) mm" } }
                    print("  x \(mapper.xAxis.minimum)...\(mapper.xAxis.maximum), y \(mapper.yAxis.minimum)...\(mapper.yAxis.maximum)"
                          + (size.map { ", \($0)" } ?? ", no resolution reported: thresholds assume 96 dpi"))
                }
            } catch {
                print("\(path)  \(error)")
            }
        }
    }
}
