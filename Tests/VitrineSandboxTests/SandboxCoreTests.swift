import Glibc
import Testing
import VitrineCore
@testable import VitrineSandbox
import VitrineSandboxHelper

/// The pure parts of the sandbox: the message layout, what a helper's exit
/// means, and the book of refused pictures on virtual wall time.
@Suite("Decoding sandbox: messages, stops and refusals")
struct SandboxCoreTests {
    @Test("jobs and replies read back as written")
    func roundTrip() throws {
        let framing = WireFraming(file: "a/b.jpg", fit: .cover, background: RGBAColor(red: 1, green: 2, blue: 3, alpha: 4),
                                  output: PixelSize(width: 1920, height: 1080), maxPixels: 50_000_000)
        let job = DecodeJob.slide(.init(framing: framing, frameScale: 1.42, frameBytes: 123, animationBytes: 456))
        for job in [job, .inspect(maxPixels: 9), .thumbnail(bounds: PixelSize(width: 160, height: 90), maxPixels: 7),
                    .header(maxPixels: 3, fileGoesOn: true)] {
            #expect(try DecodeJob(decoding: job.encoded) == job)
        }
        let animation = DecodeReply.AnimationLayout(storedSize: PixelSize(width: 4, height: 2), orientation: .right,
                                                    frameDurations: [.milliseconds(100), .milliseconds(40)], plays: 3)
        for reply in [DecodeReply.slide(frame: PixelSize(width: 5, height: 6), animation: animation),
                      .slide(frame: PixelSize(width: 5, height: 6), animation: nil),
                      .inspected(kind: .heif, size: PixelSize(width: 8, height: 8)), .thumbnail(byteCount: 77),
                      .header(problem: nil), .header(problem: "too big"), .refused(.overPixelLimit, message: "over")] {
            #expect(try DecodeReply(decoding: reply.encoded) == reply)
        }
    }

    @Test("video jobs and replies read back as written; a reply naming a slot outside the ring or a time before zero is refused")
    func videoMessages() throws {
        let framing = WireFraming(file: "promo.mp4", fit: .contain, background: RGBAColor(red: 9, green: 8, blue: 7),
                                  output: PixelSize(width: 1280, height: 720), maxPixels: 8_000_000)
        for job in [VideoJob.open(.init(framing: framing, slotCount: 6, version: "1.2.3")), .fill(slots: [0, 3, 5]), .rewind] {
            #expect(try VideoJob(decoding: job.encoded) == job)
        }
        let info = VideoInfo(container: "matroska,webm", codec: "vp9", size: PixelSize(width: 640, height: 480),
                             displaySize: PixelSize(width: 853, height: 480), frameRate: 29.97, duration: .milliseconds(12_345), hasAudio: true,
                             decoder: "libvpx-vp9")
        let frames = VideoReply.frames([.init(slot: 2, timestamp: .milliseconds(40)), .init(slot: 3, timestamp: .milliseconds(80))], ended: true)
        for reply in [VideoReply.opened(info), .opened(VideoInfo(container: "x", codec: "y", size: PixelSize(width: 2, height: 2),
                                                                  frameRate: nil, duration: nil, hasAudio: false)),
                      .opened(VideoInfo(container: "mov", codec: "hevc", size: PixelSize(width: 1920, height: 1080), orientation: .right,
                                        frameRate: 30, duration: .seconds(9), hasAudio: true, decoder: "hevc")),
                      frames, .rewound, .refused("damaged")] {
            #expect(try VideoReply(decoding: reply.encoded) == reply)
        }
        var outside = WireWriter()
        outside.put(VideoReply.magic)
        outside.put(UInt8(2))
        outside.put(Int64(1))
        outside.put(Int64(VideoJob.slotLimit))
        outside.put(Int64(0))
        outside.put(false)
        #expect(throws: WireReader.Malformed.self) { try VideoReply(decoding: outside.bytes) }
        var backwards = WireWriter()
        backwards.put(VideoReply.magic)
        backwards.put(UInt8(2))
        backwards.put(Int64(1))
        backwards.put(Int64(0))
        backwards.put(Int64(-5))
        backwards.put(false)
        #expect(throws: WireReader.Malformed.self) { try VideoReply(decoding: backwards.bytes) }
        #expect(throws: WireReader.Malformed.self) { try VideoReply(decoding: Array(frames.encoded.dropLast())) }
        // A ring of no slots, or of more than the limit, is not a job.
        var empty = WireWriter()
        empty.put(VideoJob.magic)
        empty.put(UInt8(1))
        empty.put(framing)
        empty.put(Int64(0))
        empty.put("1.2.3")
        #expect(throws: WireReader.Malformed.self) { try VideoJob(decoding: empty.bytes) }
    }

