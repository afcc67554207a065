import Foundation
import Glibc
import Synchronization
import Testing
import VitrineCore
import VitrineRuntime
import VitrineSystem
@testable import VitrineSandbox
import VitrineSandboxHelper

/// The sandboxed helpers against the decoders in process: the same pixels
/// for every kind of picture, and a clear refusal, never a crash, when a
/// helper is killed, runs out of memory or passes its deadline.
@Suite("Decoding in sandboxed helpers", .serialized)
struct SandboxedDecodingTests {
    @Test("every kind of picture decodes to the same frame, and animation, as in process", arguments: SandboxFixtures.pictures)
    func samePixels(_ picture: String) throws {
        let request = SandboxFixtures.request(picture)
        let sandboxed = try SandboxedSlideDecoder(pool: SandboxFixtures.pool()).picture(for: request, frameStorage: nil)
        let inProcess = try InProcessSlideDecoder().picture(for: request, frameStorage: nil)
        #expect(sandboxed.frame.size == inProcess.frame.size)
        #expect(Array(sandboxed.frame.pixels) == Array(inProcess.frame.pixels))
        #expect(sandboxed.frame.storage.memoryOwner is SharedPixelBuffer, "the frame is the helper's writing in shared memory, not a copy")
        #expect(sandboxed.animation?.frames.count == inProcess.animation?.frames.count)
        #expect(sandboxed.animation?.timeline == inProcess.animation?.timeline)
        for (mine, theirs) in zip(sandboxed.animation?.frames ?? [], inProcess.animation?.frames ?? []) {
            #expect(Array(mine.pixels) == Array(theirs.pixels))
        }
    }

    /// The HEIF and AVIF corpus (Tests/VitrineHEIFTests/Fixtures/corpus: what heif-enc makes of the
    /// shared real JPEGs, alpha, 4:2:2 and 4:4:4, 10 and 12 bits, thumbnails, two pictures in a file).
    static let corpus = ((try? FileManager.default.contentsOfDirectory(
        atPath: SandboxFixtures.path("Tests/VitrineHEIFTests/Fixtures/corpus"))) ?? [])
        .filter { $0.hasSuffix(".heic") || $0.hasSuffix(".avif") }.sorted().map { "Tests/VitrineHEIFTests/Fixtures/corpus/" + $0 }

    @Test("every file of the HEIF and AVIF corpus shows through the sandbox as in process", arguments: Self.corpus)
    func corpusThroughTheSandbox(_ picture: String) throws {
        let request = SandboxFixtures.request(picture)
        let sandboxed = try SandboxedSlideDecoder(pool: SandboxFixtures.pool()).picture(for: request, frameStorage: nil)
        let inProcess = try InProcessSlideDecoder().picture(for: request, frameStorage: nil)
        #expect(Array(sandboxed.frame.pixels) == Array(inProcess.frame.pixels))
    }

