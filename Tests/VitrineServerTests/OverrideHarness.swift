import Foundation
import Hummingbird
import HummingbirdTesting
import Logging
import VitrineConfig
import VitrineCore
@testable import VitrineRuntime
@testable import VitrineAssembly
@testable import VitrineHTTP
@testable import VitrineState

/// The remote side of a kiosk whose display thread never runs: what the API
/// sends it stays in its `KioskControl`, for `commands()` to take. A second
/// harness on the same state directory is the kiosk after a restart.
final class OverrideHarness: @unchecked Sendable {
    let directory: String
    let stateDirectory: String
    let api: APIServices
    private let assembly: KioskAssembly
    /// A picture on the kiosk, by absolute path.
    let picturePath: String

    /// - Parameter groups: one headless display per output group, each saying it drives that connector; nil: one, plainly headless.
    init(stateDirectory: String? = nil, groups: [String]? = nil) throws {
        directory = NSTemporaryDirectory() + "vitrine-override-test-" + UUID().uuidString
        try FileManager.default.createDirectory(atPath: directory, withIntermediateDirectories: true)
        picturePath = directory + "/red.jpg"
        try ServerHarness.jpeg(ServerHarness.colors["red"]!).write(to: picturePath)
        let configPath = directory + "/vitrine.yaml"
        try Array(ServerHarness.defaultYAML.replacingOccurrences(of: "[red.jpg, green.jpg]", with: "[red.jpg]").utf8).write(to: configPath)
        self.stateDirectory = stateDirectory ?? directory + "/state"
        // Built as `vitrine run` builds it; the display thread never runs, so what the
        // API sends stays in the kiosk's control for `commands()` to take.
        let logger = Logger(label: "test")
        let openDisplays: (KioskConfiguration) throws -> KioskDisplays = { configuration in
            let headless = { HeadlessDisplay(size: configuration.outputSize, previewPath: nil, logger: logger) }
            guard let groups else { return KioskDisplays(headless()) }
            return KioskDisplays(groups: groups.map {
                OutputDisplay(display: ConnectorDisplay(headless(), connector: $0), shown: OutputShown(output: $0))
            })
        }
        assembly = try KioskAssembly(configFile: configPath, stateDirectory: self.stateDirectory, logger: logger,
                                     options: KioskAssemblyOptions(openDisplays: openDisplays, decoder: InProcessSlideDecoder(), pictures: InProcessPictureInspector()))
        api = assembly.api
    }

    /// Removes this harness's files (its state directory too, unless it was given one).
    func close() {
        try? FileManager.default.removeItem(atPath: directory)
    }

    /// What was sent to the display thread (of the group `group`, the first by default) since the last call.
    func commands(group: Int = 0) -> [KioskCommand] {
        // The assembly joins its loops through an OutputGroupsLink; each loop is the
        // runtime's, so its queue can be read here.
        guard let link = api.link as? OutputGroupsLink else { return (api.link as? KioskControl)?.takeCommands() ?? [] }
        return link.groups[group].control.takeCommands()
    }

    /// The overrides sent, in order (nil: "end the one showing").
    func overridesSent(group: Int = 0) -> [KioskOverride?] {
        overridesAndFallbacksSent(group: group).map(\.override)
    }

    /// The overrides sent with their fallbacks, in order.
    func overridesAndFallbacksSent(group: Int = 0) -> [StoredOverrides.Shown] {
        commands(group: group).compactMap {
            if case .setOverride(let override, let fallback) = $0 { return StoredOverrides.Shown(override: override, fallback: fallback) }
            return nil
        }
    }

    func application() -> some ApplicationProtocol {
        Application(router: APIServer.router(api, token: ServerHarness.token))
    }

    var overrideFile: String { stateDirectory + "/override.json" }
}
