import Synchronization
public import SystemPackage

/// Failures put between code under test and the kernel: the real calls
/// (`SystemCalls.live`) run, except where a planned fault says that this call
/// fails with this `errno`. Tests use it to show what a full disk (`ENOSPC`),
/// a failing SD card (`EIO` at `fsync`), a signal (`EINTR`) or a descriptor
/// with nothing ready (`EAGAIN`) does to a write that must not lose data.
///
///     let faults = SystemCallFaults()
///     faults.fail(.write, with: .noSpace, pathContaining: ".tmp-")
///     try FileIO.writeAtomically(bytes, to: path, system: faults.calls)   // throws; `path` is untouched
public final class SystemCallFaults: Sendable {
    /// The calls a fault can be planned for.
    public enum Call: String, Sendable, CaseIterable {
        case open, read, write, fsync, datasync, truncate, rename, unlink
    }

    private struct Fault {
        var call: Call
        var errno: Errno
        var skip: Int
        var remaining: Int
        var pathContaining: String?
    }

    private struct State {
        var faults: [Fault] = []
        var counts: [Call: Int] = [:]
        var injected = 0
        /// The path each open descriptor was opened with, so that faults on
        /// read, write and fsync can be aimed at one file.
        var paths: [Int32: String] = [:]
        /// Closes of a descriptor not open through these calls: a second close.
        var strayCloses = 0
    }

    private let state = Mutex(State())

    public init() {}

    /// Plans a fault: after `after` matching calls that run normally, the next
    /// `times` matching calls of `call` fail with `errno` without reaching the
    /// kernel. A call matches when `pathContaining` is nil or is part of its
    /// path (for read, write, fsync, datasync and truncate: the path the descriptor was
    /// opened with here; for rename: the source).
    public func fail(_ call: Call, with errno: Errno, times: Int = 1, after: Int = 0, pathContaining: String? = nil) {
        precondition(times > 0 && after >= 0, "a fault happens at least once, after no fewer than 0 calls")
        state.withLock { $0.faults.append(Fault(call: call, errno: errno, skip: after, remaining: times, pathContaining: pathContaining)) }
    }

    /// How many times `call` was made through `calls`, failed ones included.
    public func count(of call: Call) -> Int { state.withLock { $0.counts[call, default: 0] } }

    /// How many planned faults have happened.
    public var injected: Int { state.withLock { $0.injected } }

    /// Descriptors opened through `calls` and not closed yet: a leak, once the
    /// code under test has returned.
    public var openDescriptors: Int { state.withLock { $0.paths.count } }

    /// Closes of descriptors that were not open through `calls`: a descriptor
    /// closed twice (which, in a process with threads, can close another
    /// thread's new file).
    public var strayCloses: Int { state.withLock { $0.strayCloses } }

    /// The planned faults that have not happened yet.
    public var pending: Int { state.withLock { $0.faults.count } }

    /// The system calls with the faults in front of the real ones.
    public var calls: SystemCalls {
        let live = SystemCalls.live
        return SystemCalls(
            open: { (path, flags, mode) throws(Errno) in
                try self.check(.open, path: path)
                let fd = try live.open(path, flags, mode)
                self.state.withLock { $0.paths[fd] = path }
                return fd
            },
            read: { (fd, buffer) throws(Errno) in
                try self.check(.read, fd: fd)
                return try live.read(fd, buffer)
            },
            write: { (fd, buffer) throws(Errno) in
                try self.check(.write, fd: fd)
                return try live.write(fd, buffer)
            },
            fsync: { fd throws(Errno) in
                try self.check(.fsync, fd: fd)
                try live.fsync(fd)
            },
            datasync: { fd throws(Errno) in
                try self.check(.datasync, fd: fd)
                try live.datasync(fd)
            },
            truncate: { (fd, length) throws(Errno) in
                try self.check(.truncate, fd: fd)
                try live.truncate(fd, length)
            },
            rename: { (from, to) throws(Errno) in
                try self.check(.rename, path: from)
                try live.rename(from, to)
            },
            unlink: { path throws(Errno) in
                try self.check(.unlink, path: path)
                try live.unlink(path)
            },
            close: { fd in
                self.state.withLock { state in
                    if state.paths.removeValue(forKey: fd) == nil { state.strayCloses += 1 }
                }
                live.close(fd)
            }
        )
    }

    private func check(_ call: Call, fd: Int32) throws(Errno) {
        try check(call, path: state.withLock { $0.paths[fd] })
    }

    private func check(_ call: Call, path: String?) throws(Errno) {
        let failure: Errno? = state.withLock { state in
            state.counts[call, default: 0] += 1
            let matching = state.faults.firstIndex { fault in
                fault.call == call && (fault.pathContaining.map { part in path?.contains(part) ?? false } ?? true)
            }
            guard let index = matching else { return nil }
            if state.faults[index].skip > 0 {
                state.faults[index].skip -= 1
                return nil
            }
            let errno = state.faults[index].errno
            state.faults[index].remaining -= 1
            if state.faults[index].remaining == 0 { state.faults.remove(at: index) }
            state.injected += 1
            return errno
        }
        if let failure { throw failure }
    }
}
