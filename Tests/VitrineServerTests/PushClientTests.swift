import Foundation
import Hummingbird
import HummingbirdTesting
import ServerTestSupport
import Testing
import VitrineConfig
@testable import VitrineClient

@Suite("Push client")
struct PushClientTests {
    /// Over a real socket: the first push uploads the local pictures and
    /// applies; the second sends nothing new and changes nothing.
    @Test func pushingTwiceUploadsOnceAndChangesOnce() async throws {
        let harness = try ServerHarness()
        defer { harness.close() }
        let local = harness.directory + "/elsewhere"
        try FileManager.default.createDirectory(atPath: local + "/pictures", withIntermediateDirectories: true)
        try ServerHarness.jpeg(ServerHarness.colors["blue"]!).write(to: local + "/pictures/sea.jpg")
        try Array("""
            slides: [pictures/sea.jpg, {path: pictures/sea.jpg, duration: 3s}, "http://example.invalid/x.jpg"]
            placeholder: pictures/sea.jpg
            autoplay: false
            output: {display: drm, width: 1920, height: 1080}
            api: {token: never-sent-anywhere-000}
            """.utf8).write(to: local + "/kiosk.yaml")
        let configuration = try ConfigLoader.load(file: local + "/kiosk.yaml")
        try await harness.application().test(.live) { client in
            let pusher = ConfigPusher(client: RemoteClient(base: "http://127.0.0.1:\(try #require(client.port))", token: ServerHarness.token))
            let first = try await pusher.push(configuration)
            #expect(first.changed)
            #expect(first.uploaded.map(\.path) == ["pictures/sea.jpg"], "one upload for three references")
            let id = first.uploaded[0].id
            let stored = harness.store.current.configuration
            #expect(stored.slides.map(\.path) == ["asset:\(id)", "asset:\(id)", "http://example.invalid/x.jpg"])
            #expect(stored.placeholder == "asset:\(id)")
            #expect(stored.output == harness.store.previous?.configuration.output, "the kiosk keeps its own output")

            let second = try await pusher.push(configuration)
            #expect(!second.changed)
            #expect(second.uploaded.isEmpty)
            #expect(second.version == first.version)
            #expect(harness.store.assets.list().count == 1)

            // A stale If-Match is refused with the kiosk's own message.
            await #expect(throws: RemoteClient.Refusal.self) { try await pusher.push(configuration, ifVersion: "0000000000000000") }
            let wrongToken = ConfigPusher(client: RemoteClient(base: "http://127.0.0.1:\(try #require(client.port))", token: "wrong-token-000000000"))
            do {
                _ = try await wrongToken.push(configuration)
                Issue.record("a wrong token pushed")
            } catch let refusal as RemoteClient.Refusal {
                #expect(refusal.description == "GET /api/v1/assets: 401: the token is not valid")
            }
        }
    }

    /// `vitrine push FILE --output DSI-1`: the file's slides, their local
    /// pictures uploaded, become DSI-1's own playlist (menu); HDMI-A-1's stays.
    @Test func aPushToOneOutputSendsOnlyTheSlidesAsItsPlaylist() async throws {
        let harness = try OutputRoutesTests.twoGroups()
        defer { harness.close() }
        let local = harness.directory + "/elsewhere"
        try FileManager.default.createDirectory(atPath: local, withIntermediateDirectories: true)
        try ServerHarness.jpeg(ServerHarness.colors["blue"]!).write(to: local + "/sea.jpg")
        try Array("slides: [sea.jpg, {path: sea.jpg, duration: 3s}]\n".utf8).write(to: local + "/menu.yaml")
        let configuration = try ConfigLoader.load(file: local + "/menu.yaml")
        let before = harness.store.current.configuration
        try await harness.application().test(.live) { client in
            let pusher = ConfigPusher(client: RemoteClient(base: "http://127.0.0.1:\(try #require(client.port))", token: ServerHarness.token))
            let outcome = try await pusher.push(configuration, output: "DSI-1")
            #expect(outcome.changed && outcome.uploaded.map(\.path) == ["sea.jpg"])
            let id = try #require(outcome.uploaded.first?.id)
            let stored = harness.store.current.configuration
            #expect(stored.schedule?.playlist(named: "menu")?.slides.map(\.slide.path) == ["asset:\(id)", "asset:\(id)"])
            #expect(stored.schedule?.playlist(named: "lobby") == before.schedule?.playlist(named: "lobby"))
            #expect(stored.interval == before.interval && stored.autoplay == before.autoplay)
            #expect(await harness.eventually { OutputRoutesTests.status(harness, "DSI-1")?.configurationVersion == outcome.version })
            // An output that is not there: the kiosk's 404, as the client says it.
            do {
                _ = try await pusher.push(configuration, output: "DP-3")
                Issue.record("a push to DP-3 was taken")
            } catch let refusal as RemoteClient.Refusal {
                #expect(refusal.description.hasPrefix("PUT /api/v1/config?output=DP-3: 404: no output DP-3"), "\(refusal)")
            }
        }
    }
}
