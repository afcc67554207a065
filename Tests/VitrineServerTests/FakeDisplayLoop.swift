import Synchronization
import VitrineCore
import VitrineSystem
@testable import VitrineRuntime
@testable import VitrineHTTP

/// A display loop that only records what it is sent: for what the API does
/// with a link, without a display thread.
final class FakeDisplayLoop: DisplayLoopLink {
    private let state: Synchronization.Mutex<(status: KioskStatus, sent: [KioskCommand])>

    init(slideCount: Int = 2) {
        state = Mutex((KioskStatus(currentSlide: 0, slideCount: slideCount, playing: true, pausedBecause: [], output: "fake",
                                   inputDevices: [], configurationVersion: nil, startedAt: MonotonicClock.now(), recentErrors: []), []))
    }

    var sent: [KioskCommand] { state.withLock { $0.sent } }
    var status: KioskStatus { state.withLock { $0.status } }
    func send(_ command: KioskCommand) { state.withLock { $0.sent.append(command) } }
    func requestFrame(reply: @escaping @Sendable (PixelImage) -> Void) { reply(PixelImage(size: PixelSize(width: 2, height: 2), fill: .black)) }
    private let pingCount = Atomic(0)
    private let delay = Mutex<Duration?>(nil)
    /// How long a ping takes to be answered; nil: at once, on the caller's thread.
    var pingDelay: Duration? {
        get { delay.withLock { $0 } }
        set { delay.withLock { $0 = newValue } }
    }
    /// Pings asked so far.
    var pings: Int { pingCount.load(ordering: .relaxed) }

    func ping(reply: @escaping @Sendable () -> Void) {
        pingCount.add(1, ordering: .relaxed)
        guard let pingDelay = self.pingDelay else { return reply() }
        Task {
            try? await Task.sleep(for: pingDelay)
            reply()
        }
    }
}