    @Test("the corpus is there")
    func corpusIsThere() { #expect(Self.corpus.count >= 30) }

    @Test("a Ken Burns slide's finer frame fits the buffer the kiosk sizes for it")
    func kenBurnsFrame() throws {
        let request = SandboxFixtures.request("deploy/demo/images/06-photo-like.jpg", frameScale: 1.8)
        let sandboxed = try SandboxedSlideDecoder(pool: SandboxFixtures.pool()).picture(for: request, frameStorage: nil)
        let inProcess = try InProcessSlideDecoder().picture(for: request, frameStorage: nil)
        #expect(sandboxed.frame.size == inProcess.frame.size)
        #expect(sandboxed.frame.size.width > request.output.width)
        #expect(Array(sandboxed.frame.pixels) == Array(inProcess.frame.pixels))
    }

    @Test("a recycled shared frame is written again in place")
    func recycledFrame() throws {
        let decoder = SandboxedSlideDecoder(pool: SandboxFixtures.pool())
        var first: DecodedSlide? = try decoder.picture(for: SandboxFixtures.request("deploy/demo/images/01-welcome.jpg"), frameStorage: nil)
        let storage = first!.frame.storage
        first = nil
        let second = try decoder.picture(for: SandboxFixtures.request("deploy/demo/images/04-wide.jpg"), frameStorage: storage)
        #expect(second.frame.storage === storage)
        let expected = try InProcessSlideDecoder().picture(for: SandboxFixtures.request("deploy/demo/images/04-wide.jpg"), frameStorage: nil)
        #expect(Array(second.frame.pixels) == Array(expected.frame.pixels))
    }

    @Test("a damaged picture is refused with the decoder's own words and the file's name")
    func damaged() throws {
        let directory = try TemporaryDirectory()
        let path = directory.path + "/damaged.jpg"
        var bytes = try FileIO.read(SandboxFixtures.path("deploy/demo/images/01-welcome.jpg"))
        bytes = Array(bytes.prefix(bytes.count / 3))
        try FileIO.writeAtomically(bytes, to: path, durable: false)
        var request = SandboxFixtures.request("deploy/demo/images/01-welcome.jpg")
        request.file = "damaged.jpg"
        request.resolvedPath = path
        let expected = #expect(throws: SlideError.self) { try InProcessSlideDecoder().picture(for: request, frameStorage: nil) }
        let refused = #expect(throws: SlideError.self) { try SandboxedSlideDecoder(pool: SandboxFixtures.pool()).picture(for: request, frameStorage: nil) }
        #expect(refused?.description == expected?.description)
        #expect(refused?.description.hasPrefix("damaged.jpg: ") == true)
    }

    @Test("a decode past its deadline is stopped, named, held back, and the next picture decodes in a fresh helper")
    func deadline() throws {
        let pool = SandboxFixtures.pool(HelperLimits(deadline: .milliseconds(150)))
        let decoder = SandboxedSlideDecoder(pool: pool)
        // A 48-megapixel tiled HEIF takes over a second to decode whole.
        let slow = SandboxFixtures.request("Tests/VitrineHEIFTests/Fixtures/tiled-48mp-irot.heic")
        let started = MonotonicClock.now()
        let refused = #expect(throws: SlideError.self) { try decoder.picture(for: slow, frameStorage: nil) }
        #expect(MonotonicClock.now() - started < .seconds(2))
        #expect(refused?.description == "Tests/VitrineHEIFTests/Fixtures/tiled-48mp-irot.heic: decoding stopped: it took longer than 0.2 s")
        #expect(decoder.refusedPictures.first?.heldBack == true)
        // Held back: refused at once, without a helper.
        let startedBefore = pool.helpersStarted
        let again = #expect(throws: SlideError.self) { try decoder.picture(for: slow, frameStorage: nil) }
        #expect(again?.description.contains("not tried again until an operator asks") == true)
        #expect(pool.helpersStarted == startedBefore)
        // Other pictures carry on.
        let fine = try decoder.picture(for: SandboxFixtures.request("deploy/demo/images/05-square.jpg"), frameStorage: nil)
        #expect(fine.frame.size == PixelSize(width: 320, height: 180))
        // An operator's retry lets it be tried again.
        #expect(decoder.retry(file: slow.file) == 1)
        #expect(throws: SlideError.self) { try decoder.picture(for: slow, frameStorage: nil) }
        #expect(pool.helpersStarted > startedBefore)
    }

    @Test("a file's ordinary refusal is its sender's to hear, not listed; a download's is listed")
    func whichRefusalsAreListed() throws {
        let pool = SandboxFixtures.pool()
        let inspector = SandboxedPictureInspector(pool: pool)
        let text = Array("This is not a picture.\n".utf8)
        let staged = FileManager.default.temporaryDirectory.appendingPathComponent("upload.tmp-\(UUID().uuidString)").path
        try Data(text).write(to: URL(fileURLWithPath: staged))
        defer { try? FileManager.default.removeItem(atPath: staged) }
        #expect(throws: ImageInspection.Failure.self) { try inspector.inspect(file: staged, named: "notes.txt", maxPixels: 100_000_000) }
        #expect(pool.refusals.list.isEmpty, "an upload's refusal was answered to its sender: \(pool.refusals.list)")
        let url = "http://example.test/notes.jpg"
        #expect(throws: ImageInspection.Failure.self) { try SandboxFixtures.inspectDownload(text, named: url, maxPixels: 100_000_000, with: inspector) }
        #expect(pool.refusals.list.map(\.file) == [url])
        #expect(pool.refusals.list.first?.heldBack == false)
    }

    @Test("a download that stopped a helper is held back by its bytes: served again, it costs no helper until retried")
    func inspectionHeldBack() throws {
        let pool = SandboxFixtures.pool(HelperLimits(deadline: .milliseconds(150)))
        let inspector = SandboxedPictureInspector(pool: pool)
        let bytes = try FileIO.read(SandboxFixtures.path("Tests/VitrineHEIFTests/Fixtures/tiled-48mp-irot.heic"))
        let url = "http://example.test/big.heic"
        let first = #expect(throws: ImageInspection.Failure.self) { try SandboxFixtures.inspectDownload(bytes, named: url, maxPixels: 100_000_000, with: inspector) }
        #expect(first == .undecodable("decoding stopped: it took longer than 0.2 s"))
        let started = pool.helpersStarted
        let again = #expect(throws: ImageInspection.Failure.self) { try SandboxFixtures.inspectDownload(bytes, named: url, maxPixels: 100_000_000, with: inspector) }
        #expect(again == .undecodable("decoding stopped: it took longer than 0.2 s; not tried again until an operator asks"))
        #expect(pool.helpersStarted == started)
        #expect(pool.refusals.list.map(\.file) == [url])
        // Other bytes are inspected as before.
        let fine = try SandboxFixtures.inspectDownload(try FileIO.read(SandboxFixtures.path("deploy/demo/images/05-square.jpg")), named: "square",
                                         maxPixels: 100_000_000, with: inspector)
        #expect(fine.kind == .jpeg)
        #expect(pool.refusals.retry(file: url) == 1)
        #expect(throws: ImageInspection.Failure.self) { try SandboxFixtures.inspectDownload(bytes, named: url, maxPixels: 100_000_000, with: inspector) }
        #expect(pool.helpersStarted > started)
    }

    @Test("a helper killed in the middle of a decode costs that picture only")
    func killed() throws {
        let pool = SandboxFixtures.pool()
        let decoder = SandboxedSlideDecoder(pool: pool)
        _ = try decoder.picture(for: SandboxFixtures.request("deploy/demo/images/05-square.jpg"), frameStorage: nil)
        let helper = try #require(pool.idleHelperIDs.first)
        let slow = SandboxFixtures.request("Tests/VitrineHEIFTests/Fixtures/tiled-48mp-irot.heic")
        // Killed once it has spent 50 ms of CPU on this job (a 48-megapixel HEIF takes over a second):
        // surely in the middle of it, however loaded the machine is.
        let before = Self.cpuTicks(of: helper)
        // A thread of its own: the concurrency pool may be busy with every other test at once.
        let killed = DispatchSemaphore(value: 0)
        Thread.detachNewThread {
            while Self.cpuTicks(of: helper) < before + 5 { usleep(10_000) }
            kill(helper, SIGSEGV)
            killed.signal()
        }
        let refused = #expect(throws: SlideError.self) { try decoder.picture(for: slow, frameStorage: nil) }
        killed.wait()
        #expect(refused?.description.contains("decoding stopped: the decoder crashed (SIGSEGV)") == true, "\(String(describing: refused))")
        let fine = try decoder.picture(for: SandboxFixtures.request("deploy/demo/images/02-portrait.jpg"), frameStorage: nil)
        #expect(fine.frame.size == PixelSize(width: 320, height: 180))
    }

    @Test("a helper that dies while it waits for work is replaced, and no picture is blamed for it")
    func diedIdle() throws {
        let pool = SandboxFixtures.pool()
        let decoder = SandboxedSlideDecoder(pool: pool)
        _ = try decoder.picture(for: SandboxFixtures.request("deploy/demo/images/05-square.jpg"), frameStorage: nil)
        let helper = try #require(pool.idleHelperIDs.first)
        kill(helper, SIGKILL)
        usleep(100_000)
        let fine = try decoder.picture(for: SandboxFixtures.request("deploy/demo/images/02-portrait.jpg"), frameStorage: nil)
        #expect(fine.frame.size == PixelSize(width: 320, height: 180))
        #expect(decoder.refusedPictures.isEmpty)
        #expect(pool.helpersStarted == 2)
    }

    /// User and system CPU time of `pid`, in clock ticks (/proc/PID/stat's 14th and 15th fields).
    static func cpuTicks(of pid: pid_t) -> Int {
        guard let text = try? String(contentsOfFile: "/proc/\(pid)/stat", encoding: .utf8),
              let end = text.lastIndex(of: ")") else { return .max }
        let fields = text[text.index(after: end)...].split(separator: " ")
        return (Int(fields[11]) ?? 0) + (Int(fields[12]) ?? 0)
    }

    @Test("a helper over its memory limit refuses the picture, and the same picture decodes within the default limit")
    func memoryLimit() throws {
        let decoder = SandboxedSlideDecoder(pool: SandboxFixtures.pool(HelperLimits(addressSpaceMiB: 40)))
        let refused = #expect(throws: SlideError.self) {
            try decoder.picture(for: SandboxFixtures.request("Tests/VitrineHEIFTests/Fixtures/tiled-48mp-irot.heic"), frameStorage: nil)
        }
        // libheif cannot start its threads or allocate its planes: it reports the error, or aborts in the helper.
        #expect(refused.map { $0.description.contains("memory") || $0.description.contains("decoding stopped") } == true,
                "\(String(describing: refused))")
        // The same picture within the default limit decodes.
        _ = try SandboxedSlideDecoder(pool: SandboxFixtures.pool())
            .picture(for: SandboxFixtures.request("Tests/VitrineHEIFTests/Fixtures/tiled-48mp-irot.heic"), frameStorage: nil)
    }

    @Test("a helper that cannot start makes every picture a refusal that says why")
    func unavailable() throws {
        let decoder = SandboxedSlideDecoder(pool: DecodePool(executable: "/nonexistent/vitrine"))
        let refused = #expect(throws: SlideError.self) {
            try decoder.picture(for: SandboxFixtures.request("deploy/demo/images/05-square.jpg"), frameStorage: nil)
        }
        #expect(refused?.description.contains("decoding is not available: cannot start /nonexistent/vitrine") == true)
        #expect(decoder.refusedPictures.first?.heldBack == false)
    }

    @Test("no more helpers run than the pool's size, however many callers wait")
    func bounded() async throws {
        let pool = SandboxFixtures.pool()
        let decoder = SandboxedSlideDecoder(pool: pool)
        try await withThrowingTaskGroup(of: Void.self) { group in
            for index in 0..<8 {
                group.addTask {
                    let picture = ["deploy/demo/images/01-welcome.jpg", "deploy/demo/images/04-wide.jpg"][index % 2]
                    _ = try decoder.picture(for: SandboxFixtures.request(picture), frameStorage: nil)
                }
            }
            try await group.waitForAll()
        }
        #expect(pool.helpersStarted <= pool.size)
    }
}

