import Foundation
import Hummingbird
import HummingbirdTesting
import Synchronization
import Testing
import VitrineConfig
import VitrineCore
import VitrinePNG
import VitrineRuntime

/// `PUT /api/v1/config?output=NAME` on a kiosk with two output groups,
/// HDMI-A-1 (playlist lobby: red) and DSI-1 (playlist menu: green, blue), each
/// on its own display loop: the pushed slides become the output's own
/// playlist, and nothing else changes.
@Suite("API: a configuration push addressed to one output")
struct OutputConfigPushTests {
    static let yamlType: HTTPFields = authorized([.contentType: "application/yaml"])

    static func status(_ harness: ServerHarness, _ output: String) -> KioskStatus? {
        OutputRoutesTests.status(harness, output)
    }

    static func put(_ client: some TestClientProtocol, _ query: String, _ text: String,
                    headers: HTTPFields = yamlType) async throws -> (HTTPResponse.Status, [String: Any]) {
        try await client.execute(uri: "/api/v1/config" + query, method: .put, headers: headers, body: body(text)) { ($0.status, json($0.body)) }
    }

    static func config(_ client: some TestClientProtocol) async throws -> [String: Any] {
        try await client.execute(uri: "/api/v1/config", method: .get, headers: authorized()) { json($0.body) }
    }

    /// The centre colour of an output's screenshot once it is near `colour`, or after 5 s.
    static func screen(_ client: some TestClientProtocol, _ output: String, settlingOn colour: RGBAColor) async throws -> (r: Int, g: Int, b: Int) {
        var shot = (r: 0, g: 0, b: 0)
        for _ in 0..<100 {
            shot = try await client.execute(uri: "/api/v1/screenshot?output=\(output)", method: .get, headers: authorized()) { try centreColour(ofPNG: $0.body) }
            if near(shot, colour) { break }
            try await Task.sleep(for: .milliseconds(50))
        }
        return shot
    }

    static let blue = ServerHarness.colors["blue"]!, red = ServerHarness.colors["red"]!

    @Test func aPushToOneOutputReplacesItsPlaylistAloneAndIsANormalPush() async throws {
        let harness = try OutputRoutesTests.twoGroups()
        defer { harness.close() }
        #expect(await harness.eventually { Self.status(harness, "HDMI-A-1")?.slideCount == 1 && Self.status(harness, "DSI-1")?.slideCount == 2 })
        // Every configApplied the kiosk publishes, with its output.
        let applied = Mutex<[(output: String?, version: String?)]>([])
        let events = harness.api.events.subscribe()
        let listening = Task {
            for await event in events where event.name == "configApplied" {
                let data = (try? JSONSerialization.jsonObject(with: Data(event.data.utf8)) as? [String: Any]) ?? [:]
                applied.withLock { $0.append((data["output"] as? String, data["version"] as? String)) }
            }
        }
        defer { listening.cancel() }
        try await harness.application().test(.router) { client in
            _ = try await Self.screen(client, "HDMI-A-1", settlingOn: Self.red)
            let before = try await Self.config(client)
            let beforeVersion = harness.store.current.version
            let (status, answer) = try await Self.put(client, "?output=DSI-1", """
                slides:
                  - blue.jpg
                  - {path: red.jpg, from: "2020-01-01"}
                  - {path: blue.jpg, duration: 5s}
                """)
            #expect(status == .ok, "\(answer)")
            #expect(answer["changed"] as? Bool == true && answer["previousVersion"] as? String == beforeVersion)
            let version = try #require(answer["version"] as? String)
            #expect(version == harness.store.current.version)

            // DSI-1 shows the new menu; HDMI-A-1 is applied the new version and shows what it showed.
            #expect(await harness.eventually { Self.status(harness, "DSI-1")?.slideCount == 3 })
            #expect(near(try await Self.screen(client, "DSI-1", settlingOn: Self.blue), Self.blue))
            #expect(await harness.eventually { Self.status(harness, "HDMI-A-1")?.configurationVersion == version })
            #expect(Self.status(harness, "HDMI-A-1")?.slideCount == 1 && Self.status(harness, "HDMI-A-1")?.currentSlide == 0)
            #expect(near(try await Self.screen(client, "HDMI-A-1", settlingOn: Self.red), Self.red))
            #expect(try await OutputRoutesTests.get(client, "/api/v1/status?output=HDMI-A-1").1["slideCount"] as? Int == 1)
            // configApplied from each group, for the new version.
            #expect(await harness.eventually {
                Set(applied.withLock { $0.filter { $0.version == version }.compactMap(\.output) }) == ["HDMI-A-1", "DSI-1"]
            })

