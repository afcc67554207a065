/// Where each item's data lies, from `iloc` (ISO/IEC 14496-12 8.11.3), read
/// field by field as the specification gives each version, and refused
/// wherever libheif 1.15 (Debian 12) or 1.19 (Debian 13) would read it
/// otherwise:
///
/// - versions 0, 1 and 2 only (libheif 1.15 reads a later one as version 2);
/// - `offset_size`, `length_size`, `base_offset_size` and `index_size` of 0,
///   4 or 8 (the only values the specification allows; libheif 1.15 reads any
///   other as a field of no bytes, worth 0, and later versions read some as
///   fields of that many bytes);
/// - `index_size` 0 in version 1: the specification gives version 1 an
///   `extent_index`, and libheif 1.19 reads it, but 1.15 reads it only in
///   version 2, so the two would read different offsets;
/// - `construction_method` 0 (the file) or 1 (`idat`): method 2 (data taken
///   from another item) libheif 1.15 does not read, and this reader neither;
/// - `data_reference_index` 0 (this file: libheif reads any other as this file too);
/// - no extent of length 0 (the whole file to the specification, nothing to libheif);
/// - no item placed twice, and nothing after the last item.
///
/// An item's data is its extents joined, in order, as libheif joins them.
struct HEIFItemLocations {
    /// Where an item's data lies: its extents, in the file or in `idat`.
    struct Location {
        var method: Int
        var extents: [(offset: UInt64, length: UInt64)]
    }

    let file: BoxBytes
    let idat: Box?
    let items: [UInt32: Location]

    init(_ iloc: Box, idat: Box?, in file: BoxBytes) throws(HEIFError) {
        self.file = file
        self.idat = idat
        let end = iloc.body.upperBound
        var at = iloc.body.lowerBound
        func read(_ size: Int, _ field: String) throws(HEIFError) -> UInt64 {
            guard at + size <= end else { throw .corrupt("`iloc` ends inside its \(field) (Vitrine's box reader)") }
            defer { at += size }
            switch size {
            case 0: return 0
            case 2: return UInt64(file.uint16(at: at)!)
            case 4: return UInt64(file.uint32(at: at)!)
            default: return file.uint64(at: at)!
            }
        }
        let version = Int(try read(4, "version") >> 24)
        guard version <= 2 else { throw .uncheckable("`iloc` of version \(version) (the specification has 0, 1 and 2)") }
        let sizes = try read(2, "field sizes")
        let (offsetSize, lengthSize, baseOffsetSize, indexSize) = (Int(sizes >> 12), Int(sizes >> 8 & 15), Int(sizes >> 4 & 15), Int(sizes & 15))
        for (name, size) in [("offset_size", offsetSize), ("length_size", lengthSize), ("base_offset_size", baseOffsetSize)]
        where ![0, 4, 8].contains(size) {
            throw .uncheckable("`iloc` \(name) is \(size): only 0, 4 or 8 are allowed, and libheif 1.15 reads a field of any other size as no bytes, worth 0")
        }
        switch version {
        case 0:
            guard indexSize == 0 else { throw .uncheckable("`iloc` version 0 with its reserved bits set (\(indexSize))") }
        case 1:
            guard indexSize == 0 else {
                throw .uncheckable("`iloc` version 1 with index_size \(indexSize): libheif 1.15 reads no extent_index in version 1, "
                    + "later versions and the specification do")
            }
        default:
            guard [0, 4, 8].contains(indexSize) else {
                throw .uncheckable("`iloc` index_size is \(indexSize): only 0, 4 or 8 are allowed, and libheif 1.15 reads a field of any other size as no bytes")
            }
        }
        let count = try read(version < 2 ? 2 : 4, "item_count")
        var items: [UInt32: Location] = [:]
        for _ in 0..<count {
            let id = UInt32(try read(version < 2 ? 2 : 4, "item_ID"))
            let method = version >= 1 ? Int(try read(2, "construction_method") & 15) : 0
            guard method <= 1 else { throw .uncheckable("item \(id)'s data is made by `iloc` construction_method \(method); only 0 (file) and 1 (idat) are read") }
            let reference = try read(2, "data_reference_index")
            guard reference == 0 else { throw .uncheckable("item \(id)'s data is in another file (`iloc` data_reference_index \(reference))") }
            let base = try read(baseOffsetSize, "base_offset")
            let extentCount = try read(2, "extent_count")
            var extents: [(offset: UInt64, length: UInt64)] = []
            for _ in 0..<extentCount {
                _ = try read(version == 0 ? 0 : indexSize, "extent_index")
                let offset = try read(offsetSize, "extent_offset")
                let length = try read(lengthSize, "extent_length")
                guard length > 0 else {
                    throw .uncheckable("item \(id) has an `iloc` extent of length 0, which the specification reads as the whole file and libheif as nothing")
                }
                let (start, overflow) = base.addingReportingOverflow(offset)
                guard !overflow, start.addingReportingOverflow(length).overflow == false else {
                    throw .corrupt("item \(id)'s `iloc` extent lies past 2^64 (Vitrine's box reader)")
                }
                extents.append((start, length))
            }
            guard items.updateValue(Location(method: method, extents: extents), forKey: id) == nil else {
                throw .uncheckable("item \(id) is placed twice in `iloc`")
            }
        }
        guard at == end else { throw .uncheckable("`iloc` has \(end - at) bytes after its last item") }
        self.items = items
    }

    /// The first `count` bytes of `item`'s data, its extents joined.
    ///
    /// - Throws: `HEIFError.truncated` when an extent in the file lies past
    ///   the end of the bytes; `.corrupt` when the item is not placed, an
    ///   extent lies outside `idat`, or the data is shorter than `count`.
    func data(of item: UInt32, count: Int) throws(HEIFError) -> [UInt8] {
        guard let location = items[item] else { throw .corrupt("item \(item) has no data: `iloc` does not place it (Vitrine's box reader)") }
        let region: Range<Int>
        if location.method == 1 {
            guard let idat else { throw .corrupt("item \(item)'s data is in `idat`, and there is none (Vitrine's box reader)") }
            region = idat.body
        } else {
            region = 0..<file.bytes.count
        }
        var data: [UInt8] = []
        for extent in location.extents {
            // Every extent checked, even past `count`: libheif reads them all.
            guard extent.offset + extent.length <= UInt64(region.count) else {
                if location.method == 0 { throw .truncated("the file ends before item \(item)'s data does (Vitrine's box reader)") }
                throw .corrupt("item \(item)'s data runs past its `idat` box (Vitrine's box reader)")
            }
            let begin = region.lowerBound + Int(extent.offset)
            let take = min(Int(extent.length), max(0, count - data.count))
            data += file.bytes[begin..<begin + take]
        }
        guard data.count >= count else {
            throw .corrupt("item \(item)'s data is \(data.count) bytes, too short for its \(count)-byte header (Vitrine's box reader)")
        }
        return data
    }
}
