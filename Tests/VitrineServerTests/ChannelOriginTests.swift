import Foundation
import Testing
@testable import VitrineServer

@Suite struct ChannelOriginTests {
    /// A refused connection fails the poll at once, not at the request's
    /// deadline: the follower's backoff, not the HTTP client, does the retrying.
    @Test func anOriginThatRefusesConnectionsFailsAtOnce() async throws {
        // Port 1 on loopback: nothing listens there, so connecting is refused.
        let origin = ChannelOrigin(timeout: .seconds(60), policy: .loopbackAllowed)
        let started = ContinuousClock.now
        do {
            _ = try await origin.get("http://127.0.0.1:1/channel.json", ifNoneMatch: nil, limit: 1024)
            Issue.record("a closed port answered")
        } catch let failure as ChannelOrigin.Failure {
            #expect(failure.description.hasPrefix("http://127.0.0.1:1/channel.json: cannot be reached"), "\(failure)")
        }
        let took = ContinuousClock.now - started
        // Alone it takes milliseconds; the margin is for a machine busy with
        // the other suites. Retrying until the deadline would take all 60 s.
        #expect(took < .seconds(30), "took \(took) of a 60 s deadline")
    }
}
