import Glibc
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
        preview?.offer(frame)
    }

    public func handleEvents(on descriptor: Int32) throws {}

    /// Off, the preview keeps the last frame presented, as a dark panel keeps nothing new.
    public func setPower(_ on: Bool) throws { isPoweredOn = on }

    public func close() { preview?.flush() }
}

/// Writes the preview PNG off the display thread, at most a few times a second,
/// always ending with the latest frame: encoding 1920x1080 takes tens of
/// milliseconds, which the display thread cannot spend.
///
/// Every presented frame is copied (about a millisecond at 1080p, into a
/// recycled buffer) and the writer takes the newest copy when it is free,
/// writing no more often than every 250 ms (paced by its worker's deadline,
/// not a sleep). A frame presented within 250 ms
/// of the one before is therefore written late rather than never: a picture
/// that comes to rest right after another (a slide decoded just after its
/// placeholder showed) must not leave the preview on the one before.
final class PreviewWriter: @unchecked Sendable {
    private let path: String
    private let logger: Logger
    private let queue = SerialWorker(name: "vitrine preview")
    private let minimumGap: Duration = .milliseconds(250)
    private var pendingCopy: PixelImage?
    /// A buffer the writer is done with, for the next copy.
    private var spare: PixelImage?
    private var writing = false
    private let lock = Mutex()
    private var reportedFailure = false

    init(path: String, logger: Logger) {
        self.path = path
        self.logger = logger
    }

    /// Called on the display thread with the frame just presented.
    func offer(_ frame: PixelImage) {
        let recycled = lock.withLock { () -> PixelImage? in
            // A copy not yet taken is replaced: only the newest frame matters.
            let buffer = pendingCopy ?? spare
            pendingCopy = nil
            spare = nil
            return buffer
        }
        let copy = recycled.flatMap { $0.size == frame.size ? $0 : nil } ?? PixelImage(size: frame.size)
        _ = copy.pixels.update(fromContentsOf: frame.pixels)
        let start = lock.withLock { () -> Bool in
            pendingCopy = copy
            if writing { return false }
            writing = true
            return true
        }
        if start { queue.async { self.drain() } }
    }

    /// Writes the newest frame not yet written, now, and waits for it (at
    /// shutdown): the preview must end on the last frame shown.
    func flush() {
        queue.sync { [self] in
            if let image = take(endingTheWrites: false) { write(image) }
        }
    }

    /// Writes the newest frame, then comes back for the next one no sooner
    /// than `minimumGap` after this one started: paced by the worker's deadline
    /// (`SerialWorker.after`), which waits on its condition, not in a sleep.
    private func drain() {
        guard let image = take(endingTheWrites: true) else { return }
        let started = MonotonicClock.now()
        write(image)
        let rest = minimumGap - (MonotonicClock.now() - started)
        if rest > .zero {
            queue.after(MonotonicClock.now() + rest) { self.drain() }
        } else {
            queue.async { self.drain() }
        }
    }

    /// The pending copy, taken; with none, and `endingTheWrites`, the next
    /// `offer` starts the writes again.
    private func take(endingTheWrites: Bool) -> PixelImage? {
        lock.withLock {
            let next = pendingCopy
            pendingCopy = nil
            if next == nil, endingTheWrites { writing = false }
            return next
        }
    }

    private func write(_ image: PixelImage) {
        defer { lock.withLock { spare = image } }
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
