import Foundation
import Logging
import SystemPackage
import Testing
@testable import VitrineChannelFollower
@testable import VitrineState
import VitrineSystem

@Suite struct ChannelOriginTests {
    /// A refused connection fails the poll at once, not at the request's
    /// deadline: the follower's backoff, not the HTTP client, does the retrying.
    @Test func anOriginThatRefusesConnectionsFailsAtOnce() async throws {
        // Port 1 on loopback: nothing listens there, so connecting is refused.
        let origin = ChannelOrigin(timeout: .seconds(240), policy: .loopbackAllowed)
        let started = ContinuousClock.now
        do {
            _ = try await origin.get("http://127.0.0.1:1/channel.json", ifNoneMatch: nil, limit: 1024)
            Issue.record("a closed port answered")
        } catch let failure as ChannelOrigin.Failure {
            #expect(failure.description.hasPrefix("http://127.0.0.1:1/channel.json: cannot be reached"), "\(failure)")
        }
        let took = ContinuousClock.now - started
        // Alone it takes milliseconds. Among the other suites on a loaded 2-core
        // machine it has taken up to 63 s (the getaddrinfo hop waits for a pool
        // thread), so the deadline is long and the bound is half of it: retrying
        // until the deadline would take all 240 s.
        #expect(took < .seconds(120), "took \(took) of a 240 s deadline")
    }
}

/// A blob's staged part that cannot be emptied for a fresh download is the
/// disk's failure, and says so, naming the URL, not an origin that "cannot be reached".
@Suite struct ChannelOriginRestartTests {
    @Test func aPartThatCannotBeStartedOverIsReportedAsSuch() async throws {
        let directory = NSTemporaryDirectory() + "vitrine-origin-restart-" + UUID().uuidString
        defer { try? FileManager.default.removeItem(atPath: directory) }
        let faults = SystemCallFaults()
        let store = try AssetStore(directory: directory, logger: Logger(label: "test"), system: faults.calls)
        // A part of 10 bytes for a blob the manifest says has 4: it must be emptied first.
        let part = try AssetUpload(in: store, resuming: "blob-restart")
        try part.append(Array("0123456789".utf8))
        faults.fail(.truncate, with: .ioError)
        let origin = ChannelOrigin(timeout: .seconds(10), policy: .loopbackAllowed)
        do {
            _ = try await origin.download("http://127.0.0.1:1/blobs/ab/abcd", into: part, size: 4)
            Issue.record("a part that could not be emptied was downloaded into")
        } catch let failure as ChannelOrigin.Failure {
            #expect(failure.url == "http://127.0.0.1:1/blobs/ab/abcd")
            #expect(failure.reason.hasPrefix("its partial download cannot be started over: "), "\(failure)")
            #expect(!failure.reason.contains("cannot be reached"))
        }
        #expect(faults.injected == 1)
    }
}
