import Foundation
import Hummingbird
import HummingbirdTesting
import Testing
import VitrineConfig
import VitrineRuntime
@testable import VitrineHTTP
@testable import VitrineState

@Suite("API: configuration")
struct ConfigAPITests {
    static let yaml: HTTPFields = authorized([.contentType: "application/yaml"])
    static let jsonType: HTTPFields = authorized([.contentType: "application/json"])

    @Test func getReturnsCanonicalJSONWithItsVersionAsETag() async throws {
        let harness = try ServerHarness()
        defer { harness.close() }
        try await harness.application().test(.router) { client in
            try await client.execute(uri: "/api/v1/config", method: .get, headers: authorized()) { response in
                #expect(response.status == .ok)
                #expect(response.headers[.eTag] == "\"\(harness.store.current.version)\"")
                let document = json(response.body)
                #expect((document["slides"] as? [[String: Any]])?.compactMap { $0["path"] as? String } == ["red.jpg", "green.jpg"])
                #expect(document["interval"] as? String == "600s")
                #expect(document["api"] == nil, "the api section (and its token) never leaves the local file")
                #expect(!String(buffer: response.body).contains(ServerHarness.token))
            }
        }
    }

    /// A pushed schedule is stored and comes back from GET, and its playlists'
    /// slides get the same checks as the top-level ones.
    @Test func aPushedScheduleIsKeptAndItsPlaylistsAreChecked() async throws {
        let harness = try ServerHarness()
        defer { harness.close() }
        let schedule = """
            schedule:
              timezone: Europe/Berlin
              playlists: {day: [red.jpg, green.jpg], night: [blue.jpg]}
              entries: [{playlist: day, days: weekdays, from: "07:00", until: "19:00"}]
              otherwise: night
            """
        try await harness.application().test(.router) { client in
            try await client.execute(uri: "/api/v1/config", method: .put, headers: Self.yaml, body: body(schedule)) { response in
                #expect(response.status == .ok, "\(String(buffer: response.body))")
            }
            try await client.execute(uri: "/api/v1/config", method: .get, headers: authorized()) { response in
                let stored = json(response.body)["schedule"] as? [String: Any]
                #expect(stored?["timezone"] as? String == "Europe/Berlin")
                #expect((stored?["playlists"] as? [String: Any])?.keys.sorted() == ["day", "night"])
                #expect(stored?["otherwise"] as? String == "night")
            }
            let absolute = schedule.replacingOccurrences(of: "night: [blue.jpg]", with: "night: [/etc/vitrine/blue.jpg]")
            try await client.execute(uri: "/api/v1/config", method: .put, headers: Self.yaml, body: body(absolute)) { response in
                #expect(response.status == .unprocessableContent)
                let issues = (json(response.body)["issues"] as? [[String: Any]] ?? []).compactMap { $0["path"] as? String }
                #expect(issues == ["schedule.playlists.night[0].path"])
            }
        }
    }

    /// A pushed Ken Burns default and a slide's own come back from GET in their
    /// canonical form, every key of each form written.
    @Test func aPushedKenBurnsComesBackInItsCanonicalForm() async throws {
        let harness = try ServerHarness()
        defer { harness.close() }
        let pushed = """
            kenBurns: true
            slides: [red.jpg, {path: green.jpg, kenBurns: {from: [0, 0, 1, 1], to: [0.5, 0.5, 0.5, 0.5], easing: linear}}, {path: blue.jpg, kenBurns: false}]
            """
        try await harness.application().test(.router) { client in
            try await client.execute(uri: "/api/v1/config", method: .put, headers: Self.yaml, body: body(pushed)) { response in
                #expect(response.status == .ok, "\(String(buffer: response.body))")
            }
            try await client.execute(uri: "/api/v1/config", method: .get, headers: authorized()) { response in
                let document = json(response.body)
                let top = document["kenBurns"] as? [String: Any]
                #expect(top?["seed"] as? Int == 0 && top?["zoom"] as? Double == 1.25 && top?["easing"] as? String == "ease-in-out")
                let slides = document["slides"] as? [[String: Any]] ?? []
                #expect(slides.count == 3 && slides[0]["kenBurns"] == nil)
                let own = slides[1]["kenBurns"] as? [String: Any]
                #expect(own?["to"] as? [Double] == [0.5, 0.5, 0.5, 0.5] && own?["easing"] as? String == "linear")
                #expect(slides[2]["kenBurns"] as? Bool == false)
            }
        }
        #expect(harness.store.current.configuration.kenBurns == .seeded(seed: 0, zoom: 1.25, easing: .easeInOut))
    }

