import Foundation
import Hummingbird
import HummingbirdTesting
import Logging
import Testing
import VitrineConfig
import VitrineCore
import VitrineRuntime
import VitrineSystem
@testable import VitrineAssembly

/// Every output group's events and plays, each under the group's name: a
/// kiosk with two groups, each on its own display loop, built by
/// `KioskAssembly` as `vitrine run` builds it.
@Suite("API: every output group's events and plays")
struct OutputEventsTests {
    static func get(_ client: some TestClientProtocol, _ uri: String) async throws -> [String: Any] {
        try await client.execute(uri: uri, method: .get, headers: authorized()) { response in
            #expect(response.status == .ok, "\(uri): \(String(buffer: response.body))")
            return json(response.body)
        }
    }

    static func plays(_ harness: ServerHarness) -> [PlayRecord] {
        harness.api.plays?.log.flush()
        return harness.api.plays?.log.query(PlayQuery()).records ?? []
    }

    /// HDMI-A-1 shows lobby (red, one slide), DSI-1 menu (green, blue): a page
    /// change on DSI-1 is on the event stream and in the play log under DSI-1,
    /// and leaves HDMI-A-1's play on screen, unended.
    @Test func aPageChangeOnTheSecondGroupIsStreamedAndRecordedUnderItsName() async throws {
        let harness = try OutputRoutesTests.twoGroups()
        defer { harness.close() }
        #expect(await harness.eventually { OutputRoutesTests.status(harness, "DSI-1")?.slideCount == 2 })
        try await harness.application().test(.live) { client in
            let stream = try await SSEReader(port: try #require(client.port), token: ServerHarness.token)
            defer { stream.close() }
            #expect(await harness.eventually { harness.api.events.subscriberCount == 1 })
            // Both first pictures decoded and on their screens (a play starts at rest, decoded).
            try await Task.sleep(for: .milliseconds(300))
            let shownFrom = Date()
            let (status, _) = try await sendJSON(client, .post, "/api/v1/control?output=DSI-1", #"{"command": "goto", "slide": 1}"#)
            #expect(status == .accepted)
            let text = try await stream.read(until: #""output":"DSI-1""#, timeout: 10)
            #expect(text.contains("event: slideChanged\ndata: {\"cause\":\"command\",\"from\":0,\"output\":\"DSI-1\",\"to\":1}\n\n"), "\(text)")
            #expect(!text.contains("HDMI-A-1"), "the other group did not change: \(text)")

            // DSI-1's first play ended, under its name; HDMI-A-1's is still on screen.
            #expect(await harness.eventually { !Self.plays(harness).isEmpty })
            try await Task.sleep(for: .milliseconds(200))
            let records = Self.plays(harness)
            #expect(records.map(\.output) == ["DSI-1"], "only DSI-1's play ended: \(records)")
            #expect(records.first?.slide == 0 && records.first?.path == "green.jpg" && records.first?.sequence == 1)

            let dsi = try await Self.get(client, "/api/v1/plays?output=DSI-1")
            let dsiPlays = try #require(dsi["plays"] as? [[String: Any]])
            #expect(dsiPlays.map { $0["output"] as? String } == ["DSI-1"] && dsiPlays.first?["path"] as? String == "green.jpg")
            #expect((try await Self.get(client, "/api/v1/plays?output=HDMI-A-1")["plays"] as? [[String: Any]])?.isEmpty == true)
            #expect((try await Self.get(client, "/api/v1/plays")["plays"] as? [[String: Any]])?.count == 1)

            // The kiosk stops: HDMI-A-1's play ends then, all the time it was on screen, under its name.
            let onScreenFor = Date().timeIntervalSince(shownFrom)
            harness.api.plays?.stop(at: MonotonicClock.now())
            let all = Self.plays(harness)
            #expect(all.map(\.sequence) == [1, 2, 3], "one log, sequences unique across the groups")
            let lobby = try #require(all.first { $0.output == "HDMI-A-1" })
            #expect(lobby.slide == 0 && lobby.path == "red.jpg")
            #expect(lobby.duration >= .milliseconds(Int64(onScreenFor * 1000)),
                    "HDMI-A-1's play was not ended by DSI-1's change: \(lobby.duration)")
            #expect(all.filter { $0.output == "DSI-1" }.map(\.path) == ["green.jpg", "blue.jpg"])
            #expect(all.allSatisfy { $0.output != nil })
        }
    }

    @Test func aBadOutputOnThePlaysIs400NamingItAndAMirrorsNameIsItsLeaders() async throws {
        // HDMI-A-2 mirrors HDMI-A-1: one loop, its plays HDMI-A-1's.
        let harness = try ServerHarness(yaml: OutputsPushTests.yaml, groups: OutputRoutesTests.groups, mirrors: ["HDMI-A-1": ["HDMI-A-2"]])
        defer { harness.close() }
        #expect(await harness.eventually { OutputRoutesTests.status(harness, "DSI-1")?.slideCount == 2 })
        try await Task.sleep(for: .milliseconds(300))
        harness.api.plays?.stop(at: MonotonicClock.now())
        #expect(Self.plays(harness).map(\.output) == ["DSI-1", "HDMI-A-1"], "one play for the mirror group, under its leader")
        try await harness.application().test(.router) { client in
            for output in ["HDMI-A-2", "HDMI-A-1"] {
                let plays = try #require(try await Self.get(client, "/api/v1/plays?output=\(output)")["plays"] as? [[String: Any]])
                #expect(plays.map { $0["output"] as? String } == ["HDMI-A-1"] && plays.first?["path"] as? String == "red.jpg", "\(output)")
            }
            for (query, message) in [("output=", "output must name an output, such as HDMI-A-1, found nothing"),
                                     ("output=DSI-1&output=HDMI-A-1", "one output at a time: output is given 2 different ways")] {
                try await client.execute(uri: "/api/v1/plays?\(query)", method: .get, headers: authorized()) { response in
                    #expect(response.status == .badRequest, "\(query)")
                    let answer = json(response.body)
                    #expect(answer["error"] as? String == message)
                    #expect((answer["issues"] as? [[String: Any]])?.first?["path"] as? String == "output")
                }
            }
            // A name no group drives now is looked for as it is: the log keeps unplugged outputs' plays.
            #expect((try await Self.get(client, "/api/v1/plays?output=DP-3")["plays"] as? [[String: Any]])?.isEmpty == true)
        }
    }

    /// The names events and plays carry: none on a kiosk without `outputs` (even on
    /// a named connector: its bodies stay as they were), else each group's leader.
    @Test func eachGroupIsNamedByItsLeaderOnlyOnAKioskWithOutputs() throws {
        let logger = Logger(label: "test")
        let plain = try ConfigLoader.parse("slides: [a.jpg]\noutput: {display: headless, width: 64, height: 48}")
        let planned = try ConfigLoader.parse(OutputsPushTests.yaml)
        func display(_ name: String?) -> DisplayBackend {
            let headless = HeadlessDisplay(size: PixelSize(width: 64, height: 48), previewPath: nil, logger: logger)
            return name.map { ConnectorDisplay(headless, connector: $0) } ?? headless
        }
        #expect(OutputGroup.names(KioskDisplays(display(nil)), configuration: plain) == [nil])
        #expect(OutputGroup.names(KioskDisplays(display("HDMI-A-1")), configuration: plain) == [nil])
        #expect(OutputGroup.names(KioskDisplays(display("DSI-1")), configuration: planned) == ["DSI-1"])
        // A mirror group and a canvas are one loop each: named by their leading connector.
        let groups = KioskDisplays(groups: [
            OutputDisplay(display: display("HDMI-A-1"), shown: OutputShown(output: "HDMI-A-1"), connectors: ["HDMI-A-1", "HDMI-A-2"]),
            OutputDisplay(display: display("DP-1"), shown: OutputShown(output: "DP-1"), connectors: ["DP-1", "DP-2", "DP-3"]),
        ])
        #expect(OutputGroup.names(groups, configuration: plain) == ["HDMI-A-1", "DP-1"])
        #expect(OutputGroup.names(groups, configuration: planned) == ["HDMI-A-1", "DP-1"])
    }

    /// A kiosk without `outputs` writes its plays and events as before: no `output` key anywhere.
    @Test func aSingleOutputKiosksPlaysAndEventsHaveNoOutput() async throws {
        let harness = try ServerHarness(connector: "HDMI-A-1")
        defer { harness.close() }
        try await harness.application().test(.live) { client in
            let stream = try await SSEReader(port: try #require(client.port), token: ServerHarness.token)
            defer { stream.close() }
            #expect(await harness.eventually { harness.api.events.subscriberCount == 1 })
            try await Task.sleep(for: .milliseconds(300))
            #expect(try await StatusAndEventsTests.control(client, #"{"command": "next"}"#).0 == .accepted)
            let text = try await stream.read(until: "slideChanged", timeout: 10)
            #expect(text.contains("event: slideChanged\ndata: {\"cause\":\"command\",\"from\":0,\"to\":1}\n\n"), "\(text)")
            #expect(await harness.eventually { !Self.plays(harness).isEmpty })
            let plays = try #require(try await Self.get(client, "/api/v1/plays")["plays"] as? [[String: Any]])
            #expect(plays.count == 1 && plays.allSatisfy { $0["output"] == nil })
            let segment = try #require(try FileManager.default.contentsOfDirectory(atPath: harness.stateDirectory + "/plays")
                .first { $0.hasSuffix(".jsonl") })
            let line = try String(contentsOfFile: harness.stateDirectory + "/plays/" + segment, encoding: .utf8)
            #expect(line.hasPrefix(#"{"durationMs":"#) && !line.contains("output"), "\(line)")
        }
    }
}
