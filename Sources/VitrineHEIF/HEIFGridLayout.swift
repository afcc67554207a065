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

/// How a tile's coded planes are sampled: what libheif 1.16 and later hold a
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
    /// Reads ISO BMFF boxes (ISO/IEC 14496-12 4.2: 32-bit sizes, 64-bit ones,
    /// to-the-end ones), every read checked against the bytes: `meta`'s `pitm`,
    /// `iinf` (`infe` versions 2 and 3), `iref` (`dimg`), and `iprp`'s `ipco`
    /// and `ipma` (versions 0 and 1, 7- and 15-bit indices).
    static func read(_ bytes: UnsafeRawBufferPointer) -> HEIFGridLayout? {
        let file = BoxBytes(bytes)
        guard let meta = file.boxes(in: 0..<bytes.count)?.first(where: { $0.type == "meta" }),
              let children = file.boxes(in: meta.body.lowerBound + 4..<meta.body.upperBound) else { return nil }
        func child(_ type: String) -> Box? { children.first { $0.type == type } }
        guard let pitm = child("pitm"), let iinf = child("iinf"), let iref = child("iref"), let iprp = child("iprp"),
              let primary = file.itemID(at: pitm.body.lowerBound + 4, version: file.byte(pitm.body.lowerBound)),
              file.itemType(of: primary, in: iinf) == "grid",
              let tiles = file.references("dimg", from: primary, in: iref), !tiles.isEmpty,
              let properties = file.properties(in: iprp) else { return nil }
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
            let tileProperties = properties.of(tile)
            guard let ispe = tileProperties.first(where: { $0.type == "ispe" }),
                  let width = file.uint32(at: ispe.body.lowerBound + 4), let height = file.uint32(at: ispe.body.lowerBound + 8),
                  width > 0, height > 0 else { return nil }
            let size = PixelSize(width: Int(width), height: Int(height))
            if size.pixelCount > largest.pixelCount { largest = size }
            widestChroma = max(widestChroma, file.chroma(of: tileProperties))
        }
        return HEIFGridLayout(largestTile: largest, transforms: transforms, tileChroma: widestChroma)
    }
}

/// A box: its four-character type and where its body lies in the file.
private struct Box {
    let type: String
    let body: Range<Int>
}

/// Each item's properties, in association order.
private struct ItemProperties {
    let boxes: [Box]
    /// Item ID -> 1-based indices into `boxes`.
    let associations: [UInt32: [Int]]

    func of(_ item: UInt32) -> [Box] {
        (associations[item] ?? []).compactMap { $0 >= 1 && $0 <= boxes.count ? boxes[$0 - 1] : nil }
    }
}

/// Bounds-checked big-endian reads over the file's bytes; every read that
/// would leave them gives nil.
private struct BoxBytes {
    let bytes: UnsafeRawBufferPointer

    init(_ bytes: UnsafeRawBufferPointer) { self.bytes = bytes }

    func byte(_ at: Int) -> UInt8? { at >= 0 && at < bytes.count ? bytes[at] : nil }

    func uint16(at: Int) -> UInt16? {
        guard at >= 0, at + 2 <= bytes.count else { return nil }
        return UInt16(bytes[at]) << 8 | UInt16(bytes[at + 1])
    }

    func uint32(at: Int) -> UInt32? {
        guard at >= 0, at + 4 <= bytes.count else { return nil }
        return (0..<4).reduce(0) { $0 << 8 | UInt32(bytes[at + $1]) }
    }

    func uint64(at: Int) -> UInt64? {
        guard let high = uint32(at: at), let low = uint32(at: at + 4) else { return nil }
        return UInt64(high) << 32 | UInt64(low)
    }

    func fourCC(at: Int) -> String? {
        guard at >= 0, at + 4 <= bytes.count else { return nil }
        return String(decoding: bytes[at..<at + 4], as: UTF8.self)
    }

    /// The boxes that fill `range`, in order; nil if one overruns it.
    func boxes(in range: Range<Int>) -> [Box]? {
        guard range.lowerBound >= 0, range.upperBound <= bytes.count else { return nil }
        var found: [Box] = []
        var at = range.lowerBound
        while at < range.upperBound {
            guard let size32 = uint32(at: at), let type = fourCC(at: at + 4) else { return nil }
            var header = 8
            var size = Int(size32)
            if size32 == 1 {
                guard let large = uint64(at: at + 8), large <= UInt64(range.upperBound - at) else { return nil }
                header = 16
                size = Int(large)
            } else if size32 == 0 {
                size = range.upperBound - at
            }
            guard size >= header, size <= range.upperBound - at else { return nil }
            found.append(Box(type: type, body: at + header..<at + size))
            at += size
        }
        return found
    }

