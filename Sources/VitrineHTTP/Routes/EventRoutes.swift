import Hummingbird
import NIOCore
import NIOPosix
import ServiceLifecycle
import VitrineAPI

/// `GET /api/v1/events`: the kiosk's events as a server-sent event stream.
struct EventRoutes {
    let events: EventHub
    /// A comment line this often keeps proxies from closing an idle stream and
    /// lets a vanished client be noticed (the write fails).
    static let keepAliveInterval: Duration = .seconds(15)

    func add(to router: RecordingRouter<APIRequestContext>) {
        router.get("/api/v1/events") { _, _ in
            let events = events.subscribe()
            let body = ResponseBody { writer in
                // One stream of text chunks: the events, interleaved with keep-alives.
                let (chunks, sink) = AsyncStream.makeStream(of: String.self, bufferingPolicy: .bufferingNewest(256))
                let forwarder = Task {
                    for await event in events { sink.yield(event.text) }
                    sink.finish()
                }
                // A NIO repeated task rather than a Task looping on Task.sleep: a
                // cancelled Task.sleep keeps its task and timer allocated until its
                // deadline, so clients reconnecting quickly piled up 15 s of them
                // (at about 800 reconnects a second, the resident set sat 15 MiB
                // higher). NIO drops a cancelled scheduled task at once.
                let interval = TimeAmount.nanoseconds(Int64(Self.keepAliveInterval.components.seconds) * 1_000_000_000)
                let keepAlive = MultiThreadedEventLoopGroup.singleton.next()
                    .scheduleRepeatedTask(initialDelay: interval, delay: interval) { _ in sink.yield(": keep-alive\n\n") }
                defer {
                    forwarder.cancel()
                    keepAlive.cancel()
                }
                try await writer.write(ByteBuffer(string: ": connected\n\n"))
                // A stream never ends by itself: end it when the server shuts down.
                try await withGracefulShutdownHandler {
                    for await chunk in chunks { try await writer.write(ByteBuffer(string: chunk)) }
                } onGracefulShutdown: {
                    sink.finish()
                }
                try await writer.finish(nil)
            }
            return Response(status: .ok, headers: [.contentType: "text/event-stream", .cacheControl: "no-cache"], body: body)
        }
    }
}
