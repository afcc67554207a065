import Foundation
import Glibc
import Hummingbird
import Logging
import Testing
import VitrineCore
import VitrinePNG
import VitrineRuntime
@testable import VitrineAPI
@testable import VitrineHTTP
import VitrineSystem

/// Uploads are staged on disk as they arrive (`AssetUpload`), over real sockets:
/// the bytes reach the staging file before the body is complete, the finished
/// file becomes the asset under its digest, and no staging file outlives an
/// upload that is refused, cut off or already stored.
@Suite("API: uploads staged on disk", .serialized)
struct UploadStagingTests {
    /// A PNG of noise (it does not compress): `width` x `height` x about 3 bytes.
    static func noisePNG(width: Int, height: Int) throws -> [UInt8] {
        let image = PixelImage(size: PixelSize(width: width, height: height))
        // xorshift32: cheap noise, so that the PNG is about as large as its pixels.
        var state: UInt32 = 0x9E37_79B9
        for index in image.pixels.indices {
            state ^= state << 13
            state ^= state >> 17
            state ^= state << 5
            image.pixels[index] = 0xFF00_0000 | (state & 0xFF_FFFF)
        }
        return try PNGCodec.encode(image)
    }

    static func stagingFiles(_ harness: ServerHarness) -> [(name: String, size: Int)] {
        let directory = harness.store.assets.directory
        let names = (try? FileManager.default.contentsOfDirectory(atPath: directory)) ?? []
        return names.filter { $0.contains(".tmp-") }.map { name in
            var info = stat()
            return (name, stat(directory + "/" + name, &info) == 0 ? Int(info.st_size) : -1)
        }
    }

    static func header(length: Int) -> String {
        "POST /api/v1/assets?name=noise.png HTTP/1.1\r\nHost: 127.0.0.1\r\nAuthorization: Bearer \(ServerHarness.token)\r\n"
            + "Content-Type: image/png\r\nContent-Length: \(length)\r\nConnection: close\r\n\r\n"
    }

    static func send(_ fd: Int32, _ bytes: ArraySlice<UInt8>) {
        var sent = bytes.startIndex
        while sent < bytes.endIndex {
            let count = bytes[sent...].withUnsafeBytes { Glibc.send(fd, $0.baseAddress, $0.count, Int32(MSG_NOSIGNAL)) }
            if count <= 0 { return }
            sent += count
        }
    }

    /// 8 MiB of a 12 MB PNG sent and the rest held back: a staging file of at
    /// least 7 MiB is on disk (the bytes went out as they came, a mebibyte at a
    /// time), and none of the asset yet. The rest sent: 201, the asset is the
    /// file under its SHA-256, byte for byte, and the staging file is gone.
    @Test func theBytesReachTheDiskBeforeTheBodyEndsAndBecomeTheAsset() async throws {
        let harness = try ServerHarness()
        defer { harness.close() }
        let png = try Self.noisePNG(width: 2000, height: 2000)
        #expect(png.count > 11_000_000)
        let (server, port) = try await ConnectionLimitTests.serve(harness, limits: ServerLimits(maximumConnections: 8, idleTimeout: .seconds(20), bodyStallTimeout: .seconds(20)))
        let firstPart = 8 << 20
        let (stagedWhileArriving, answer) = try await RawHTTP.offPool {
            let fd = try RawHTTP.connect(port: port)
            defer { close(fd) }
            RawHTTP.send(fd, Self.header(length: png.count))
            Self.send(fd, png[..<firstPart])
            var staged = 0
            let deadline = MonotonicMilliseconds.now() + 10_000
            while staged < 7 << 20, MonotonicMilliseconds.now() < deadline {
                staged = Self.stagingFiles(harness).map(\.size).max() ?? 0
                usleep(20_000)
            }
            Self.send(fd, png[firstPart...])
            return (staged, RawHTTP.readAll(fd).text)
        }
        #expect(stagedWhileArriving >= 7 << 20, "staged \(stagedWhileArriving) bytes of the first \(firstPart) before the rest was sent")
        #expect(answer.hasPrefix("HTTP/1.1 201"), "\(answer.prefix(300))")
        let digest = ContentDigest.sha256(png)
        #expect(answer.contains("\"id\":\"\(digest)\""), "\(answer.prefix(400))")
        #expect(try FileIO.read(harness.store.assets.path(digest), limit: 64 << 20) == png)
        #expect(Self.stagingFiles(harness).isEmpty)
        await server.stop()
    }

    /// A body cut off half way (the client goes), and a chunked body that grows
    /// past `api.maxUploadSize` (413 once it does): neither leaves a staging
    /// file or an asset, and the upload's place is given back.
    @Test func aCutOffOrOversizedUploadLeavesNothingBehind() async throws {
        let harness = try ServerHarness(yaml: ServerHarness.defaultYAML.replacingOccurrences(of: "token:", with: "maxUploadSize: 3MiB, token:"))
        defer { harness.close() }
        let png = try Self.noisePNG(width: 1200, height: 1200)
        #expect(png.count > 4 << 20)
        let (server, port) = try await ConnectionLimitTests.serve(harness)
        let (stagedBeforeTheCut, oversized) = try await RawHTTP.offPool {
            let cut = try RawHTTP.connect(port: port)
            RawHTTP.send(cut, Self.header(length: 3 << 20))
            Self.send(cut, png[..<(2 << 20)])
            var staged = 0
            let deadline = MonotonicMilliseconds.now() + 10_000
            while staged < 1 << 20, MonotonicMilliseconds.now() < deadline {
                staged = Self.stagingFiles(harness).map(\.size).max() ?? 0
                usleep(20_000)
            }
            close(cut)
            // Chunked: no Content-Length to refuse it by, so it is refused once 3 MiB have arrived.
            let fd = try RawHTTP.connect(port: port)
            defer { close(fd) }
            RawHTTP.send(fd, "POST /api/v1/assets HTTP/1.1\r\nHost: 127.0.0.1\r\nAuthorization: Bearer \(ServerHarness.token)\r\n"
                         + "Content-Type: image/png\r\nTransfer-Encoding: chunked\r\nConnection: close\r\n\r\n")
            for start in stride(from: 0, to: png.count, by: 256 << 10) {
                let chunk = png[start..<min(png.count, start + (256 << 10))]
                RawHTTP.send(fd, String(chunk.count, radix: 16) + "\r\n")
                Self.send(fd, chunk)
                RawHTTP.send(fd, "\r\n")
            }
            RawHTTP.send(fd, "0\r\n\r\n")
            return (staged, RawHTTP.readAll(fd).text)
        }
        #expect(stagedBeforeTheCut >= 1 << 20)
        #expect(oversized.hasPrefix("HTTP/1.1 413"), "\(oversized.prefix(300))")
        #expect(oversized.contains("limit (api.maxUploadSize) of 3145728 bytes"), "\(oversized.prefix(300))")
        let deadline = MonotonicMilliseconds.now() + 5000
        while !(Self.stagingFiles(harness).isEmpty && harness.api.pictures.uploads.current == 0), MonotonicMilliseconds.now() < deadline {
            try await Task.sleep(for: .milliseconds(20))
        }
        #expect(Self.stagingFiles(harness).map(\.name) == [])
        #expect(harness.api.pictures.uploads.current == 0)
        #expect(harness.store.assets.list().isEmpty)
        await server.stop()
    }
}
