import VitrineCore

/// The largest picture libheif would allocate to decode a file's primary
/// image, as the file's boxes declare it: over the primary item, its
/// auxiliary images (`auxl`: the alpha plane libheif decodes with it, and
/// depth or gain maps), and every item they are derived from (`dimg`:
/// a grid's tiles, an overlay's inputs), the larger of each item's `ispe`
/// and, for a derived item, the size its own data gives: a grid's output
/// size (ImageGrid, ISO/IEC 23008-12 6.6.2.3.2) or an overlay's canvas
/// (ImageOverlay, 6.6.2.4.2), which libheif 1.15 allocates as they say,
/// whatever the `ispe`.
///
/// Why: the primary's own size is not the whole of it. A fuzzed 4.6 KB file
/// whose primary is 97x61 had an alpha plane that is a grid over an overlay
/// whose canvas libheif allocated at 1.9 GB; the size check passed it and the
/// decode took the process to 1.96 GB. A bound on every such canvas refuses it.
enum HEIFDeclaredCanvas {
    /// The largest declared size, by pixels; nil when the boxes cannot be
    /// read plainly (then only the primary's own sizes are checked).
    static func largest(_ meta: HEIFMetaBoxes) -> PixelSize? {
        let (file, types) = (meta.file, meta.types)
        guard let iloc = meta.iloc else { return nil }
        let idat = meta.idat
        var largest = PixelSize(width: 0, height: 0)
        func consider(_ width: UInt64, _ height: UInt64) {
            let size = declaredSize(width, height)
            if size.pixelCount > largest.pixelCount { largest = size }
        }
        var queue = [meta.primary] + meta.referring("auxl", to: meta.primary)
        var seen: Set<UInt32> = []
        while let item = queue.popLast() {
            guard seen.insert(item).inserted else { continue }
            // A file names at most as many items as it has bytes for; this bounds a cycle's cost too.
            guard seen.count <= 65_536 else { return nil }
            if let size = meta.ispe(of: item), size.pixelCount > largest.pixelCount { largest = size }
            // A grid's data: version, flags, rows - 1, columns - 1, then its output size;
            // an overlay's: version, flags, four 16-bit fill values, then its canvas size.
            // Bit 0 of the flags makes the sizes 32 bits each, else 16.
            if let sizeAt = ["grid": 4, "iovl": 10][types[item] ?? ""] {
                guard let flags = file.itemData(of: item, in: iloc, idat: idat, count: 2)?[1] else { return nil }
                let wide = flags & 1 == 1
                guard let data = file.itemData(of: item, in: iloc, idat: idat, count: sizeAt + (wide ? 8 : 4)) else { return nil }
                let (width, height) = outputSize(data, at: sizeAt, wide: wide)
                consider(width, height)
            }
            queue += meta.referenced("dimg", from: item)
        }
        return largest.pixelCount > 0 ? largest : nil
    }

    /// A width and height of 16 or 32 bits each, big-endian, at `at`.
    private static func outputSize(_ data: [UInt8], at: Int, wide: Bool) -> (UInt64, UInt64) {
        let bytes = wide ? 4 : 2
        func value(_ from: Int) -> UInt64 { data[from..<from + bytes].reduce(0) { $0 << 8 | UInt64($1) } }
        return (value(at), value(at + bytes))
    }
}