            // GET shows the merged document: menu replaced, slide keys kept, everything else as it was.
            let after = try await Self.config(client)
            let menu = try #require(((after["schedule"] as? [String: Any])?["playlists"] as? [String: Any])?["menu"] as? [[String: Any]])
            #expect(menu.map { $0["path"] as? String } == ["blue.jpg", "red.jpg", "blue.jpg"])
            #expect(menu[1]["from"] as? String == "2020-01-01" && menu[2]["duration"] as? String == "5s")
            func withoutMenu(_ document: [String: Any]) -> NSDictionary {
                var document = document, schedule = document["schedule"] as? [String: Any] ?? [:]
                var playlists = schedule["playlists"] as? [String: Any] ?? [:]
                playlists["menu"] = nil
                schedule["playlists"] = playlists
                document["schedule"] = schedule
                return document as NSDictionary
            }
            #expect(withoutMenu(after) == withoutMenu(before), "only menu changed")
            // Stored as any configuration, which the loader reads back.
            let stored = try ConfigLoader.load(file: harness.stateDirectory + "/config.json")
            #expect(stored.schedule?.playlist(named: "menu")?.slides.count == 3)
            #expect(stored.schedule?.playlist(named: "lobby") == (try ConfigLoader.parse(OutputsPushTests.yaml)).schedule?.playlist(named: "lobby"))

