import VitrineCore

// ISO BMFF boxes as HEIF files lay them out (ISO/IEC 14496-12, ISO/IEC
// 23008-12), read by Vitrine itself for what libheif 1.15 reads but does not
// tell: a grid's layout (HEIFGridLayout) and the sizes of the pictures it
// would allocate (HEIFDeclaredCanvas). Every read is checked against the
// bytes and gives nil when it would leave them; nothing here allocates more
// than the file's own size in bookkeeping.

/// A HEIF file's `meta` box, read once: the primary item, every item's type
/// and properties, the references, and where items' data lie.
struct HEIFMetaBoxes {
    let file: BoxBytes
    let primary: UInt32
    let types: [UInt32: String]
    let properties: ItemProperties
    /// `iref`'s references by type (`dimg`, `auxl`, ...), then by referring
    /// item: the items it names, in order.
    let references: [String: [UInt32: [UInt32]]]
    let iloc: Box?
    let idat: Box?

    /// The boxes of the file in `bytes`; nil when `meta`, `pitm`, `iinf` or
    /// `iprp` is missing or cannot be read (`infe` versions 2 and 3, `ipma`
    /// versions 0 and 1, `iref` versions 0 and 1).
    init?(_ bytes: UnsafeRawBufferPointer) {
        file = BoxBytes(bytes)
        // The file's top level as far as its boxes go: libheif reads a file
        // with bytes after its last box, so must this (FuzzHEIF found an
        // overlay bomb that passed the check by 18 such bytes).
        guard let meta = file.leadingBoxes(in: 0..<bytes.count).first(where: { $0.type == "meta" }),
              let children = file.boxes(in: meta.body.lowerBound + 4..<meta.body.upperBound) else { return nil }
        func child(_ type: String) -> Box? { children.first { $0.type == type } }
        guard let pitm = child("pitm"), let iinf = child("iinf"), let iprp = child("iprp"),
              let primary = file.itemID(at: pitm.body.lowerBound + 4, version: file.byte(pitm.body.lowerBound)),
              let types = file.itemTypes(in: iinf), let properties = file.properties(in: iprp) else { return nil }
        var references: [String: [UInt32: [UInt32]]] = [:]
        if let iref = child("iref") {
            guard let all = file.allReferences(in: iref) else { return nil }
            for (type, list) in all {
                for (from, to) in list { references[type, default: [:]][from, default: []] += to }
            }
        }
        self.primary = primary
        self.types = types
        self.properties = properties
        self.references = references
        iloc = child("iloc")
        idat = child("idat")
    }

    /// The items `item` refers to by references of `type`, in order (`dimg`: a derived item's inputs).
    func referenced(_ type: String, from item: UInt32) -> [UInt32] { references[type]?[item] ?? [] }

    /// `item`'s `ispe` (a full box: version and flags, then 32-bit width and
    /// height), clamped as `declaredSize` does; nil without one.
    func ispe(of item: UInt32) -> PixelSize? {
        guard let ispe = properties.of(item).first(where: { $0.type == "ispe" }),
              let width = file.uint32(at: ispe.body.lowerBound + 4), let height = file.uint32(at: ispe.body.lowerBound + 8) else { return nil }
        return declaredSize(UInt64(width), UInt64(height))
    }

    /// The items that refer to `item` by references of `type` (`auxl`: its auxiliary images).
    func referring(_ type: String, to item: UInt32) -> [UInt32] {
        (references[type] ?? [:]).filter { $0.value.contains(item) }.keys.sorted()
    }
}

/// A box: its four-character type and where its body lies in the file.
struct Box {
    let type: String
    let body: Range<Int>
}

/// Each item's properties, in association order.
struct ItemProperties {
    let boxes: [Box]
    /// Item ID -> 1-based indices into `boxes`.
    let associations: [UInt32: [Int]]

    func of(_ item: UInt32) -> [Box] {
        (associations[item] ?? []).compactMap { $0 >= 1 && $0 <= boxes.count ? boxes[$0 - 1] : nil }
    }
}

/// Bounds-checked big-endian reads over the file's bytes; every read that
/// would leave them gives nil.
struct BoxBytes {
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

