import Foundation
import Hummingbird
import HummingbirdTesting
import Testing
import VitrineCore
import VitrinePNG
import VitrineRuntime
@testable import VitrineAPI
@testable import VitrineClient

/// A kiosk with two output groups, each on its own display loop, through the
/// API: `GET /api/v1/outputs`, and the `output` query parameter of the status,
/// screenshot, control and power routes (one group alone; without it, the first
/// group's status and every group's commands, as before).
@Suite("API: per-output status, screenshots and control")
struct OutputRoutesTests {
    /// HDMI-A-1 shows lobby (red, one slide); DSI-1 is a portrait panel showing menu (green, blue).
    static let groups = ["HDMI-A-1", "DSI-1"]

    static func twoGroups() throws -> ServerHarness {
        try ServerHarness(yaml: OutputsPushTests.yaml, groups: groups)
    }

    /// The status of the group named `output`, through `outputGroups` (not the API).
    static func status(_ harness: ServerHarness, _ output: String) -> KioskStatus? {
        harness.api.link.outputGroups.first { $0.name == output }?.loop.status
    }

    static func get(_ client: some TestClientProtocol, _ uri: String) async throws -> (HTTPResponse.Status, [String: Any]) {
        try await client.execute(uri: uri, method: .get, headers: authorized()) { ($0.status, json($0.body)) }
    }

    @Test func outputsListsEachGroupWithItsOwnStatusAndStatusTakesOne() async throws {
        let harness = try Self.twoGroups()
        defer { harness.close() }
        #expect(await harness.eventually { Self.status(harness, "HDMI-A-1")?.slideCount == 1 && Self.status(harness, "DSI-1")?.slideCount == 2 })
        try await harness.application().test(.router) { client in
            let (status, answer) = try await Self.get(client, "/api/v1/outputs")
            #expect(status == .ok)
            let outputs = try #require(answer["outputs"] as? [[String: Any]])
            #expect(outputs.map { $0["name"] as? String } == Self.groups)
            #expect(outputs.map { $0["connectors"] as? [String] } == Self.groups.map { [$0] })
            #expect(outputs.map { ($0["status"] as? [String: Any])?["slideCount"] as? Int } == [1, 2])
            #expect(outputs.allSatisfy { ($0["status"] as? [String: Any])?["configVersion"] as? String == harness.store.current.version })

            // output= picks one; without it, the first group's, as before.
            #expect(try await Self.get(client, "/api/v1/status?output=DSI-1").1["slideCount"] as? Int == 2)
            #expect(try await Self.get(client, "/api/v1/status?output=HDMI-A-1").1["slideCount"] as? Int == 1)
            #expect(try await Self.get(client, "/api/v1/status").1["slideCount"] as? Int == 1)
            // The same name twice is that name.
            #expect(try await Self.get(client, "/api/v1/status?output=DSI-1&output=DSI-1").1["slideCount"] as? Int == 2)
        }
    }

    @Test func screenshotsAreEachGroupsOwnFrame() async throws {
        let harness = try Self.twoGroups()
        defer { harness.close() }
        #expect(await harness.eventually { Self.status(harness, "DSI-1")?.slideCount == 2 })
        try await harness.application().test(.router) { client in
            func screenshot(_ query: String) async throws -> (PixelSize, (r: Int, g: Int, b: Int)) {
                try await client.execute(uri: "/api/v1/screenshot" + query, method: .get, headers: authorized()) { response in
                    #expect(response.status == .ok, "\(query): \(String(buffer: response.body))")
                    return (try PNGCodec.decode(Array(response.body.readableBytesView)).size, try centreColour(ofPNG: response.body))
                }
            }
            let red = ServerHarness.colors["red"]!, green = ServerHarness.colors["green"]!
            /// The screenshot once its first picture is decoded (until then, the background), or after 5 s.
            func settled(_ query: String, _ colour: RGBAColor) async throws -> (PixelSize, (r: Int, g: Int, b: Int)) {
                var shot = try await screenshot(query)
                for _ in 0..<100 where !near(shot.1, colour) {
                    try await Task.sleep(for: .milliseconds(50))
                    shot = try await screenshot(query)
                }
                return shot
            }
            // The panel turned a quarter is laid out upright, 48x64, and shows menu's first slide.
            let (panelSize, panelColour) = try await settled("?output=DSI-1", green)
            #expect(panelSize == PixelSize(width: 48, height: 64) && near(panelColour, green))
            let (tvSize, tvColour) = try await settled("?output=HDMI-A-1", red)
            #expect(tvSize == PixelSize(width: 64, height: 48) && near(tvColour, red))
            let (firstSize, firstColour) = try await screenshot("")
            #expect(firstSize == tvSize && near(firstColour, red), "without output=, the first group's frame")
        }
    }

