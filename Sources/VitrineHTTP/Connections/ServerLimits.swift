import Glibc

/// The API server's bounds on what one peer can hold: time, transfer rate and
/// descriptors. Times in milliseconds and rates in bytes per second, so each
/// reads as what it is; tests shorten them.
public struct ServerLimits: Sendable {
    /// A connection with no request in progress (before its first request's
    /// headers are complete, or between requests) is closed after this long.
    public var idleTimeout: Duration = .milliseconds(30_000)
    /// The most time from the first byte of a request to the end of its
    /// headers. Hummingbird's idle timer counts from the last whole request
    /// part, so without this a peer could trickle a header a byte at a time for
    /// the whole idle timeout after every request. A real client sends its
    /// headers in one packet.
    public var headerDeadline: Duration = .milliseconds(10_000)
    /// A request whose body stops arriving for this long is cut off.
    public var bodyStallTimeout: Duration = .milliseconds(15_000)
    /// The slowest a request body may arrive, once `bodyRateGrace` has passed:
    /// at least this many bytes per second over every `bodyRateWindow`. 1 KiB/s
    /// (8 kbit/s) is far below any link a kiosk is managed over, so a large
    /// upload on a slow link still completes, while a peer trickling a byte
    /// every few seconds (which the stall timeout alone never ends) is cut off.
    public var minimumBodyBytesPerSecond: Int = 1024
    /// The span over which a body's rate is measured: bursts and pauses within it even out.
    public var bodyRateWindow: Duration = .milliseconds(10_000)
    /// The time after a request's headers before its body's rate is first measured
    /// (the first window ends at `bodyRateGrace + bodyRateWindow`): time for a
    /// client to open the file it uploads, or a TCP window to open.
    public var bodyRateGrace: Duration = .milliseconds(10_000)
    /// After an answer that left the request's body unread (a 401, 413 or any
    /// answer given before the body ended), the connection is closed: its
    /// output at once, then the rest after this long, meanwhile discarding what
    /// arrives. Closing both at once while body bytes are still unread makes
    /// the kernel send a reset, which can destroy the answer before the client
    /// reads it.
    public var lingerAfterUnreadBody: Duration = .milliseconds(2_000)
    /// Connections at once; by default what the descriptor limit allows.
    public var maximumConnections: Int
    /// Connections at once from one IPv4 address or IPv6 /64; by default
    /// `share(of: maximumConnections)`.
    public var connectionsPerSource: Int

    /// Descriptors kept out of the API's reach: pictures being decoded and
    /// prefetched, the play log, the state store's files and directories, DRM
    /// and input devices, the event loop's own, and NIO's.
    public static let reservedDescriptors = 256
    /// Connections at once, however many descriptors the process may have.
    public static let connectionCeiling = 512
    /// The smallest share of the cap one source gets, so that a browser (which
    /// opens up to 6 connections to a host) and a command-line tool still fit.
    public static let minimumSourceShare = 8
    /// Connections any source gets even when the cap is full (several sources
    /// holding their shares): the oldest connection of the source holding the
    /// most is closed for it (`ConnectionLimiter`). 4: an operator's tool needs
    /// one, a browser's console a few.
    public static let guaranteedPerSource = 4

    public init(maximumConnections: Int = ServerLimits.connections(forDescriptorLimit: ServerLimits.descriptorLimit()),
                connectionsPerSource: Int? = nil,
                idleTimeout: Duration = .milliseconds(30_000), headerDeadline: Duration = .milliseconds(10_000),
                bodyStallTimeout: Duration = .milliseconds(15_000)) {
        self.maximumConnections = maximumConnections
        self.connectionsPerSource = connectionsPerSource ?? Self.share(of: maximumConnections)
        self.idleTimeout = idleTimeout
        self.headerDeadline = headerDeadline
        self.bodyStallTimeout = bodyStallTimeout
    }

    /// The cap for a process allowed `descriptors` open files: half of what is
    /// left after `reservedDescriptors`, between 16 and `connectionCeiling`.
    /// 1,024 descriptors (systemd's default soft limit) give 384 connections.
    public static func connections(forDescriptorLimit descriptors: Int) -> Int {
        let spare = max(0, descriptors - reservedDescriptors) / 2
        return min(connectionCeiling, max(16, spare))
    }

    /// One source's share of a cap of `limit` connections: a quarter, at least
    /// `minimumSourceShare`, at most half. A quarter, so that one address (or
    /// one IPv6 /64) holding all it may leaves three quarters of the cap to
    /// everyone else; it takes four sources acting together to fill the cap,
    /// and then only until the timeouts close what they hold. At most half, so
    /// that even a small cap keeps room for a second peer. 384 connections (1,024
    /// descriptors) give 96 per source; 512 give 128; 16 give 8.
    public static func share(of limit: Int) -> Int {
        max(1, min(limit / 2, max(minimumSourceShare, limit / 4)))
    }

    /// The soft limit on open files (`getrlimit(RLIMIT_NOFILE)`), or 1,024 if it cannot be read.
    public static func descriptorLimit() -> Int {
        var limits = rlimit()
        guard getrlimit(Int32(RLIMIT_NOFILE.rawValue), &limits) == 0 else { return 1024 }
        return limits.rlim_cur == rlim_t.max ? Int.max / 2 : Int(clamping: limits.rlim_cur)
    }
}
