import Hummingbird
import Synchronization

/// A router served on 127.0.0.1 at a free port, for the kiosk's HTTP clients
/// (URL slides, a channel's origin, play uploads) to talk to in tests.
final class LoopbackServer: Sendable {
    private let boundPort = Mutex<Int?>(nil)
    private let task = Mutex<Task<Void, Never>?>(nil)

    /// The port it listens on; nil if it did not start within five seconds.
    var port: Int? { boundPort.withLock { $0 } }

    init(_ router: Router<BasicRequestContext>) async throws {
        let application = Application(router: router, configuration: .init(address: .hostname("127.0.0.1", port: 0)),
                                      onServerRunning: { [self] channel in boundPort.withLock { $0 = channel.localAddress?.port } })
        task.withLock { $0 = Task { try? await application.runService(gracefulShutdownSignals: []) } }
        for _ in 0..<250 where port == nil { try await Task.sleep(for: .milliseconds(20)) }
    }

    func stop() async {
        let running = task.withLock { $0 }
        running?.cancel()
        await running?.value
    }
}
