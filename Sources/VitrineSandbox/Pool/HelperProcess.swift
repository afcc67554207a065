import CLinuxProcess
import Glibc
import VitrineRuntime
import VitrineCore
import VitrineSystem
import VitrineSandboxHelper

/// One running decoding helper, owned by the pool: its process and the
/// kiosk's end of its socket. Killed and reaped exactly once, when it is
/// ended or when the last reference goes, so no zombie and no descriptor is left.
final class HelperProcess {
    let pid: pid_t
    private let socket: Int32
    private var reaped = false
    /// Jobs served; a helper exits after `HelperLimits.decodesPerHelper`.
    private(set) var served = 0

    /// The thread every helper is spawned from, kept for the life of the process.
    private static let spawner = SerialWorker(name: "vitrine spawner")

    /// Starts `executable` with `arguments` (`posix_spawn`, never `fork`: the
    /// kiosk is threaded, and a forked child of a threaded process may only
    /// call async-signal-safe functions until it execs). The child gets its
    /// end of a `SOCK_SEQPACKET` pair as descriptor 3 and no other descriptor
    /// of the kiosk's (`posix_spawn_file_actions_addclosefrom_np`), an empty
    /// signal mask and default signal handlers (the kiosk blocks the signals
    /// its signalfd reads), and an environment of its own: one malloc arena,
    /// no Swift backtracer, and nothing of the kiosk's (a token in the
    /// environment stays there).
    /// Then waits for its hello: confined and ready, or why not.
    init(executable: String, name: String = "vitrine", arguments: [String], startDeadline: Duration) throws(HelperStop) {
        var pair: [Int32] = [-1, -1]
        guard socketpair(AF_UNIX, Int32(SOCK_SEQPACKET.rawValue) | Int32(SOCK_CLOEXEC.rawValue), 0, &pair) == 0 else {
            throw .unavailable("socketpair: \(String(cString: strerror(errno)))")
        }
        let (ours, theirs) = (pair[0], pair[1])
        defer { close(theirs) }

        var actions = posix_spawn_file_actions_t()
        posix_spawn_file_actions_init(&actions)
        defer { posix_spawn_file_actions_destroy(&actions) }
        posix_spawn_file_actions_addopen(&actions, 0, "/dev/null", O_RDONLY, 0)
        posix_spawn_file_actions_addopen(&actions, 1, "/dev/null", O_WRONLY, 0)
        // dup2 clears close-on-exec on descriptor 3 only; stderr (2) stays the kiosk's, for the runtime's crash lines.
        posix_spawn_file_actions_adddup2(&actions, theirs, HelperHello.socket)
        posix_spawn_file_actions_addclosefrom_np(&actions, HelperHello.socket + 1)

        var attributes = posix_spawnattr_t()
        posix_spawnattr_init(&attributes)
        defer { posix_spawnattr_destroy(&attributes) }
        var empty = sigset_t(), all = sigset_t()
        sigemptyset(&empty)
        sigfillset(&all)
        posix_spawnattr_setsigmask(&attributes, &empty)
        posix_spawnattr_setsigdefault(&attributes, &all)
        posix_spawnattr_setflags(&attributes, Int16(POSIX_SPAWN_SETSIGMASK | POSIX_SPAWN_SETSIGDEF))

        // argv[0] is what ps shows: "vitrine decode-helper …", whatever path started it.
        let argv: [UnsafeMutablePointer<CChar>?] = ([name] + arguments).map { strdup($0) } + [nil]
        // No Swift backtracer: on a crash it would start a process and read files, which the filter forbids,
        // and the helper would die of SIGSYS instead of the signal that names the crash.
        let environment: [UnsafeMutablePointer<CChar>?] = ["MALLOC_ARENA_MAX=1", "SWIFT_BACKTRACE=enable=no", "PATH=/usr/bin:/bin"].map { (text: String) in strdup(text) } + [nil]
        defer { for pointer in argv + environment { free(pointer) } }
        var child: pid_t = 0
        // From a thread that lives as long as the process: the helper's parent-death
        // signal follows the thread that spawned it, not the process (prctl(2),
        // PR_SET_PDEATHSIG). Spawned from a decode worker, a helper was killed
        // mid-decode when that worker's frame store was let go (a new configuration,
        // an override), and from a pool thread when the pool let the thread go.
        let status = Self.spawner.sync {
            argv.withUnsafeBufferPointer { args in
                environment.withUnsafeBufferPointer { env in
                    posix_spawn(&child, executable, &actions, &attributes, args.baseAddress!, env.baseAddress!)
                }
            }
        }
        guard status == 0 else {
            close(ours)
            throw .unavailable("cannot start \(executable): \(String(cString: strerror(status)))")
        }
        pid = child
        socket = ours
        let hello: [UInt8]
        do {
            hello = try receive(deadline: startDeadline)
        } catch {
            // Whatever stopped it before it said hello, it is no helper to decode with.
            end()
            throw .unavailable("\(executable) did not start as a decoding helper (\(error))")
        }
        var reader = WireReader(hello)
        guard (try? reader.get(UInt32.self)) == HelperHello.readyMagic, let ready = try? reader.getBool(), let why = try? reader.getString() else {
            end()
            throw .unavailable("\(executable) is not a decoding helper of this version")
        }
        guard ready else {
            end()
            throw .unavailable(why)
        }
    }