    /// The boxes that fill `range`, in order (only the first, with `first`); nil if one overruns it.
    func boxes(in range: Range<Int>, first: Bool = false) -> [Box]? {
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
            if first { break }
            at += size
        }
        return found
    }

    /// The boxes from the start of `range` up to the first that does not fit in it.
    func leadingBoxes(in range: Range<Int>) -> [Box] {
        var found: [Box] = []
        var at = range.lowerBound
        while at < range.upperBound, let box = boxes(in: at..<range.upperBound, first: true)?.first {
            found.append(box)
            at = box.body.upperBound
        }
        return found
    }

    /// An item ID: 16 bits in a version-0 box, 32 bits after.
    func itemID(at: Int, version: UInt8?) -> UInt32? {
        guard let version else { return nil }
        return version == 0 ? uint16(at: at).map(UInt32.init) : uint32(at: at)
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

/// A size read from the boxes, each side at most 2^31 (a box may claim up to
/// 2^32 - 1 a side, whose product overflows an Int, and `pixelCount` would
/// trap): such a size is far over any pixel limit either way, and is refused
/// as it is clamped. FuzzHEIF found the trap in HEIFGridLayout.
func declaredSize(_ width: UInt64, _ height: UInt64) -> PixelSize {
    PixelSize(width: Int(min(width, 1 << 31)), height: Int(min(height, 1 << 31)))
}

extension BoxBytes {
    /// Reads an unsigned big-endian integer of `size` bytes (0, 4 or 8, as
    /// `iloc`'s size fields allow; 0 is the value 0).
    func unsigned(at: Int, size: Int) -> UInt64? {
        switch size {
        case 0: return 0
        case 4: return uint32(at: at).map(UInt64.init)
        case 8: return uint64(at: at)
        default: return nil
        }
    }

    /// Every item's `item_type`, from `iinf`'s `infe` boxes of version 2 and 3.
    func itemTypes(in iinf: Box) -> [UInt32: String]? {
        guard let version = byte(iinf.body.lowerBound) else { return nil }
        let entries = iinf.body.lowerBound + (version == 0 ? 6 : 8)
        guard entries <= iinf.body.upperBound, let infes = boxes(in: entries..<iinf.body.upperBound) else { return nil }
        var types: [UInt32: String] = [:]
        for infe in infes where infe.type == "infe" {
            guard let infeVersion = byte(infe.body.lowerBound), infeVersion >= 2 else { continue }
            let idBytes = infeVersion == 2 ? 2 : 4
            guard let id = itemID(at: infe.body.lowerBound + 4, version: infeVersion == 2 ? 0 : 1) else { return nil }
            let typeAt = infe.body.lowerBound + 4 + idBytes + 2
            guard typeAt + 4 <= infe.body.upperBound, let type = fourCC(at: typeAt) else { return nil }
            types[id] = type
        }
        return types
    }

    /// Every reference in `iref`, by type: the referring item and the items it names.
    func allReferences(in iref: Box) -> [String: [(from: UInt32, to: [UInt32])]]? {
        guard let version = byte(iref.body.lowerBound),
              let references = boxes(in: iref.body.lowerBound + 4..<iref.body.upperBound) else { return nil }
        let idBytes = version == 0 ? 2 : 4
        var found: [String: [(from: UInt32, to: [UInt32])]] = [:]
        for reference in references {
            var at = reference.body.lowerBound
            guard let from = itemID(at: at, version: version), let count = uint16(at: at + idBytes) else { return nil }
            at += idBytes + 2
            var targets: [UInt32] = []
            for _ in 0..<count {
                guard at + idBytes <= reference.body.upperBound, let target = itemID(at: at, version: version) else { return nil }
                targets.append(target)
                at += idBytes
            }
            found[reference.type, default: []].append((from, targets))
        }
        return found
    }

    /// The first `count` bytes of `item`'s data, by its `iloc` entry (ISO/IEC
    /// 14496-12 8.11.3, versions 0 to 2): its first extent, in the file
    /// (construction method 0) or in `idat` (method 1); nil for another method,
    /// an item `iloc` does not place, or data shorter than `count`.
    func itemData(of item: UInt32, in iloc: Box, idat: Box?, count: Int) -> [UInt8]? {
        let start = iloc.body.lowerBound, end = iloc.body.upperBound
        guard let version = byte(start), version <= 2, let sizes = byte(start + 4), let moreSizes = byte(start + 5) else { return nil }
        let (offsetSize, lengthSize) = (Int(sizes >> 4), Int(sizes & 15))
        let (baseOffsetSize, indexSize) = (Int(moreSizes >> 4), version >= 1 ? Int(moreSizes & 15) : 0)
        var at = start + 6
        guard let itemCount = version < 2 ? uint16(at: at).map(UInt32.init) : uint32(at: at) else { return nil }
        at += version < 2 ? 2 : 4
        for _ in 0..<itemCount {
            guard at < end, let id = itemID(at: at, version: version < 2 ? 0 : 1) else { return nil }
            at += version < 2 ? 2 : 4
            var method = 0
            if version >= 1 {
                guard let field = uint16(at: at) else { return nil }
                method = Int(field & 15)
                at += 2
            }
            at += 2  // data_reference_index
            guard let base = unsigned(at: at, size: baseOffsetSize), let extents = uint16(at: at + baseOffsetSize) else { return nil }
            at += baseOffsetSize + 2
            var first: (offset: UInt64, length: UInt64)?
            for _ in 0..<extents {
                at += indexSize
                guard let offset = unsigned(at: at, size: offsetSize), let length = unsigned(at: at + offsetSize, size: lengthSize) else { return nil }
                at += offsetSize + lengthSize
                if first == nil { first = (offset, length) }
            }
            guard at <= end else { return nil }
            guard id == item else { continue }
            guard let first else { return nil }
            let region: Range<Int>
            switch method {
            case 0: region = 0..<bytes.count
            case 1:
                guard let idat else { return nil }
                region = idat.body
            default: return nil
            }
            let (from, overflow) = base.addingReportingOverflow(first.offset)
            guard !overflow, from <= UInt64(region.count) else { return nil }
            let begin = region.lowerBound + Int(from)
            guard begin + count <= region.upperBound, first.length == 0 || first.length >= UInt64(count) else { return nil }
            return Array(bytes[begin..<begin + count])
        }
        return nil
    }
}
