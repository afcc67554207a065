import VitrineCore
import VitrineRuntime

/// A headless display that says it drives a connector, as `DRMDisplay` does:
/// what the kiosk's assembly looks at to show the configuration as that
/// output of `outputs` shows it.
final class ConnectorDisplay: DisplayBackend {
    private let display: HeadlessDisplay
    let connectorName: String?

    init(_ display: HeadlessDisplay, connector: String) {
        self.display = display
        connectorName = connector
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
    var isPoweredOn: Bool { display.isPoweredOn }
    var isFlipPending: Bool { display.isFlipPending }
    func acquireCanvas() -> PixelCanvas? { display.acquireCanvas() }
    func present(at now: MonotonicInstant) throws { try display.present(at: now) }
    func handleEvents(on descriptor: Int32) throws { try display.handleEvents(on: descriptor) }
    func setPower(_ on: Bool) throws { try display.setPower(on) }
    func close() { display.close() }
}
