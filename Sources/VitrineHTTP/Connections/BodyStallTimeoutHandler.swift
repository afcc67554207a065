import NIOCore
import NIOHTTPTypes
import VitrineCore

/// Closes a connection whose request body stops arriving for
/// `ServerLimits.bodyStallTimeout`. Hummingbird's idle timeout covers a
/// connection with no request in progress (and so headers sent slowly), but
/// not one that sent its headers and then trickles, or withholds, its body:
/// without this, a handler collecting that body would hold its connection for ever.
final class BodyStallTimeoutHandler: ChannelInboundHandler, RemovableChannelHandler {
    typealias InboundIn = HTTPRequestPart
    typealias InboundOut = HTTPRequestPart
    private let timeout: TimeAmount
    private var deadline: Scheduled<Void>?

    init(timeout: Duration) {
        self.timeout = .nanoseconds(timeout.nanoseconds)
    }

    func channelRead(context: ChannelHandlerContext, data: NIOAny) {
        switch unwrapInboundIn(data) {
        case .head, .body: arm(context)
        case .end: disarm()
        }
        context.fireChannelRead(data)
    }

    func handlerRemoved(context: ChannelHandlerContext) { disarm() }

    func channelInactive(context: ChannelHandlerContext) {
        disarm()
        context.fireChannelInactive()
    }

    private func arm(_ context: ChannelHandlerContext) {
        disarm()
        let loopBound = NIOLoopBound(context, eventLoop: context.eventLoop)
        deadline = context.eventLoop.scheduleTask(in: timeout) { loopBound.value.close(promise: nil) }
    }

    private func disarm() {
        deadline?.cancel()
        deadline = nil
    }
}
