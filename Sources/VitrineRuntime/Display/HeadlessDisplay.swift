import Dispatch
import Logging
import VitrineCore
import VitrinePNG
import VitrineSystem

/// Renders into memory at a fixed refresh rate, and keeps a PNG of the screen
/// up to date for people to look at (`output.preview`).
public final class HeadlessDisplay: DisplayBackend {
    public let outputSize: PixelSize
    public let refreshInterval: Duration
    public var eventDescriptors: [Int32] { [] }
    public var generation: Int { 0 }
    public var pacesItself: Bool { false }
    public var isReadyForFrame: Bool { isPoweredOn }
    public var description: String { "headless \(outputSize)" + (isPoweredOn ? "" : " (screen off)") }
    public private(set) var isPoweredOn = true

    private let frame: PixelImage
    private let preview: PreviewWriter?
    /// The frames presented so far.
    public private(set) var framesPresented = 0

    public init(size: PixelSize, refreshRate: Int = 60, previewPath: String?, logger: Logger) {
        self.outputSize = size
        self.refreshInterval = .nanoseconds(1_000_000_000 / Int64(max(refreshRate, 1)))
        self.frame = PixelImage(size: size, fill: .black)
        self.preview = previewPath.map { PreviewWriter(path: $0, logger: logger) }
    }

    /// The last presented frame.
    public var currentFrame: PixelImage { frame }

    public func acquireCanvas() -> PixelCanvas? { frame.canvas }

    public private(set) var lastScanout: MonotonicInstant?

    public func present(at now: MonotonicInstant) throws {
        framesPresented += 1
        lastScanout = now
        preview?.offer(frame, at: now)
    }

    public func handleEvents(on descriptor: Int32) throws {}

    /// Off, the preview keeps the last frame presented, as a dark panel keeps nothing new.
    public func setPower(_ on: Bool) throws { isPoweredOn = on }

    public func close() { preview?.flush() }
}

/// Writes the preview PNG off the display thread, at most a few times a second,
/// always ending with the latest frame: encoding 1920x1080 takes tens of
/// milliseconds, which the display thread cannot spend.
final class PreviewWriter: @unchecked Sendable {
    private let path: String
    private let logger: Logger
    private let queue = DispatchQueue(label: "vitrine.preview", qos: .utility)
    private let minimumGap: Duration = .milliseconds(250)
    private var lastOffer: MonotonicInstant?
    private var pendingCopy: PixelImage?
    private var writing = false
    private let lock = Mutex()
    private var reportedFailure = false

    init(path: String, logger: Logger) {
        self.path = path
        self.logger = logger
    }

    /// Called on the display thread with the frame just presented.
    func offer(_ frame: PixelImage, at now: MonotonicInstant) {
        if let lastOffer, now - lastOffer < minimumGap { return }
        lastOffer = now
        let copy = PixelImage(size: frame.size)
        _ = copy.pixels.initialize(from: frame.pixels)
        let start = lock.withLock { () -> Bool in
            pendingCopy = copy
            if writing { return false }
            writing = true
            return true
        }
        if start { queue.async { self.drain() } }
    }

    /// Waits for the pending write (at shutdown).
    func flush() { queue.sync {} }

    private func drain() {
        while let image = lock.withLock({ () -> PixelImage? in
            let next = pendingCopy
            pendingCopy = nil
            if next == nil { writing = false }
            return next
        }) {
            do {
                let png = try PNGCodec.encode(image, fast: true)
                // Not durable: a preview lost in a power cut does not matter, an fsync per frame would.
                try FileIO.writeAtomically(png, to: path, durable: false)
            } catch {
                if !reportedFailure {
                    reportedFailure = true
                    logger.error("cannot write the preview PNG", metadata: ["path": "\(path)", "reason": "\(error)"])
                }
            }
        }
    }
}
