import VitrineCore
import VitrineRuntime

/// A display backend whose every state a test sets: unplugged, dark, a flip
/// pending, failing presents, power switches or event handling, and event
/// descriptors of its own. Its buffer has a stride wider than a row, as a
/// scanout buffer's may, so that nothing drawn into it can assume packed rows.
final class FakeDisplay: DisplayBackend {
    struct Failure: Error, Equatable { let what: String }

    var outputSize: PixelSize
    var refreshInterval: Duration = .microseconds(16_667)
    var eventDescriptors: [Int32] = []
    var generation = 0
    var pacesItself = true
    var lastScanout: MonotonicInstant?
    var isShowing = true
    var isPoweredOn = true
    var isFlipPending = false
    var isReadyForFrame: Bool { isShowing && isPoweredOn && !isFlipPending }
    var connectorName: String?
    let name: String

    /// Throw instead of doing it.
    var failsPresent = false, failsPower = false, failsEvents = false
    /// A present leaves a flip pending, as a DRM display's does.
    var flipsOnPresent = false

    private(set) var presented: [MonotonicInstant] = []
    /// When each frame reached the screen, and its top-left pixel.
    private(set) var scanouts: [(at: MonotonicInstant, pixel: UInt32)] = []
    private(set) var handled: [Int32] = []
    private(set) var powerCalls: [Bool] = []
    private(set) var closed = false

    /// The buffer: `padding` pixels past each row, set to a marker no picture uses.
    private var buffer: PixelImage
    private let padding = 3
    static let paddingMarker: UInt32 = 0x00AB_CDEF

    init(_ name: String, size: PixelSize, connector: String? = nil) {
        self.name = name
        outputSize = size
        connectorName = connector
        buffer = PixelImage(size: PixelSize(width: size.width + padding, height: size.height))
        buffer.pixels.update(repeating: Self.paddingMarker)
    }

    var description: String { "fake \(name) \(outputSize)" }

    private var canvas: PixelCanvas {
        if buffer.size.height != outputSize.height || buffer.size.width != outputSize.width + padding {
            buffer = PixelImage(size: PixelSize(width: outputSize.width + padding, height: outputSize.height))
            buffer.pixels.update(repeating: Self.paddingMarker)
        }
        return PixelCanvas(base: buffer.pixels.baseAddress!, size: outputSize, stride: outputSize.width + padding)
    }

    func acquireCanvas() -> PixelCanvas? { isFlipPending ? nil : canvas }

    /// What the panel shows at (x, y) of its own buffer.
    subscript(x: Int, y: Int) -> UInt32 { canvas.row(y)[x] }

    /// Every pixel of the panel, row by row.
    var pixels: [UInt32] { (0..<outputSize.height).flatMap { y in (0..<outputSize.width).map { self[$0, y] } } }

    /// Whether anything was written past the end of a row.
    var paddingIntact: Bool {
        (0..<outputSize.height).allSatisfy { y in (outputSize.width..<(outputSize.width + padding)).allSatisfy { canvas.row(y)[$0] == Self.paddingMarker } }
    }

    func present(at now: MonotonicInstant) throws {
        if failsPresent { throw Failure(what: "present \(name)") }
        presented.append(now)
        if flipsOnPresent { isFlipPending = true } else { scannedOut(at: now) }
    }

    /// The pending flip reaches the screen at `instant`.
    func completeFlip(at instant: MonotonicInstant) {
        isFlipPending = false
        scannedOut(at: instant)
    }

    private func scannedOut(at instant: MonotonicInstant) {
        lastScanout = instant
        scanouts.append((instant, self[0, 0]))
    }

    func handleEvents(on descriptor: Int32) throws {
        handled.append(descriptor)
        if failsEvents { throw Failure(what: "events \(name)") }
    }

    func setPower(_ on: Bool) throws {
        powerCalls.append(on)
        if failsPower { throw Failure(what: "power \(name)") }
        isPoweredOn = on
    }

    func close() { closed = true }
}
