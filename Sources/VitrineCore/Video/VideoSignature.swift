/// Tells a video file from a picture by its first bytes, as the kiosk must
/// before it hands the file to a picture helper or a video helper.
///
/// - Matroska and WebM begin with the EBML magic `1A 45 DF A3`.
/// - MP4 and QuickTime are ISO base media files, as HEIF and AVIF are: an
///   `ftyp` box whose major brand says which. HEIF's brands (`heic`, `mif1`,
///   `avif`, `avis` and their kin) are pictures, animated AVIF among them,
///   which libheif reads; every other brand is a video.
public enum VideoSignature {
    /// The bytes to read: enough for the `ftyp` box's size, type and major brand.
    public static let prefixLength = 12

    static let pictureBrands: Set<String> = [
        "heic", "heix", "heim", "heis", "hevc", "hevx", "hevm", "hevs", "mif1", "mif2", "msf1", "avif", "avis", "avio",
    ]

    /// Whether a file that begins with `prefix` is a video.
    public static func isVideo(_ prefix: some Collection<UInt8>) -> Bool {
        let bytes = Array(prefix.prefix(prefixLength))
        if bytes.starts(with: [0x1A, 0x45, 0xDF, 0xA3]) { return true }
        guard bytes.count >= 12, bytes[4..<8].elementsEqual("ftyp".utf8) else { return false }
        let brand = String(decoding: bytes[8..<12], as: UTF8.self)
        return !pictureBrands.contains(brand)
    }
}
