import CLibJPEG
import VitrineCore
import SystemPackage

/// A decoded picture in stored orientation, at the DCT-scaled size.
public struct DecodedJPEG: Sendable {
    public let image: PixelImage
    public let info: JPEGInfo
    public let scale: JPEGScalingFactor
}

/// Decodes JPEG data into XRGB8888 with libjpeg's decompressor (libjpeg-turbo).
///
/// One decoder owns one libjpeg decompress object (`jpeg_create_decompress`,
/// freed with `jpeg_destroy_decompress`), reused for every picture; an object
/// must not be used by two threads at once, so each decoding thread keeps its
/// own decoder.
///
/// libjpeg's API rather than TurboJPEG's `tjDecompress2` (which wraps the same
/// code), because TurboJPEG keeps only the first warning's text and cannot say
/// whether a fatal error followed a warning: a harmless first warning then hid
/// the damage after it, and the kiosk showed a half-grey picture.
public final class JPEGDecoder {
    private let session: UnsafeMutablePointer<vitrine_jpeg_session>

    /// - Throws: `JPEGError.decoderUnavailable` when `jpeg_create_decompress` fails.
    public init() throws(JPEGError) {
        var message = [CChar](repeating: 0, count: Int(JMSG_LENGTH_MAX))
        guard let session = vitrine_jpeg_create(&message) else {
            throw .decoderUnavailable(String(decoding: message.prefix { $0 != 0 }.map { UInt8(bitPattern: $0) }, as: UTF8.self))
        }
        self.session = session
    }

    deinit { vitrine_jpeg_destroy(session) }

    /// What `decode` and `decodeRows` make of `bytes`: the markers
    /// (`JPEGMarkerScanner`) and the smallest DCT scaling factor that still
    /// covers `target` (a size in the stored orientation; nil decodes at full size).
    ///
    /// - Throws: `JPEGError.tooManyPixels` when the stored size exceeds
    ///   `maxPixels`, before anything is allocated; the scanner's errors for bad markers.
    public func plan(_ bytes: UnsafeRawBufferPointer, covering target: PixelSize?, maxPixels: Int) throws(JPEGError) -> JPEGDecodePlan {
        try Self.plan(for: JPEGMarkerScanner.scan(bytes), covering: target, maxPixels: maxPixels)
    }

    /// The same for markers already scanned.
    public static func plan(for info: JPEGInfo, covering target: PixelSize?, maxPixels: Int) throws(JPEGError) -> JPEGDecodePlan {
        guard info.size.pixelCount <= maxPixels else { throw .tooManyPixels(size: info.size, limit: maxPixels) }
        return JPEGDecodePlan(info: info, scale: target.map { JPEGScalingFactor.smallest(decoding: info.size, covering: $0) } ?? .one)
    }

    /// Decodes `bytes` whole as `plan` says, with `jpeg_read_header`,
    /// `jpeg_start_decompress`, `jpeg_read_scanlines` and `jpeg_finish_decompress`.
    ///
    /// The markers after the last scan are read up to EOI, and every warning
    /// libjpeg emits is classified (`LibJPEGReport`): damaged or missing data is
    /// an error, never a picture padded with grey.
    ///
    /// With `storage`, the picture is decoded into that memory (grown if needed)
    /// instead of a fresh allocation; see `PixelStorage`.
    public func decode(_ source: JPEGSource, plan: JPEGDecodePlan, into storage: PixelStorage? = nil) throws(JPEGError) -> DecodedJPEG {
        let size = plan.size
        let image = storage.map { PixelImage(size: size, storage: $0) } ?? PixelImage(size: size)
        if plan.info.componentCount == 4 {
            // libjpeg-turbo has no CMYK-to-RGB conversion: decode to CMYK and convert here.
            var cmyk = [UInt8](repeating: 0, count: size.pixelCount * 4)
            try cmyk.withUnsafeMutableBufferPointer { (buffer) throws(JPEGError) in
                try decompress(source, plan: plan, into: buffer.baseAddress!, cmyk: true)
                CMYKConversion.convert(buffer.baseAddress!, pixelCount: size.pixelCount,
                                       adobeInverted: plan.info.adobeTransform != nil, into: image.pixels.baseAddress!)
            }
        } else {
            try decompress(source, plan: plan, into: UnsafeMutableRawPointer(image.pixels.baseAddress!).assumingMemoryBound(to: UInt8.self),
                           cmyk: false)
        }
        return DecodedJPEG(image: image, info: plan.info, scale: plan.scale)
    }

