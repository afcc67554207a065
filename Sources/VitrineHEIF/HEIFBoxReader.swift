import VitrineCore

// ISO BMFF boxes as HEIF files lay them out (ISO/IEC 14496-12, ISO/IEC
// 23008-12), read by Vitrine itself for what libheif 1.15 reads but does not
// tell: a grid's layout (HEIFGridLayout), the sizes of the pictures it would
// allocate (HEIFDeclaredCanvas) and how items derive from each other
// (HEIFDerivations). Every read is checked against the bytes; nothing here
// allocates more than the file's own size in bookkeeping.
//
// Fail closed: these checks guard libheif, so a box read here must be read
// exactly as libheif reads it. What cannot be (a field the specification
// forbids, a layout libheif 1.15 and later versions read differently) refuses
// the file with a HEIFError naming it, never skips a check (issue 39: three
// rewritings of an overlay bomb passed because the reader gave up quietly).

/// A box: its four-character type and where its body lies in the file.
struct Box {
    let type: String
    let body: Range<Int>
    /// Where its header starts: 8 bytes before the body, or 16 with a 64-bit
    /// size, 16 more for a `uuid` box's user type.
    var start: Int

    init(type: String, body: Range<Int>, start: Int? = nil) {
        self.type = type
        self.body = body
        self.start = start ?? body.lowerBound - 8
    }
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

    /// The box that starts at `at` and ends within `end`, as libheif 1.15's
    /// `BoxHeader::parse` and `Box::read` take it: a 32-bit size, or 1 and a
    /// 64-bit size; a `uuid` box's 16-byte user type is header too. nil when
    /// the header or the body would leave `end`, or the size is smaller than
    /// the header: a size of 0 ("to the end of the file" in ISO/IEC 14496-12)
    /// is such a size to libheif 1.15, which refuses the box.
    func box(at: Int, end: Int) -> Box? {
        guard at >= 0, end <= bytes.count, let size32 = uint32(at: at), let type = fourCC(at: at + 4) else { return nil }
        var header = 8
        var size = UInt64(size32)
        if size32 == 1 {
            guard let large = uint64(at: at + 8) else { return nil }
            header = 16
            size = large
        }
        if type == "uuid" { header += 16 }
        guard size >= UInt64(header), size <= UInt64(max(0, end - at)) else { return nil }
        return Box(type: type, body: at + header..<at + Int(size), start: at)
    }

    /// The boxes that fill `range` exactly, in order, as libheif reads a
    /// container's children (`Box::read_children`: a child it cannot read
    /// fails the container, and with it the file).
    func boxes(in range: Range<Int>, of container: String) throws(HEIFError) -> [Box] {
        guard range.lowerBound >= 0, range.upperBound <= bytes.count else {
            throw .truncated("the file ends inside its `\(container)` box (Vitrine's box reader)")
        }
        var found: [Box] = []
        var at = range.lowerBound
        while at < range.upperBound {
            guard let box = box(at: at, end: range.upperBound) else {
                throw .corrupt("a box inside `\(container)` at byte \(at) does not fit in it, or has a size of 0 (Vitrine's box reader)")
            }
            found.append(box)
            at = box.body.upperBound
        }
        return found
    }

    /// A full box's contents: its body after the version and flags, which it
    /// must have (FuzzHEIFDifferential found a `meta` box of 0 bytes, whose
    /// range after them trapped).
    func fullBoxContents(_ box: Box) throws(HEIFError) -> Range<Int> {
        guard box.body.count >= 4 else { throw .corrupt("a `\(box.type)` box too short for its version and flags (Vitrine's box reader)") }
        return box.body.lowerBound + 4..<box.body.upperBound
    }

    /// The file's top-level boxes as libheif 1.15 reads them
    /// (`HeifFile::parse_heif_file`): from the start up to the first box it
    /// cannot read, which ends the file for it, so that bytes after the last
    /// box are no error (FuzzHEIF found an overlay bomb that passed the check
    /// by 18 such bytes). `cutShort` is whether that first box ran past the
    /// end of the bytes, which is what a file cut short looks like.
    func topLevelBoxes() -> (boxes: [Box], cutShort: Bool) {
        var found: [Box] = []
        var at = 0
        while at < bytes.count {
            guard let box = box(at: at, end: bytes.count) else {
                let claimed = uint32(at: at).map { $0 == 1 ? uint64(at: at + 8) ?? .max : UInt64($0) } ?? .max
                return (found, claimed > UInt64(bytes.count - at))
            }
            found.append(box)
            at = box.body.upperBound
        }
        return (found, false)
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
}

/// A size read from the boxes, each side at most 2^31 (a box may claim up to
/// 2^32 - 1 a side, whose product overflows an Int, and `pixelCount` would
/// trap): such a size is far over any pixel limit either way, and is refused
/// as it is clamped. FuzzHEIF found the trap in HEIFGridLayout.
func declaredSize(_ width: UInt64, _ height: UInt64) -> PixelSize {
    PixelSize(width: Int(min(width, 1 << 31)), height: Int(min(height, 1 << 31)))
}

/// `value`, or a `HEIFError.corrupt` naming what could not be read.
@inline(__always)
func required<T>(_ value: T?, _ what: @autoclosure () -> String) throws(HEIFError) -> T {
    guard let value else { throw .corrupt("\(what()) (Vitrine's box reader)") }
    return value
}
