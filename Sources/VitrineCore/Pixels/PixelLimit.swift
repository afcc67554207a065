/// `decode.maxPixels` in words: every decoder (JPEG, WebP, GIF, HEIF) refuses a
/// picture over the limit with the same sentence, so that an operator reads
/// one message whatever the format.
public enum PixelLimit {
    /// "picture is 8000x6000 (48 megapixels), over the limit of 10 megapixels
    /// (decode.maxPixels)"; a limit under a megapixel (a small panel, a test)
    /// is given in whole pixels rather than as "0 megapixels".
    public static func exceeded(_ size: PixelSize, limit: Int) -> String {
        guard limit >= 1_000_000 else {
            return "picture is \(size) (\(size.pixelCount) pixels), over the limit of \(limit) pixels (decode.maxPixels)"
        }
        return "picture is \(size) (\(megapixels(size.pixelCount)) megapixels), over the limit of "
            + "\(megapixels(limit)) megapixels (decode.maxPixels)"
    }

    /// Megapixels to one decimal, without a trailing ".0".
    static func megapixels(_ pixels: Int) -> String {
        let tenths = (Double(pixels) / 1e5).rounded()
        return tenths.truncatingRemainder(dividingBy: 10) == 0 ? "\(Int(tenths / 10))" : "\(tenths / 10)"
    }
}
