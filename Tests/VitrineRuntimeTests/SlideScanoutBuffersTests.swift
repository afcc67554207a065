import Foundation
import Logging
import ServerTestSupport
import Synchronization
import Testing
import VitrineCore
import VitrineDRM
@testable import VitrineRuntime

/// The planes path's slide buffers (`SlideScanoutBuffers`) with buffers in
/// memory: copied off the calling thread, the pixels the frame's; within the
/// budget, room made from the least recently used buffers no plane shows; a
/// slide that still does not fit refused, and logged once; a buffer dropped
/// once its frame is gone.
@Suite("Slides' scan-out buffers: copied off the display thread, within a budget")
struct SlideScanoutBuffersTests {
    /// A buffer in memory, numbered as a framebuffer would be.
    final class MemoryBuffer: ScanoutBuffer, @unchecked Sendable {
        let framebufferID: UInt32
        let size: PixelSize
        let pixels: [UInt32]
        init(id: UInt32, frame: PixelImage) {
            framebufferID = id
            size = frame.size
            pixels = Array(frame.pixels.prefix(frame.size.pixelCount))
        }
    }

    /// Counts the buffers made, and which thread made them.
    final class Maker: Sendable {
        let made = Mutex<(count: Int, onCaller: Bool)>((0, false))
        let attempts = Mutex(0)
        let failing: Bool
        let caller = pthread_self()
        init(failing: Bool = false) { self.failing = failing }

        func make(_ frame: PixelImage) throws(DRMError) -> MemoryBuffer {
            let onCaller = pthread_equal(pthread_self(), caller) != 0
            attempts.withLock { $0 += 1 }
            if failing { throw .call("DRM_IOCTL_MODE_CREATE_DUMB", errno: .noMemory, subject: "/dev/dri/card0") }
            return made.withLock { made in
                made.count += 1
                made.onCaller = made.onCaller || onCaller
                return MemoryBuffer(id: UInt32(made.count), frame: frame)
            }
        }
    }

    /// A 64x32 slide of one colour: 8 KiB.
    static func frame(_ value: UInt32) -> PixelImage {
        let image = PixelImage(size: PixelSize(width: 64, height: 32))
        image.pixels.initialize(repeating: value)
        return image
    }

    static let frameBytes = 64 * 32 * 4

    static func lines(_ log: CapturedLog) -> [String] { log.text.isEmpty ? [] : log.text.components(separatedBy: "\n") }

    /// Asks until the copy has landed (at most two seconds).
    static func ready(_ buffers: SlideScanoutBuffers<MemoryBuffer>, _ frame: PixelImage,
                      shown: Set<UInt32> = []) async throws -> MemoryBuffer {
        for _ in 0..<200 {
            buffers.collect()
            if let buffer = buffers.buffer(for: frame, shown: shown) { return buffer }
            try await Task.sleep(for: .milliseconds(10))
        }
        throw DRMError.call("upload", errno: .timedOut, subject: "test")
    }

    @Test func aSlideIsCopiedOnceOffTheCallingThreadAndThenShownFromItsBuffer() async throws {
        let maker = Maker()
        let buffers = SlideScanoutBuffers<MemoryBuffer>(budget: ScanoutMemoryBudget(limitBytes: 4 * Self.frameBytes), logger: Logger(label: "test"),
                                                        make: { frame throws(DRMError) in try maker.make(frame) })
        let red = Self.frame(0xFFFF_0000)
        // The first ask starts the copy and answers nil: that frame composes the slide on the CPU.
        #expect(buffers.buffer(for: red, shown: []) == nil)
        let buffer = try await Self.ready(buffers, red)
        #expect(buffer.pixels.allSatisfy { $0 == 0xFFFF_0000 })
        #expect(buffers.buffer(for: red, shown: []) === buffer)
        #expect(maker.made.withLock { $0.count } == 1)
        #expect(maker.made.withLock { $0.onCaller } == false, "a copy ran on the display thread")
        #expect(buffers.bytesInUse == Self.frameBytes)
    }

    @Test func roomIsMadeFromTheLeastRecentlyUsedBufferThatNoPlaneShows() async throws {
        let maker = Maker()
        let buffers = SlideScanoutBuffers<MemoryBuffer>(budget: ScanoutMemoryBudget(limitBytes: 2 * Self.frameBytes), logger: Logger(label: "test"),
                                                        make: { frame throws(DRMError) in try maker.make(frame) })
        let a = Self.frame(1), b = Self.frame(2), c = Self.frame(3)
        let bufferA = try await Self.ready(buffers, a)
        let bufferB = try await Self.ready(buffers, b)
        _ = buffers.buffer(for: a, shown: [])  // a is now the more recently used
        // c needs room: b, the least recently used, goes; a stays.
        let bufferC = try await Self.ready(buffers, c, shown: [bufferA.framebufferID])
        #expect(buffers.count == 2 && buffers.bytesInUse == 2 * Self.frameBytes)
        #expect(buffers.buffer(for: a, shown: []) === bufferA)
        #expect(buffers.buffer(for: c, shown: []) === bufferC)
        _ = bufferB
        // With both on screen, b does not fit: refused, nothing copied, the budget kept.
        #expect(buffers.buffer(for: b, shown: [bufferA.framebufferID, bufferC.framebufferID]) == nil)
        buffers.collect()
        #expect(buffers.count == 2 && maker.made.withLock { $0.count } == 3)
    }

