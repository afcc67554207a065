import Hummingbird
import Logging
import Synchronization
@testable import VitrineHTTP

/// A router served on 127.0.0.1 at a free port, for the kiosk's HTTP clients
/// (URL slides, a channel's origin, play uploads) to talk to in tests.
final class LoopbackServer: Sendable {
    private let boundPort = Mutex<Int?>(nil)
    private let running = Mutex<(server: APIServerRunner, task: Task<Void, Never>)?>(nil)

    /// The port it listens on; nil if it did not start within five seconds.
    var port: Int? { boundPort.withLock { $0 } }

    init<Context: RequestContext>(_ router: Router<Context>) async throws where Context.Source == ApplicationRequestContextSource {
        let application = Application(router: router, configuration: .init(address: .hostname("127.0.0.1", port: 0)),
                                      onServerRunning: { [self] channel in boundPort.withLock { $0 = channel.localAddress?.port } })
        try await start(application)
    }

    /// Serves `application`, which must report its port through `reportPort`.
    init<App: ApplicationProtocol>(serving make: (_ reportPort: @escaping @Sendable (Int) -> Void) throws -> App) async throws {
        let application = try make { [self] port in boundPort.withLock { $0 = port } }
        try await start(application)
    }

    private func start(_ application: some ApplicationProtocol) async throws {
        let server = APIServerRunner(serving: application, logger: Logger(label: "loopback-server"))
        running.withLock { $0 = (server, Task { try? await server.run() }) }
        for _ in 0..<250 where port == nil { try await Task.sleep(for: .milliseconds(20)) }
    }

    /// Stops it the way the kiosk stops its own API server, through the same
    /// `APIServerRunner`: a graceful shutdown closes the listening socket,
    /// then serves or closes every connection already accepted. Cancelling
    /// the serving task instead can drop a connection that was accepted but
    /// not yet handed to the server loop, and NIO traps on its unfinished
    /// writer ("Deinited NIOAsyncWriter without calling finish()", swift-nio
    /// #2813 and #3481): the unit tests crashed that way once in a
    /// fresh-clone CI run.
    func stop() async {
        guard let (server, task) = running.withLock({ $0 }) else { return }
        await server.shutdown()
        await task.value
    }
}
