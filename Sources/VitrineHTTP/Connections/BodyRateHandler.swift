import NIOCore
import NIOHTTPTypes

/// Closes a connection whose request body arrives slower than
/// `ServerLimits.minimumBodyBytesPerSecond` (judged by `BodyRate` over each
/// `bodyRateWindow`, after `bodyRateGrace`). `BodyStallTimeoutHandler` ends a
/// body that stops; this ends one that trickles.
final class BodyRateHandler: ChannelInboundHandler, RemovableChannelHandler {
    typealias InboundIn = HTTPRequestPart
    typealias InboundOut = HTTPRequestPart
    private let limits: ServerLimits
    private var rate: BodyRate
    private var started = NIODeadline.now()
    private var check: RepeatedTask?

    init(limits: ServerLimits) {
        self.limits = limits
        rate = BodyRate(limits)
    }

    func channelRead(context: ChannelHandlerContext, data: NIOAny) {
        switch unwrapInboundIn(data) {
        case .head: start(context)
        case .body(let bytes): rate.received(bytes.readableBytes, at: elapsed)
        case .end: stop()
        }
        context.fireChannelRead(data)
    }

    func handlerRemoved(context: ChannelHandlerContext) { stop() }

    func channelInactive(context: ChannelHandlerContext) {
        stop()
        context.fireChannelInactive()
    }

    private var elapsed: Duration { .nanoseconds((NIODeadline.now() - started).nanoseconds) }

    private func start(_ context: ChannelHandlerContext) {
        stop()
        rate = BodyRate(limits)
        started = .now()
        let loopBound = NIOLoopBound((handler: self, context: context), eventLoop: context.eventLoop)
        let first = limits.bodyRateGrace + limits.bodyRateWindow
        check = context.eventLoop.scheduleRepeatedTask(initialDelay: .nanoseconds(first.nanoseconds),
                                                       delay: .nanoseconds(limits.bodyRateWindow.nanoseconds)) { _ in
            let (handler, context) = loopBound.value
            if !handler.rate.keepsPace(at: handler.elapsed) {
                handler.stop()
                context.close(promise: nil)
            }
        }
    }

    private func stop() {
        check?.cancel()
        check = nil
    }
}
