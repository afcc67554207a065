import HummingbirdCore
import Logging
import NIOCore

/// Hummingbird's HTTP/1 channel with the kiosk's guards on each connection
/// (`ServerLimits`): the handlers that must see the connection's bytes before
/// the HTTP decoder (its place under the connection cap, the header deadline)
/// go in front of it; those that see request parts go where Hummingbird puts
/// additional handlers, after the decoder.
struct GuardedHTTP1Channel: ServerChildChannel {
    typealias Value = HTTP1Channel.Value
    let base: HTTP1Channel
    let limits: ServerLimits
    let connections: ConnectionLimiter

    /// The builder for `Application`'s `server:`, plain or wrapped in TLS.
    static func builder(limits: ServerLimits, connections: ConnectionLimiter) -> HTTPServerBuilder {
        let configuration = HTTP1Channel.Configuration(
            additionalChannelHandlers: [
                HeaderDeadlineHandler.Reporter(),
                UnreadBodyCloseHandler(linger: limits.lingerAfterUnreadBody),
                BodyStallTimeoutHandler(timeout: limits.bodyStallTimeout),
                BodyRateHandler(limits: limits),
            ],
            idleTimeout: .nanoseconds(limits.idleTimeout.nanoseconds))
        return HTTPServerBuilder { responder in
            GuardedHTTP1Channel(base: HTTP1Channel(responder: responder, configuration: configuration),
                                limits: limits, connections: connections)
        }
    }

    func setup(channel: any Channel, logger: Logger) -> EventLoopFuture<Value> {
        channel.eventLoop.makeCompletedFuture {
            try channel.pipeline.syncOperations.addHandler(connections.handler())
            try channel.pipeline.syncOperations.addHandler(HeaderDeadlineHandler(deadline: limits.headerDeadline))
        }.flatMap {
            base.setup(channel: channel, logger: logger)
        }
    }

    func handle(value: Value, logger: Logger) async {
        await base.handle(value: value, logger: logger)
    }
}
