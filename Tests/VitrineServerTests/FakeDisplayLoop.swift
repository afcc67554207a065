import Synchronization
import VitrineCore
import VitrineSystem
@testable import VitrineRuntime
@testable import VitrineServer

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
    func ping(reply: @escaping @Sendable () -> Void) { reply() }
}
