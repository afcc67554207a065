import Foundation
import Hummingbird
import HummingbirdTesting
import NIOCore
import ServerTestSupport
import Testing
import VitrineConfig
import VitrineCore
@testable import VitrineRuntime
@testable import VitrineAPI
import VitrineSystem

/// The emergency override addressed to one output (`?output=NAME`) on a kiosk
/// with two output groups: HDMI-A-1 (lobby, red) and DSI-1 (menu), each on its
/// own display loop. The override for every output, each output's own on top,
/// what each loop is sent, the files that keep them over a restart.
@Suite("API: the emergency override on one output")
struct OutputOverrideTests {
    static let groups = OutputRoutesTests.groups

    static func status(_ harness: ServerHarness, _ output: String) -> KioskStatus? {
        OutputRoutesTests.status(harness, output)
    }

    static func post(_ client: some TestClientProtocol, _ path: String, output: String? = nil,
                     duration: String = "30m") async throws -> (HTTPResponse.Status, [String: Any]) {
        try await OverrideRoutesTests.post(client, #"{"slides": ["\#(path)"], "duration": "\#(duration)"}"#,
                                           query: output.map { "?output=\($0)" } ?? "")
    }

    static func get(_ client: some TestClientProtocol, output: String? = nil) async throws -> (HTTPResponse.Status, [String: Any]) {
        try await OutputRoutesTests.get(client, "/api/v1/override" + (output.map { "?output=\($0)" } ?? ""))
    }

    static func delete(_ client: some TestClientProtocol, output: String? = nil) async throws -> (HTTPResponse.Status, [String: Any]) {
        try await OverrideRoutesTests.delete(client, "/api/v1/override" + (output.map { "?output=\($0)" } ?? ""))
    }

    /// The override files in `directory`, by name.
    static func overrideFiles(_ directory: String) throws -> [String] {
        try FileManager.default.contentsOfDirectory(atPath: directory).filter { $0.hasPrefix("override") }.sorted()
    }

    /// A state directory outside the harness's own, so that it outlives the first harness.
    static func stateDirectory() -> String {
        NSTemporaryDirectory() + "vitrine-output-override-state-" + UUID().uuidString
    }

    @Test func anOverrideOnOneOutputReachesThatGroupAloneAndTheOtherKeepsShowing() async throws {
        let harness = try OutputRoutesTests.twoGroups()
        defer { harness.close() }
        #expect(await harness.eventually { Self.status(harness, "DSI-1")?.slideCount == 2 && Self.status(harness, "HDMI-A-1")?.slideCount == 1 })
        try await harness.application().test(.router) { client in
            let (status, answer) = try await Self.post(client, harness.directory + "/blue.jpg", output: "DSI-1")
            #expect(status == .created, "\(answer)")
            let id = try #require(answer["id"] as? String)
            #expect(answer["output"] as? String == "DSI-1" && answer["scope"] as? String == "output")
            #expect(await harness.eventually { Self.status(harness, "DSI-1")?.override?.id == id })
            #expect(await harness.eventually { Self.status(harness, "DSI-1")?.slideCount == 1 }, "the override's one picture, once decoded")
            try await Task.sleep(for: .milliseconds(200))
            #expect(Self.status(harness, "HDMI-A-1")?.override == nil, "the other output keeps its playlist")
            #expect(Self.status(harness, "HDMI-A-1")?.slideCount == 1 && Self.status(harness, "HDMI-A-1")?.screen.isLit == true)

            // What each output shows, and the kiosk's view.
            var (got, shown) = try await Self.get(client, output: "DSI-1")
            #expect(got == .ok && shown["id"] as? String == id && shown["scope"] as? String == "output" && shown["output"] as? String == "DSI-1")
            (got, shown) = try await Self.get(client, output: "HDMI-A-1")
            #expect(got == .notFound && shown["error"] as? String == "no override is active on HDMI-A-1")
            (got, shown) = try await Self.get(client)
            #expect(got == .ok && shown["id"] == nil, "no override for every output: \(shown)")
            #expect(((shown["outputs"] as? [String: Any])?["DSI-1"] as? [String: Any])?["id"] as? String == id)
            #expect((shown["outputs"] as? [String: Any])?.count == 1)
        }
        #expect(try Self.overrideFiles(harness.stateDirectory) == ["override-DSI-1.json"])
    }