    @Test("a reply cut short, padded, oversized or of another build is refused, never trusted")
    func malformed() {
        let good = DecodeReply.slide(frame: PixelSize(width: 5, height: 6), animation: nil).encoded
        #expect(throws: WireReader.Malformed.self) { try DecodeReply(decoding: Array(good.dropLast())) }
        #expect(throws: WireReader.Malformed.self) { try DecodeReply(decoding: good + [0]) }
        #expect(throws: WireReader.Malformed.self) { try DecodeReply(decoding: [0, 0, 0, 0] + good.dropFirst(4)) }
        var huge = WireWriter()
        huge.put(DecodeReply.magic)
        huge.put(UInt8(1))
        huge.put(Int64(1 << 40))
        huge.put(Int64(1))
        #expect(throws: WireReader.Malformed.self) { try DecodeReply(decoding: huge.bytes) }
    }

    @Test("a helper's end is named by its signal", arguments: [
        (SIGSYS, "decoding stopped: the decoder made a system call the sandbox does not allow"),
        (SIGXCPU, "decoding stopped: over its CPU-time limit"),
        (SIGKILL, "decoding stopped: killed by the system, most likely over the memory the kiosk may use"),
        (SIGABRT, "decoding stopped: the decoder crashed (SIGABRT), most likely on a damaged or hostile file, or over its memory limit"),
    ])
    func stops(signal: Int32, message: String) {
        #expect(HelperStop.from(waitStatus: signal).description == message)
        #expect(HelperStop.from(waitStatus: signal).blamesPicture)
    }

    @Test("an exit status is not a signal")
    func exitStatus() {
        #expect(HelperStop.from(waitStatus: 3 << 8) == .exited(status: 3))
        #expect(HelperStop.deadline(.seconds(30)).description == "decoding stopped: it took longer than 30 s")
        #expect(!HelperStop.unavailable("no seccomp").blamesPicture)
    }

    static let key = RefusedPictures.Key.file(device: 1, inode: 2, size: 3, modified: 4)

    @Test("a picture that stopped a helper is held back until an operator retries it; a changed file is a new picture")
    func heldBack() {
        var book = RefusedPictures()
        book.record(Self.key, file: "slide.heic", reason: "decoding stopped: it took longer than 30 s", heldBack: true, now: 100)
        #expect(book.heldBack(Self.key)?.reason == "decoding stopped: it took longer than 30 s")
        #expect(book.heldBack(.file(device: 1, inode: 2, size: 3, modified: 5)) == nil)
        #expect(book.heldBack(.content(sha256: [1, 2, 3])) == nil)
        book.record(Self.key, file: "slide.heic", reason: "again", heldBack: false, now: 200)
        #expect(book.heldBack(Self.key)?.refusals == 2, "once held back, a plain refusal does not release it")
        #expect(book.retry(file: "other.jpg") == 0)
        #expect(book.retry(file: "slide.heic") == 1)
        #expect(book.heldBack(Self.key) == nil)
    }

    @Test("a plain decode error is listed but not held back, and a later success clears it")
    func plainError() {
        var book = RefusedPictures()
        book.record(Self.key, file: "bad.jpg", reason: "damaged", heldBack: false, now: 1)
        #expect(book.heldBack(Self.key) == nil)
        #expect(book.list.map(\.file) == ["bad.jpg"])
        book.decoded(Self.key)
        #expect(book.list.isEmpty)
    }

    @Test("the book keeps the newest refusals within its capacity")
    func bounded() {
        var book = RefusedPictures()
        for index in 0..<(RefusedPictures.capacity + 10) {
            book.record(.file(device: 0, inode: UInt64(index), size: 0, modified: 0), file: "\(index)", reason: "r", heldBack: true,
                        now: Int64(index))
        }
        #expect(book.list.count == RefusedPictures.capacity)
        #expect(book.list.first?.file == "\(RefusedPictures.capacity + 9)")
        #expect(book.list.last?.file == "10")
    }
}
