import VitrineCore

/// A HEIF file's `meta` box, read once and exactly, before libheif sees the
/// file: the primary item, every item's type and properties, the references,
/// and where items' data lie (`HEIFItemLocations`).
///
/// Each box is read as libheif 1.15 reads it; where libheif would read a box
/// otherwise than the specification says, or than Vitrine can, the file is
/// refused (`init` throws): a reference box whose size disagrees with its
/// contents, a second `meta`, `iloc` or `ipco`, an item named twice.
struct HEIFMetaBoxes {
    let file: BoxBytes
    let primary: UInt32
    let types: [UInt32: String]
    let properties: ItemProperties
    /// `iref`'s references by type (`dimg`, `auxl`, ...), then by referring
    /// item: the items it names, in order.
    let references: [String: [UInt32: [UInt32]]]
    /// Each image's auxiliary images (the items whose `auxl` names it), made
    /// once: looking them up by scanning every reference for every item would
    /// take a fuzzed file of many items quadratic time.
    let auxiliaries: [UInt32: [UInt32]]
    let locations: HEIFItemLocations

    /// The boxes of the file in `bytes`.
    ///
    /// - Throws: `HEIFError.truncated` when the bytes end before the `meta`
    ///   box does; `.corrupt` when a box is missing, damaged or repeated;
    ///   `.uncheckable` for what libheif would read otherwise than this reader.
    init(_ bytes: UnsafeRawBufferPointer) throws(HEIFError) {
        file = BoxBytes(bytes)
        let (top, cutShort) = file.topLevelBoxes()
        let metas = top.filter { $0.type == "meta" }
        guard metas.count <= 1 else {
            // libheif 1.15 takes the last, this reader took the first: one is the only safe count.
            throw .uncheckable("the file has \(metas.count) top-level meta boxes")
        }
        guard let meta = metas.first else {
            if cutShort { throw .truncated("the file ends before its meta box does (Vitrine's box reader)") }
            throw .corrupt("no meta box (Vitrine's box reader)")
        }
        let children = try file.boxes(in: try file.fullBoxContents(meta), of: "meta")
        func only(_ type: String, in boxes: [Box], of container: String) throws(HEIFError) -> Box? {
            let found = boxes.filter { $0.type == type }
            guard found.count <= 1 else { throw .uncheckable("the `\(container)` box has \(found.count) `\(type)` boxes") }
            return found.first
        }
        let pitm = try required(try only("pitm", in: children, of: "meta"), "no `pitm` box")
        let iinf = try required(try only("iinf", in: children, of: "meta"), "no `iinf` box")
        let iprp = try required(try only("iprp", in: children, of: "meta"), "no `iprp` box")
        let iloc = try required(try only("iloc", in: children, of: "meta"), "no `iloc` box")
        let idat = try only("idat", in: children, of: "meta")
        let iref = try only("iref", in: children, of: "meta")
        let pitmVersion = try required(file.byte(pitm.body.lowerBound), "an empty `pitm` box")
        guard pitmVersion <= 1 else { throw .uncheckable("`pitm` of version \(pitmVersion)") }
        primary = try required(file.itemID(at: pitm.body.lowerBound + 4, version: pitmVersion), "a `pitm` box too short")
        types = try file.itemTypes(in: iinf)
        let containers = try file.boxes(in: iprp.body, of: "iprp")
        let ipco = try required(try only("ipco", in: containers, of: "iprp"), "no `ipco` box")
        properties = try file.properties(ipco: ipco, ipmas: containers.filter { $0.type == "ipma" })
        let bytes = file
        references = try iref.map { box throws(HEIFError) in try bytes.references(in: box) } ?? [:]
        var auxiliaries: [UInt32: [UInt32]] = [:]
        for (auxiliary, masters) in references["auxl"] ?? [:] {
            for master in masters { auxiliaries[master, default: []].append(auxiliary) }
        }
        self.auxiliaries = auxiliaries.mapValues { $0.sorted() }
        locations = try HEIFItemLocations(iloc, idat: idat, in: file)
    }

    /// The items `item` refers to by references of `type`, in order (`dimg`: a derived item's inputs).
    func referenced(_ type: String, from item: UInt32) -> [UInt32] { references[type]?[item] ?? [] }

    /// `item`'s `ispe` (a full box: version and flags, then 32-bit width and
    /// height), clamped as `declaredSize` does; the largest when it has
    /// several; nil without one.
    func ispe(of item: UInt32) -> PixelSize? {
        properties.of(item).filter { $0.type == "ispe" }.compactMap { ispe -> PixelSize? in
            guard let width = file.uint32(at: ispe.body.lowerBound + 4), let height = file.uint32(at: ispe.body.lowerBound + 8) else { return nil }
            return declaredSize(UInt64(width), UInt64(height))
        }.max { $0.pixelCount < $1.pixelCount }
    }

    /// `item`'s auxiliary images: the items whose `auxl` names it (its alpha plane, a depth map).
    func auxiliaries(of item: UInt32) -> [UInt32] { auxiliaries[item] ?? [] }
}

