import Foundation
import Hummingbird
import HummingbirdTesting
import Logging
import NIOCore
import Synchronization
import Testing
import VitrineConfig
import VitrineCore
import PictureTestSupport
import VitrineRuntime
import VitrineSandbox
@testable import VitrineAPI
@testable import VitrineHTTP
@testable import VitrineURLImages
import VitrineSandboxHelper

/// A picture server on loopback that revalidates with an ETag and counts what it answered.
final class PictureServer: Sendable {
    /// What the server answered, in order.
    final class Record: Sendable {
        let statuses = Mutex<[Int]>([])
    }

    let record = Record()
    private let server: LoopbackServer

    var port: Int? { server.port }
    var statuses: [Int] { record.statuses.withLock { $0 } }

    init(picture: [UInt8]) async throws {
        let router = Router()
        let record = self.record
        router.get("/pictures/:name") { request, _ -> Response in
            if request.headers[.ifNoneMatch] == "\"v1\"" {
                record.statuses.withLock { $0.append(304) }
                return Response(status: .notModified, headers: [.eTag: "\"v1\""])
            }
            record.statuses.withLock { $0.append(200) }
            return Response(status: .ok, headers: [.eTag: "\"v1\"", .contentType: "image/jpeg"], body: .init(byteBuffer: ByteBuffer(bytes: picture)))
        }
        router.get("/not-a-picture") { _, _ in "hello" }
        server = try await LoopbackServer(router)
    }

    func stop() async { await server.stop() }
}

@Suite("URL images")
struct URLImageTests {
    // A download that runs into urlTimeout is fetched again, which "downloaded once" below
    // would count: 10 s, not 2 s, so that a CI machine starved of CPU does not get there.
    static let yaml = ServerHarness.defaultYAML.replacingOccurrences(of: "token:", with: "urlRefresh: 500ms, urlTimeout: 10s, token:")

    func screenCentre(_ harness: ServerHarness) async -> (r: Int, g: Int, b: Int)? {
        guard let frame = await StatusRoutes.displayAnswer({ reply in harness.api.link.requestFrame(reply: reply) }) else { return nil }
        let pixel = frame.pixels[frame.size.height / 2 * frame.size.width + frame.size.width / 2]
        return (Int((pixel >> 16) & 0xFF), Int((pixel >> 8) & 0xFF), Int(pixel & 0xFF))
    }

    func waitForScreen(_ harness: ServerHarness, _ colour: RGBAColor, seconds: Double = 10) async throws -> Bool {
        let deadline = Date().addingTimeInterval(seconds)
        while Date() < deadline {
            if let centre = await screenCentre(harness), near(centre, colour) { return true }
            try await Task.sleep(for: .milliseconds(50))
        }
        return false
    }

