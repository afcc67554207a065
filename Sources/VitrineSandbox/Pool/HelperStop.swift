import Glibc

/// Why a decode gave no answer: the helper stopped, or could not be had.
/// A stop costs one refused picture; the kiosk carries on.
public enum HelperStop: Error, Hashable, Sendable, CustomStringConvertible {
    /// Past its deadline: the pool killed it.
    case deadline(Duration)
    /// Killed by a signal the pool did not send: the kernel's OOM killer (a
    /// cgroup's `MemoryMax`) sends SIGKILL.
    case killed(signal: Int32)
    /// SIGSYS: the system-call filter stopped it.
    case sandboxViolation
    /// SIGXCPU: over its CPU-time limit.
    case cpuLimit
    /// A crash: SIGSEGV, SIGBUS, SIGABRT, SIGILL, SIGTRAP (a Swift trap, such as a failed allocation).
    case crashed(signal: Int32)
    /// Exited on its own in the middle of a job.
    case exited(status: Int32)
    /// Sent something that is not a reply.
    case malformedReply(String)
    /// Could not be started, or could not confine itself: nothing is decoded
    /// unconfined, so every picture is refused with this reason.
    case unavailable(String)

    /// What a stop is called in a refused picture's reason.
    public var description: String {
        switch self {
        case .deadline(let limit): "decoding stopped: it took longer than \(limit.formattedSeconds)"
        case .killed(let signal) where signal == SIGKILL:
            "decoding stopped: killed by the system, most likely over the memory the kiosk may use"
        case .killed(let signal): "decoding stopped: killed by signal \(signal)"
        case .sandboxViolation: "decoding stopped: the decoder made a system call the sandbox does not allow"
        case .cpuLimit: "decoding stopped: over its CPU-time limit"
        case .crashed(let signal): "decoding stopped: the decoder crashed (\(Self.name(of: signal))), most likely on a damaged or hostile file, or over its memory limit"
        case .exited(let status): "decoding stopped: the decoder exited (status \(status))"
        case .malformedReply(let what): "decoding stopped: \(what)"
        case .unavailable(let why): "decoding is not available: \(why)"
        }
    }

    /// Whether the picture itself made the helper stop, so that trying it again
    /// would stop another one: such a picture is not tried again until an
    /// operator asks (`RefusedPictures`).
    public var blamesPicture: Bool {
        switch self {
        case .deadline, .killed, .sandboxViolation, .cpuLimit, .crashed, .exited, .malformedReply: true
        case .unavailable: false
        }
    }

    /// The stop a `waitpid` status means, for a helper the pool did not kill itself.
    static func from(waitStatus status: Int32) -> HelperStop {
        let signal = status & 0x7F
        guard signal != 0 else { return .exited(status: (status >> 8) & 0xFF) }
        switch signal {
        case SIGSYS: return .sandboxViolation
        case SIGXCPU: return .cpuLimit
        case SIGSEGV, SIGBUS, SIGABRT, SIGILL, SIGTRAP, SIGFPE: return .crashed(signal: signal)
        default: return .killed(signal: signal)
        }
    }

    private static func name(of signal: Int32) -> String {
        switch signal {
        case SIGSEGV: "SIGSEGV"
        case SIGBUS: "SIGBUS"
        case SIGABRT: "SIGABRT"
        case SIGILL: "SIGILL"
        case SIGTRAP: "SIGTRAP"
        case SIGFPE: "SIGFPE"
        default: "signal \(signal)"
        }
    }
}

extension Duration {
    /// "30 s", "1.5 s".
    var formattedSeconds: String {
        let milliseconds = Double(components.seconds) * 1000 + Double(components.attoseconds) / 1e15
        let seconds = (milliseconds / 100).rounded() / 10
        return seconds == seconds.rounded() ? "\(Int(seconds)) s" : "\(seconds) s"
    }
}
