import Glibc
import VitrineCore

/// Runs a program of the kiosk's own and reads what it prints: for `vitrine
/// doctor`, which asks the video helper what it can decode. Not for untrusted
/// programs or long runs: the output is bounded and the program is killed at
/// its deadline.
public enum ProgramOutput {
    /// How the program ended, decoded from `waitpid`'s status.
    public enum Ending: Equatable, Sendable, CustomStringConvertible {
        /// It exited with this code (`WEXITSTATUS`).
        case exited(Int32)
        /// A signal ended it (`WTERMSIG`), its own crash or someone's kill.
        case killed(signal: Int32)
        /// It was still running at the deadline, and was killed.
        case timedOut

        public var description: String {
            switch self {
            case .exited(let code): "exited with status \(code)"
            case .killed(let signal): "killed by signal \(signal) (\(String(cString: strsignal(signal))))"
            case .timedOut: "still running at its deadline, killed"
            }
        }

        static func from(waitStatus status: Int32) -> Ending {
            // WIFEXITED and WTERMSIG are macros, which Swift does not import.
            let signal = status & 0x7f
            return signal == 0 ? .exited((status >> 8) & 0xff) : .killed(signal: signal)
        }
    }

    /// What a run gave: how the program ended, and what it printed.
    public struct Run: Sendable {
        public var ending: Ending
        public var output: String
    }

    /// `path` with `arguments` (`posix_spawn`, standard output to a pipe,
    /// standard input and error to /dev/null, no descriptor of ours), its
    /// output up to `limit` bytes, and how it ended; killed past `timeout`.
    /// - Parameters:
    ///   - environment: the program's whole environment (`NAME=value`); nothing of ours is passed on.
    ///   - mergingErrors: standard error into the same pipe (apt's and dpkg's
    ///     reasons are on standard error), in the order the program wrote them.
    public static func run(_ path: String, _ arguments: [String], timeout: Duration = .seconds(5),
                           limit: Int = 64 << 10, environment: [String] = ["PATH=/usr/bin:/bin"],
                           mergingErrors: Bool = false) throws(SystemError) -> Run {
        var pipeEnds: [Int32] = [-1, -1]
        guard pipe(&pipeEnds) == 0 else { throw SystemError("pipe", subject: path) }
        let (readEnd, writeEnd) = (pipeEnds[0], pipeEnds[1])
        // Close-on-exec on both (pipe2 is not in Glibc's module): only the dup2 onto 1 reaches the child.
        _ = fcntl(readEnd, F_SETFD, FD_CLOEXEC)
        _ = fcntl(writeEnd, F_SETFD, FD_CLOEXEC)
        defer { close(readEnd) }
        var actions = posix_spawn_file_actions_t()
        posix_spawn_file_actions_init(&actions)
        defer { posix_spawn_file_actions_destroy(&actions) }
        posix_spawn_file_actions_addopen(&actions, 0, "/dev/null", O_RDONLY, 0)
        posix_spawn_file_actions_adddup2(&actions, writeEnd, 1)
        if mergingErrors {
            posix_spawn_file_actions_adddup2(&actions, writeEnd, 2)
        } else {
            posix_spawn_file_actions_addopen(&actions, 2, "/dev/null", O_WRONLY, 0)
        }
        let argv: [UnsafeMutablePointer<CChar>?] = ([path] + arguments).map { strdup($0) } + [nil]
        let environment: [UnsafeMutablePointer<CChar>?] = environment.map { strdup($0) } + [nil]
        defer { for pointer in argv + environment { free(pointer) } }
        var child: pid_t = 0
        let status = argv.withUnsafeBufferPointer { args in
            environment.withUnsafeBufferPointer { env in posix_spawn(&child, path, &actions, nil, args.baseAddress!, env.baseAddress!) }
        }
        close(writeEnd)
        guard status == 0 else {
            errno = status
            throw SystemError("posix_spawn", subject: path)
        }
        var output: [UInt8] = []
        let deadline = MonotonicClock.now() + timeout
        var buffer = [UInt8](repeating: 0, count: 4096)
        // Read to the end even past `limit` (the rest is dropped): a program
        // blocked on a full pipe would otherwise only end at the deadline.
        reading: while true {
            let remaining = deadline - MonotonicClock.now()
            guard remaining > .zero else { break }
            var poller = pollfd(fd: readEnd, events: Int16(POLLIN), revents: 0)
            let ready = poll(&poller, 1, Int32(clamping: remaining.nanoseconds / 1_000_000 + 1))
            if ready < 0 && errno == EINTR { continue }
            guard ready > 0 else { break }
            let count = buffer.withUnsafeMutableBytes { read(readEnd, $0.baseAddress, $0.count) }
            switch count {
            case 0: break reading
            case ..<0: if errno != EINTR { break reading }
            default: if output.count < limit { output += buffer.prefix(min(count, limit - output.count)) }
            }
        }
        // Reaped here, never left behind: given until the deadline to exit, then killed.
        var exit: Int32 = 0
        var timedOut = false
        while true {
            let reaped = waitpid(child, &exit, WNOHANG)
            if reaped == child { break }
            // Not an exit status to report (ECHILD: someone else reaped it): no answer is "exited 0".
            if reaped < 0 && errno != EINTR { throw SystemError("waitpid", subject: path) }
            guard MonotonicClock.now() < deadline else {
                kill(child, SIGKILL)
                while waitpid(child, &exit, 0) < 0 && errno == EINTR {}
                timedOut = true
                break
            }
            usleep(5_000)
        }
        let text = String(decoding: output.prefix(limit), as: UTF8.self)
        return Run(ending: timedOut ? .timedOut : .from(waitStatus: exit), output: text)
    }
}