    /// `plan` and `decode(_:plan:into:)` in one call.
    public func decode(_ bytes: UnsafeRawBufferPointer, covering target: PixelSize?, maxPixels: Int,
                       into storage: PixelStorage? = nil) throws(JPEGError) -> DecodedJPEG {
        try decode(.memory(bytes), plan: plan(bytes, covering: target, maxPixels: maxPixels), into: storage)
    }

    /// How many rows `decodeRows` hands over at a time: 16 rows of a 1500-pixel
    /// wide decode are 94 KiB, small enough to be resampled while still in L2.
    public static let stripRows = 16

    /// Decodes `bytes` as `plan` says, as `decode` does, but hands the XRGB8888
    /// rows to `rows` a strip at a time, top to bottom (`first`, `count`; rows
    /// packed `plan.size.width` pixels apart), instead of keeping the picture.
    /// `strip` is the memory for one strip. When this throws, rows already
    /// handed over belong to a picture that failed and must be thrown away.
    public func decodeRows(_ source: JPEGSource, plan: JPEGDecodePlan, strip: PixelStorage,
                           rows: (_ rows: UnsafePointer<UInt32>, _ first: Int, _ count: Int) -> Void) throws(JPEGError) {
        let size = plan.size, stripRows = min(Self.stripRows, max(size.height, 1))
        let xrgb = PixelImage(size: PixelSize(width: size.width, height: stripRows), storage: strip)
        let output = xrgb.pixels.baseAddress!
        guard plan.info.componentCount == 4 else {
            try decompress(source, plan: plan, into: UnsafeMutableRawPointer(output).assumingMemoryBound(to: UInt8.self),
                           stripRows: stripRows, cmyk: false) { _, first, count in rows(output, first, count) }
            return
        }
        var cmyk = [UInt8](repeating: 0, count: size.width * stripRows * 4)
        let inverted = plan.info.adobeTransform != nil
        try cmyk.withUnsafeMutableBufferPointer { (buffer) throws(JPEGError) in
            try decompress(source, plan: plan, into: buffer.baseAddress!, stripRows: stripRows, cmyk: true) { strip, first, count in
                CMYKConversion.convert(strip, pixelCount: size.width * count, adobeInverted: inverted, into: output)
                rows(output, first, count)
            }
        }
    }

    /// `vitrine_jpeg_decompress` at `plan`'s scale into `buffer`, the whole
    /// picture (4 bytes a pixel, rows packed): JCS_CMYK with `cmyk`, else JCS_EXT_BGRX.
    private func decompress(_ source: JPEGSource, plan: JPEGDecodePlan, into buffer: UnsafeMutablePointer<UInt8>,
                            cmyk: Bool) throws(JPEGError) {
        try decompress(source, plan: plan, into: buffer, stripRows: plan.size.height, cmyk: cmyk, callback: nil, context: nil)
    }

    /// The same into a strip of `stripRows` rows, handed to `rows` each time it fills.
    private func decompress(_ source: JPEGSource, plan: JPEGDecodePlan, into buffer: UnsafeMutablePointer<UInt8>,
                            stripRows: Int, cmyk: Bool, rows: (UnsafePointer<UInt8>, Int, Int) -> Void) throws(JPEGError) {
        try withoutActuallyEscaping(rows) { (rows) throws(JPEGError) in
            var sink = RowSink(body: rows)
            try withUnsafeMutablePointer(to: &sink) { (sink) throws(JPEGError) in
                try decompress(source, plan: plan, into: buffer, stripRows: stripRows, cmyk: cmyk,
                               callback: RowSink.callback, context: UnsafeMutableRawPointer(sink))
            }
        }
    }

