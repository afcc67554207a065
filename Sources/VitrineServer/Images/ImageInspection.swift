import VitrineCore
import VitrineJPEG
import VitrinePNG
import VitrineRuntime

/// What an uploaded or downloaded picture is, proven by decoding all of it.
public struct InspectedImage: Hashable, Sendable {
    public enum Kind: String, Sendable { case jpeg, png }
    public var kind: Kind
    /// Upright size (after EXIF orientation).
    public var size: PixelSize

    public var contentType: String { kind == .jpeg ? "image/jpeg" : "image/png" }
}

/// Sniffs and fully decodes a picture before the kiosk accepts it, so that a
/// picture on a slide never fails for a reason the upload could have shown.
public enum ImageInspection {
    public enum Failure: Error, Hashable, Sendable {
        /// Not a JPEG or PNG by its first bytes (415).
        case notAnImage(String)
        /// A JPEG or PNG that does not decode (422), with the decoder's reason.
        case undecodable(String)
        /// A picture with more pixels than the configuration's `decode.maxPixels`
        /// (409: a conflict with the kiosk's configuration, not a fault of the picture).
        case overPixelLimit(String)
    }

    public static func inspect(_ bytes: [UInt8], maxPixels: Int) throws(Failure) -> InspectedImage {
        if bytes.starts(with: [0xFF, 0xD8, 0xFF]) {
            do throws(JPEGError) {
                let decoder = try JPEGDecoder()
                // The smallest DCT scale still entropy-decodes every block, so a
                // damaged or truncated file fails here, at an eighth of the memory.
                // withUnsafeBytes rethrows untyped errors: carry the typed one out in a Result.
                let decoded = try bytes.withUnsafeBytes { raw in
                    Result { () throws(JPEGError) in
                        try decoder.decode(raw, covering: PixelSize(width: 1, height: 1), maxPixels: maxPixels)
                    }
                }.get()
                return InspectedImage(kind: .jpeg, size: decoded.info.uprightSize)
            } catch {
                if case .tooManyPixels = error { throw .overPixelLimit("\(error)") }
                throw .undecodable("\(error)")
            }
        }
        if PNGCodec.hasSignature(bytes) {
            // IHDR comes first: width and height at bytes 16 to 23, big-endian.
            if bytes.count >= 24 {
                let field = { (offset: Int) in bytes[offset..<offset + 4].reduce(0) { $0 << 8 | Int($1) } }
                let (width, height) = (field(16), field(20))
                let (pixels, overflow) = width.multipliedReportingOverflow(by: height)
                if overflow || pixels > maxPixels {
                    throw .overPixelLimit("picture is \(width)x\(height), over the limit of \(maxPixels) pixels (decode.maxPixels)")
                }
            }
            do throws(PNGError) {
                let image = try PNGCodec.decode(bytes, maxPixels: maxPixels)
                return InspectedImage(kind: .png, size: image.size)
            } catch {
                throw .undecodable("\(error)")
            }
        }
        throw .notAnImage("not a JPEG or PNG picture (it starts with \(describeStart(bytes)))")
    }

    /// A small PNG of the picture, at most `bounds`, keeping its shape.
    public static func thumbnail(_ bytes: [UInt8], bounds: PixelSize, maxPixels: Int) throws -> [UInt8] {
        let image = try inspect(bytes, maxPixels: maxPixels)
        let scale = min(Double(bounds.width) / Double(image.size.width), Double(bounds.height) / Double(image.size.height), 1)
        let size = PixelSize(width: max(1, Int((Double(image.size.width) * scale).rounded())),
                             height: max(1, Int((Double(image.size.height) * scale).rounded())))
        let request = SlideRequest(file: "thumbnail", resolvedPath: nil, fit: .contain, background: .black, output: size, maxPixels: maxPixels)
        let frame = try SlideDecoding.frame(from: bytes, request: request, workspace: try SlideDecodingWorkspace())
        return try PNGCodec.encode(frame, fast: true)
    }

    private static func describeStart(_ bytes: [UInt8]) -> String {
        if bytes.isEmpty { return "nothing: the body is empty" }
        let hex = bytes.prefix(4).map { byte in
            let text = String(byte, radix: 16, uppercase: true)
            return byte < 16 ? "0" + text : text
        }.joined(separator: " ")
        let printable = bytes.prefix(16).allSatisfy { (0x20...0x7E).contains($0) || $0 == 0x0A || $0 == 0x0D || $0 == 0x09 }
        return "bytes \(hex)" + (printable ? ", which looks like text" : "")
    }
}
