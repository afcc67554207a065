import AsyncHTTPClient
import Foundation
import Hummingbird
import HummingbirdTesting
import NIOCore
import Testing
import VitrineConfig
@testable import VitrineRuntime
@testable import VitrineAPI
import VitrineSystem

@Suite("API: concurrent pushes over a real socket")
struct ConcurrentPushTests {
    /// 50 pushes at once, each a different configuration: every one is answered,
    /// the final state is exactly one of them, and both stored files parse.
    @Test func fiftyConcurrentPushesLeaveExactlyOneOfThem() async throws {
        let harness = try ServerHarness()
        defer { harness.close() }
        try await harness.application().test(.ahc(.http)) { client in
            let port = try #require(client.port)
            let versions = try await withThrowingTaskGroup(of: (Int, String).self) { group in
                for index in 0..<50 {
                    group.addTask {
                        var request = HTTPClientRequest(url: "http://127.0.0.1:\(port)/api/v1/config")
                        request.method = .PUT
                        request.headers.add(name: "Authorization", value: "Bearer \(ServerHarness.token)")
                        request.headers.add(name: "Content-Type", value: "application/yaml")
                        request.body = .bytes(ByteBuffer(string: "slides: [red.jpg, green.jpg]\nautoplay: false\ninterval: \(index + 1)s\n"))
                        let response = try await HTTPClient.shared.execute(request, timeout: .seconds(30))
                        let body = try await response.body.collect(upTo: 1 << 16)
                        #expect(response.status.code == 200)
                        return (index, json(body)["version"] as? String ?? "")
                    }
                }
                return try await group.reduce(into: [Int: String]()) { $0[$1.0] = $1.1 }
            }
            #expect(Set(versions.values).count == 50, "each push made its own version")
            let final = harness.store.current
            let winner = try #require(versions.first { $0.value == final.version }?.key)
            #expect(final.configuration.interval == .seconds(winner + 1))
            for name in ["config.json", "config.previous.json"] {
                let text = String(decoding: try VitrineSystem.FileIO.read(harness.stateDirectory + "/" + name), as: UTF8.self)
                let parsed = try ConfigLoader.parse(text)
                #expect(Set(versions.values).contains(ContentDigest.version(of: ConfigDocument.json(parsed))) || name == "config.previous.json")
            }
            let onDisk = String(decoding: try VitrineSystem.FileIO.read(harness.stateDirectory + "/config.json"), as: UTF8.self)
            #expect(try ConfigLoader.parse(onDisk).interval == .seconds(winner + 1))
            #expect(try FileManager.default.contentsOfDirectory(atPath: harness.stateDirectory).filter { $0.contains(".tmp-") }.isEmpty)
            #expect(await harness.eventually { harness.api.link.status.configurationVersion == final.version })
        }
    }
}
