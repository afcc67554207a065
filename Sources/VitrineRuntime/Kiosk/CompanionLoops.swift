import Dispatch
import Logging

/// The display loops of a kiosk's other output groups, each on a thread of
/// its own beside the caller's, which runs the first group's.
///
/// Each loop owns its display, its engine and its decoded slides, and none
/// waits for another: each output flips on its own vblank. They stop
/// together: whichever loop ends first (SIGTERM reaches the first group's
/// signalfd only, a `stopHandle`, or an error) asks the others to stop, and
/// `run` returns once every one has restored its display.
public final class CompanionLoops {
    private let loops: [Kiosk]
    private let logger: Logger

    public init(_ loops: [Kiosk], logger: Logger) {
        self.loops = loops
        self.logger = logger
    }

    /// Runs `primary` on the calling thread and each companion on its own.
    /// Rethrows the first loop's error, after all have stopped.
    public func run(alongside primary: Kiosk) throws {
        guard !loops.isEmpty else {
            try primary.run()
            return
        }
        let handles = [primary.stopHandle] + loops.map(\.stopHandle)
        let stopAll: @Sendable () -> Void = { for handle in handles { handle.stop() } }
        let failure = FirstFailure()
        let finished = DispatchGroup()
        for (index, loop) in loops.enumerated() {
            // Handed whole to its thread: the display thread of that group is
            // the only one that touches this kiosk from here on.
            let owned = UncheckedKiosk(loop)
            let logger = logger
            finished.enter()
            let started = DedicatedThread.start {
                defer {
                    stopAll()
                    finished.leave()
                }
                do {
                    try owned.kiosk.run()
                } catch {
                    logger.error("an output group's display loop stopped: \(error); stopping the others")
                    failure.record(error)
                }
            }
            if !started {
                finished.leave()
                stopAll()
                finished.wait()
                throw StartFailure(group: index + 1)
            }
        }
        do {
            try primary.run()
        } catch {
            stopAll()
            finished.wait()
            throw error
        }
        stopAll()
        finished.wait()
        if let error = failure.error { throw error }
    }
}

/// A thread for an output group's loop could not be started.
struct StartFailure: Error, CustomStringConvertible {
    var group: Int
    var description: String { "cannot start the display thread of output group \(group + 1)" }
}

/// The first error any loop ended with.
private final class FirstFailure: @unchecked Sendable {
    private let mutex = Mutex()
    private var first: (any Error)?

    func record(_ error: any Error) { mutex.withLock { if first == nil { first = error } } }
    var error: (any Error)? { mutex.withLock { first } }
}

/// A kiosk moved to the thread that runs it; nothing else touches it after.
private struct UncheckedKiosk: @unchecked Sendable {
    let kiosk: Kiosk
    init(_ kiosk: Kiosk) { self.kiosk = kiosk }
}
