import VitrineCore
import VitrineJPEG

/// One picture turned into a ready-to-composite output frame.
public struct SlideRequest: Hashable, Sendable {
    /// The path as configured (for messages) and resolved (to read).
    public var file: String
    public var resolvedPath: String
    public var fit: FitMode
    public var background: RGBAColor
    public var output: PixelSize
    public var maxPixels: Int

    public init(file: String, resolvedPath: String, fit: FitMode, background: RGBAColor, output: PixelSize, maxPixels: Int) {
        self.file = file
        self.resolvedPath = resolvedPath
        self.fit = fit
        self.background = background
        self.output = output
        self.maxPixels = maxPixels
    }
}

public enum SlideDecoding {
    /// Reads, decodes and frames a picture: DCT-scaled decode to the smallest
    /// size covering the visible area, then orientation, crop and area resample
    /// into an output-sized frame (`SlideFramer`).
    public static func frame(for request: SlideRequest, decoder: JPEGDecoder) throws(SlideError) -> PixelImage {
        let bytes: [UInt8]
        do {
            bytes = try FileIO.read(request.resolvedPath)
        } catch {
            throw SlideError(file: request.file, reason: .file(error))
        }
        return try frame(from: bytes, request: request, decoder: decoder)
    }

    public static func frame(from bytes: [UInt8], request: SlideRequest, decoder: JPEGDecoder) throws(SlideError) -> PixelImage {
        // withUnsafeBytes only rethrows untyped errors: carry the typed one out in a Result.
        let result = bytes.withUnsafeBytes { raw in
            Result { () throws(JPEGError) -> DecodedJPEG in
                let info = try JPEGMarkerScanner.scan(raw)
                let target = SlideFramer.decodeTarget(
                    picture: info.uprightSize, orientation: info.orientation, output: request.output, fit: request.fit)
                return try decoder.decode(raw, covering: target, maxPixels: request.maxPixels)
            }
        }
        do throws(JPEGError) {
            let decoded = try result.get()
            let frame = PixelImage(size: request.output)
            SlideFramer.frame(decoded: decoded.image, orientation: decoded.info.orientation, fit: request.fit,
                              background: request.background, into: frame.canvas)
            return frame
        } catch {
            throw SlideError(file: request.file, reason: .decode(error))
        }
    }
}
