import Glibc
import VitrineSystem
import VitrineSandboxHelper

/// The decoding helpers: a few processes that each decode one job at a time,
/// started when first needed and started again after one stops.
///
/// At most `size` helpers run, so nothing a peer sends can make processes
/// pile up: a caller waits for a free helper. A helper that crashes, is
/// killed or passes its deadline costs the job it was on (`HelperStop`),
/// and the next job gets a fresh one.
public final class DecodePool: @unchecked Sendable {
    public let limits: HelperLimits
    public let size: Int
    /// The pictures refused by this pool's helpers, and those held back.
    public let refusals: RefusalBook
    private let executable: String
    private let lock = PoolLock()
    private var idle: [HelperProcess] = []
    private var running = 0
    /// Helpers started, for the status and for tests that watch restarts.
    private var started = 0

    /// - Parameters:
    ///   - executable: the `vitrine` binary to start as `vitrine decode-helper`:
    ///     this process's own (`/proc/self/exe`, which still names the binary
    ///     this process runs after a package upgrade replaced the file).
    ///   - size: how many helpers may decode at once.
    public init(executable: String = "/proc/self/exe", size: Int = 2, limits: HelperLimits = HelperLimits(),
                refusals: RefusalBook = RefusalBook()) {
        self.executable = executable
        self.refusals = refusals
        self.size = max(1, size)
        self.limits = limits
    }

    deinit {
        for helper in idle { helper.end() }
    }

    /// Runs `job` on a helper, handing it `descriptors`.
    func run(_ job: DecodeJob, descriptors: [Int32]) throws(HelperStop) -> DecodeReply {
        let helper = try takeHelper()
        do {
            let reply = try helper.run(job, descriptors: descriptors, deadline: limits.deadline)
            giveBack(helper)
            return reply
        } catch {
            helper.end()
            giveBack(nil)
            throw error
        }
    }

    /// How many helpers have been started in this pool's life.
    public var helpersStarted: Int { lock.withLock { started } }

    /// The resident memory of each helper waiting for work, now and at its peak
    /// (`VmRSS`, `VmHWM` in /proc/PID/status), in KiB: for the benchmarks.
    public func helperMemory() -> [(residentKiB: Int, peakKiB: Int)] {
        idleHelperIDs.compactMap { pid in
            guard let bytes = try? FileIO.read("/proc/\(pid)/status", limit: 64 << 10) else { return nil }
            var fields: [String: Int] = [:]
            for line in String(decoding: bytes, as: UTF8.self).split(separator: "\n") {
                let parts = line.split(separator: ":", maxSplits: 1)
                guard parts.count == 2 else { continue }
                fields[String(parts[0])] = Int(parts[1].split(whereSeparator: { $0 == " " || $0 == "\t" }).first ?? "")
            }
            guard let resident = fields["VmRSS"], let peak = fields["VmHWM"] else { return nil }
            return (resident, peak)
        }
    }

    /// The process ids of the helpers waiting for work (for tests).
    var idleHelperIDs: [pid_t] { lock.withLock { idle.map(\.pid) } }

    private func takeHelper() throws(HelperStop) -> HelperProcess {
        lock.lock()
        while running >= size { lock.wait() }
        running += 1
        while let helper = idle.popLast() {
            if helper.isRunning, helper.served < HelperLimits.decodesPerHelper {
                lock.unlock()
                return helper
            }
            helper.end()
        }
        started += 1
        lock.unlock()
        do {
            return try HelperProcess(executable: executable, arguments: limits.arguments, startDeadline: .seconds(10))
        } catch {
            giveBack(nil)
            throw error
        }
    }

    private func giveBack(_ helper: HelperProcess?) {
        lock.lock()
        if let helper {
            if helper.isRunning, helper.served < HelperLimits.decodesPerHelper { idle.append(helper) } else { helper.end() }
        }
        running -= 1
        lock.signal()
        lock.unlock()
    }
}

/// A mutex with a condition, for the pool's wait for a free helper.
final class PoolLock: @unchecked Sendable {
    private var mutex = pthread_mutex_t()
    private var condition = pthread_cond_t()

    init() {
        pthread_mutex_init(&mutex, nil)
        pthread_cond_init(&condition, nil)
    }

    deinit {
        pthread_cond_destroy(&condition)
        pthread_mutex_destroy(&mutex)
    }

    func lock() { pthread_mutex_lock(&mutex) }
    func unlock() { pthread_mutex_unlock(&mutex) }
    func wait() { pthread_cond_wait(&condition, &mutex) }
    func signal() { pthread_cond_signal(&condition) }

    func withLock<T>(_ body: () throws -> T) rethrows -> T {
        lock()
        defer { unlock() }
        return try body()
    }
}
