import Foundation
import Hummingbird
import Logging
import NIOCore
import Synchronization
import Testing
import VitrineConfig
import VitrineCore
import VitrineRuntime
import VitrineSystem
@testable import VitrineAPI
@testable import VitrineHTTP
@testable import VitrineState
@testable import VitrineURLImages

/// A file server on loopback that answers `Range` with `If-Range` as nginx
/// does, whose file can change and whose answers can be broken off.
final class RangeServer: Sendable {
    final class Record: Sendable {
        let file = Mutex<(bytes: [UInt8], etag: String)>(([], ""))
        /// Bodies are cut off after this many bytes (the connection dropped).
        let cutAfter = Mutex<Int?>(nil)
        /// Whether the file's ETag is weak and no Last-Modified is sent: nothing to resume by.
        let noStrongValidator = Mutex(false)
        /// Each request's `Range` and `If-Range` ("" when absent) and the status answered.
        let requests = Mutex<[(range: String, ifRange: String, status: Int)]>([])
    }

    let record = Record()
    private let server: LoopbackServer
    var port: Int? { server.port }
    var requests: [(range: String, ifRange: String, status: Int)] { record.requests.withLock { $0 } }

    init(_ bytes: [UInt8], etag: String = "\"v1\"") async throws {
        record.file.withLock { $0 = (bytes, etag) }
        let router = Router()
        let record = self.record
        router.get("/files/:name") { request, _ -> Response in
            let (bytes, etag) = record.file.withLock { $0 }
            let weak = record.noStrongValidator.withLock { $0 }
            let response = RangeResponse.answer(bytes, etag: etag, weakETag: weak, range: request.headers[.range],
                                                ifRange: request.headers[.ifRange], cutAfter: record.cutAfter.withLock { $0 })
            record.requests.withLock { $0.append((request.headers[.range] ?? "", request.headers[.ifRange] ?? "", Int(response.status.code))) }
            return response
        }
        server = try await LoopbackServer(router)
    }

    func stop() async { await server.stop() }
}

/// A URL slide's download is staged to disk as it arrives; one broken off is
/// resumed with `Range` and `If-Range` where that is safe.
@Suite("URL downloads: resuming", .serialized)
struct URLDownloadResumeTests {
    static func picture(_ colour: String) throws -> [UInt8] {
        try ServerHarness.jpeg(ServerHarness.colors[colour]!, size: PixelSize(width: 64, height: 48))
    }

    static func fetcher(_ harness: ServerHarness) -> URLImageFetcher {
        URLImageFetcher(store: harness.store, settings: harness.store.current.configuration.api, maxPixels: 1_000_000,
                        pictures: InProcessPictureInspector(), events: EventHub(), logger: Logger(label: "test"))
    }

    static func partPath(_ harness: ServerHarness, _ url: String) -> String {
        harness.store.assets.directory + "/partial-" + URLImageFetcher.partialKey(of: url)
    }

    static func size(_ path: String) -> Int? { (try? FileManager.default.attributesOfItem(atPath: path)[.size] as? Int) ?? nil }

    @Test func aDownloadBrokenOffGoesOnWhereItStopped() async throws {
        let harness = try ServerHarness(yaml: URLImageTests.yaml)
        defer { harness.close() }
        let blue = try Self.picture("blue")
        let server = try await RangeServer(blue)
        let url = "http://127.0.0.1:\(try #require(server.port))/files/blue.jpg"
        let fetcher = Self.fetcher(harness)
        fetcher.track(try ConfigLoader.parse("slides: [\"\(url)\"]"))
        let cut = blue.count / 2
        server.record.cutAfter.withLock { $0 = cut }
        await fetcher.refresh(url)
        #expect(fetcher.assetIDs[url] == nil)
        #expect(Self.size(Self.partPath(harness, url)) == cut)
        #expect(try FileIO.read(Self.partPath(harness, url) + ".validator") == Array("\"v1\"".utf8))

        server.record.cutAfter.withLock { $0 = nil }
        await fetcher.refresh(url)
        let asset = try #require(fetcher.assetIDs[url])
        #expect(try harness.store.assets.bytes(asset) == blue)
        #expect(server.requests.map(\.range) == ["", "bytes=\(cut)-"])
        #expect(server.requests.map(\.ifRange) == ["", "\"v1\""])
        #expect(server.requests.map(\.status) == [200, 206])
        #expect(Self.size(Self.partPath(harness, url)) == nil && Self.size(Self.partPath(harness, url) + ".validator") == nil)
        await server.stop()
    }

