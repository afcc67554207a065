import NIOCore
import NIOHTTPTypes

/// Closes a connection whose request headers take longer than
/// `ServerLimits.headerDeadline` from the request's first byte to the end of
/// its headers.
///
/// It reads the bytes before the HTTP decoder (after TLS), which is the only
/// place the first byte of a request can be seen; the end of the headers is
/// told to it by `HeaderDeadlineHandler.Reporter`, after the decoder, as an
/// outbound user event. Hummingbird's idle timeout alone counts from the last
/// whole request part, and header bytes make none until the headers end, so a
/// peer could otherwise spend the whole idle timeout on every request's headers.
final class HeaderDeadlineHandler: ChannelDuplexHandler, RemovableChannelHandler {
    typealias InboundIn = ByteBuffer
    typealias InboundOut = ByteBuffer
    typealias OutboundIn = IOData
    typealias OutboundOut = IOData

    /// What the reporter after the decoder tells this handler.
    enum Progress {
        /// A request's headers are complete: its deadline is met.
        case headersComplete
        /// A request has ended: the next byte begins the next request.
        case requestComplete
    }

    private enum State {
        case awaitingRequest
        case readingHeaders(Scheduled<Void>)
        case inRequest
    }

    private let deadline: TimeAmount
    private var state = State.awaitingRequest

    init(deadline: Duration) {
        self.deadline = .nanoseconds(deadline.nanoseconds)
    }

    func channelRead(context: ChannelHandlerContext, data: NIOAny) {
        // Armed before the bytes go on: the decoder may report these headers
        // complete (re-entrantly) while they are being passed on.
        if case .awaitingRequest = state, unwrapInboundIn(data).readableBytes > 0 {
            let loopBound = NIOLoopBound(context, eventLoop: context.eventLoop)
            state = .readingHeaders(context.eventLoop.scheduleTask(in: deadline) { loopBound.value.close(promise: nil) })
        }
        context.fireChannelRead(data)
    }

    func triggerUserOutboundEvent(context: ChannelHandlerContext, event: Any, promise: EventLoopPromise<Void>?) {
        guard let progress = event as? Progress else {
            context.triggerUserOutboundEvent(event, promise: promise)
            return
        }
        switch progress {
        case .headersComplete:
            disarm()
            state = .inRequest
        case .requestComplete:
            disarm()
            state = .awaitingRequest
        }
        promise?.succeed()
    }

    func handlerRemoved(context: ChannelHandlerContext) { disarm() }

    func channelInactive(context: ChannelHandlerContext) {
        disarm()
        context.fireChannelInactive()
    }

    private func disarm() {
        if case .readingHeaders(let scheduled) = state { scheduled.cancel() }
        state = .inRequest
    }

    /// After the decoder: tells the handler before it when a request's headers
    /// and its whole request are in.
    final class Reporter: ChannelInboundHandler, RemovableChannelHandler {
        typealias InboundIn = HTTPRequestPart
        typealias InboundOut = HTTPRequestPart

        func channelRead(context: ChannelHandlerContext, data: NIOAny) {
            switch unwrapInboundIn(data) {
            case .head: context.triggerUserOutboundEvent(Progress.headersComplete, promise: nil)
            case .body: break
            case .end: context.triggerUserOutboundEvent(Progress.requestComplete, promise: nil)
            }
            context.fireChannelRead(data)
        }
    }
}