    @Test func aSlideLargerThanTheBudgetIsRefusedAndLoggedOnce() {
        let log = CapturedLog()
        let buffers = SlideScanoutBuffers<MemoryBuffer>(budget: ScanoutMemoryBudget(limitBytes: Self.frameBytes - 1), logger: log.logger,
                                                        make: { frame throws(DRMError) in try Maker().make(frame) })
        let frame = Self.frame(7)
        for _ in 0..<3 { #expect(buffers.buffer(for: frame, shown: []) == nil) }
        let lines = Self.lines(log)
        #expect(lines.count == 1)
        #expect(lines.first?.contains("output.planeMemory") == true, "\(lines)")
        #expect(buffers.bytesInUse == 0)
    }

    @Test func aBufferGoesWithItsFrameAndAFailedCopyIsLoggedOnce() async throws {
        let maker = Maker()
        let buffers = SlideScanoutBuffers<MemoryBuffer>(budget: ScanoutMemoryBudget(limitBytes: 4 * Self.frameBytes), logger: Logger(label: "test"),
                                                        make: { frame throws(DRMError) in try maker.make(frame) })
        var frame: PixelImage? = Self.frame(9)
        _ = try await Self.ready(buffers, frame!)
        #expect(buffers.count == 1)
        frame = nil
        buffers.collect()
        #expect(buffers.count == 0 && buffers.bytesInUse == 0)

        let log = CapturedLog()
        let failingMaker = Maker(failing: true)
        let failing = SlideScanoutBuffers<MemoryBuffer>(budget: ScanoutMemoryBudget(limitBytes: 4 * Self.frameBytes), logger: log.logger,
                                                        make: { frame throws(DRMError) in try failingMaker.make(frame) })
        let first = Self.frame(1), second = Self.frame(2)
        #expect(failing.buffer(for: first, shown: []) == nil)
        #expect(failing.buffer(for: second, shown: []) == nil)
        for _ in 0..<100 where Self.lines(log).isEmpty || failing.bytesInUse > 0 {
            failing.collect()
            try await Task.sleep(for: .milliseconds(10))
        }
        #expect(Self.lines(log).count == 1 && Self.lines(log).first?.contains("cannot make a scan-out buffer") == true, "\(Self.lines(log))")
        #expect(failing.bytesInUse == 0, "a failed copy keeps no budget")
        // A frame whose buffer could not be made is not tried again while it lives: one attempt, not one a frame.
        for _ in 0..<5 {
            #expect(failing.buffer(for: first, shown: []) == nil)
            failing.collect()
        }
        try await Task.sleep(for: .milliseconds(50))
        #expect(failingMaker.attempts.withLock { $0 } == 2, "each failed frame was tried once")
    }

    @Test func aSlideDecodedIntoAScanOutBufferIsShownFromItWithNoCopyAndCountedOnce() {
        let maker = Maker()
        let budget = ScanoutMemoryBudget(limitBytes: 4 * Self.frameBytes)
        let decodedInto = Self.frame(5)
        let itsBuffer = MemoryBuffer(id: 99, frame: decodedInto)
        let firstTime = Mutex(true)
        let buffers = SlideScanoutBuffers<MemoryBuffer>(
            budget: budget, logger: Logger(label: "test"),
            direct: { frame in
                frame === decodedInto ? (itsBuffer, firstTime.withLock { first in defer { first = false }; return first }) : nil
            },
            make: { frame throws(DRMError) in try maker.make(frame) })
        for _ in 0..<3 { #expect(buffers.buffer(for: decodedInto, shown: []) === itsBuffer) }
        buffers.collect()
        #expect(maker.attempts.withLock { $0 } == 0, "a slide in its own scan-out buffer was copied")
        #expect(buffers.counts.direct == 1 && buffers.counts.copied == 0)
        #expect(buffers.bytesInUse == 0 && budget.copiedBytes == 0)
    }

    @Test func slidesDecodedIntoScanOutBuffersAndCopiesShareOneBudget() async throws {
        let maker = Maker()
        let budget = ScanoutMemoryBudget(limitBytes: 3 * Self.frameBytes)
        let buffers = SlideScanoutBuffers<MemoryBuffer>(budget: budget, logger: Logger(label: "test"),
                                                        make: { frame throws(DRMError) in try maker.make(frame) })
        // Two slides decoded into scan-out buffers hold two thirds: one copy fits beside them, a second does not.
        #expect(budget.reserveDirect(Self.frameBytes) && budget.reserveDirect(Self.frameBytes))
        let a = Self.frame(1), b = Self.frame(2)
        let bufferA = try await Self.ready(buffers, a)
        #expect(budget.copiedBytes == Self.frameBytes)
        #expect(buffers.buffer(for: b, shown: [bufferA.framebufferID]) == nil)
        buffers.collect()
        #expect(maker.made.withLock { $0.count } == 1 && buffers.counts.copied == 1)
        // And the copy held leaves no room for a third slide decoded into a scan-out buffer.
        #expect(!budget.reserveDirect(Self.frameBytes))
        // Once one of those goes, the next copy fits (b's, dropping nothing a plane shows).
        budget.releaseDirect(Self.frameBytes)
        _ = try await Self.ready(buffers, b, shown: [bufferA.framebufferID])
        #expect(budget.copiedBytes == 2 * Self.frameBytes && budget.directBytes == Self.frameBytes)
    }
}
