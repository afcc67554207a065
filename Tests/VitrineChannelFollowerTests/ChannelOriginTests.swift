import Foundation
import Testing
@testable import VitrineChannelFollower

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
