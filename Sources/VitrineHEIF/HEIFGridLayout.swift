import VitrineCore

/// How a tiled (`grid`) primary image is laid out, read from the file's `meta`
/// box by Vitrine itself, because libheif 1.15 reads it but does not tell it:
/// the largest tile, and the transformative properties the primary item has,
/// in the order the file associates them (ISO/IEC 23008-12 6.5.10, 6.5.12).
///
/// Phones store large photos this way (an iPhone's 48-megapixel "HEIF Max"
/// is a grid of 512x512 HEVC tiles, turned by `irot` when taken upright).
/// With it, `HEIFDecoder` can decode such a picture without libheif's
/// transforms, which copy the whole picture, and turn it as it reads its rows
/// (`HEIFPixelMap`): 4.5 bytes a pixel for 4:2:0 tiles instead of nine.
public struct HEIFGridLayout: Hashable, Sendable {
    /// The largest tile's size (its `ispe`), by pixels.
    public var largestTile: PixelSize
    /// The primary item's `irot` and `imir`, in the file's order.
    public var transforms: [HEIFTransform]
    /// The tiles' chroma format, from their codec configuration (`hvcC`,
    /// `av1C`); the widest of them, and 4:4:4 when one does not say.
    public var tileChroma: HEIFTileChroma

    public init(largestTile: PixelSize, transforms: [HEIFTransform], tileChroma: HEIFTileChroma = .yuv444) {
        self.largestTile = largestTile
        self.transforms = transforms
        self.tileChroma = tileChroma
    }
}

/// How a tile's coded planes are sampled: what libheif 1.19 and later hold a
/// grid in while assembling it, before converting it to RGB.
public enum HEIFTileChroma: Int, Hashable, Sendable, Comparable {
    case monochrome, yuv420, yuv422, yuv444

    /// Bytes of one 8-bit pixel in these planes, times two (4:2:0 is 1.5 bytes).
    var doubleBytesPerPixel: Int {
        switch self {
        case .monochrome: return 2
        case .yuv420: return 3
        case .yuv422: return 4
        case .yuv444: return 6
        }
    }

    public static func < (a: HEIFTileChroma, b: HEIFTileChroma) -> Bool { a.rawValue < b.rawValue }
}

/// A transformative property as libheif 1.15 applies it.
public enum HEIFTransform: Hashable, Sendable {
    /// `irot`: turned anticlockwise by this many quarter turns (0 to 3).
    case rotation(quarterTurnsAnticlockwise: Int)
    /// `imir`: axis 1 reverses the columns (libheif's horizontal mirror), axis
    /// 0 the rows. (libheif 1.15 reads the axis so; later versions agree.)
    case mirror(reversingColumns: Bool)
}

extension HEIFGridLayout {
    /// The layout of the primary item of the HEIF file in `bytes`, if it is
    /// a `grid` whose every tile has an `ispe`, and whose own transforms are
    /// only `irot` and `imir`; nil otherwise (a coded primary image, a clean
    /// aperture `clap`, a layout these boxes do not give plainly, or boxes
    /// damaged). nil is never an error: the picture then takes libheif's own
    /// route, and libheif's errors are the ones reported.
    ///
    /// From the boxes `HEIFMetaBoxes` read: the primary's type and its
    /// `dimg` references, and its and the tiles' properties.
    static func read(_ meta: HEIFMetaBoxes) -> HEIFGridLayout? {
        let (file, primary, properties) = (meta.file, meta.primary, meta.properties)
        let tiles = meta.referenced("dimg", from: primary)
        guard meta.types[primary] == "grid", !tiles.isEmpty else { return nil }
        var transforms: [HEIFTransform] = []
        for box in properties.of(primary) {
            switch box.type {
            case "irot":
                guard let angle = file.byte(box.body.lowerBound) else { return nil }
                transforms.append(.rotation(quarterTurnsAnticlockwise: Int(angle & 3)))
            case "imir":
                guard let axis = file.byte(box.body.lowerBound) else { return nil }
                transforms.append(.mirror(reversingColumns: axis & 1 == 1))
            case "clap":
                // libheif rounds a clean aperture's fractions in its own way; such a
                // picture is left to libheif's transforms rather than copied here.
                return nil
            default:
                continue
            }
        }
        var largest = PixelSize(width: 0, height: 0)
        var widestChroma = HEIFTileChroma.monochrome
        for tile in Set(tiles) {
            guard let size = meta.ispe(of: tile), size.width > 0, size.height > 0 else { return nil }
            if size.pixelCount > largest.pixelCount { largest = size }
            widestChroma = max(widestChroma, file.chroma(of: properties.of(tile)))
        }
        return HEIFGridLayout(largestTile: largest, transforms: transforms, tileChroma: widestChroma)
    }
}
