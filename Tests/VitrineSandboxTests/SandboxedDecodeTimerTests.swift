import Foundation
import Testing
import VitrineCore
import VitrineRuntime
import VitrineSystem
@testable import VitrineSandbox

/// `vitrine doctor`'s timing of a decode: small real pictures through a real
/// helper, the same frame as in process, and what it cost read off the helper
/// (its CPU clock and peak memory). No figure is asserted beyond being read.
@Suite("Timing a sandboxed decode", .serialized)
struct SandboxedDecodeTimerTests {
    static let timer = SandboxedDecodeTimer(executable: SandboxFixtures.vitrine)
    static let output = PixelSize(width: 640, height: 360)

    @Test("a JPEG and a tiled HEIC are decoded to the frame the kiosk would show, and their cost is read off the helper",
          arguments: ["deploy/demo/images/06-photo-like.jpg", "Tests/VitrineHEIFTests/Fixtures/grid-2x2.heic"])
    func measured(_ picture: String) throws {
        let cost = try Self.timer.measure(SandboxFixtures.path(picture), output: Self.output, maxPixels: 100_000_000)
        let inProcess = try InProcessSlideDecoder().picture(for: SandboxFixtures.request(picture, output: Self.output), frameStorage: nil)
        #expect(cost.frame == inProcess.frame.size)
        #expect(cost.wall > .zero)
        #expect(try #require(cost.cpu) > .zero, "the helper's CPU clock was read")
        #expect(try #require(cost.peakResidentKiB) > 0, "the helper's VmHWM was read")
    }

    @Test("a file that is not a picture, a damaged one and a missing one are refused in words naming the file")
    func refused() throws {
        let directory = try TemporaryDirectory()
        let text = directory.path + "/notes.jpg"
        try FileIO.writeAtomically(Array("not a picture at all\n".utf8), to: text, durable: false)
        let damaged = directory.path + "/damaged.jpg"
        let whole = try FileIO.read(SandboxFixtures.path("deploy/demo/images/01-welcome.jpg"))
        try FileIO.writeAtomically(Array(whole.prefix(whole.count / 3)), to: damaged, durable: false)
        for path in [text, damaged, directory.path + "/missing.heic"] {
            let failure = #expect(throws: SandboxedDecodeTimer.Failure.self) {
                try Self.timer.measure(path, output: Self.output, maxPixels: 100_000_000)
            }
            guard case .refused(let why) = failure else {
                Issue.record("\(path): \(String(describing: failure))")
                continue
            }
            #expect(why.hasPrefix(path + ": "), "\(why)")
            if path.hasSuffix("missing.heic") { #expect(why == path + ": No such file or directory") }
        }
    }

    @Test("a helper that cannot start is said to, not blamed on the picture")
    func cannotStart() throws {
        let timer = SandboxedDecodeTimer(executable: "/nonexistent/vitrine")
        let failure = #expect(throws: SandboxedDecodeTimer.Failure.self) {
            try timer.measure(SandboxFixtures.path("deploy/demo/images/01-welcome.jpg"), output: Self.output, maxPixels: 100_000_000)
        }
        guard case .cannotStart(let why) = failure else {
            Issue.record("\(String(describing: failure))")
            return
        }
        #expect(why.contains("decoding is not available: cannot start /nonexistent/vitrine"), "\(why)")
    }
}
