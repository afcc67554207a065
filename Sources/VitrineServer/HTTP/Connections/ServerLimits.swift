import Glibc

/// The API server's bounds on what one peer can hold: time and descriptors.
/// Times in milliseconds, so each reads as what it is; tests shorten them.
public struct ServerLimits: Sendable {
    /// A connection with no request in progress (before its first request's
    /// headers are complete, or between requests) is closed after this long.
    /// This is also the most time a peer has to send a request's headers.
    public var idleTimeout: Duration = .milliseconds(30_000)
    /// A request whose body stops arriving for this long is cut off.
    public var bodyStallTimeout: Duration = .milliseconds(15_000)
    /// Connections at once; by default what the descriptor limit allows.
    public var maximumConnections: Int

    /// Descriptors kept out of the API's reach: pictures being decoded and
    /// prefetched, the play log, the state store's files and directories, DRM
    /// and input devices, the event loop's own, and NIO's.
    public static let reservedDescriptors = 256
    /// Connections at once, however many descriptors the process may have.
    public static let connectionCeiling = 512

    public init(maximumConnections: Int = ServerLimits.connections(forDescriptorLimit: ServerLimits.descriptorLimit()),
                idleTimeout: Duration = .milliseconds(30_000), bodyStallTimeout: Duration = .milliseconds(15_000)) {
        self.maximumConnections = maximumConnections
        self.idleTimeout = idleTimeout
        self.bodyStallTimeout = bodyStallTimeout
    }

    /// The cap for a process allowed `descriptors` open files: half of what is
    /// left after `reservedDescriptors`, between 16 and `connectionCeiling`.
    /// 1,024 descriptors (systemd's default soft limit) give 384 connections.
    public static func connections(forDescriptorLimit descriptors: Int) -> Int {
        let spare = max(0, descriptors - reservedDescriptors) / 2
        return min(connectionCeiling, max(16, spare))
    }

    /// The soft limit on open files (`getrlimit(RLIMIT_NOFILE)`), or 1,024 if it cannot be read.
    public static func descriptorLimit() -> Int {
        var limits = rlimit()
        guard getrlimit(Int32(RLIMIT_NOFILE.rawValue), &limits) == 0 else { return 1024 }
        return limits.rlim_cur == rlim_t.max ? Int.max / 2 : Int(clamping: limits.rlim_cur)
    }
}