    @Test func aValidPushAppliesWithANewVersionAndSurvivesAReopen() async throws {
        let harness = try ServerHarness()
        defer { harness.close() }
        let before = harness.store.current.version
        try await harness.application().test(.router) { client in
            let version = try await client.execute(uri: "/api/v1/config", method: .put, headers: Self.yaml,
                                                   body: body("slides: [blue.jpg, red.jpg, green.jpg]\ninterval: 10m\ntransition: {type: cut}")) { response in
                #expect(response.status == .ok)
                let answer = json(response.body)
                #expect(answer["previousVersion"] as? String == before)
                #expect(answer["changed"] as? Bool == true)
                #expect(response.headers[.eTag] == "\"\(answer["version"] as? String ?? "")\"")
                return answer["version"] as? String ?? ""
            }
            #expect(await harness.eventually { harness.api.link.status.configurationVersion == version && harness.api.link.status.slideCount == 3 })
            // The same push again changes nothing.
            try await client.execute(uri: "/api/v1/config", method: .put, headers: Self.yaml,
                                     body: body("slides: [blue.jpg, red.jpg, green.jpg]\ninterval: 10m\ntransition: {type: cut}")) { response in
                #expect(json(response.body)["changed"] as? Bool == false)
                #expect(json(response.body)["version"] as? String == version)
            }
            // The picture on screen (red, or green if the old playlist had moved on)
            // is in the new playlist: it stays, at its new index, and rotation goes
            // on from there, not back to the new first slide (blue).
            let shown = harness.api.link.status.currentSlide
            #expect(shown == 1 || shown == 2)
            try await client.execute(uri: "/api/v1/screenshot", method: .get, headers: authorized()) { response in
                #expect(response.headers[.contentType] == "image/png")
                let centre = try centreColour(ofPNG: response.body)
                #expect(near(centre, ServerHarness.colors[shown == 2 ? "green" : "red"]!))
            }
            // What is stored is what a restart reads.
            let reopened = try StateStore(directory: harness.stateDirectory, seedFile: harness.configPath,
                                          seed: .success(try ConfigLoader.load(file: harness.configPath)),
                                          logger: .init(label: "test"))
            #expect(reopened.origin == .stored)
            #expect(reopened.current.version == version)
            #expect(reopened.previous?.version == before)
        }
    }

