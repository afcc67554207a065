import Foundation
import VitrineCore
import VitrineRuntime

/// A headless display that says it drives a connector, as `DRMDisplay` does:
/// what the kiosk's assembly looks at to show the configuration as that
/// output of `outputs` shows it.
final class ConnectorDisplay: DisplayBackend {
    private let display: HeadlessDisplay
    let connectorName: String?
    private let hang: DisplayHang?

    /// - Parameter hang: holds the display loop in `isPoweredOn` (read at every turn) while it is hung.
    init(_ display: HeadlessDisplay, connector: String, hang: DisplayHang? = nil) {
        self.display = display
        connectorName = connector
        self.hang = hang
    }

    var description: String { "\(display.description) as \(connectorName ?? "")" }
    var outputSize: PixelSize { display.outputSize }
    var refreshInterval: Duration { display.refreshInterval }
    var eventDescriptors: [Int32] { display.eventDescriptors }
    var generation: Int { display.generation }
    var pacesItself: Bool { display.pacesItself }
    var lastScanout: MonotonicInstant? { display.lastScanout }
    var isReadyForFrame: Bool { display.isReadyForFrame }
    var isShowing: Bool { display.isShowing }
    var isPoweredOn: Bool {
        hang?.passThrough()
        return display.isPoweredOn
    }
    var isFlipPending: Bool { display.isFlipPending }
    func acquireCanvas() -> PixelCanvas? { display.acquireCanvas() }
    func present(at now: MonotonicInstant) throws { try display.present(at: now) }
    func handleEvents(on descriptor: Int32) throws { try display.handleEvents(on: descriptor) }
    func setPower(_ on: Bool) throws { try display.setPower(on) }
    func close() { display.close() }
}

/// Holds a display loop inside a display call while hung, as a loop stuck in a
/// driver would be: for what the API and the watchdog make of a hung loop.
final class DisplayHang: @unchecked Sendable {
    private let condition = NSCondition()
    private var hung = false

    func hang() { condition.withLock { hung = true } }

    func release() {
        condition.withLock {
            hung = false
            condition.broadcast()
        }
    }

    /// Returns at once unless hung; then when released.
    func passThrough() {
        condition.withLock { while hung { condition.wait() } }
    }
}