            // Rollback restores the menu, as after any push.
            let (rolled, back) = try await sendJSON(client, .post, "/api/v1/config/rollback", "")
            #expect(rolled == .ok && back["version"] as? String == beforeVersion, "\(back)")
            #expect(await harness.eventually { Self.status(harness, "DSI-1")?.slideCount == 2 })
            #expect(NSDictionary(dictionary: try await Self.config(client)) == NSDictionary(dictionary: before))
        }
    }

    @Test func ifMatchAppliesAndAStaleOneIs412() async throws {
        let harness = try OutputRoutesTests.twoGroups()
        defer { harness.close() }
        try await harness.application().test(.router) { client in
            let current = harness.store.current.version
            var headers = Self.yamlType
            headers[.ifMatch] = "\"0123456789abcdef\""
            var (status, answer) = try await Self.put(client, "?output=DSI-1", "slides: [blue.jpg]", headers: headers)
            #expect(status == .preconditionFailed, "\(answer)")
            #expect(answer["currentVersion"] as? String == current)
            #expect(harness.store.current.version == current)
            headers[.ifMatch] = "\"\(current)\""
            (status, answer) = try await Self.put(client, "?output=DSI-1", "slides: [blue.jpg]", headers: headers)
            #expect(status == .ok, "\(answer)")
            #expect(answer["previousVersion"] as? String == current && harness.store.current.version != current)
            #expect(harness.store.current.configuration.schedule?.playlist(named: "menu")?.slides.map(\.slide.path) == ["blue.jpg"])
        }
    }

    @Test func anUnknownOutputIs404AndStoresNothingAndAMirrorsNameIsItsGroups() async throws {
        // HDMI-A-2 mirrors DSI-1: one loop, DSI-1's group.
        let harness = try ServerHarness(yaml: OutputsPushTests.yaml, groups: OutputRoutesTests.groups, mirrors: ["DSI-1": ["HDMI-A-2"]])
        defer { harness.close() }
        let stored = try Data(contentsOf: URL(fileURLWithPath: harness.stateDirectory + "/config.json"))
        try await harness.application().test(.router) { client in
            let (status, answer) = try await Self.put(client, "?output=DP-3", "slides: [blue.jpg]")
            #expect(status == .notFound, "\(answer)")
            #expect(answer["error"] as? String == "no output DP-3: this kiosk drives HDMI-A-1, DSI-1, HDMI-A-2")
            #expect(answer["outputs"] as? [String] == ["HDMI-A-1", "DSI-1", "HDMI-A-2"])
            #expect(try Data(contentsOf: URL(fileURLWithPath: harness.stateDirectory + "/config.json")) == stored)
            #expect(!FileManager.default.fileExists(atPath: harness.stateDirectory + "/config.previous.json"))

            let (mirrored, _) = try await Self.put(client, "?output=HDMI-A-2", "slides: [red.jpg, blue.jpg, green.jpg]")
            #expect(mirrored == .ok)
            #expect(harness.store.current.configuration.schedule?.playlist(named: "menu")?.slides.map(\.slide.path)
                == ["red.jpg", "blue.jpg", "green.jpg"])
            #expect(await harness.eventually { Self.status(harness, "DSI-1")?.slideCount == 3 })
        }
    }

    @Test func anOutputFollowingTheProgrammeIs409NamingTheOthersThatShareIt() async throws {
        // HDMI-A-1 and DP-1 show the programme (the schedule: lobby); DSI-1 its own menu.
        let yaml = OutputsPushTests.yaml.replacingOccurrences(of: "  - {name: HDMI-A-1, playlist: lobby}\n",
                                                               with: "  - {name: HDMI-A-1}\n  - {name: DP-1}\n")
        let harness = try ServerHarness(yaml: yaml, groups: ["HDMI-A-1", "DSI-1", "DP-1"])
        defer { harness.close() }
        let before = harness.store.current.version
        try await harness.application().test(.router) { client in
            let (status, answer) = try await Self.put(client, "?output=HDMI-A-1", "slides: [blue.jpg]")
            #expect(status == .conflict, "\(answer)")
            let error = try #require(answer["error"] as? String)
            #expect(error.hasPrefix("HDMI-A-1 has no playlist of its own: it shows the kiosk's programme (slides, or the schedule), as DP-1 does too."), "\(error)")
            #expect(error.contains("outputs: - {name: HDMI-A-1, playlist: NAME}") && error.contains("without output="))
            #expect(answer["outputs"] as? [String] == ["DP-1"])
            #expect(harness.store.current.version == before)
            // Its own playlist: DSI-1 takes a push on the same kiosk.
            #expect(try await Self.put(client, "?output=DSI-1", "slides: [blue.jpg]").0 == .ok)
        }
    }

    @Test func onlySlidesAreTakenAndTheyAreCheckedAsAWholePushsAtTheirPathsInTheBody() async throws {
        let harness = try OutputRoutesTests.twoGroups()
        defer { harness.close() }
        try "not a picture".write(toFile: harness.directory + "/notes.jpg", atomically: true, encoding: .utf8)
        let before = harness.store.current.version
        try await harness.application().test(.router) { client in
            var (status, answer) = try await Self.put(client, "?output=DSI-1", "slides: [blue.jpg]\ninterval: 5s\ntransition: {type: cut}")
            #expect(status == .unprocessableContent)
            #expect(answer["error"] as? String
                == "only slides can be pushed to one output; push the whole configuration without output= to change interval, transition")
            let issues = (answer["issues"] as? [[String: String]]) ?? []
            #expect(issues.compactMap { $0["path"] } == ["interval", "transition"], "\(issues)")
            #expect(issues.first?["message"] == "only slides can be pushed to one output; push the whole configuration without output= to change interval")

            // The slides' problems, at their key paths in the body: the reader's, then the paths', then the pictures'.
            for (text, paths) in [
                (#"{"slides": [{"path": "blue.jpg", "duration": "-1s"}, {"path": "red.jpg", "until": "2020-01-01", "from": "2021-01-01"}, {"path": "blue.jpg", "fit": "sideways"}]}"#,
                 ["slides[0].duration", "slides[1].until", "slides[2].fit"]),
                (#"{"slides": ["blue.jpg", "red.jpg", "/etc/passwd", "../red.jpg"]}"#, ["slides[2].path", "slides[3].path"]),
                (#"{"slides": ["blue.jpg", "notes.jpg"]}"#, ["slides[1].path"]),
                (#"{"slides": ["blue.jpg", {"path": "red.jpg", "action": {"goto": 2}}]}"#, ["slides[1].action.goto"]),
                (#"{"slides": "blue.jpg"}"#, ["slides"]),
                (#"{"slide": ["blue.jpg"]}"#, ["slide"]),
            ] {
                (status, answer) = try await Self.put(client, "?output=DSI-1", text, headers: authorized([.contentType: "application/json"]))
                #expect(status == .unprocessableContent, "\(text): \(answer)")
                let issues = (answer["issues"] as? [[String: String]]) ?? []
                #expect(issues.compactMap { $0["path"] } == paths, "\(text): \(issues)")
            }
            #expect(harness.store.current.version == before)
        }
    }

    @Test func aPushToOneOutputNeedsTheToken() async throws {
        let harness = try OutputRoutesTests.twoGroups()
        defer { harness.close() }
        let before = harness.store.current.version
        try await harness.application().test(.router) { client in
            var wrong: HTTPFields = [.contentType: "application/yaml"]
            for authorization in [nil, "Bearer not-the-token-0123456789"] {
                wrong[.authorization] = authorization
                let (status, _) = try await Self.put(client, "?output=DSI-1", "slides: [blue.jpg]", headers: wrong)
                #expect(status == .unauthorized)
            }
            #expect(harness.store.current.version == before)
            #expect(try await Self.put(client, "?output=DSI-1", "slides: [blue.jpg]").0 == .ok)
        }
    }
}