    @Test func ifMatchGivesOptimisticConcurrency() async throws {
        let harness = try ServerHarness()
        defer { harness.close() }
        let current = harness.store.current.version
        try await harness.application().test(.router) { client in
            var headers = Self.jsonType
            headers[.ifMatch] = "\"0000000000000000\""
            try await client.execute(uri: "/api/v1/config", method: .put, headers: headers, body: body(#"{"slides": ["red.jpg"]}"#)) { response in
                #expect(response.status == .preconditionFailed)
                #expect(json(response.body)["currentVersion"] as? String == current)
                #expect(json(response.body)["error"] as? String == "the configuration changed since version 0000000000000000; the current one is \(current)")
            }
            headers[.ifMatch] = "\"\(current)\""
            try await client.execute(uri: "/api/v1/config", method: .put, headers: headers, body: body(#"{"slides": ["red.jpg"]}"#)) {
                #expect($0.status == .ok)
            }
            // The same If-Match again is now stale.
            try await client.execute(uri: "/api/v1/config", method: .put, headers: headers, body: body(#"{"slides": ["green.jpg"]}"#)) {
                #expect($0.status == .preconditionFailed)
            }
        }
        #expect(harness.store.current.configuration.slides.map(\.path) == ["red.jpg"])
    }

    /// An If-Match that cannot name a version is refused (400) before anything else,
    /// never taken as a stale version (412); `*` and a quoted version still work.
    @Test func aMalformedIfMatchIsABadRequestNotAConflict() async throws {
        let harness = try ServerHarness()
        defer { harness.close() }
        let before = harness.store.current.version
        try await harness.application().test(.router) { client in
            for value in ["3#9$(aAoD5Uep", before, "W/\"\(before)\"", "\"\(before.uppercased())\"", "\"\(before)\", \"\(before)\"", "\"\"", "**"] {
                var headers = Self.jsonType
                headers[.ifMatch] = value
                try await client.execute(uri: "/api/v1/config", method: .put, headers: headers, body: body(#"{"slides": ["red.jpg"]}"#)) { response in
                    #expect(response.status == .badRequest, "If-Match: \(value)")
                    #expect((json(response.body)["error"] as? String)?.hasPrefix("If-Match must be * or a configuration version in double quotes") == true)
                }
            }
            #expect(harness.store.current.version == before)
            var headers = Self.jsonType
            headers[.ifMatch] = " * "
            try await client.execute(uri: "/api/v1/config", method: .put, headers: headers, body: body(#"{"slides": ["red.jpg"]}"#)) {
                #expect($0.status == .ok)
            }
        }
        #expect(harness.store.current.configuration.slides.map(\.path) == ["red.jpg"])
    }

    /// JSON writes characters beyond U+FFFF as two escaped UTF-16 surrogates, which the
    /// YAML parser behind the configuration does not take: a JSON push with them is
    /// still read as the characters they stand for, and escaped backslashes stay text.
    @Test func aJSONPushMayEscapeCharactersBeyondTheBasicPlane() async throws {
        let harness = try ServerHarness()
        defer { harness.close() }
        try await harness.application().test(.router) { client in
            let pushed = #"{"slides": ["\ud83d\ude00.jpg", {"path": "a\\ud83d\\ude00.jpg"}], "autoplay": false}"#
            try await client.execute(uri: "/api/v1/config", method: .put, headers: Self.jsonType, body: body(pushed)) { response in
                #expect(response.status == .ok, "\(String(buffer: response.body))")
            }
        }
        #expect(harness.store.current.configuration.slides.map(\.path) == ["😀.jpg", #"a\ud83d\ude00.jpg"#])
        #expect(ConfigRoutes.joiningSurrogatePairs(#"{"a": "\"\ud83d\ude00\\", "b": "\ud83d", "c": "\ude00\ud83d"}"#)
                == #"{"a": "\"\U0001F600\\", "b": "\ud83d", "c": "\ude00\ud83d"}"#)
    }

    /// Every bad push answers 422 (or 413, 415) with each problem's key path, and changes nothing.
    @Test(arguments: [
        ("{\"slides\": [", "application/json", 422, [""]),
        ("slides: [a.jpg\ninterval: {", "application/yaml", 422, [""]),
        ("intervall: 5s\ntransition: {kind: fade}", "application/yaml", 422, ["intervall", "transition.kind"]),
        ("interval: fast\nautoplay: 3\nslides: {a: 1}", "application/yaml", 422, ["interval", "autoplay", "slides"]),
        ("interval: -5s\nslides: [{path: red.jpg, duration: -1s}]", "application/yaml", 422, ["interval", "slides[0].duration"]),
        ("slides: [../../etc/shadow, /etc/passwd, \"file:///etc/passwd\"]", "application/yaml", 422, ["slides[2]"]),
        ("slides: [../../etc/shadow, /etc/passwd, images/../../x.jpg]", "application/yaml", 422, ["slides[0].path", "slides[1].path", "slides[2].path"]),
        ("slides: [\"asset:\(String(repeating: "0", count: 64))\"]", "application/yaml", 422, ["slides[0].path"]),
        ("kenBurns: {zoom: 3}\nslides: [{path: red.jpg, kenBurns: {from: [0, 0, 0.9, 0.5], to: [0, 0, 1, 1]}}]", "application/yaml", 422,
         ["kenBurns.zoom", "slides[0].kenBurns.from"]),
        ("api: {listen: \"off\"}", "application/yaml", 422, ["api"]),
        ("output: {display: headless, width: 64, height: 48, preview: /etc/cron.d/x}", "application/yaml", 422, ["output"]),
        ("slides: []", "text/plain", 415, []),
        ("", "application/json", 422, [""]),
        ("[1, 2]", "application/json", 422, [""]),
    ] as [(String, String, Int, [String])])
    func badPushes(text: String, type: String, status: Int, paths: [String]) async throws {
        let harness = try ServerHarness()
        defer { harness.close() }
        let before = harness.store.current.version
        try await harness.application().test(.router) { client in
            try await client.execute(uri: "/api/v1/config", method: .put, headers: authorized([.contentType: type]), body: body(text)) { response in
                #expect(response.status.code == status, "\(String(buffer: response.body))")
                let answer = json(response.body)
                #expect((answer["error"] as? String)?.isEmpty == false)
                let issues = (answer["issues"] as? [[String: String]]) ?? []
                #expect(issues.compactMap { $0["path"] }.sorted() == paths.sorted(), "\(issues)")
                #expect(issues.allSatisfy { !($0["message"] ?? "").isEmpty })
            }
        }
        #expect(harness.store.current.version == before)
    }

    @Test func aBodyOverOneMebibyteIs413() async throws {
        let harness = try ServerHarness()
        defer { harness.close() }
        let huge = "# " + String(repeating: "x", count: 1 << 20) + "\nslides: []\n"
        try await harness.application().test(.router) { client in
            try await client.execute(uri: "/api/v1/config", method: .put, headers: Self.yaml, body: body(huge)) { response in
                #expect(response.status == .contentTooLarge)
                #expect(json(response.body)["error"] as? String == "the request body is larger than this endpoint accepts")
            }
        }
    }

    @Test func rollbackReturnsToThePreviousAndBack() async throws {
        let harness = try ServerHarness()
        defer { harness.close() }
        let first = harness.store.current.version
        try await harness.application().test(.router) { client in
            try await client.execute(uri: "/api/v1/config/rollback", method: .post, headers: authorized()) { response in
                #expect(response.status == .conflict)
                #expect(json(response.body)["error"] as? String == "there is no previous configuration to return to")
            }
            let second = try await client.execute(uri: "/api/v1/config", method: .put, headers: Self.yaml, body: body("slides: [blue.jpg]")) {
                json($0.body)["version"] as? String
            }
            try await client.execute(uri: "/api/v1/config/rollback", method: .post, headers: authorized()) { response in
                #expect(response.status == .ok)
                #expect(json(response.body)["version"] as? String == first)
                #expect(json(response.body)["previousVersion"] as? String == second)
            }
            #expect(await harness.eventually { harness.api.link.status.configurationVersion == first })
            try await client.execute(uri: "/api/v1/config/rollback", method: .post, headers: authorized()) { response in
                #expect(json(response.body)["version"] as? String == second)
            }
        }
    }
}
