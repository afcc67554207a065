import CLibJPEG
import VitrineCore

/// One message from libjpeg: its code (`J_MESSAGE_CODE` in jerror.h), its first
/// two integer parameters, and its text.
struct LibJPEGMessage: Hashable, Sendable {
    var code: Int32
    var parameters: [Int32]
    var text: String

    init(code: J_MESSAGE_CODE, parameters: [Int32] = [0, 0], text: String = "") {
        self.code = Int32(code.rawValue)
        self.parameters = parameters
        self.text = text
    }

    init(_ message: vitrine_jpeg_message) {
        code = message.code
        parameters = [message.parameter0, message.parameter1]
        text = withUnsafeBytes(of: message.text) { String(decoding: $0.prefix { $0 != 0 }, as: UTF8.self) }
    }

    func `is`(_ other: J_MESSAGE_CODE) -> Bool { code == Int32(other.rawValue) }
}

/// Everything libjpeg said while decoding one picture (`vitrine_jpeg_report`),
/// and the `JPEGError` it amounts to.
///
/// libjpeg reports damaged data as warnings and carries on, padding what it
/// could not decode with grey; a kiosk must never show such a partial picture.
/// So every warning counts, not just the first: warnings that mean damaged or
/// missing data, and every fatal error, are errors; the few harmless warnings
/// are not.
struct LibJPEGReport {
    /// The warnings kept: all of the first few, and the first of every code (see VITRINE_JPEG_MAX_WARNINGS).
    var warnings: [LibJPEGMessage]
    var fatal: LibJPEGMessage?
    /// The progress monitor stopped a progressive file at VITRINE_JPEG_MAX_SCANS scans.
    var tooManyScans = false
    /// libjpeg read the file to its end (`vitrine_jpeg_decompress` returned 0).
    var completed = true
    /// libjpeg's output size, when it differs from the size the decoder expected.
    var unexpectedSize: (actual: PixelSize, expected: PixelSize)?

    init(warnings: [LibJPEGMessage], fatal: LibJPEGMessage? = nil) {
        self.warnings = warnings
        self.fatal = fatal
        completed = fatal == nil
    }

    init(_ report: vitrine_jpeg_report, completed: Bool, expected: PixelSize) {
        let kept = Int(min(report.warning_count, VITRINE_JPEG_MAX_WARNINGS))
        warnings = withUnsafeBytes(of: report.warnings) { raw in
            (0..<kept).map { LibJPEGMessage(raw.load(fromByteOffset: $0 * MemoryLayout<vitrine_jpeg_message>.stride, as: vitrine_jpeg_message.self)) }
        }
        fatal = report.failed != 0 ? LibJPEGMessage(report.fatal) : nil
        tooManyScans = report.too_many_scans != 0
        self.completed = completed
        let actual = PixelSize(width: Int(report.output_width), height: Int(report.output_height))
        if !completed, report.failed == 0, actual != expected || report.output_components != 4 {
            unexpectedSize = (actual, expected)
        }
    }

    /// Whether a warning means the picture lost data. Unknown codes count as damage.
    static func isDamage(_ warning: LibJPEGMessage) -> Bool {
        if warning.is(JWRN_EXTRANEOUS_DATA) {
            // Bytes skipped before a marker (parameters: count, marker). Between
            // segments they are not part of the picture. Before a restart marker
            // they follow a restart interval that libjpeg decoded completely: MJPEG
            // encoders pad intervals like that (mjpeg_frame_no_dht.jpg in the
            // fixtures, which djpeg decodes to the right picture). Data actually
            // lost around a restart marker brings JWRN_MUST_RESYNC, JWRN_HIT_MARKER
            // or a bad-code warning, and those are damage; as every warning is
            // recorded, one of these after an "extraneous bytes" is not missed.
            return false
        }
        // A malformed ICC profile, an unknown JFIF revision, an unknown Adobe
        // transform (libjpeg then assumes YCbCr, as every other reader does).
        return !(warning.is(JWRN_BOGUS_ICC) || warning.is(JWRN_JFIF_MAJOR) || warning.is(JWRN_ADOBE_XFORM))
    }

    var error: JPEGError? {
        if tooManyScans {
            return .corrupt("more than \(VITRINE_JPEG_MAX_SCANS) progressive scans")
        }
        // The end of the data explains everything after it (libjpeg pads the rest with an EOI).
        if let end = warnings.first(where: { $0.is(JWRN_JPEG_EOF) }) {
            return .truncated(end.text)
        }
        let damage = warnings.first(where: Self.isDamage)
        if let fatal {
            if fatal.is(JERR_BAD_PRECISION) { return .unsupported(fatal.text) }
            return .corrupt(damage.map { "\(fatal.text) (after: \($0.text))" } ?? fatal.text)
        }
        if let damage {
            return .corrupt(damage.text)
        }
        if let unexpectedSize {
            return .corrupt("libjpeg decodes \(unexpectedSize.actual), not the \(unexpectedSize.expected) the frame header gives")
        }
        return completed ? nil : .corrupt("libjpeg stopped before the end of the picture")
    }
}
