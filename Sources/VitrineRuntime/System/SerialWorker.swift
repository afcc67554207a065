import Dispatch
import Glibc
import VitrineCore
import VitrineSystem

/// A serial queue on a thread of its own: work handed over with `async` runs
/// there, in order, `after` runs it no sooner than a deadline, and `sync`
/// waits for it. It stands in for a `DispatchQueue` where the display thread
/// hands work over every slide or every frame.
///
/// Why not a `DispatchQueue` there (issue 39, part 6): every `async` from the
/// display thread allocates a continuation, which the pool thread that runs it
/// keeps for reuse in a cache of its own, up to 1,024 a thread, freed only when
/// the thread exits. The display thread never frees one, so it never reuses
/// one: it allocates afresh each time, and the pool's caches fill, a little
/// each second, for twenty minutes (the soak's heap in use, docs/benchmarks.md).
/// A bounded climb, but one a 15-minute soak cannot tell from a leak. Here a
/// job is one closure in an array, freed where it ran, and nothing is cached.
///
/// The thread ends when the worker is released and its queue is empty; a job
/// that holds the worker's owner keeps it, as a queue's would. A process out
/// of threads runs the same loop on a thread of Dispatch's pool instead.
package final class SerialWorker: @unchecked Sendable {
    private final class State: @unchecked Sendable {
        // Allocated, not stored properties: pthread objects must not move, and Swift
        // promises no fixed address for a property passed with `&`.
        let mutex = UnsafeMutablePointer<pthread_mutex_t>.allocate(capacity: 1)
        let condition = UnsafeMutablePointer<pthread_cond_t>.allocate(capacity: 1)
        var jobs: [() -> Void] = []
        /// Jobs waiting for their deadline, soonest first.
        var timed: [(deadline: MonotonicInstant, job: () -> Void)] = []
        var ended = false

        init() {
            pthread_mutex_init(mutex, nil)
            var attributes = pthread_condattr_t()
            pthread_condattr_init(&attributes)
            // Deadlines are monotonic instants: a wall-clock step must not move them.
            pthread_condattr_setclock(&attributes, CLOCK_MONOTONIC)
            pthread_cond_init(condition, &attributes)
            pthread_condattr_destroy(&attributes)
        }

        deinit {
            pthread_cond_destroy(condition)
            pthread_mutex_destroy(mutex)
            condition.deallocate()
            mutex.deallocate()
        }

        func locked<T>(_ body: () -> T) -> T {
            pthread_mutex_lock(mutex)
            defer { pthread_mutex_unlock(mutex) }
            return body()
        }

        /// The thread's loop: the next job due, run outside the lock, until ended with nothing left.
        func run() {
            while let job = next() { job() }
        }

        private func next() -> (() -> Void)? {
            pthread_mutex_lock(mutex)
            defer { pthread_mutex_unlock(mutex) }
            while true {
                let now = MonotonicClock.now()
                if let first = timed.first, first.deadline <= now {
                    timed.removeFirst()
                    return first.job
                }
                if !jobs.isEmpty { return jobs.removeFirst() }
                if ended && timed.isEmpty { return nil }
                if let first = timed.first {
                    var until = timespec(tv_sec: Int(first.deadline.nanoseconds / 1_000_000_000),
                                         tv_nsec: Int(first.deadline.nanoseconds % 1_000_000_000))
                    pthread_cond_timedwait(condition, mutex, &until)
                } else {
                    pthread_cond_wait(condition, mutex)
                }
            }
        }

        func add(_ job: @escaping () -> Void) {
            locked { jobs.append(job) }
            pthread_cond_signal(condition)
        }

        func add(_ job: @escaping () -> Void, at deadline: MonotonicInstant) {
            locked {
                let index = timed.firstIndex { $0.deadline > deadline } ?? timed.endIndex
                timed.insert((deadline, job), at: index)
            }
            pthread_cond_signal(condition)
        }

        func end() {
            locked { ended = true }
            pthread_cond_signal(condition)
        }
    }

    private let state = State()

    /// Starts the worker's thread, named `name` (at most 15 bytes show in `top`).
    package init(name: String) {
        let state = self.state
        // Linux keeps 15 bytes of a thread's name. Written to the thread's own
        // comm file, since glibc's pthread_setname_np is not visible to Swift.
        let short = Array(name.utf8.prefix(15))
        let started = DedicatedThread.start {
            let comm = open("/proc/thread-self/comm", O_WRONLY | O_CLOEXEC)
            if comm >= 0 {
                _ = short.withUnsafeBytes { write(comm, $0.baseAddress, $0.count) }
                close(comm)
            }
            state.run()
        }
        if !started {
            // Out of threads (RLIMIT_NPROC, or memory for a stack): the same loop on a
            // thread of Dispatch's pool, held for the worker's life, rather than a kiosk
            // that stops. Should the pool be out of threads too, the jobs wait for one.
            DispatchQueue.global(qos: .userInitiated).async { state.run() }
        }
    }

    deinit { state.end() }

    /// Runs `job` on the worker's thread after the jobs before it.
    package func async(_ job: @escaping @Sendable () -> Void) { state.add(job) }

    /// Runs `job` on the worker's thread no sooner than `deadline`.
    package func after(_ deadline: MonotonicInstant, _ job: @escaping @Sendable () -> Void) { state.add(job, at: deadline) }

    /// Runs `body` on the worker's thread after the jobs before it, and waits for its result.
    /// Never from the worker's own thread, which would wait for itself. `body`
    /// escapes because the worker's thread may still hold it for a moment
    /// after the result is handed back.
    package func sync<T>(_ body: @escaping () -> T) -> T {
        let outcome = SyncOutcome<T>()
        let finished = State()
        state.add {
            let value = body()
            finished.locked {
                outcome.value = value
                outcome.done = true
            }
            pthread_cond_signal(finished.condition)
        }
        pthread_mutex_lock(finished.mutex)
        while !outcome.done { pthread_cond_wait(finished.condition, finished.mutex) }
        pthread_mutex_unlock(finished.mutex)
        return outcome.value!
    }
}

/// What a `SerialWorker.sync` body returned, handed back under the waiter's lock.
private final class SyncOutcome<T>: @unchecked Sendable {
    var value: T?
    var done = false
}
