import Foundation
import Hummingbird
import HummingbirdTesting
import Testing
import VitrineConfig
import VitrineCore
import VitrinePNG
@testable import VitrineState

/// A kiosk whose local file has an `outputs` section: the one output this build
/// drives shows what that section gives it (its playlist, fit and rotation),
/// at start and after every push; and `outputs`, like `output`, belongs to the
/// local file.
@Suite("outputs: the driven output, and pushes")
struct OutputsPushTests {
    /// Two outputs: HDMI-A-1 shows lobby (red), DSI-1 is a portrait panel showing menu (green, blue).
    static let yaml = """
        schedule:
          playlists:
            lobby: [red.jpg]
            menu: [green.jpg, blue.jpg]
          otherwise: lobby
        interval: 10m
        autoplay: false
        transition: {type: cut}
        outputs:
          - {name: HDMI-A-1, playlist: lobby}
          - {name: DSI-1, playlist: menu, rotation: 90}
        output: {display: headless, width: 64, height: 48}
        api: {listen: "127.0.0.1:0", token: \(ServerHarness.token), allowAddresses: [loopback]}
        """
    static let yamlType: HTTPFields = authorized([.contentType: "application/yaml"])

    func screenshotSize(_ client: some TestClientProtocol) async throws -> PixelSize {
        try await client.execute(uri: "/api/v1/screenshot", method: .get, headers: authorized()) { response in
            try PNGCodec.decode(Array(response.body.readableBytesView)).size
        }
    }

    @Test func theDrivenOutputShowsItsPlaylistTurnedItsWay() async throws {
        let panel = try ServerHarness(yaml: Self.yaml, connector: "DSI-1")
        defer { panel.close() }
        // menu's two slides, laid out upright for the panel turned a quarter: 48x64.
        #expect(await panel.eventually { panel.api.link.status.slideCount == 2 })
        try await panel.application().test(.router) { client in
            let turned = try await screenshotSize(client)
            #expect(turned == PixelSize(width: 48, height: 64))
            // A push changes menu: the panel follows it, as DSI-1 still shows it.
            try await client.execute(uri: "/api/v1/config", method: .put, headers: Self.yamlType, body: body("""
                schedule: {playlists: {lobby: [red.jpg], menu: [green.jpg, blue.jpg, red.jpg]}, otherwise: lobby}
                autoplay: false
                """)) { response in
                #expect(response.status == .ok, "\(String(buffer: response.body))")
            }
            #expect(await panel.eventually { panel.api.link.status.slideCount == 3 })
        }
        // The stored configuration is the pushed one with the local file's outputs, whole.
        #expect(panel.store.current.configuration.outputs == (try ConfigLoader.load(file: panel.configPath)).outputs)
        #expect(panel.store.current.configuration.schedule?.playlists.map(\.name) == ["lobby", "menu"])

        // The other output: lobby's one slide, not turned.
        let tv = try ServerHarness(yaml: Self.yaml, connector: "HDMI-A-1")
        defer { tv.close() }
        #expect(await tv.eventually { tv.api.link.status.slideCount == 1 })
        try await tv.application().test(.router) { client in
            let upright = try await screenshotSize(client)
            #expect(upright == PixelSize(width: 64, height: 48))
        }
        // Headless (no connector): the programme, as without outputs.
        let headless = try ServerHarness(yaml: Self.yaml)
        defer { headless.close() }
        #expect(await headless.eventually { headless.api.link.status.slideCount == 1 })
    }

    @Test func pushesMayNotChangeOutputsNorDropWhatTheyShow() async throws {
        let harness = try ServerHarness(yaml: Self.yaml, connector: "DSI-1")
        defer { harness.close() }
        let before = harness.store.current.version
        try await harness.application().test(.router) { client in
            for (text, paths) in [
                ("schedule: {playlists: {lobby: [red.jpg], menu: [green.jpg]}, otherwise: lobby}\noutputs: [{name: HDMI-A-1}]", ["outputs"]),
                ("schedule: {playlists: {lobby: [red.jpg]}, otherwise: lobby}", ["outputs[1].playlist"]),
                ("slides: [red.jpg]", ["outputs[0].playlist", "outputs[1].playlist"]),
            ] {
                try await client.execute(uri: "/api/v1/config", method: .put, headers: Self.yamlType, body: body(text)) { response in
                    #expect(response.status == .unprocessableContent, "\(text)")
                    let issues = (json(response.body)["issues"] as? [[String: String]]) ?? []
                    #expect(issues.compactMap { $0["path"] } == paths, "\(issues)")
                    #expect(issues.allSatisfy { $0["message"]?.contains("local configuration file") == true }, "\(issues)")
                }
            }
            #expect(harness.store.current.version == before)
            // The section as GET returns it may be pushed back.
            let document = try await client.execute(uri: "/api/v1/config", method: .get, headers: authorized()) { String(buffer: $0.body) }
            #expect(document.contains("\"outputs\""))
            try await client.execute(uri: "/api/v1/config", method: .put, headers: authorized([.contentType: "application/json"]),
                                     body: body(document)) { response in
                #expect(response.status == .ok, "\(String(buffer: response.body))")
                #expect(json(response.body)["changed"] as? Bool == false)
            }
        }
        // A channel's configuration goes through the same store: refused there too.
        #expect {
            try harness.store.replace(with: try ConfigLoader.parse("slides: [red.jpg]"), ifMatch: nil)
        } throws: { error in
            guard case StateStoreRefusal.lacksLocalOutputs(let issues) = error else { return false }
            return !issues.isEmpty
        }
    }
}