    deinit { end() }

    /// Sends `job` with `descriptors` and waits for the reply until `deadline`.
    func run(_ job: DecodeJob, descriptors: [Int32], deadline: Duration) throws(HelperStop) -> DecodeReply {
        let bytes = try exchange(job.encoded, descriptors: descriptors, deadline: deadline)
        do {
            return try DecodeReply(decoding: bytes)
        } catch {
            end()
            throw .malformedReply("\(error)")
        }
    }

    /// Sends `message` with `descriptors` and waits for one message back until `deadline`.
    func exchange(_ message: [UInt8], descriptors: [Int32], deadline: Duration) throws(HelperStop) -> [UInt8] {
        served += 1
        do {
            try DescriptorPassing.send(socket, message, descriptors: descriptors)
        } catch {
            throw stopped()
        }
        return try receive(deadline: deadline)
    }

    /// Waits for one message; past `deadline` the helper is killed.
    private func receive(deadline: Duration) throws(HelperStop) -> [UInt8] {
        let start = MonotonicClock.now()
        while true {
            let remaining = deadline - (MonotonicClock.now() - start)
            guard remaining > .zero else {
                end()
                throw .deadline(deadline)
            }
            var poller = pollfd(fd: socket, events: Int16(POLLIN), revents: 0)
            let milliseconds = Int32(clamping: max(1, remaining.components.seconds * 1000 + remaining.components.attoseconds / 1_000_000_000_000_000))
            let ready = poll(&poller, 1, milliseconds)
            if ready < 0 && errno == EINTR { continue }
            guard ready > 0 else { continue }
            do {
                guard let bytes = try DescriptorPassing.receivePlain(socket, limit: 256 << 10) else { throw stopped() }
                return bytes
            } catch let error as HelperStop {
                throw error
            } catch {
                end()
                throw .malformedReply("\(error)")
            }
        }
    }

    /// Why the helper stopped, once its socket has closed: waits for it to exit.
    private func stopped() -> HelperStop {
        guard !reaped else { return .exited(status: -1) }
        var status: Int32 = 0
        while waitpid(pid, &status, 0) < 0 && errno == EINTR {}
        reaped = true
        close(socket)
        return HelperStop.from(waitStatus: status)
    }

    /// Kills the helper (SIGKILL: it may be stuck in a C library) and reaps it.
    func end() {
        guard !reaped else { return }
        kill(pid, SIGKILL)
        var status: Int32 = 0
        while waitpid(pid, &status, 0) < 0 && errno == EINTR {}
        reaped = true
        close(socket)
    }

    /// Kills the helper now and reaps it on the reaper thread. For an owner
    /// let go under a lock (a frame store evicting a video slide): waiting for
    /// a killed process to exit can take a while when it is in the middle of
    /// a page fault or I/O, and the display thread must never wait on that lock.
    func endInBackground() {
        // Once handed over, `reaped` is the reaper's to write: not read here again,
        // and never a second kill (by then the pid may be another process's).
        guard !reaped, !handedToReaper else { return }
        handedToReaper = true
        kill(pid, SIGKILL)
        let owned = ReapedLater(process: self)
        Self.reaper.async { owned.process.end() }
    }

    private struct ReapedLater: @unchecked Sendable { let process: HelperProcess }
    /// Set by the owner's thread in `endInBackground`; the process is the reaper's from then on.
    private var handedToReaper = false

    /// The thread that waits for helpers killed by `endInBackground`.
    private static let reaper = SerialWorker(name: "vitrine reaper")

    /// The CPU time the helper has used so far (user and system, from
    /// /proc/<pid>/stat's utime and stime), or nil once it is gone: for a
    /// long-lived helper (a looping video) to be replaced well before its
    /// `RLIMIT_CPU` backstop ends it.
    var cpuTime: Duration? {
        guard !handedToReaper, !reaped, let bytes = try? FileIO.read("/proc/\(pid)/stat", limit: 4096), case let text = String(decoding: bytes, as: UTF8.self),
              let afterName = text.lastIndex(of: ")") else { return nil }
        // Fields after the name (which may hold spaces): state is field 3, utime 14, stime 15.
        let fields = text[text.index(after: afterName)...].split(separator: " ")
        guard fields.count > 12, let user = Int64(fields[11]), let system = Int64(fields[12]) else { return nil }
        let ticksPerSecond = Int64(max(1, sysconf(Int32(_SC_CLK_TCK))))
        return .milliseconds((user + system) * 1000 / ticksPerSecond)
    }

    /// Whether the process is still there: one that died while it waited for
    /// work (the OOM killer, an operator's kill) is reaped here, so the next
    /// job gets a fresh helper instead of a closed socket and a good picture
    /// is never blamed for it.
    var isRunning: Bool {
        guard !reaped else { return false }
        var status: Int32 = 0
        guard waitpid(pid, &status, WNOHANG) == pid else { return true }
        reaped = true
        close(socket)
        return false
    }
}