    /// An item ID: 16 bits in a version-0 box, 32 bits after.
    func itemID(at: Int, version: UInt8?) -> UInt32? {
        guard let version else { return nil }
        return version == 0 ? uint16(at: at).map(UInt32.init) : uint32(at: at)
    }

    /// The `item_type` of `item` in `iinf` (its `infe` boxes of version 2 or 3).
    func itemType(of item: UInt32, in iinf: Box) -> String? {
        guard let version = byte(iinf.body.lowerBound) else { return nil }
        let entries = iinf.body.lowerBound + (version == 0 ? 6 : 8)
        guard entries <= iinf.body.upperBound, let infes = boxes(in: entries..<iinf.body.upperBound) else { return nil }
        for infe in infes where infe.type == "infe" {
            guard let infeVersion = byte(infe.body.lowerBound), infeVersion >= 2 else { continue }
            let idBytes = infeVersion == 2 ? 2 : 4
            guard let id = itemID(at: infe.body.lowerBound + 4, version: infeVersion == 2 ? 0 : 1), id == item else { continue }
            let typeAt = infe.body.lowerBound + 4 + idBytes + 2
            guard typeAt + 4 <= infe.body.upperBound else { return nil }
            return fourCC(at: typeAt)
        }
        return nil
    }

    /// The items `from` refers to by references of `type` in `iref`, in order.
    func references(_ type: String, from item: UInt32, in iref: Box) -> [UInt32]? {
        guard let version = byte(iref.body.lowerBound),
              let references = boxes(in: iref.body.lowerBound + 4..<iref.body.upperBound) else { return nil }
        let idBytes = version == 0 ? 2 : 4
        for reference in references where reference.type == type {
            var at = reference.body.lowerBound
            guard let from = itemID(at: at, version: version), from == item,
                  let count = uint16(at: at + idBytes) else { continue }
            at += idBytes + 2
            var targets: [UInt32] = []
            for _ in 0..<count {
                guard at + idBytes <= reference.body.upperBound, let target = itemID(at: at, version: version) else { return nil }
                targets.append(target)
                at += idBytes
            }
            return targets
        }
        return nil
    }

    /// The chroma format a tile's codec configuration gives: `hvcC`'s
    /// `chroma_format_idc` (ISO/IEC 14496-15 8.3.3.1, the byte after
    /// `parallelismType`), or `av1C`'s `mono_chrome` and subsampling bits (AV1
    /// Codec ISO Media File Format 2.3.3); 4:4:4, the most, when neither says.
    func chroma(of properties: [Box]) -> HEIFTileChroma {
        if let hvcC = properties.first(where: { $0.type == "hvcC" }), hvcC.body.count > 16, let format = byte(hvcC.body.lowerBound + 16) {
            return [HEIFTileChroma.monochrome, .yuv420, .yuv422, .yuv444][Int(format & 3)]
        }
        if let av1C = properties.first(where: { $0.type == "av1C" }), av1C.body.count > 2, let flags = byte(av1C.body.lowerBound + 2) {
            let (monochrome, subsampledX, subsampledY) = (flags & 0x10 != 0, flags & 0x08 != 0, flags & 0x04 != 0)
            if monochrome { return .monochrome }
            return subsampledX ? (subsampledY ? .yuv420 : .yuv422) : .yuv444
        }
        return .yuv444
    }

    /// `iprp`'s property boxes (`ipco`) and every `ipma`'s associations.
    func properties(in iprp: Box) -> ItemProperties? {
        guard let containers = boxes(in: iprp.body),
              let ipco = containers.first(where: { $0.type == "ipco" }),
              let properties = boxes(in: ipco.body) else { return nil }
        var associations: [UInt32: [Int]] = [:]
        for ipma in containers where ipma.type == "ipma" {
            guard let version = byte(ipma.body.lowerBound), let flags = byte(ipma.body.lowerBound + 3),
                  let count = uint32(at: ipma.body.lowerBound + 4) else { return nil }
            let wideIndices = flags & 1 == 1
            var at = ipma.body.lowerBound + 8
            for _ in 0..<count {
                guard let item = itemID(at: at, version: version == 0 ? 0 : 1) else { return nil }
                at += version == 0 ? 2 : 4
                guard let associationCount = byte(at) else { return nil }
                at += 1
                for _ in 0..<associationCount {
                    guard at < ipma.body.upperBound else { return nil }
                    if wideIndices {
                        guard let value = uint16(at: at) else { return nil }
                        associations[item, default: []].append(Int(value & 0x7FFF))
                        at += 2
                    } else {
                        guard let value = byte(at) else { return nil }
                        associations[item, default: []].append(Int(value & 0x7F))
                        at += 1
                    }
                }
                guard at <= ipma.body.upperBound else { return nil }
            }
        }
        return ItemProperties(boxes: properties, associations: associations)
    }
}
