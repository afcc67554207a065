/// A flag that any thread sets once to end the display loop. Setting it also
/// wakes the loop, so that a loop asleep until a distant deadline ends at once.
final class StopRequest: Sendable {
    private let mutex = Mutex()
    nonisolated(unsafe) private var value = false
    private let wakeup: WakeupSignal

    init(wakeup: WakeupSignal) {
        self.wakeup = wakeup
    }

    var isSet: Bool { mutex.withLock { value } }

    func set() {
        mutex.withLock { value = true }
        wakeup.signal()
    }
}

/// Stops a running kiosk from any thread (tests, and the server's shutdown).
public struct KioskStopHandle: Sendable {
    let request: StopRequest

    public func stop() { request.set() }
}