/// A directory removed when the value goes.
final class TemporaryDirectory {
    let path: String
    init() throws {
        var template = Array("/tmp/vitrine-sandbox-XXXXXX".utf8CString)
        guard let made = mkdtemp(&template) else { throw SystemError("mkdtemp") }
        path = String(cString: made)
    }
    deinit { try? FileManager.default.removeItem(atPath: path) }
}

/// A slide decoded by the helper into memory the display hands out (a
/// scan-out buffer's DMA-BUF on a board; a memfd here), with the kiosk
/// bracketing the helper's writes, and the decoder's own memfd when that
/// memory cannot be written.
@Suite("Decoding in sandboxed helpers into the display's memory", .serialized)
struct SandboxedDecodingIntoDisplayMemoryTests {
    /// A memfd standing in for a DMA-BUF: records the brackets around the helper's writes.
    final class BracketedMemory: SharedFrameMemory, @unchecked Sendable {
        let buffer: SharedPixelBuffer
        let calls = Mutex<[String]>([])
        let writable: Bool
        init(byteCount: Int, writable: Bool = true) throws {
            buffer = try SharedPixelBuffer(byteCount: byteCount, name: "test-scanout")
            self.writable = writable
        }
        var descriptor: Int32 { buffer.descriptor }
        var byteCount: Int { buffer.byteCount }
        var reusableAfterEviction: Bool { false }
        func beginWrites() -> Bool {
            calls.withLock { $0.append("begin") }
            return writable
        }
        func endWrites() { calls.withLock { $0.append("end") } }
        func storage() -> PixelStorage { PixelStorage(borrowing: buffer.base, byteCount: buffer.byteCount, owner: self) }
    }

