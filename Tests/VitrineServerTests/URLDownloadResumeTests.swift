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
        /// Whether the file has no ETag, only this Last-Modified date.
        let lastModifiedOnly = Mutex<String?>(nil)
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
            let date = record.lastModifiedOnly.withLock { $0 }
            let response: Response
            if let since = request.headers[.ifModifiedSince], since == date {
                response = Response(status: .notModified)
            } else if let match = request.headers[.ifNoneMatch], match == etag, date == nil {
                response = Response(status: .notModified, headers: [.eTag: etag])
            } else {
                response = RangeResponse.answer(bytes, etag: date == nil ? etag : nil, weakETag: weak, lastModified: date, range: request.headers[.range],
                                                ifRange: request.headers[.ifRange], cutAfter: record.cutAfter.withLock { $0 })
            }
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
        #expect(Self.size(Self.partPath(harness, url)) == nil, "a part nothing can resume is not kept")
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

    /// A part with every byte, not stored (the kiosk stopped before it was):
    /// the server answers the range past its end with 416 and the file's
    /// length, which is the part's, so the part is taken as it is.
    @Test func aPartThatIsWholeAlreadyIsStoredWithoutADownload() async throws {
        let harness = try ServerHarness(yaml: URLImageTests.yaml)
        defer { harness.close() }
        let blue = try Self.picture("blue")
        let server = try await RangeServer(blue)
        let url = "http://127.0.0.1:\(try #require(server.port))/files/whole.jpg"
        let part = try AssetUpload(in: harness.store.assets, resuming: URLImageFetcher.partialKey(of: url))
        try part.keepResumeValidator("\"v1\"")
        try part.append(blue)
        let fetcher = Self.fetcher(harness)
        fetcher.track(try ConfigLoader.parse("slides: [\"\(url)\"]"))
        await fetcher.refresh(url)
        #expect(try fetcher.assetIDs[url].map { try harness.store.assets.bytes($0) } == blue)
        #expect(server.requests.map(\.status) == [416])
        await server.stop()
    }

    /// A file with only a Last-Modified date is resumed with If-Range: that
    /// date, and the date is what it is revalidated with after (a 206 need not
    /// carry it).
    @Test func aFileWithOnlyADateIsResumedAndRevalidatedByIt() async throws {
        let harness = try ServerHarness(yaml: URLImageTests.yaml)
        defer { harness.close() }
        let blue = try Self.picture("blue")
        let server = try await RangeServer(blue)
        let date = "Sat, 28 Nov 2026 10:00:00 GMT"
        server.record.lastModifiedOnly.withLock { $0 = date }
        let url = "http://127.0.0.1:\(try #require(server.port))/files/dated.jpg"
        let fetcher = Self.fetcher(harness)
        fetcher.track(try ConfigLoader.parse("slides: [\"\(url)\"]"))
        server.record.cutAfter.withLock { $0 = 300 }
        await fetcher.refresh(url)
        server.record.cutAfter.withLock { $0 = nil }
        await fetcher.refresh(url)
        await fetcher.refresh(url)
        #expect(try fetcher.assetIDs[url].map { try harness.store.assets.bytes($0) } == blue)
        #expect(server.requests.map(\.ifRange) == ["", date, ""])
        #expect(server.requests.map(\.status) == [200, 206, 304])
        await server.stop()
    }

    /// `api.maxUploadSize` bounds the whole file, the part kept included: a
    /// file over it is refused when the part and the rest pass it together,
    /// and its part goes.
    @Test func theLimitCountsThePartKept() async throws {
        let picture = try ServerHarness.jpeg(ServerHarness.colors["blue"]!, size: PixelSize(width: 640, height: 480))
        try #require(picture.count > 3000, "\(picture.count) bytes")
        // The part and the rest are each under the limit; together they are over it.
        let limit = picture.count - 500
        let kept = picture.count - 1000
        let yaml = ServerHarness.defaultYAML.replacingOccurrences(of: "token:", with: "urlRefresh: 500ms, urlTimeout: 10s, maxUploadSize: \(limit), token:")
        let harness = try ServerHarness(yaml: yaml)
        defer { harness.close() }
        let server = try await RangeServer(picture)
        let url = "http://127.0.0.1:\(try #require(server.port))/files/large.jpg"
        let part = try AssetUpload(in: harness.store.assets, resuming: URLImageFetcher.partialKey(of: url))
        try part.keepResumeValidator("\"v1\"")
        try part.append(Array(picture.prefix(kept)))
        let fetcher = Self.fetcher(harness)
        fetcher.track(try ConfigLoader.parse("slides: [\"\(url)\"]"))
        await fetcher.refresh(url)
        #expect(fetcher.assetIDs[url] == nil)
        #expect(server.requests.map(\.status) == [206])
        #expect(Self.size(Self.partPath(harness, url)) == nil, "the part of a file over the limit goes")
        await server.stop()
    }

    /// A URL the playlist no longer names has its part removed by the download loop.
    @Test func thePartOfAURLNoLongerShownGoes() async throws {
        let harness = try ServerHarness(yaml: URLImageTests.yaml)
        defer { harness.close() }
        let server = try await RangeServer(try Self.picture("blue"))
        let url = "http://127.0.0.1:\(try #require(server.port))/files/gone.jpg"
        let fetcher = Self.fetcher(harness)
        fetcher.track(try ConfigLoader.parse("slides: [\"\(url)\"]"))
        server.record.cutAfter.withLock { $0 = 300 }
        await fetcher.refresh(url)
        #expect(Self.size(Self.partPath(harness, url)) == 300)
        fetcher.track(try ConfigLoader.parse("slides: [a.jpg]"))
        await fetcher.pruneParts()
        #expect(Self.size(Self.partPath(harness, url)) == nil)
        #expect(Self.size(Self.partPath(harness, url) + ".validator") == nil)
        await server.stop()
    }
}
