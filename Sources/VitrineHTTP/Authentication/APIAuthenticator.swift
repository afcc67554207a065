import Crypto
import Hummingbird
import NIOCore
import Synchronization
import VitrineCore
import VitrineSystem

/// Checks `Authorization: Bearer <token>` for every route that is not on
/// `PublicRoutes.list`, and slows down peers that keep failing.
///
/// The comparison takes the same time however much of the token matches: both
/// sides are hashed to SHA-256 first (so their lengths do not show either), and
/// the digests are compared by OR-ing every byte's difference, without an
/// early exit.
public final class APIAuthenticator: Sendable {
    private let expected: SHA256.Digest
    private let throttle: Mutex<AuthenticationThrottle>
    private let counters = Mutex<Counters>(Counters())
    private let clock: @Sendable () -> MonotonicInstant
    private let exempt: @Sendable (SocketAddress?) -> Bool

    /// Failures and refusals since start, for `/metrics`.
    public struct Counters: Sendable, Equatable {
        /// Requests to a protected route with no, a malformed or a wrong token.
        public var failures = 0
        /// Requests refused unread because their address failed too often (429).
        public var throttled = 0
    }

    /// - Parameter exempt: peers never throttled (their failures are still
    ///   counted). By default loopback peers, which are on the board already
    ///   (local tools, a reverse proxy), and requests that came over no socket.
    public init(token: String, policy: AuthenticationThrottle.Policy = .init(),
                clock: @escaping @Sendable () -> MonotonicInstant = { MonotonicClock.now() },
                exempt: @escaping @Sendable (SocketAddress?) -> Bool = { $0 == nil || APIAuthenticator.isLoopback($0) }) {
        expected = SHA256.hash(data: Array(token.utf8))
        throttle = Mutex(AuthenticationThrottle(policy: policy))
        self.clock = clock
        self.exempt = exempt
    }

    public var snapshot: Counters { counters.withLock { $0 } }

    /// Throws a 401 (or a 429 for a peer that must wait) unless `request` carries the token.
    func authenticate(_ request: Request, from peer: SocketAddress?) throws {
        let address = Self.key(peer)
        let now = clock()
        let throttled = !exempt(peer)
        if throttled, case .refused(let retryAfter) = throttle.withLock({ $0.verdict(for: address, now: now) }) {
            counters.withLock { $0.throttled += 1 }
            // Whole seconds, rounded up, as Retry-After takes (RFC 9110 §10.2.3).
            let seconds = max(1, (retryAfter.nanoseconds + 999_999_999) / 1_000_000_000)
            var error = APIError(.tooManyRequests, "too many failed authentications from this address; try again in \(seconds) s")
            error.headers[.retryAfter] = "\(seconds)"
            throw error
        }
        do {
            try check(request.headers[.authorization])
            if throttled { throttle.withLock { $0.recordSuccess(from: address) } }
        } catch {
            counters.withLock { $0.failures += 1 }
            if throttled { throttle.withLock { $0.recordFailure(from: address, now: now) } }
            throw error
        }
    }

    private func check(_ header: String?) throws {
        guard let header else {
            throw Self.unauthorized("an Authorization: Bearer <token> header is required")
        }
        let scheme = "bearer "
        guard header.count > scheme.count, header.prefix(scheme.count).lowercased() == scheme else {
            throw Self.unauthorized("the Authorization header must be Bearer <token>")
        }
        guard Self.matches(String(header.dropFirst(scheme.count)), expected) else {
            throw Self.unauthorized("the token is not valid")
        }
    }

    /// The throttle's key: the peer's IP address without its port (a client
    /// opens a new port per connection); one key for peers with no address.
    static func key(_ peer: SocketAddress?) -> String {
        guard let peer else { return "unknown" }
        return peer.ipAddress ?? peer.pathname ?? "unknown"
    }

    /// Whether `peer` is this machine: 127.0.0.0/8, ::1, or IPv4 loopback mapped into IPv6.
    public static func isLoopback(_ peer: SocketAddress?) -> Bool {
        guard let address = peer?.ipAddress else { return false }
        return address.hasPrefix("127.") || address == "::1" || address.hasPrefix("::ffff:127.")
    }

    static func matches(_ candidate: String, _ expected: SHA256.Digest) -> Bool {
        let digest = SHA256.hash(data: Array(candidate.utf8))
        var difference: UInt8 = 0
        for (a, b) in zip(digest, expected) { difference |= a ^ b }
        return difference == 0
    }

    private static func unauthorized(_ message: String) -> APIError {
        var error = APIError(.unauthorized, message)
        error.headers[.wwwAuthenticate] = #"Bearer realm="vitrine""#
        return error
    }
}

/// A route's responder behind the token: what `RecordingRouter` registers for
/// every route that is not public, so the route that matched decides, whatever
/// spelling of the path (`//api/…`, a trailing slash, …) the router matched it by.
struct AuthenticatedResponder<Wrapped: HTTPResponder>: HTTPResponder where Wrapped.Context: RemoteAddressRequestContext {
    typealias Context = Wrapped.Context
    let wrapped: Wrapped
    let authenticator: APIAuthenticator

    func respond(to request: Request, context: Context) async throws -> Response {
        try authenticator.authenticate(request, from: context.remoteAddress)
        return try await wrapped.respond(to: request, context: context)
    }
}
