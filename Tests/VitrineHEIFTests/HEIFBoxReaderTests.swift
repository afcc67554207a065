import Testing
import VitrineCore
@testable import VitrineHEIF

/// Vitrine's own reading of a HEIF's boxes, made before libheif sees the
/// file (issue 39, "Isolation"): every field `iloc` has in each version is
/// read, and what libheif 1.15 or 1.19 could read otherwise is refused, never
/// left unchecked. Files built byte by byte (`HEIFBoxBuilder`, `ILOC`).
@Suite("HEIF box reader: fails closed")
struct HEIFBoxReaderTests {
    /// A 300x200 grid (item 1, its ImageGrid in `mdat`) over one 64x64 tile (item 2).
    static let output = PixelSize(width: 300, height: 200)
    static let gridData: [UInt8] = [0, 0, 0, 0] + HEIFBoxBuilder.be16(300) + HEIFBoxBuilder.be16(200)

    /// The grid file with `iloc` made by `make` from where `mdat`'s body starts.
    func gridFile(_ make: (UInt64) -> ILOC) -> [UInt8] {
        var builder = HEIFBoxBuilder(items: [(1, "grid"), (2, "hvc1")], references: [("dimg", 1, [2])])
        builder.mdat = Self.gridData + Array(repeating: 0xAB, count: 8)
        builder.iloc = make(0).bytes
        let start = UInt64(builder.mdatOffset)
        builder.iloc = make(start).bytes
        return builder.bytes()
    }

    /// Items 1 (8 bytes of grid data) and 2 (the tile's 8 bytes) at `start`,
    /// by base offsets where `offsetSize` is 0, by extent offsets where `baseSize` is.
    func placed(_ start: UInt64, baseSize: Int, offsetSize: Int, method: UInt16 = 0, split: Bool = false) -> [ILOC.Item] {
        let three: UInt64 = 3, five: UInt64 = 5, eight: UInt64 = 8
        if offsetSize == 0 {
            return [ILOC.Item(id: 1, method: method, base: start, extents: [(0, eight)]),
                    ILOC.Item(id: 2, method: method, base: start + eight, extents: [(0, eight)])]
        }
        let base: UInt64 = baseSize == 0 ? 0 : start
        let offset: UInt64 = baseSize == 0 ? start : 0
        let grid: [(offset: UInt64, length: UInt64)] = split ? [(offset, three), (offset + three, five)] : [(offset, eight)]
        return [ILOC.Item(id: 1, method: method, base: base, extents: grid),
                ILOC.Item(id: 2, method: method, base: base, extents: [(offset + eight, eight)])]
    }