    /// The file changed between the attempts: If-Range no longer matches, the
    /// server sends the new file whole, and that is what is kept.
    @Test func aFileChangedBetweenAttemptsIsTakenWhole() async throws {
        let harness = try ServerHarness(yaml: URLImageTests.yaml)
        defer { harness.close() }
        let server = try await RangeServer(try Self.picture("blue"))
        let url = "http://127.0.0.1:\(try #require(server.port))/files/banner.jpg"
        let fetcher = Self.fetcher(harness)
        fetcher.track(try ConfigLoader.parse("slides: [\"\(url)\"]"))
        server.record.cutAfter.withLock { $0 = 200 }
        await fetcher.refresh(url)
        let green = try Self.picture("green")
        server.record.file.withLock { $0 = (green, "\"v2\"") }
        server.record.cutAfter.withLock { $0 = nil }
        await fetcher.refresh(url)
        let asset = try #require(fetcher.assetIDs[url])
        #expect(try harness.store.assets.bytes(asset) == green)
        #expect(server.requests.map(\.status) == [200, 200])
        #expect(server.requests.last?.ifRange == "\"v1\"")
        #expect(Self.size(Self.partPath(harness, url)) == nil)
        await server.stop()
    }

    /// Nothing to resume by (a weak ETag, no Last-Modified): the part is
    /// dropped and the next attempt asks for the whole file.
    @Test func withoutAStrongValidatorTheDownloadStartsOver() async throws {
        let harness = try ServerHarness(yaml: URLImageTests.yaml)
        defer { harness.close() }
        let blue = try Self.picture("blue")
        let server = try await RangeServer(blue)
        server.record.noStrongValidator.withLock { $0 = true }
        let url = "http://127.0.0.1:\(try #require(server.port))/files/weak.jpg"
        let fetcher = Self.fetcher(harness)
        fetcher.track(try ConfigLoader.parse("slides: [\"\(url)\"]"))
        server.record.cutAfter.withLock { $0 = 200 }
        await fetcher.refresh(url)
        #expect(Self.size(Self.partPath(harness, url)) == 200)
        server.record.cutAfter.withLock { $0 = nil }
        await fetcher.refresh(url)
        #expect(try fetcher.assetIDs[url].map { try harness.store.assets.bytes($0) } == blue)
        #expect(server.requests.map(\.range) == ["", ""])
        await server.stop()
    }

    /// A revalidation that is answered 304 leaves no part behind.
    @Test func aRevalidationLeavesNoPart() async throws {
        let harness = try ServerHarness(yaml: URLImageTests.yaml)
        defer { harness.close() }
        let server = try await PictureServer(picture: try Self.picture("blue"))
        let url = "http://127.0.0.1:\(try #require(server.port))/pictures/blue.jpg"
        let fetcher = Self.fetcher(harness)
        fetcher.track(try ConfigLoader.parse("slides: [\"\(url)\"]"))
        await fetcher.refresh(url)
        await fetcher.refresh(url)
        #expect(server.statuses == [200, 304])
        let names = try FileManager.default.contentsOfDirectory(atPath: harness.store.assets.directory)
        #expect(!names.contains { $0.hasPrefix("partial-") }, "\(names)")
        await server.stop()
    }
}