    @Test func aURLSlideShowsOnceDownloadedRevalidatesAndKeepsItsCopyOffline() async throws {
        let harness = try ServerHarness(yaml: Self.yaml)
        defer { harness.close() }
        let server = try await PictureServer(picture: try ServerHarness.jpeg(ServerHarness.colors["blue"]!))
        let port = try #require(server.port)
        let url = "http://127.0.0.1:\(port)/pictures/sea.jpg"
        let fetcher = Task { await harness.api.apply.fetcher.run() }
        defer { fetcher.cancel() }
        try await harness.application().test(.router) { client in
            try await client.execute(uri: "/api/v1/config", method: .put, headers: authorized([.contentType: "application/yaml"]),
                                     body: body("slides: [\"\(url)\"]\nautoplay: false\nbackground: \"#000000\"")) { #expect($0.status == .ok) }
        }
        #expect(try await waitForScreen(harness, ServerHarness.colors["blue"]!), "the downloaded picture is on screen")
        #expect(await harness.eventually(15) { server.statuses.contains(304) }, "revalidated with If-None-Match (urlRefresh is 500 ms; the margin is for a loaded machine)")
        #expect(server.statuses.filter { $0 == 200 }.count == 1, "downloaded once")
        let asset = try #require(harness.api.apply.fetcher.assetIDs[url])
        #expect(harness.api.apply.assetsInUse.contains(asset), "a URL's download counts as in use")

        await server.stop()
        let errors = harness.api.events.subscribe()
        var sawError = false
        for await event in errors where event.name == "error" {
            sawError = event.data.contains("cannot download \(url)") && event.data.contains("keeping the copy downloaded before")
            break
        }
        #expect(sawError)
        #expect(try await waitForScreen(harness, ServerHarness.colors["blue"]!, seconds: 1), "offline, the cached copy keeps showing")

        // A restart finds the copy at once, before any network.
        let restarted = URLImageFetcher(store: harness.store, settings: harness.store.current.configuration.api, maxPixels: 1_000_000, pictures: InProcessPictureInspector(),
                                        events: EventHub(), logger: Logger(label: "test"))
        #expect(restarted.localFiles[url] == harness.store.assets.path(asset))
    }

    /// Every push calls `track`. Waking the loop cancels its sleep, and a cancelled
    /// `Task.sleep` holds its timer until the deadline, up to an hour: the soak saw
    /// that as resident memory rising with each push.
    @Test func onlyAChangedListOfURLsWakesTheDownloadLoop() throws {
        let harness = try ServerHarness()
        defer { harness.close() }
        let fetcher = harness.api.apply.fetcher
        let local = harness.store.current.configuration
        for _ in 0..<3 { fetcher.track(local) }
        #expect(fetcher.wakeCount == 0)
        let withURL = try ConfigLoader.parse("slides: [red.jpg, \"http://127.0.0.1:9/a.jpg\"]\noutput: {display: headless, width: 64, height: 48}\n",
                                             baseDirectory: local.baseDirectory)
        for _ in 0..<3 { fetcher.track(withURL) }
        #expect(fetcher.wakeCount == 1)
        fetcher.track(local)
        #expect(fetcher.wakeCount == 2)
    }

    @Test func untilTheFirstDownloadTheSlideShowsThePlaceholder() async throws {
        let harness = try ServerHarness(yaml: Self.yaml)
        defer { harness.close() }
        try await harness.application().test(.router) { client in
            // Nothing listens on port 9 of loopback; the placeholder is green.
            try await client.execute(uri: "/api/v1/config", method: .put, headers: authorized([.contentType: "application/yaml"]),
                                     body: body("slides: [\"http://127.0.0.1:9/a.jpg\"]\nautoplay: false\nplaceholder: green.jpg")) { #expect($0.status == .ok) }
        }
        #expect(try await waitForScreen(harness, ServerHarness.colors["green"]!))
        #expect(await harness.eventually { harness.api.link.status.recentErrors.contains { $0.contains("http://127.0.0.1:9/a.jpg: not downloaded yet") } })
    }

    /// A URL may name a video: downloaded, opened in a video helper from its
    /// sealed bytes (the sandboxed inspector the kiosk runs), and kept as a video asset.
    @Test func aURLThatNamesAVideoIsDownloadedAndKeptAsAVideo() async throws {
        let harness = try ServerHarness(yaml: Self.yaml)
        defer { harness.close() }
        let clip = try NumberedClip(codec: .h264, framesPerSecond: 25, seconds: 0.4)
        defer { clip.remove() }
        let server = try await PictureServer(picture: Array(try Data(contentsOf: URL(fileURLWithPath: clip.path))))
        let port = try #require(server.port)
        let url = "http://127.0.0.1:\(port)/pictures/promo.mp4"
        let built = URL(fileURLWithPath: "/proc/self/exe").resolvingSymlinksInPath().deletingLastPathComponent()
        let inspector = SandboxedPictureInspector(pool: DecodePool(executable: built.appendingPathComponent("vitrine").path, size: 1, limits: HelperLimits()),
                                                  videos: SandboxedVideoOpener(executable: built.appendingPathComponent("vitrine-video").path))
        let fetcher = URLImageFetcher(store: harness.store, settings: harness.store.current.configuration.api, maxPixels: 1_000_000,
                                      pictures: inspector, events: EventHub(), logger: Logger(label: "test"))
        fetcher.track(try ConfigLoader.parse("slides: [\"\(url)\"]"))
        await fetcher.refresh(url)
        let assets = harness.store.assets.list()
        #expect(assets.map(\.kind) == [.mp4] && assets.map(\.width) == [320] && assets.map(\.height) == [240])
        #expect(assets.first.map { fetcher.localFiles[url] == harness.store.assets.path($0.id) } == true)
        await server.stop()
    }

    @Test func aURLThatIsNotAPictureIsReportedAndNotStored() async throws {
        let harness = try ServerHarness(yaml: Self.yaml)
        defer { harness.close() }
        let server = try await PictureServer(picture: [])
        let port = try #require(server.port)
        let url = "http://127.0.0.1:\(port)/not-a-picture"
        let errors = harness.api.events.subscribe()
        harness.api.apply.fetcher.track(try ConfigLoader.parse("slides: [\"\(url)\"]"))
        await harness.api.apply.fetcher.refresh(url)
        var message = ""
        for await event in errors where event.name == "error" { message = event.data; break }
        #expect(message.contains("cannot download \(url): not a JPEG, PNG, WebP, GIF or HEIF picture; its slide shows the placeholder"))
        // What the server sent ("hello…") is not repeated, in any form.
        #expect(!message.contains("68 65 6C 6C") && !message.lowercased().contains("hello"), "\(message)")
        #expect(harness.store.assets.list().isEmpty)
        await server.stop()
    }
}
