import Hummingbird
import NIOCore

/// The context every API request is handled in: Hummingbird's basic context
/// plus the peer's address, which the authentication throttle keys on.
public struct APIRequestContext: RequestContext, RemoteAddressRequestContext {
    public var coreContext: CoreRequestContextStorage
    /// The connected peer; nil for requests that did not come over a socket (the test router).
    public let remoteAddress: SocketAddress?

    public init(source: ApplicationRequestContextSource) {
        coreContext = .init(source: source)
        remoteAddress = source.channel.remoteAddress
    }
}
