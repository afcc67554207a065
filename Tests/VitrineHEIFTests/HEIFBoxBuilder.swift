import VitrineCore
@testable import VitrineHEIF

/// Minimal HEIF files built byte by byte, for what the box reader must refuse
/// or accept before libheif sees a file: an `ftyp`, and a `meta` box with
/// `pitm`, `iinf` (an `infe` of version 2 per item), `iprp` (an `ipco` with
/// one `ispe` per item, associated by `ipma`), `iloc` and `iref`, then an `mdat`.
struct HEIFBoxBuilder {
    /// Item ID -> item type; the primary is the first.
    var items: [(id: UInt16, type: String)] = [(1, "hvc1")]
    /// Each item's `ispe`.
    var size = (width: UInt32(64), height: UInt32(64))
    /// References: type, from, to.
    var references: [(type: String, from: UInt16, to: [UInt16])] = []
    /// The whole `iloc` body (version and flags first); nil writes an empty version-0 one.
    var iloc: [UInt8]?
    /// `idat`'s body; nil writes none.
    var idat: [UInt8]?
    /// The `mdat` body, at the end of the file.
    var mdat: [UInt8] = Array(repeating: 0, count: 16)

    static func box(_ type: String, _ body: [UInt8]) -> [UInt8] { be32(UInt32(8 + body.count)) + Array(type.utf8) + body }
    static func be16(_ value: UInt16) -> [UInt8] { [UInt8(value >> 8), UInt8(value & 0xFF)] }
    static func be32(_ value: UInt32) -> [UInt8] { (0..<4).map { UInt8(value >> (24 - 8 * $0) & 0xFF) } }

    /// Where `mdat`'s body starts in `bytes()`: `iloc`'s own length counts, so
    /// give it an `iloc` of the length it will have.
    var mdatOffset: Int { bytes().count - mdat.count }

    func bytes() -> [UInt8] {
        typealias B = HEIFBoxBuilder
        let ftyp = B.box("ftyp", Array("heic".utf8) + [0, 0, 0, 0] + Array("mif1heic".utf8))
        let pitm = B.box("pitm", [0, 0, 0, 0] + B.be16(items[0].id))
        let infes = items.flatMap { B.box("infe", [2, 0, 0, 0] + B.be16($0.id) + [0, 0] + Array($0.type.utf8) + [0]) }
        let iinf = B.box("iinf", [0, 0, 0, 0] + B.be16(UInt16(items.count)) + infes)
        let ispe = B.box("ispe", [0, 0, 0, 0] + B.be32(size.width) + B.be32(size.height))
        let ipma = B.box("ipma", [0, 0, 0, 0] + B.be32(UInt32(items.count)) + items.flatMap { B.be16($0.id) + [1, 0x01] })
        let iprp = B.box("iprp", B.box("ipco", ispe) + ipma)
        let ilocBox = B.box("iloc", iloc ?? [0, 0, 0, 0, 0x44, 0x00, 0, 0])
        let refs = references.flatMap { B.box($0.type, B.be16($0.from) + B.be16(UInt16($0.to.count)) + $0.to.flatMap(B.be16)) }
        let iref = references.isEmpty ? [] : B.box("iref", [0, 0, 0, 0] + refs)
        let idatBox = idat.map { B.box("idat", $0) } ?? []
        let meta = B.box("meta", [0, 0, 0, 0] + pitm + iinf + iprp + ilocBox + iref + idatBox)
        return ftyp + meta + B.box("mdat", mdat)
    }

    /// `bytes` read by `HEIFMetaBoxes` and checked by `HEIFDerivations`, as
    /// `HEIFDecoder` does before libheif sees them: the largest declared canvas.
    static func check(_ bytes: [UInt8]) throws(HEIFError) -> PixelSize? {
        let result = bytes.withUnsafeBytes { raw in
            Result { () throws(HEIFError) -> PixelSize? in
                let meta = try HEIFMetaBoxes(raw)
                try HEIFDerivations.check(meta)
                return try HEIFDeclaredCanvas.largest(meta)
            }
        }
        return try result.get()
    }

    func check() throws(HEIFError) -> PixelSize? { try Self.check(bytes()) }
}

/// An `iloc` body written field by field, each of the size given (0 writes
/// nothing), as ISO/IEC 14496-12 8.11.3 lays it out: `index_size` in the
/// low nibble of the second size byte for versions 1 and 2, an
/// `extent_index` before each extent when `writeIndex`.
struct ILOC {
    struct Item {
        var id: UInt32
        var method: UInt16 = 0
        var dataReference: UInt16 = 0
        var base: UInt64 = 0
        var extents: [(offset: UInt64, length: UInt64)]
    }

    var version: UInt8 = 1
    var offsetSize = 4, lengthSize = 4, baseSize = 4, indexSize = 0
    var writeIndex = false
    var items: [Item]

    static func field(_ value: UInt64, _ size: Int) -> [UInt8] { (0..<size).map { UInt8(value >> (8 * UInt64(size - 1 - $0)) & 0xFF) } }

    var bytes: [UInt8] {
        var out: [UInt8] = [version, 0, 0, 0, UInt8(offsetSize << 4 | lengthSize), UInt8(baseSize << 4 | indexSize)]
        out += Self.field(UInt64(items.count), version < 2 ? 2 : 4)
        for item in items {
            out += Self.field(UInt64(item.id), version < 2 ? 2 : 4)
            if version >= 1 { out += Self.field(UInt64(item.method), 2) }
            out += Self.field(UInt64(item.dataReference), 2) + Self.field(item.base, baseSize) + Self.field(UInt64(item.extents.count), 2)
            for (number, extent) in item.extents.enumerated() {
                if writeIndex { out += Self.field(UInt64(number), indexSize) }
                out += Self.field(extent.offset, offsetSize) + Self.field(extent.length, lengthSize)
            }
        }
        return out
    }
}