    @Test("every iloc version (0, 1, 2) with every allowed field size (0, 4, 8) and index size reads the grid's output size")
    func everyAllowedLayout() throws {
        var layouts = 0
        for version: UInt8 in 0...2 {
            for offsetSize in [0, 4, 8] {
                for baseSize in [0, 4, 8] where !(offsetSize == 0 && baseSize == 0) {
                    for lengthSize in [4, 8] {
                        for indexSize in version == 2 ? [0, 4, 8] : [0] {
                            for split in version == 0 ? [false] : [false, true] where !(split && offsetSize == 0) {
                                let file = gridFile { start in
                                    ILOC(version: version, offsetSize: offsetSize, lengthSize: lengthSize, baseSize: baseSize, indexSize: indexSize,
                                         writeIndex: indexSize > 0, items: placed(start, baseSize: baseSize, offsetSize: offsetSize, split: split))
                                }
                                #expect(try HEIFBoxBuilder.check(file) == Self.output,
                                        "version \(version), offset \(offsetSize), base \(baseSize), length \(lengthSize), index \(indexSize), split \(split)")
                                layouts += 1
                            }
                        }
                    }
                }
            }
        }
        #expect(layouts > 60)
    }

    @Test("data in idat (construction method 1), in one extent or two, is read joined")
    func idatData() throws {
        for split in [false, true] {
            var builder = HEIFBoxBuilder(items: [(1, "grid"), (2, "hvc1")], references: [("dimg", 1, [2])])
            builder.idat = [0xEE, 0xEE] + Self.gridData
            let grid: [(offset: UInt64, length: UInt64)] = split ? [(2, 5), (7, 3)] : [(2, 8)]
            builder.iloc = ILOC(items: [ILOC.Item(id: 1, method: 1, extents: grid), ILOC.Item(id: 2, extents: [(0, 8)])]).bytes
            #expect(try builder.check() == Self.output)
        }
    }

    /// `reason` is in the message of what `bytes` are refused with, of the kind `kind` names.
    func expectRefused(_ bytes: [UInt8], _ kind: String, _ reason: String, sourceLocation: SourceLocation = #_sourceLocation) {
        do throws(HEIFError) {
            let canvas = try HEIFBoxBuilder.check(bytes)
            Issue.record("read, with a canvas of \(String(describing: canvas)), instead of refused for \(reason)", sourceLocation: sourceLocation)
        } catch {
            let (found, words): (String, String)
            switch error {
            case .uncheckable(let why): (found, words) = ("uncheckable", why)
            case .corrupt(let why): (found, words) = ("corrupt", why)
            case .truncated(let why): (found, words) = ("truncated", why)
            default: (found, words) = ("other", "\(error)")
            }
            #expect(found == kind && words.contains(reason), "\(error)", sourceLocation: sourceLocation)
            #expect(!"\(error)".isEmpty)
        }
    }

    @Test("iloc fields the specification forbids, or libheif 1.15 and 1.19 read differently, are refused by name")
    func forbiddenLayouts() {
        func file(_ change: (inout ILOC) -> Void) -> [UInt8] {
            gridFile { start in
                var iloc = ILOC(items: placed(start, baseSize: 4, offsetSize: 4))
                change(&iloc)
                return iloc
            }
        }
        // libheif 1.15 reads index_size only in version 2, 1.19 in 1 and 2: either way one misreads.
        expectRefused(file { $0.indexSize = 4; $0.writeIndex = true }, "uncheckable", "version 1 with index_size 4")
        expectRefused(file { $0.indexSize = 4 }, "uncheckable", "version 1 with index_size 4")
        // Sizes other than 0, 4 and 8: libheif 1.15 reads such a field as 0 bytes.
        expectRefused(file { $0.offsetSize = 2 }, "uncheckable", "offset_size is 2")
        expectRefused(file { $0.lengthSize = 3 }, "uncheckable", "length_size is 3")
        expectRefused(file { $0.baseSize = 1 }, "uncheckable", "base_offset_size is 1")
        expectRefused(file { $0.version = 2; $0.indexSize = 2; $0.writeIndex = true }, "uncheckable", "index_size is 2")
        expectRefused(file { $0.version = 0; $0.indexSize = 4 }, "uncheckable", "reserved bits")
        expectRefused(file { $0.version = 3 }, "uncheckable", "version 3")
        expectRefused(file { $0.items[0].method = 2 }, "uncheckable", "construction_method 2")
        expectRefused(file { $0.items[0].dataReference = 1 }, "uncheckable", "data_reference_index 1")
        // Length 0: the whole file to the specification, nothing to libheif 1.15.
        expectRefused(file { $0.items[1].extents[0].length = 0 }, "uncheckable", "length 0")
        expectRefused(file { $0.items.append($0.items[1]) }, "uncheckable", "item 2 is placed twice")
        expectRefused(file { $0.items[0].extents[0].offset = 1 << 20 }, "truncated", "the file ends before item 1's data does")
        expectRefused(file { $0.items.removeFirst() }, "corrupt", "item 1 has no data")
        expectRefused(file { $0.items[0].extents = [(0, 3)]; $0.items[0].extents[0].offset = 0 }, "corrupt", "too short")
        var trailing = HEIFBoxBuilder(items: [(1, "hvc1")])
        trailing.iloc = ILOC(items: [ILOC.Item(id: 1, extents: [(0, 8)])]).bytes + [0]
        expectRefused(trailing.bytes(), "uncheckable", "1 bytes after its last item")
    }

    @Test("a grid past its idat box is refused, not read from the boxes after it")
    func pastIdat() {
        var builder = HEIFBoxBuilder(items: [(1, "grid"), (2, "hvc1")], references: [("dimg", 1, [2])])
        builder.idat = Self.gridData
        builder.iloc = ILOC(items: [ILOC.Item(id: 1, method: 1, extents: [(4, 8)]), ILOC.Item(id: 2, extents: [(0, 8)])]).bytes
        expectRefused(builder.bytes(), "corrupt", "runs past its `idat` box")
    }

    @Test("derivation cycles, chains deeper than four items and auxiliary images of auxiliary images are refused")
    func derivations() throws {
        func items(_ count: Int) -> [(id: UInt16, type: String)] { (1...UInt16(count)).map { ($0, $0 == UInt16(count) ? "hvc1" : "iden") } }
        var builder = HEIFBoxBuilder(items: items(2))
        builder.references = [("dimg", 1, [1])]
        expectRefused(builder.bytes(), "corrupt", "item 1 (iden) derives from itself: item 1 (iden) -> item 1 (iden)")
        builder.references = [("dimg", 1, [2]), ("dimg", 2, [1])]
        expectRefused(builder.bytes(), "corrupt", "derives from itself")
        builder.items = items(4)
        builder.references = [("dimg", 1, [2]), ("dimg", 2, [3]), ("dimg", 3, [4])]
        #expect(try builder.check() == PixelSize(width: 64, height: 64), "four levels: an identity over an overlay over a grid over tiles")
        builder.items = items(5)
        builder.references.append(("dimg", 4, [5]))
        expectRefused(builder.bytes(), "uncheckable", "5 levels of `dimg` references, more than 4")
        // A chain of 3,000 is refused at its fifth item, without recursing through the rest.
        builder.items = items(3000)
        builder.references = (1..<3000).map { ("dimg", UInt16($0), [UInt16($0 + 1)]) }
        expectRefused(builder.bytes(), "uncheckable", "5 levels of `dimg` references, more than 4")
        // An alpha plane counts from its image's level: an overlay whose alpha is an overlay over a grid over tiles.
        builder.items = [(1, "iovl"), (2, "grid"), (3, "hvc1"), (4, "iovl"), (5, "grid"), (6, "hvc1")]
        builder.references = [("dimg", 1, [2]), ("dimg", 2, [3]), ("auxl", 4, [1]), ("dimg", 4, [5]), ("dimg", 5, [6])]
        #expect(throws: Never.self) { try Self.derivationsOnly(builder.bytes()) }
        builder.references += [("dimg", 6, [2])]  // the alpha chain: 4 -> 5 -> 6 -> 2 -> 3
        expectRefused(builder.bytes(), "uncheckable", "5 levels of `dimg` references, more than 4")
        builder.items = items(3)
        builder.references = [("auxl", 2, [1]), ("auxl", 1, [2])]
        expectRefused(builder.bytes(), "uncheckable", "an auxiliary image with an auxiliary image of its own")
        builder.references = [("auxl", 2, [1]), ("auxl", 3, [2])]
        expectRefused(builder.bytes(), "uncheckable", "an auxiliary image with an auxiliary image of its own")
        builder.references = [("auxl", 2, [1]), ("dimg", 2, [3])]
        #expect(try builder.check() != nil, "an alpha plane that is itself derived, as a grid's alpha is")
        builder.references = [("dimg", 1, [2]), ("dimg", 1, [3])]
        expectRefused(builder.bytes(), "uncheckable", "item 1 has two `dimg` references")
        // An input libheif 1.15 has no image for (another type, or no infe): its decode aborts on an assertion.
        builder.items = [(1, "iden"), (2, "Exif")]
        builder.references = [("dimg", 1, [2])]
        expectRefused(builder.bytes(), "corrupt", "item 1 (iden) derives from item 2 (Exif), which is not an image libheif decodes")
        builder.references = [("dimg", 1, [9])]
        expectRefused(builder.bytes(), "corrupt", "derives from item 9 (no type)")
    }

    /// The boxes read and the derivations checked, without the canvas (whose items' data these files lack).
    static func derivationsOnly(_ bytes: [UInt8]) throws(HEIFError) {
        let result = bytes.withUnsafeBytes { raw in
            Result { () throws(HEIFError) in try HEIFDerivations.check(try HEIFMetaBoxes(raw)) }
        }
        try result.get()
    }

    @Test("an iref reference whose size is not its contents' is refused: libheif 1.15 reads the items on, whatever the size")
    func referenceSizes() throws {
        let builder = HEIFBoxBuilder(items: [(1, "iden"), (2, "hvc1")], references: [("dimg", 1, [2])])
        var bytes = builder.bytes()
        #expect(try HEIFBoxBuilder.check(bytes) == PixelSize(width: 64, height: 64))
        // The dimg box: 8 + 2 + 2 + 2 bytes; two more bytes in it, and in the boxes around it.
        let dimg = start(of: "dimg", in: bytes)
        for box in [dimg, start(of: "iref", in: bytes), start(of: "meta", in: bytes)] { grow(&bytes, box, by: 2) }
        bytes.insert(contentsOf: [0, 0], at: dimg + 14)
        expectRefused(bytes, "uncheckable", "is 8 bytes long, but its 1 items take 6")
    }

    /// Where the first box of `type` starts in `bytes`.
    func start(of type: String, in bytes: [UInt8]) -> Int {
        bytes.indices.first { bytes[$0..<min($0 + 4, bytes.count)].elementsEqual(type.utf8) }! - 4
    }

    /// Adds `count` to the 32-bit size of the box at `box`.
    func grow(_ bytes: inout [UInt8], _ box: Int, by count: Int) {
        let size = bytes[box..<box + 4].reduce(0) { $0 << 8 | Int($1) } + count
        bytes.replaceSubrange(box..<box + 4, with: HEIFBoxBuilder.be32(UInt32(size)))
    }

    @Test("two top-level meta boxes are refused: libheif 1.15 reads the last")
    func twoMetas() {
        var bytes = HEIFBoxBuilder().bytes()
        let meta = start(of: "meta", in: bytes)
        let size = bytes[meta..<meta + 4].reduce(0) { $0 << 8 | Int($1) }
        bytes += bytes[meta..<meta + size]
        expectRefused(bytes, "uncheckable", "2 top-level meta boxes")
        // Cut inside the meta box: the file ends before it does.
        expectRefused(Array(HEIFBoxBuilder().bytes().prefix(meta + 20)), "truncated", "ends before its meta box")
    }
}