    static let request = SandboxFixtures.request("deploy/demo/images/04-wide.jpg")

    /// Display memory a helper cannot map (a pipe stands for a driver whose DMA-BUFs have no mmap).
    final class UnmappableMemory: SharedFrameMemory, @unchecked Sendable {
        let pipeEnds: [Int32]
        let heap: UnsafeMutableRawPointer
        let byteCount: Int
        let told = Mutex<[String]>([])
        init(byteCount: Int) {
            var ends: [Int32] = [0, 0]
            _ = pipe(&ends)
            pipeEnds = ends
            self.byteCount = byteCount
            heap = .allocate(byteCount: byteCount, alignment: 64)
        }
        deinit {
            pipeEnds.forEach { close($0) }
            heap.deallocate()
        }
        var descriptor: Int32 { pipeEnds[0] }
        var reusableAfterEviction: Bool { false }
        func helperCouldNotUse(_ why: String) { told.withLock { $0.append(why) } }
        func storage() -> PixelStorage { PixelStorage(borrowing: heap, byteCount: byteCount, owner: self) }
    }

    @Test("display memory the helper cannot write: the picture is decoded again into a memfd, and the memory's maker told")
    func unmappableMemoryFallsBack() throws {
        let memory = UnmappableMemory(byteCount: Self.request.output.pixelCount * 4)
        let decoded = try SandboxedSlideDecoder(pool: SandboxFixtures.pool()).picture(for: Self.request, frameStorage: memory.storage())
        #expect(decoded.frame.storage.memoryOwner is SharedPixelBuffer)
        let expected = try InProcessSlideDecoder().picture(for: Self.request, frameStorage: nil)
        #expect(Array(decoded.frame.pixels) == Array(expected.frame.pixels))
        #expect(memory.told.withLock { $0.count } == 1, "\(memory.told.withLock { $0 })")
        // A picture that fails on its own fails as it always did, and does not blame the memory.
        let directory = try TemporaryDirectory()
        let damaged = directory.path + "/damaged.jpg"
        let whole = try FileIO.read(SandboxFixtures.path("deploy/demo/images/04-wide.jpg"))
        try FileIO.writeAtomically(Array(whole.prefix(whole.count / 3)), to: damaged, durable: false)
        var request = Self.request
        request.resolvedPath = damaged
        let other = UnmappableMemory(byteCount: Self.request.output.pixelCount * 4)
        #expect(throws: SlideError.self) {
            _ = try SandboxedSlideDecoder(pool: SandboxFixtures.pool()).picture(for: request, frameStorage: other.storage())
        }
        #expect(other.told.withLock { $0 }.isEmpty)
    }

    @Test("the helper writes the frame into the memory handed in, between the kiosk's brackets")
    func decodedIntoTheGivenMemory() throws {
        let memory = try BracketedMemory(byteCount: Self.request.output.pixelCount * 4)
        let decoded = try SandboxedSlideDecoder(pool: SandboxFixtures.pool()).picture(for: Self.request, frameStorage: memory.storage())
        #expect(decoded.frame.storage.memoryOwner === memory, "the frame is not in the display's memory")
        #expect(memory.calls.withLock { $0 } == ["begin", "end"])
        let expected = try InProcessSlideDecoder().picture(for: Self.request, frameStorage: nil)
        #expect(Array(decoded.frame.pixels) == Array(expected.frame.pixels))
    }

    @Test("memory that cannot be readied for writes, or is too small, is passed over for a memfd of the decoder's own")
    func passedOver() throws {
        let decoder = SandboxedSlideDecoder(pool: SandboxFixtures.pool())
        let refusing = try BracketedMemory(byteCount: Self.request.output.pixelCount * 4, writable: false)
        let first = try decoder.picture(for: Self.request, frameStorage: refusing.storage())
        #expect(first.frame.storage.memoryOwner is SharedPixelBuffer)
        #expect(refusing.calls.withLock { $0 } == ["begin"], "a failed begin was ended, or written past")
        let small = try BracketedMemory(byteCount: Self.request.output.pixelCount * 4 - 4)
        let second = try decoder.picture(for: Self.request, frameStorage: small.storage())
        #expect(second.frame.storage.memoryOwner is SharedPixelBuffer)
        #expect(small.calls.withLock { $0 }.isEmpty)
        let expected = try InProcessSlideDecoder().picture(for: Self.request, frameStorage: nil)
        #expect(Array(first.frame.pixels) == Array(expected.frame.pixels) && Array(second.frame.pixels) == Array(expected.frame.pixels))
    }
}