extension BoxBytes {
    /// Every item's `item_type`, from `iinf`'s `infe` boxes of version 2 and
    /// 3 (earlier versions have no type: libheif reads no image from them).
    /// `entry_count` must be the number of `infe` boxes (libheif 1.15 reads
    /// every child whatever it says, unless it is 0), and no item may be named
    /// twice (libheif keeps the first, this reader would keep the last).
    func itemTypes(in iinf: Box) throws(HEIFError) -> [UInt32: String] {
        let version = try required(byte(iinf.body.lowerBound), "an empty `iinf` box")
        let countAt = iinf.body.lowerBound + 4
        let count = try required(version == 0 ? uint16(at: countAt).map(UInt32.init) : uint32(at: countAt), "an `iinf` box too short")
        let entries = countAt + (version == 0 ? 2 : 4)
        guard entries <= iinf.body.upperBound else { throw .corrupt("an `iinf` box too short (Vitrine's box reader)") }
        let infes = try boxes(in: entries..<iinf.body.upperBound, of: "iinf")
        guard infes.count == count, infes.allSatisfy({ $0.type == "infe" }) else {
            throw .uncheckable("`iinf` says \(count) items but holds \(infes.count) boxes (\(infes.filter { $0.type == "infe" }.count) `infe`)")
        }
        var types: [UInt32: String] = [:]
        var named: Set<UInt32> = []
        for infe in infes {
            let infeVersion = try required(byte(infe.body.lowerBound), "an empty `infe` box")
            guard infeVersion >= 2 else {
                if let id = uint16(at: infe.body.lowerBound + 4), !named.insert(UInt32(id)).inserted { throw .uncheckable("item \(id) is named twice in `iinf`") }
                continue
            }
            let idBytes = infeVersion == 2 ? 2 : 4
            let id = try required(itemID(at: infe.body.lowerBound + 4, version: infeVersion == 2 ? 0 : 1), "an `infe` box too short")
            let typeAt = infe.body.lowerBound + 4 + idBytes + 2
            guard typeAt + 4 <= infe.body.upperBound, let type = fourCC(at: typeAt) else { throw .corrupt("an `infe` box too short (Vitrine's box reader)") }
            guard named.insert(id).inserted else { throw .uncheckable("item \(id) is named twice in `iinf`") }
            types[id] = type
        }
        return types
    }

    /// Every reference in `iref`, by type, then by referring item.
    ///
    /// libheif 1.15 (`Box_iref::parse`) reads a reference's header and then
    /// its item IDs straight on, whatever size the header gives; this reader
    /// goes by the size. So each reference box must be exactly as long as its
    /// contents, or the two would read different references. An item that
    /// refers twice by one type is refused too: libheif uses the first
    /// (`get_references`), and the checks here would see both.
    func references(in iref: Box) throws(HEIFError) -> [String: [UInt32: [UInt32]]] {
        let version = try required(byte(iref.body.lowerBound), "an empty `iref` box")
        guard version <= 1 else { throw .uncheckable("`iref` of version \(version)") }
        let idBytes = version == 0 ? 2 : 4
        var found: [String: [UInt32: [UInt32]]] = [:]
        for reference in try boxes(in: try fullBoxContents(iref), of: "iref") {
            var at = reference.body.lowerBound
            let from = try required(itemID(at: at, version: version), "a `\(reference.type)` reference too short")
            let count = try required(uint16(at: at + idBytes), "a `\(reference.type)` reference too short")
            guard reference.body.lowerBound - reference.start == 8, reference.body.count == idBytes + 2 + Int(count) * idBytes else {
                throw .uncheckable("the `\(reference.type)` reference from item \(from) is \(reference.body.count) bytes long, "
                    + "but its \(count) items take \(idBytes + 2 + Int(count) * idBytes)")
            }
            at += idBytes + 2
            var targets: [UInt32] = []
            for _ in 0..<count {
                targets.append(try required(itemID(at: at, version: version), "a `\(reference.type)` reference too short"))
                at += idBytes
            }
            guard found[reference.type]?[from] == nil else {
                throw .uncheckable("item \(from) has two `\(reference.type)` references")
            }
            found[reference.type, default: [:]][from] = targets
        }
        return found
    }

    /// `ipco`'s property boxes and every `ipma`'s associations (libheif
    /// merges every `ipma` too).
    func properties(ipco: Box, ipmas: [Box]) throws(HEIFError) -> ItemProperties {
        let properties = try boxes(in: ipco.body, of: "ipco")
        var associations: [UInt32: [Int]] = [:]
        for ipma in ipmas {
            let start = ipma.body.lowerBound
            guard let version = byte(start), let flags = byte(start + 3), let count = uint32(at: start + 4) else {
                throw .corrupt("an `ipma` box too short (Vitrine's box reader)")
            }
            let wideIndices = flags & 1 == 1
            var at = start + 8
            for _ in 0..<count {
                let item = try required(itemID(at: at, version: version == 0 ? 0 : 1), "an `ipma` box too short")
                at += version == 0 ? 2 : 4
                let associationCount = try required(byte(at), "an `ipma` box too short")
                at += 1
                for _ in 0..<associationCount {
                    let value = try required(wideIndices ? uint16(at: at).map(Int.init) : byte(at).map(Int.init), "an `ipma` box too short")
                    associations[item, default: []].append(value & (wideIndices ? 0x7FFF : 0x7F))
                    at += wideIndices ? 2 : 1
                }
                guard at <= ipma.body.upperBound else { throw .corrupt("an `ipma` entry runs past its box (Vitrine's box reader)") }
            }
        }
        return ItemProperties(boxes: properties, associations: associations)
    }
}
