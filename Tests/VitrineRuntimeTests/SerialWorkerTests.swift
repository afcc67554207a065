import Glibc
import Synchronization
import Testing
import VitrineCore
import VitrineSystem
@testable import VitrineRuntime

/// The display thread's hand-over to the decode, preview, play-log and
/// animation work: in order, no sooner than a deadline, waited for by `sync`,
/// and gone with its owner.
@Suite("Serial worker")
struct SerialWorkerTests {
    @Test func jobsRunInTheOrderHandedOverOnAThreadOfTheirOwn() {
        let worker = SerialWorker(name: "test worker")
        let order = Mutex<[Int]>([])
        let threads = Mutex<Set<UInt>>([])
        for index in 0..<1_000 {
            worker.async {
                order.withLock { $0.append(index) }
                threads.withLock { _ = $0.insert(UInt(pthread_self())) }
            }
        }
        worker.sync {}
        #expect(order.withLock { $0 } == Array(0..<1_000))
        #expect(threads.withLock { $0.count } == 1)
        #expect(!threads.withLock { $0 }.contains(UInt(pthread_self())))
    }

    @Test func syncReturnsWhatItsBodyReturnsAfterTheJobsBeforeIt() {
        let worker = SerialWorker(name: "test worker")
        let count = Mutex(0)
        for _ in 0..<10 { worker.async { count.withLock { $0 += 1 } } }
        #expect(worker.sync { count.withLock { $0 } } == 10)
    }

    @Test func aTimedJobRunsNoSoonerThanItsDeadlineAndDoesNotHoldUpTheOthers() {
        let worker = SerialWorker(name: "test worker")
        let ran = Mutex<[(String, MonotonicInstant)]>([])
        let start = MonotonicClock.now()
        worker.after(start + .milliseconds(80)) { ran.withLock { $0.append(("late", MonotonicClock.now())) } }
        worker.after(start + .milliseconds(40)) { ran.withLock { $0.append(("sooner", MonotonicClock.now())) } }
        worker.async { ran.withLock { $0.append(("now", MonotonicClock.now())) } }
        let deadline = start + .seconds(5)
        while ran.withLock({ $0.count }) < 3 && MonotonicClock.now() < deadline { usleep(5_000) }
        let runs = ran.withLock { $0 }
        #expect(runs.map(\.0) == ["now", "sooner", "late"])
        #expect(runs.count == 3 && runs[1].1 >= start + .milliseconds(40) && runs[2].1 >= start + .milliseconds(80))
    }

    @Test func theThreadEndsWithItsWorkerEvenWhenTheLastReferenceGoesOnIt() {
        /// This process's threads named `name` (`/proc/self/task/*/comm`).
        func threads(named name: String) -> Int {
            guard let directory = opendir("/proc/self/task") else { return -1 }
            defer { closedir(directory) }
            var count = 0
            while let entry = readdir(directory) {
                let task = withUnsafeBytes(of: entry.pointee.d_name) { String(decoding: $0.prefix { $0 != 0 }, as: UTF8.self) }
                guard task.first?.isNumber == true, let comm = try? FileIO.read("/proc/self/task/\(task)/comm") else { continue }
                if String(decoding: comm, as: UTF8.self).hasPrefix(name) { count += 1 }
            }
            return count
        }
        final class Owner: Sendable {
            let worker = SerialWorker(name: "test owner")
        }
        var owners: [Owner?] = (0..<20).map { _ in Owner() }
        // Each thread names itself once it runs, a moment after its worker is made.
        let started = MonotonicClock.now() + .seconds(5)
        while threads(named: "test owner") < 20 && MonotonicClock.now() < started { usleep(1_000) }
        #expect(threads(named: "test owner") == 20)
        for index in owners.indices {
            // The job holds the owner; the test lets go first, so the owner, and its worker, are released on the worker's own thread.
            owners[index]!.worker.async { [owner = owners[index]] in _ = owner }
            owners[index] = nil
        }
        let deadline = MonotonicClock.now() + .seconds(5)
        while threads(named: "test owner") > 0 && MonotonicClock.now() < deadline { usleep(10_000) }
        #expect(threads(named: "test owner") == 0)
    }
}