    private func decompress(_ source: JPEGSource, plan: JPEGDecodePlan, into buffer: UnsafeMutablePointer<UInt8>,
                            stripRows: Int, cmyk: Bool, callback: vitrine_jpeg_rows_ready?,
                            context: UnsafeMutableRawPointer?) throws(JPEGError) {
        // The report is about 7 KB: keep it off the stack of the decode thread's caller.
        let report = UnsafeMutablePointer<vitrine_jpeg_report>.allocate(capacity: 1)
        defer { report.deallocate() }
        var input = vitrine_jpeg_input()
        input.fd = -1
        switch source {
        case .memory(let bytes):
            input.data = bytes.baseAddress?.assumingMemoryBound(to: UInt8.self)
            input.size = UInt(bytes.count)
        case .file(let descriptor, let readBuffer, let prefilled):
            input.fd = descriptor
            input.buffer = readBuffer.baseAddress!.assumingMemoryBound(to: UInt8.self)
            input.capacity = readBuffer.count
            input.prefilled = prefilled
        }
        let size = plan.size
        let status = vitrine_jpeg_decompress(
            session, &input, UInt32(plan.scale.numerator), UInt32(plan.scale.denominator), cmyk ? 1 : 0,
            buffer, size.width * 4, UInt32(size.width), UInt32(size.height), UInt32(stripRows), callback, context, report)
        // A failed read ends the data early: that is the file's fault, not the picture's.
        if input.read_errno != 0 { throw .read(errno: Errno(rawValue: input.read_errno)) }
        if let error = LibJPEGReport(report.pointee, completed: status == 0, expected: size).error { throw error }
    }
}

/// Where `decode` and `decodeRows` read a JPEG from.
public enum JPEGSource {
    /// The whole file in memory.
    case memory(UnsafeRawBufferPointer)
    /// An open file, read into `buffer` as libjpeg asks for more, so that the
    /// file never has to be in memory whole. Its first `prefilled` bytes, from
    /// offset 0, are already in `buffer` (they were read for the marker scan);
    /// the descriptor's offset is just after them.
    case file(descriptor: Int32, buffer: UnsafeMutableRawBufferPointer, prefilled: Int)
}

/// What `decodeRows` will produce: the picture's markers and the DCT scaling
/// factor it is decoded at.
public struct JPEGDecodePlan: Sendable {
    public let info: JPEGInfo
    public let scale: JPEGScalingFactor
    /// The decoded size, in stored orientation.
    public var size: PixelSize { scale.scaled(info.size) }
}

/// The Swift side of `vitrine_jpeg_rows_ready`: the context pointer points at one of these.
private struct RowSink {
    let body: (UnsafePointer<UInt8>, Int, Int) -> Void

    static let callback: vitrine_jpeg_rows_ready = { context, rows, first, count in
        context!.assumingMemoryBound(to: RowSink.self).pointee.body(rows!, Int(first), Int(count))
    }
}

/// CMYK to RGB for the JPEGs that store CMYK or YCCK.
enum CMYKConversion {
    /// Photoshop, which writes nearly every CMYK JPEG along with an Adobe APP14
    /// marker, stores the inks inverted (0 is full ink); without the marker the
    /// values are taken as written.
    static func convert(_ cmyk: UnsafePointer<UInt8>, pixelCount: Int, adobeInverted: Bool, into pixels: UnsafeMutablePointer<UInt32>) {
        for i in 0..<pixelCount {
            var c = UInt32(cmyk[i * 4]), m = UInt32(cmyk[i * 4 + 1])
            var y = UInt32(cmyk[i * 4 + 2]), k = UInt32(cmyk[i * 4 + 3])
            if !adobeInverted { c = 255 - c; m = 255 - m; y = 255 - y; k = 255 - k }
            // With inverted inks: channel = (1 - ink)(1 - black) = c·k/255.
            let r = (c * k + 127) / 255, g = (m * k + 127) / 255, b = (y * k + 127) / 255
            pixels[i] = 0xFF00_0000 | r << 16 | g << 8 | b
        }
    }
}