    @Test func aCommandForOneOutputReachesThatGroupAlone() async throws {
        let harness = try Self.twoGroups()
        defer { harness.close() }
        #expect(await harness.eventually { Self.status(harness, "DSI-1")?.slideCount == 2 })
        try await harness.application().test(.router) { client in
            var (status, answer) = try await sendJSON(client, .post, "/api/v1/control?output=DSI-1", #"{"command": "pause"}"#)
            #expect(status == .accepted && answer["accepted"] as? String == "pause")
            #expect(await harness.eventually { Self.status(harness, "DSI-1")?.pausedBecause == ["remote"] })
            #expect(Self.status(harness, "HDMI-A-1")?.pausedBecause.isEmpty == true, "the other group was not paused")

            (status, _) = try await sendJSON(client, .post, "/api/v1/control?output=DSI-1", #"{"command": "goto", "slide": 1}"#)
            #expect(status == .accepted)
            #expect(await harness.eventually { Self.status(harness, "DSI-1")?.currentSlide == 1 })
            #expect(Self.status(harness, "HDMI-A-1")?.currentSlide == 0)

            // Without output=, a command goes to every group: a slide one of them lacks is a 409 naming it.
            (status, answer) = try await sendJSON(client, .post, "/api/v1/control", #"{"command": "goto", "slide": 1}"#)
            #expect(status == .conflict)
            #expect(answer["error"] as? String == "there is no slide 1 on HDMI-A-1: the playlist has 1 slide (counting from 0)")
            (status, _) = try await sendJSON(client, .post, "/api/v1/control", #"{"command": "resume"}"#)
            #expect(status == .accepted)
            #expect(await harness.eventually { Self.groups.allSatisfy { Self.status(harness, $0)?.pausedBecause.isEmpty == true } })
            (status, _) = try await sendJSON(client, .post, "/api/v1/control", #"{"command": "pause"}"#)
            #expect(await harness.eventually { Self.groups.allSatisfy { Self.status(harness, $0)?.pausedBecause == ["remote"] } })

            // The screen's power, one output's.
            (status, answer) = try await sendJSON(client, .put, "/api/v1/power?output=HDMI-A-1", #"{"state": "off"}"#)
            #expect(status == .accepted && answer["requested"] as? String == "off")
            #expect(await harness.eventually { Self.status(harness, "HDMI-A-1")?.screen.isLit == false })
            #expect(try await Self.get(client, "/api/v1/power?output=HDMI-A-1").1["state"] as? String == "off")
            #expect(try await Self.get(client, "/api/v1/power?output=DSI-1").1["state"] as? String == "on")
            #expect(Self.status(harness, "DSI-1")?.screen.isLit == true)
            #expect(try await Self.get(client, "/api/v1/power").1["state"] as? String == "off", "without output=, the first group's")
        }
    }

    @Test func anUnknownOutputIs404NamingItAndTheKnownOnesAndChangesNothing() async throws {
        let harness = try Self.twoGroups()
        defer { harness.close() }
        #expect(await harness.eventually { Self.status(harness, "DSI-1")?.slideCount == 2 })
        try await harness.application().test(.router) { client in
            let requests: [(HTTPRequest.Method, String, String?)] = [
                (.get, "/api/v1/status", nil), (.get, "/api/v1/screenshot", nil), (.get, "/api/v1/power", nil),
                (.post, "/api/v1/control", #"{"command": "pause"}"#), (.put, "/api/v1/power", #"{"state": "off"}"#),
            ]
            for (method, path, text) in requests {
                for (query, message) in [
                    ("DP-3", "no output DP-3: this kiosk drives HDMI-A-1, DSI-1"),
                    ("hdmi-a-1", "no output hdmi-a-1: this kiosk drives HDMI-A-1, DSI-1"),
                    ("", "no output : this kiosk drives HDMI-A-1, DSI-1"),
                    ("DSI-1&output=HDMI-A-1", "one output at a time: output is given 2 different ways: this kiosk drives HDMI-A-1, DSI-1"),
                ] {
                    let uri = "\(path)?output=\(query)"
                    try await client.execute(uri: uri, method: method, headers: authorized([.contentType: "application/json"]),
                                             body: text.map(body)) { response in
                        #expect(response.status == .notFound, "\(method) \(uri)")
                        let answer = json(response.body)
                        #expect(answer["error"] as? String == message, "\(method) \(uri)")
                        #expect(answer["outputs"] as? [String] == Self.groups, "\(method) \(uri)")
                        #expect((answer["issues"] as? [[String: String]])?.first?["path"] == "output", "\(method) \(uri)")
                    }
                }
            }
            try await Task.sleep(for: .milliseconds(100))
            for output in Self.groups {
                #expect(Self.status(harness, output)?.pausedBecause.isEmpty == true, "\(output) was not paused")
                #expect(Self.status(harness, output)?.screen.isLit == true, "\(output) is still on")
            }
        }
    }

    @Test func everyPerOutputRouteNeedsTheToken() async throws {
        let harness = try Self.twoGroups()
        defer { harness.close() }
        try await harness.application().test(.router) { client in
            for (method, uri) in [(HTTPRequest.Method.get, "/api/v1/outputs"), (.get, "/api/v1/outputs?output=DSI-1"),
                                  (.get, "/api/v1/status?output=DSI-1"), (.get, "/api/v1/screenshot?output=DSI-1"),
                                  (.get, "/api/v1/power?output=DSI-1"), (.put, "/api/v1/power?output=DSI-1"),
                                  (.post, "/api/v1/control?output=DSI-1"), (.get, "/api/v1/status?output=nowhere")] {
                try await client.execute(uri: uri, method: method, headers: [.contentType: "application/json"],
                                         body: body(#"{"command": "pause", "state": "off"}"#)) { response in
                    #expect(response.status == .unauthorized, "\(method) \(uri) without a token")
                }
                var wrong = HTTPFields()
                wrong[.authorization] = "Bearer not-the-token-0000000"
                try await client.execute(uri: uri, method: method, headers: wrong) { response in
                    #expect(response.status == .unauthorized, "\(method) \(uri) with a wrong token")
                }
            }
        }
        #expect(Self.status(harness, "DSI-1")?.pausedBecause.isEmpty == true)
    }

    @Test func aKioskWithOneLoopIsOneGroupNamedByItsConnectorOrNone() async throws {
        let headless = try ServerHarness()
        defer { headless.close() }
        try await headless.application().test(.router) { client in
            let outputs = try #require(try await Self.get(client, "/api/v1/outputs").1["outputs"] as? [[String: Any]])
            #expect(outputs.count == 1)
            #expect(outputs.first?["name"] is NSNull && outputs.first?["connectors"] as? [String] == [])
            #expect((outputs.first?["status"] as? [String: Any])?["slideCount"] as? Int == 2)
            let (status, answer) = try await Self.get(client, "/api/v1/status?output=HDMI-A-1")
            #expect(status == .notFound)
            #expect(answer["error"] as? String == "no output HDMI-A-1: this kiosk's display has no connector name (headless): leave output out")
            #expect(answer["outputs"] as? [String] == [])
        }
        let panel = try ServerHarness(yaml: OutputsPushTests.yaml, connector: "DSI-1")
        defer { panel.close() }
        #expect(await panel.eventually { panel.api.link.status.slideCount == 2 })
        try await panel.application().test(.router) { client in
            let outputs = try #require(try await Self.get(client, "/api/v1/outputs").1["outputs"] as? [[String: Any]])
            #expect(outputs.map { $0["name"] as? String } == ["DSI-1"])
            #expect(try await Self.get(client, "/api/v1/status?output=DSI-1").1["slideCount"] as? Int == 2)
            let (status, _) = try await sendJSON(client, .post, "/api/v1/control?output=DSI-1", #"{"command": "next"}"#)
            #expect(status == .accepted)
            #expect(await panel.eventually { panel.api.link.status.currentSlide == 1 })
        }
    }

    @Test func theRemoteClientAddressesOneOutputAsVitrineRemoteDoes() async throws {
        #expect(RemoteClient.path("/api/v1/status", output: nil) == "/api/v1/status")
        #expect(RemoteClient.path("/api/v1/status", output: "HDMI-A-1") == "/api/v1/status?output=HDMI-A-1")
        #expect(RemoteClient.path("/api/v1/plays?limit=2", output: "a b&c=d/é") == "/api/v1/plays?limit=2&output=a%20b%26c%3Dd%2F%C3%A9")
        let harness = try Self.twoGroups()
        defer { harness.close() }
        #expect(await harness.eventually { Self.status(harness, "DSI-1")?.slideCount == 2 })
        try await harness.application().test(.live) { client in
            let remote = RemoteClient(base: "http://127.0.0.1:\(try #require(client.port))", token: ServerHarness.token)
            let command = Array(try JSONEncoder().encode(ControlCommand.next))
            _ = try await remote.send(.POST, RemoteClient.path("/api/v1/control", output: "DSI-1"), body: command,
                                      contentType: "application/json", expecting: [202])
            #expect(await harness.eventually { Self.status(harness, "DSI-1")?.currentSlide == 1 })
            let status = try await remote.send(.GET, RemoteClient.path("/api/v1/status", output: "DSI-1"))
            #expect(try status.decoded(StatusBody.self, from: "status").slide == 1)
            // `vitrine remote outputs`: one line per group.
            let outputs = try await remote.send(.GET, "/api/v1/outputs").decoded(OutputsBody.self, from: "outputs")
            #expect(outputs.summaryLines == [
                "HDMI-A-1: slide 1 of 1, not rotating, screen on, headless 64x48 as HDMI-A-1",
                "DSI-1: slide 2 of 2, not rotating, screen on, headless 64x48 as DSI-1",
            ])
            // An unknown name: the kiosk's message, as the CLI prints it.
            do {
                _ = try await remote.send(.GET, RemoteClient.path("/api/v1/screenshot", output: "DP-3"))
                Issue.record("an unknown output answered")
            } catch let refusal as RemoteClient.Refusal {
                #expect(refusal.description == """
                    GET /api/v1/screenshot?output=DP-3: 404: no output DP-3: this kiosk drives HDMI-A-1, DSI-1
                      output: this kiosk drives HDMI-A-1, DSI-1
                    """)
            }
        }
    }
}
