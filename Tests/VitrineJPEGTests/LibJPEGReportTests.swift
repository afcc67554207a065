import CLibJPEG
import Testing
import VitrineCore
@testable import VitrineJPEG

/// How libjpeg's messages become errors, on reports made by hand, and the two
/// cases of issue 12 end to end.
@Suite("libjpeg warnings and errors")
struct LibJPEGReportTests {
    let strayBytes = LibJPEGMessage(code: JWRN_EXTRANEOUS_DATA, parameters: [3, 0xDB],
                                    text: "Corrupt JPEG data: 3 extraneous bytes before marker 0xdb")
    let resync = LibJPEGMessage(code: JWRN_MUST_RESYNC, parameters: [0xD6, 3],
                                text: "Corrupt JPEG data: found marker 0xd6 instead of RST3")

    @Test func harmlessWarningsAlone() {
        let jfif = LibJPEGMessage(code: JWRN_JFIF_MAJOR, text: "Warning: unknown JFIF revision number 2.01")
        let beforeRestart = LibJPEGMessage(code: JWRN_EXTRANEOUS_DATA, parameters: [8, 0xD3],
                                           text: "Corrupt JPEG data: 8 extraneous bytes before marker 0xd3")
        let adobe = LibJPEGMessage(code: JWRN_ADOBE_XFORM, text: "Unknown Adobe color transform code 7")
        let icc = LibJPEGMessage(code: JWRN_BOGUS_ICC, text: "Corrupt JPEG data: bad ICC marker")
        #expect(LibJPEGReport(warnings: []).error == nil)
        #expect(LibJPEGReport(warnings: [strayBytes, jfif, beforeRestart, adobe, icc]).error == nil)
    }

    /// TurboJPEG reported only the first of these, so the resync went unnoticed.
    @Test func damageAfterAHarmlessWarning() {
        #expect(LibJPEGReport(warnings: [strayBytes, resync]).error == .corrupt(resync.text))
    }

    @Test(arguments: [JWRN_HIT_MARKER, JWRN_HUFF_BAD_CODE, JWRN_ARITH_BAD_CODE, JWRN_MUST_RESYNC,
                      JWRN_BOGUS_PROGRESSION, JWRN_NOT_SEQUENTIAL])
    func damageWarnings(code: J_MESSAGE_CODE) {
        let warning = LibJPEGMessage(code: code, text: "libjpeg's text")
        #expect(LibJPEGReport(warnings: [warning]).error == .corrupt("libjpeg's text"))
    }

    @Test func unknownWarningCodesCountAsDamage() {
        let unknown = LibJPEGMessage(code: J_MESSAGE_CODE(rawValue: JMSG_LASTMSGCODE.rawValue + 5), text: "new warning")
        #expect(LibJPEGReport(warnings: [unknown]).error == .corrupt("new warning"))
    }

    @Test func endOfDataIsTruncationWhateverFollows() {
        let end = LibJPEGMessage(code: JWRN_JPEG_EOF, text: "Premature end of JPEG file")
        let hit = LibJPEGMessage(code: JWRN_HIT_MARKER, text: "Corrupt JPEG data: premature end of data segment")
        #expect(LibJPEGReport(warnings: [strayBytes, end, hit]).error == .truncated("Premature end of JPEG file"))
    }

    /// A fatal error is an error even after a harmless warning (which made
    /// TurboJPEG report the whole decode as a warning), and names the damage before it.
    @Test func fatalErrors() {
        let twoSOF = LibJPEGMessage(code: JERR_SOF_DUPLICATE, text: "Invalid JPEG file structure: two SOF markers")
        #expect(LibJPEGReport(warnings: [strayBytes], fatal: twoSOF).error == .corrupt(twoSOF.text))
        #expect(LibJPEGReport(warnings: [strayBytes, resync], fatal: twoSOF).error
            == .corrupt("Invalid JPEG file structure: two SOF markers (after: \(resync.text))"))
        let precision = LibJPEGMessage(code: JERR_BAD_PRECISION, text: "Unsupported JPEG data precision 12")
        #expect(LibJPEGReport(warnings: [], fatal: precision).error == .unsupported(precision.text))
    }

    func decode(_ bytes: [UInt8]) throws(JPEGError) -> DecodedJPEG {
        let result = bytes.withUnsafeBytes { raw in
            Result { () throws(JPEGError) -> DecodedJPEG in try JPEGDecoder().decode(raw, covering: nil, maxPixels: 100_000_000) }
        }
        return try result.get()
    }

    /// Issue 12 (a): an error libjpeg raises only after the last scanline, in
    /// jpeg_finish_decompress, after a harmless warning.
    @Test func errorAfterTheLastScanline() throws {
        var bytes = try fixture("ijg_testorig_baseline420.jpg")
        #expect(throws: Never.self) { try decode(bytes) }
        // APP0 at byte 2 (marker, length, "JFIF\0"), major version at 11: "unknown JFIF revision number 2.01".
        #expect(bytes[2...10] == [0xFF, 0xE0, 0x00, 0x10, 0x4A, 0x46, 0x49, 0x46, 0x00])
        bytes[11] = 2
        #expect(throws: Never.self) { try decode(bytes) }
        let sof = try #require((0..<(bytes.count - 1)).first { bytes[$0] == 0xFF && bytes[$0 + 1] == 0xC0 })
        let length = Int(bytes[sof + 2]) << 8 | Int(bytes[sof + 3])
        bytes.insert(contentsOf: bytes[sof..<(sof + 2 + length)], at: bytes.count - 2)  // a second SOF before EOI
        #expect(throws: JPEGError.corrupt("Invalid JPEG file structure: two SOF markers")) { try decode(bytes) }
    }

    /// mjpeg_frame_no_dht.jpg pads its restart intervals: libjpeg warns 19 times
    /// about extraneous bytes, more than the report keeps one by one. The picture
    /// decodes; a resync near the end, after all those warnings, is still seen.
    @Test func damageAfterManyHarmlessWarnings() throws {
        var bytes = try fixture("mjpeg_frame_no_dht.jpg")
        #expect(throws: Never.self) { try decode(bytes) }
        let restarts = (0..<(bytes.count - 1)).filter { bytes[$0] == 0xFF && (0xD0...0xD7).contains(bytes[$0 + 1]) }
        let late = try #require(restarts.dropLast(3).last)
        bytes[late + 1] = 0xD0 + (bytes[late + 1] - 0xD0 + 4) % 8  // the wrong restart number
        #expect(throws: JPEGError.self) { try decode(bytes) }
        do {
            _ = try decode(bytes)
        } catch {
            #expect(error.description.contains("instead of RST"), "\(error)")
        }
    }

    /// Issue 12 (b): an unsupported marker where a restart marker belongs.
    @Test func unsupportedMarkerInsteadOfRestart() throws {
        var bytes = try fixture("restarts_33x33.jpg")
        let restart = try #require((0..<(bytes.count - 1)).first { bytes[$0] == 0xFF && bytes[$0 + 1] == 0xD1 })
        bytes[restart + 1] = 0xC8  // JPG, which no decoder supports
        #expect(throws: JPEGError.corrupt("Unsupported JPEG process: SOF type 0xc8 (after: Corrupt JPEG data: found marker 0xc8 instead of RST1)")) {
            try decode(bytes)
        }
    }
}
