import Testing
import VitrineCore
@testable import VitrineJPEG

@Suite("Bad JPEG data")
struct BadDataTests {
    func decode(_ bytes: [UInt8], maxPixels: Int = 100_000_000) throws(JPEGError) -> DecodedJPEG {
        let result = bytes.withUnsafeBytes { raw in
            Result { () throws(JPEGError) -> DecodedJPEG in
                try JPEGDecoder().decode(raw, covering: nil, maxPixels: maxPixels)
            }
        }
        return try result.get()
    }

    @Test func emptyData() {
        #expect(throws: JPEGError.empty) { try decode([]) }
    }

    @Test func otherFormatsAreNamed() {
        let png: [UInt8] = [0x89, 0x50, 0x4E, 0x47, 0x0D, 0x0A, 0x1A, 0x0A, 0, 0, 0, 13]
        #expect(throws: JPEGError.notJPEG(detected: "PNG")) { try decode(png) }
        #expect(throws: JPEGError.notJPEG(detected: "GIF")) { try decode(Array("GIF89a....".utf8)) }
        #expect(throws: JPEGError.notJPEG(detected: "HTML")) { try decode(Array("<!DOCTYPE html><html>".utf8)) }
        #expect(throws: JPEGError.notJPEG(detected: nil)) { try decode(Array("hello world".utf8)) }
        #expect(JPEGError.notJPEG(detected: "PNG").description == "not a JPEG file: the data looks like PNG")
    }

    @Test("truncation anywhere is an error, never a partial picture", arguments: [0.1, 0.3, 0.5, 0.8, 0.95])
    func truncated(fraction: Double) throws {
        let whole = try fixture("ijg_testorig_baseline420.jpg")
        let cut = Array(whole.prefix(Int(Double(whole.count) * fraction)))
        do {
            _ = try decode(cut)
            Issue.record("a truncated file decoded")
        } catch {
            switch error {
            case .truncated, .corrupt: break
            default: Issue.record("unexpected error \(error)")
            }
        }
    }

    @Test func truncatedProgressiveIsAnError() throws {
        let whole = try fixture("progressive444.jpg")
        #expect(throws: JPEGError.self) { try decode(Array(whole.prefix(whole.count * 2 / 3))) }
    }

    /// libjpeg cannot notice every flipped bit (some damage is valid entropy
    /// data), but what it does notice must not reach the screen.
    @Test func damagedEntropyDataIsAnError() throws {
        let whole = try fixture("ijg_testorig_baseline420.jpg")
        var zeroed = whole
        for i in (whole.count / 2)..<(whole.count / 2 + 400) { zeroed[i] = 0 }
        #expect(throws: JPEGError.corrupt("Corrupt JPEG data: premature end of data segment")) { try decode(zeroed) }
        var strayMarker = whole
        strayMarker.insert(contentsOf: [0xFF, 0xD0], at: whole.count / 2)
        #expect(throws: JPEGError.corrupt("Corrupt JPEG data: premature end of data segment")) { try decode(strayMarker) }
    }

    @Test func endOfFileIsTruncation() throws {
        let whole = try fixture("ijg_testorig_baseline420.jpg")
        #expect(throws: JPEGError.truncated("Premature end of JPEG file")) { try decode(Array(whole.prefix(whole.count / 2))) }
    }

    @Test func decompressionBombIsRefusedBeforeAllocating() throws {
        var bytes = try fixture("ijg_testorig_baseline420.jpg")
        // Rewrite the frame header to claim 30000x30000 (900 megapixels).
        let sof = try #require((0..<(bytes.count - 1)).first { bytes[$0] == 0xFF && bytes[$0 + 1] == 0xC0 })
        bytes[sof + 5] = 0x75; bytes[sof + 6] = 0x30  // height 30000
        bytes[sof + 7] = 0x75; bytes[sof + 8] = 0x30  // width 30000
        let size = PixelSize(width: 30000, height: 30000)
        #expect(throws: JPEGError.tooManyPixels(size: size, limit: 100_000_000)) { try decode(bytes) }
        #expect(JPEGError.tooManyPixels(size: size, limit: 100_000_000).description
            == "picture is 30000x30000 (900 megapixels), over the limit of 100 megapixels (decode.maxPixels)")
        // A lower configured limit applies too.
        let small = try fixture("progressive444.jpg")
        #expect(throws: JPEGError.tooManyPixels(size: PixelSize(width: 650, height: 470), limit: 100_000)) {
            try decode(small, maxPixels: 100_000)
        }
    }

    @Test func randomGarbageAfterSOIIsAnError() {
        var generator = SystemRandomNumberGenerator()
        for _ in 0..<50 {
            let bytes: [UInt8] = [0xFF, 0xD8, 0xFF] + (0..<300).map { _ in UInt8.random(in: 0...255, using: &generator) }
            #expect(throws: JPEGError.self) { try decode(bytes) }
        }
    }
}
