import NIOCore
import NIOHTTPTypes

/// Closes a connection after an answer that was given before its request's
/// body had all arrived: a 401 for a missing token, a 413, a 429, any answer
/// that leaves the body unread. Its head gets `Connection: close`.
///
/// Without this, Hummingbird reads and discards the rest of the body after
/// answering, to reach the next request, and a peer with no token could hold
/// the connection for ever with a large `Content-Length` and a byte every few
/// seconds: every byte is progress to the idle and stall timers.
///
/// The output is closed once the answer is written, then the whole connection
/// after `ServerLimits.lingerAfterUnreadBody` (or when the peer closes); what
/// arrives meanwhile is discarded. Closing both at once with body bytes unread
/// makes the kernel send a reset, which can destroy the answer before the client reads it.
final class UnreadBodyCloseHandler: ChannelDuplexHandler, RemovableChannelHandler {
    typealias InboundIn = HTTPRequestPart
    typealias InboundOut = HTTPRequestPart
    typealias OutboundIn = HTTPResponsePart
    typealias OutboundOut = HTTPResponsePart

    private let linger: TimeAmount
    /// Requests whose end has arrived, and answers begun: counted, not
    /// flagged, so that a pipelined next request does not make an answer to a
    /// complete one look early.
    private var requestsEnded = 0
    private var answersBegun = 0
    private var closesAfterAnswer = false

    init(linger: Duration) {
        self.linger = .nanoseconds(linger.nanoseconds)
    }

    func channelRead(context: ChannelHandlerContext, data: NIOAny) {
        if case .end = unwrapInboundIn(data) { requestsEnded += 1 }
        context.fireChannelRead(data)
    }

    func write(context: ChannelHandlerContext, data: NIOAny, promise: EventLoopPromise<Void>?) {
        switch unwrapOutboundIn(data) {
        case .head(var response) where response.status.kind != .informational:
            answersBegun += 1
            guard requestsEnded < answersBegun else { break }
            closesAfterAnswer = true
            response.headerFields[.connection] = "close"
            context.write(wrapOutboundOut(.head(response)), promise: promise)
            return
        case .end where closesAfterAnswer:
            closesAfterAnswer = false
            let loopBound = NIOLoopBound(context, eventLoop: context.eventLoop)
            let linger = linger
            let written = context.eventLoop.makePromise(of: Void.self)
            written.futureResult.whenComplete { _ in
                let context = loopBound.value
                context.close(mode: .output).whenFailure { _ in loopBound.value.close(promise: nil) }
                context.eventLoop.scheduleTask(in: linger) { loopBound.value.close(promise: nil) }
            }
            if let promise { written.futureResult.cascade(to: promise) }
            context.writeAndFlush(data, promise: written)
            return
        default:
            break
        }
        context.write(data, promise: promise)
    }
}
