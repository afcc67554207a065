import Logging
import VitrineCore
import VitrineDRM

/// KMS/DRM scanout behind the display protocol: double-buffered page flips on
/// one connector, paced by the flip-complete events, and set up again when the
/// connector is unplugged and plugged back or its modes change.
public final class DRMDisplay: DisplayBackend {
    private let scanout: DRMScanout
    private let modeRequest: DRMModeRequest?
    private let uevents: UeventMonitor?
    private let logger: Logger
    public private(set) var generation = 0
    /// False between an unplug and the replug: nothing is drawn meanwhile.
    private var connected = true
    /// The vblank timestamps of the last completed flips (CLOCK_MONOTONIC ns), newest last.
    public private(set) var lastFlip: DRMFlipCompletion?
    public private(set) var framesPresented = 0

    public init(scanout: DRMScanout, modeRequest: DRMModeRequest?, logger: Logger) {
        self.scanout = scanout
        self.modeRequest = modeRequest
        self.logger = logger
        do {
            uevents = try UeventMonitor()
        } catch {
            uevents = nil
            logger.warning("no hotplug notifications (\(error)); a replugged display needs a restart")
        }
    }

    public var description: String {
        "drm \(scanout.card.path) (\(scanout.card.driver)) \(scanout.connector.name) \(scanout.mode) \(scanout.interfaceName)"
    }

    public var outputSize: PixelSize { scanout.size }
    public var refreshInterval: Duration { scanout.mode.refreshInterval }
    public var pacesItself: Bool { true }
    public var lastScanout: MonotonicInstant? { lastFlip.map { MonotonicInstant(nanoseconds: $0.timestampNanoseconds) } }
    public var isReadyForFrame: Bool { connected && !scanout.isFlipPending }
    public var eventDescriptors: [Int32] { [scanout.card.descriptor] + (uevents.map { [$0.descriptor] } ?? []) }

    public func acquireCanvas() -> PixelCanvas? { connected ? scanout.backCanvas() : nil }

    public func present(at now: MonotonicInstant) throws {
        try scanout.present()
        framesPresented += 1
    }

    public func handleEvents(on descriptor: Int32) throws {
        if descriptor == scanout.card.descriptor {
            if let completion = try scanout.handleEvents().last { lastFlip = completion }
            return
        }
        guard let uevents, descriptor == uevents.descriptor else { return }
        let cardName = String(scanout.card.path.split(separator: "/").last ?? "")
        // A connector change on our card arrives as a "change" uevent of the card with HOTPLUG=1.
        let hotplug = uevents.read().contains { event in
            event["SUBSYSTEM"] == "drm" && event["HOTPLUG"] == "1" && (event["DEVNAME"] ?? "").hasSuffix(cardName)
        }
        if hotplug { handleHotplug() }
    }

    private func handleHotplug() {
        guard scanout.isConnected() else {
            if connected { logger.warning("\(scanout.connector.name) was disconnected; waiting for it to come back") }
            connected = false
            return
        }
        do {
            let previous = scanout.mode
            try scanout.reconfigure(mode: modeRequest)
            connected = true
            generation += 1
            logger.notice("\(scanout.connector.name) is connected: mode set again", metadata: [
                "mode": "\(scanout.mode)", "previous": "\(previous)",
            ])
        } catch {
            connected = false
            logger.error("cannot set the mode again after a hotplug: \(error)")
        }
    }

    public func close() { scanout.restore() }
}