    @Test func anOutputsOwnIsAboveTheOneForEveryOutputAndDeletingItFallsBack() async throws {
        let harness = try OutputRoutesTests.twoGroups()
        defer { harness.close() }
        #expect(await harness.eventually { Self.status(harness, "DSI-1")?.slideCount == 2 })
        try await harness.application().test(.router) { client in
            let everyOutput = try #require(try await Self.post(client, harness.directory + "/green.jpg").1["id"] as? String)
            #expect(await harness.eventually { Self.groups.allSatisfy { Self.status(harness, $0)?.override?.id == everyOutput } })
            let own = try #require(try await Self.post(client, harness.directory + "/blue.jpg", output: "DSI-1").1["id"] as? String)
            #expect(await harness.eventually { Self.status(harness, "DSI-1")?.override?.id == own })
            #expect(Self.status(harness, "HDMI-A-1")?.override?.id == everyOutput)

            var (got, shown) = try await Self.get(client, output: "HDMI-A-1")
            #expect(got == .ok && shown["id"] as? String == everyOutput && shown["scope"] as? String == "all" && shown["output"] == nil)
            (got, shown) = try await Self.get(client, output: "DSI-1")
            #expect(shown["id"] as? String == own && shown["scope"] as? String == "output")
            (got, shown) = try await Self.get(client)
            #expect(shown["id"] as? String == everyOutput && shown["scope"] as? String == "all")
            #expect(((shown["outputs"] as? [String: Any])?["DSI-1"] as? [String: Any])?["id"] as? String == own)

            // DELETE on one output: its own ends, and it shows the one for every output again.
            #expect(try await Self.delete(client, output: "DSI-1").0 == .noContent)
            #expect(await harness.eventually { Self.status(harness, "DSI-1")?.override?.id == everyOutput })
            #expect(Self.status(harness, "HDMI-A-1")?.override?.id == everyOutput)
            let (again, refusal) = try await Self.delete(client, output: "DSI-1")
            #expect(again == .notFound)
            #expect(refusal["error"] as? String
                == "no override of its own is active on DSI-1; the override for every output shows there, and DELETE without output ends it")
            #expect(try Self.overrideFiles(harness.stateDirectory) == ["override.json"])

            // One for every output ends each output's own: every screen shows it.
            let second = try #require(try await Self.post(client, harness.directory + "/blue.jpg", output: "DSI-1").1["id"] as? String)
            #expect(await harness.eventually { Self.status(harness, "DSI-1")?.override?.id == second })
            let last = try #require(try await Self.post(client, harness.directory + "/red.jpg").1["id"] as? String)
            #expect(await harness.eventually { Self.groups.allSatisfy { Self.status(harness, $0)?.override?.id == last } })
            #expect(try Self.overrideFiles(harness.stateDirectory) == ["override.json"])
            #expect(try await Self.get(client).1["outputs"] == nil, "no output has its own: no map")

            // DELETE without output ends every override.
            _ = try await Self.post(client, harness.directory + "/blue.jpg", output: "DSI-1")
            #expect(try await Self.delete(client).0 == .noContent)
            #expect(await harness.eventually { Self.groups.allSatisfy { Self.status(harness, $0)?.override == nil } })
            #expect(try Self.overrideFiles(harness.stateDirectory).isEmpty)
            #expect(try await Self.delete(client).0 == .notFound)
            #expect(try await Self.get(client).0 == .notFound)
        }
    }

    /// A query key is percent-decoded before it is matched: `?outpu%74=DSI-1`
    /// ends DSI-1's own override only. Before, the key was not decoded, so the
    /// DELETE addressed the whole kiosk and ended every override. A key the
    /// route does not take is 400 naming it, and ends nothing.
    @Test func aPercentEncodedQueryKeyAddressesItsOutputAndAnUnknownKeyIsRefused() async throws {
        let harness = try OutputRoutesTests.twoGroups()
        defer { harness.close() }
        #expect(await harness.eventually { Self.status(harness, "DSI-1")?.slideCount == 2 })
        try await harness.application().test(.router) { client in
            let everyOutput = try #require(try await Self.post(client, harness.directory + "/green.jpg").1["id"] as? String)
            let own = try #require(try await Self.post(client, harness.directory + "/blue.jpg", output: "DSI-1").1["id"] as? String)
            #expect(await harness.eventually { Self.status(harness, "DSI-1")?.override?.id == own })

            let (misspelt, refusal) = try await OverrideRoutesTests.delete(client, "/api/v1/override?outptu=DSI-1")
            #expect(misspelt == .badRequest)
            #expect(refusal["error"] as? String == "unknown query parameter outptu: DELETE /api/v1/override takes only output")
            #expect(try await Self.get(client, output: "DSI-1").1["id"] as? String == own, "nothing ended")

            #expect(try await OverrideRoutesTests.delete(client, "/api/v1/override?outpu%74=DSI%2D1").0 == .noContent)
            #expect(await harness.eventually { Self.status(harness, "DSI-1")?.override?.id == everyOutput })
            #expect(Self.status(harness, "HDMI-A-1")?.override?.id == everyOutput, "the override for every output goes on")
            #expect(try await Self.get(client).1["id"] as? String == everyOutput)

            let control = try await client.execute(uri: "/api/v1/control?%6Futput=NOPE", method: .post,
                                                   headers: authorized([.contentType: "application/json"]),
                                                   body: ByteBuffer(string: #"{"command": "next"}"#)) { $0.status }
            #expect(control == .notFound, "the decoded key names an output the kiosk does not drive")
        }
    }

    /// The display thread ends an output's own at its `until` by itself, and
    /// shows the override for every output there at once: nobody sends it again.
    @Test func anOutputsOwnEndingByItselfFallsBackToTheOneForEveryOutput() async throws {
        let harness = try OutputRoutesTests.twoGroups()
        defer { harness.close() }
        #expect(await harness.eventually { Self.status(harness, "DSI-1")?.slideCount == 2 })
        try await harness.application().test(.router) { client in
            let everyOutput = try #require(try await Self.post(client, harness.directory + "/green.jpg").1["id"] as? String)
            // Long enough to be seen on a loaded machine before it ends.
            let (status, answer) = try await Self.post(client, harness.directory + "/blue.jpg", output: "DSI-1", duration: "4s")
            #expect(status == .created, "\(answer)")
            let own = try #require(answer["id"] as? String)
            #expect(await harness.eventually { Self.status(harness, "DSI-1")?.override?.id == own })
            #expect(await harness.eventually(10) { Self.status(harness, "DSI-1")?.override?.id == everyOutput },
                    "at its end, DSI-1 shows the override for every output again")
            #expect(Self.status(harness, "HDMI-A-1")?.override?.id == everyOutput)
            let (got, shown) = try await Self.get(client, output: "DSI-1")
            #expect(got == .ok && shown["id"] as? String == everyOutput && shown["scope"] as? String == "all")
        }
    }

    /// Each loop hears of a change to what it shows, and of nothing else: the
    /// override for every output is not sent again to the group that keeps it.
    @Test func eachLoopIsSentWhatItShowsOnlyWhenThatChanges() async throws {
        let harness = try OverrideHarness(groups: Self.groups)
        defer { harness.close() }
        try await harness.application().test(.router) { client in
            let all = try #require(try await Self.post(client, harness.picturePath).1["id"] as? String)
            let first = harness.overridesAndFallbacksSent(group: 0), second = harness.overridesAndFallbacksSent(group: 1)
            #expect(first.map { $0.override?.id } == [all] && first.map { $0.fallback } == [nil])
            #expect(second == first)

            let own = try #require(try await Self.post(client, harness.picturePath, output: "DSI-1").1["id"] as? String)
            #expect(harness.overridesSent(group: 0).isEmpty, "HDMI-A-1 shows the same override: it is not sent again")
            let sent = harness.overridesAndFallbacksSent(group: 1)
            #expect(sent.map { $0.override?.id } == [own] && sent.map { $0.fallback?.id } == [all], "DSI-1 is told both")

            #expect(try await Self.delete(client, output: "DSI-1").0 == .noContent)
            #expect(harness.overridesSent(group: 0).isEmpty)
            #expect(harness.overridesAndFallbacksSent(group: 1).map { $0.override?.id } == [all])
            #expect(try await Self.delete(client, output: "DSI-1").0 == .notFound)
            #expect(harness.commands(group: 1).isEmpty, "nothing changed, nothing sent")

            #expect(try await Self.delete(client).0 == .noContent)
            #expect(harness.overridesSent(group: 0) == [nil] && harness.overridesSent(group: 1) == [nil])
        }
    }

    @Test func aRestartShowsEachOutputItsOwnAndTheOthersTheOneForEveryOutput() async throws {
        let state = Self.stateDirectory()
        defer { try? FileManager.default.removeItem(atPath: state) }
        let first = try ServerHarness(yaml: OutputsPushTests.yaml, stateDirectory: state, groups: Self.groups)
        let (all, own) = try await first.application().test(.router) { client in
            (try await Self.post(client, first.directory + "/green.jpg").1["id"] as? String,
             try await Self.post(client, first.directory + "/blue.jpg", output: "DSI-1").1["id"] as? String)
        }
        first.close()
        #expect(try Self.overrideFiles(state) == ["override-DSI-1.json", "override.json"])

        let restarted = try ServerHarness(yaml: OutputsPushTests.yaml, stateDirectory: state, groups: Self.groups)
        defer { restarted.close() }
        #expect(await restarted.eventually { Self.status(restarted, "DSI-1")?.override?.id == own })
        #expect(await restarted.eventually { Self.status(restarted, "HDMI-A-1")?.override?.id == all })
        try await restarted.application().test(.router) { client in
            let shown = try await Self.get(client).1
            #expect(shown["id"] as? String == all)
            #expect(((shown["outputs"] as? [String: Any])?["DSI-1"] as? [String: Any])?["id"] as? String == own)
        }
    }

    /// `override.json` as a version from before per-output overrides wrote it: every output shows it.
    @Test func anOlderStateDirectorysOverrideShowsOnEveryOutput() async throws {
        let state = Self.stateDirectory()
        defer { try? FileManager.default.removeItem(atPath: state) }
        try FileManager.default.createDirectory(atPath: state, withIntermediateDirectories: true)
        let until = (WallClock.now() + 1800).description
        try Array(#"{"id":"01d01d00","interval":null,"since":"2026-01-01T00:00:00Z","slides":[{"path":"/srv/none.jpg"}],"until":"\#(until)"}"#.utf8)
            .write(to: state + "/override.json")
        let harness = try ServerHarness(yaml: OutputsPushTests.yaml, stateDirectory: state, groups: Self.groups)
        defer { harness.close() }
        #expect(await harness.eventually { Self.groups.allSatisfy { Self.status(harness, $0)?.override?.id == "01d01d00" } })
        try await harness.application().test(.router) { client in
            let (got, shown) = try await Self.get(client, output: "DSI-1")
            #expect(got == .ok && shown["id"] as? String == "01d01d00" && shown["scope"] as? String == "all")
        }
    }

    @Test func anUnknownOutputIs404AndStoresNothing() async throws {
        let harness = try OutputRoutesTests.twoGroups()
        defer { harness.close() }
        #expect(await harness.eventually { Self.status(harness, "DSI-1")?.slideCount == 2 })
        let picture = try ServerHarness.jpeg(ServerHarness.colors["blue"]!, size: PixelSize(width: 30, height: 20))
        try await harness.application().test(.router) { client in
            for output in ["DP-3", "", "DSI-1&output=HDMI-A-1", "..%2Foverride"] {
                var answers = [try await Self.post(client, harness.directory + "/blue.jpg", output: output),
                               try await OverrideRoutesTests.postPicture(client, picture, query: "?duration=5m&output=\(output)"),
                               try await Self.get(client, output: output), try await Self.delete(client, output: output)]
                _ = try await Self.post(client, harness.directory + "/blue.jpg")
                answers.append(try await Self.delete(client, output: output))
                _ = try await Self.delete(client)
                for (status, answer) in answers {
                    #expect(status == .notFound, "output=\(output): \(answer)")
                    #expect(answer["outputs"] as? [String] == Self.groups, "output=\(output): \(answer)")
                }
            }
            let assets = try await OutputRoutesTests.get(client, "/api/v1/assets").1["assets"] as? [[String: Any]]
            #expect(assets?.contains { $0["id"] as? String == ContentDigest.sha256(picture) } == false, "the picture was not stored")
        }
        #expect(try Self.overrideFiles(harness.stateDirectory).isEmpty)
        // The ones for every output set (to see a DELETE on a wrong name refused) were cleared after each.
        #expect(await harness.eventually { Self.groups.allSatisfy { Self.status(harness, $0)?.override == nil } })
    }

    @Test func theOverrideOnOneOutputNeedsTheToken() async throws {
        let harness = try OutputRoutesTests.twoGroups()
        defer { harness.close() }
        try await harness.application().test(.router) { client in
            for method in [HTTPRequest.Method.post, .get, .delete] {
                try await client.execute(uri: "/api/v1/override?output=DSI-1", method: method, headers: [.contentType: "application/json"],
                                         body: body(#"{"slides": ["\#(harness.directory)/blue.jpg"], "duration": "5m"}"#)) { response in
                    #expect(response.status == .unauthorized, "\(method) without a token")
                }
                var wrong = HTTPFields()
                wrong[.authorization] = "Bearer not-the-token-0000000"
                wrong[.contentType] = "application/json"
                try await client.execute(uri: "/api/v1/override?output=DSI-1", method: method, headers: wrong,
                                         body: body(#"{"slides": ["\#(harness.directory)/blue.jpg"], "duration": "5m"}"#)) { response in
                    #expect(response.status == .unauthorized, "\(method) with a wrong token")
                }
            }
        }
        #expect(try Self.overrideFiles(harness.stateDirectory).isEmpty)
        #expect(Self.status(harness, "DSI-1")?.override == nil)
    }

    @Test func setAndClearOnOneOutputAreAnnouncedWithItsName() async throws {
        let harness = try OverrideHarness(groups: Self.groups)
        defer { harness.close() }
        let events = harness.api.events.subscribe()
        try await harness.application().test(.router) { client in
            let own = try #require(try await Self.post(client, harness.picturePath, output: "DSI-1").1["id"] as? String)
            let all = try #require(try await Self.post(client, harness.picturePath).1["id"] as? String)
            _ = try await Self.delete(client)
            // Published before each answer; a stream that has fewer is given up after 5 s, not waited on for ever.
            let collecting = Task {
                var received: [ServerEvent] = []
                for await event in events {
                    received.append(event)
                    if received.count == 4 { break }
                }
                return received
            }
            let deadline = Task {
                try await Task.sleep(for: .seconds(5))
                collecting.cancel()
            }
            let received = await collecting.value
            deadline.cancel()
            #expect(received.map(\.name) == ["overrideSet", "overrideSet", "overrideCleared", "overrideCleared"])
            guard received.count == 4 else { return }
            let data = try received.map { try #require(try JSONSerialization.jsonObject(with: Data($0.data.utf8)) as? [String: Any]) }
            #expect(data[0]["id"] as? String == own && data[0]["output"] as? String == "DSI-1" && data[0]["scope"] as? String == "output")
            #expect(data[1]["id"] as? String == all && data[1]["output"] == nil && data[1]["scope"] as? String == "all")
            // The one for every output ended DSI-1's own; clearing then ended the one for every output.
            #expect(data[2]["id"] as? String == own && data[2]["output"] as? String == "DSI-1")
            #expect(data[3]["id"] as? String == all && data[3]["output"] == nil)
        }
    }
}
