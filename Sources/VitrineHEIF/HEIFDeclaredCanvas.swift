import VitrineCore

/// The largest picture libheif would allocate to decode a file's primary
/// image, as the file's boxes declare it: over the primary item, every item
/// it is derived from (`dimg`: a grid's tiles, an overlay's inputs) and the
/// auxiliary images of each (`auxl`: the alpha plane libheif decodes with
/// an image, and depth or gain maps), the larger of each item's `ispe` and,
/// for a derived item, the size its own data gives: a grid's output size
/// (ImageGrid, ISO/IEC 23008-12 6.6.2.3.2) or an overlay's canvas
/// (ImageOverlay, 6.6.2.4.2), which libheif 1.15 allocates as they say,
/// whatever the `ispe`.
///
/// Why: the primary's own size is not the whole of it. A fuzzed 4.6 KB file
/// whose primary is 97x61 had an alpha plane that is a grid over an overlay
/// whose canvas libheif allocated at 1.9 GB; the size check passed it and the
/// decode took the process to 1.96 GB. A bound on every such canvas refuses it.
///
/// Fail closed: a grid's or overlay's data that cannot be read exactly
/// (`HEIFItemLocations`) refuses the file; it is never left unchecked.
enum HEIFDeclaredCanvas {
    /// The largest declared size, by pixels; nil when no item declares one.
    ///
    /// - Throws: what `HEIFItemLocations.data` throws for a derived item's data.
    static func largest(_ meta: HEIFMetaBoxes) throws(HEIFError) -> PixelSize? {
        var largest = PixelSize(width: 0, height: 0)
        var queue = [meta.primary]
        var seen: Set<UInt32> = []
        while let item = queue.popLast() {
            guard seen.insert(item).inserted else { continue }
            if let size = meta.ispe(of: item), size.pixelCount > largest.pixelCount { largest = size }
            // A grid's data: version, flags, rows - 1, columns - 1, then its output size;
            // an overlay's: version, flags, four 16-bit fill values, then its canvas size.
            // Bit 0 of the flags makes the sizes 32 bits each, else 16.
            if let sizeAt = ["grid": 4, "iovl": 10][meta.types[item] ?? ""] {
                let wide = try meta.locations.data(of: item, count: 2)[1] & 1 == 1
                let data = try meta.locations.data(of: item, count: sizeAt + (wide ? 8 : 4))
                let size = outputSize(data, at: sizeAt, wide: wide)
                if size.pixelCount > largest.pixelCount { largest = size }
            }
            queue += meta.referenced("dimg", from: item) + meta.auxiliaries(of: item)
        }
        return largest.pixelCount > 0 ? largest : nil
    }

    /// A width and height of 16 or 32 bits each, big-endian, at `at`.
    private static func outputSize(_ data: [UInt8], at: Int, wide: Bool) -> PixelSize {
        let bytes = wide ? 4 : 2
        func value(_ from: Int) -> UInt64 { data[from..<from + bytes].reduce(0) { $0 << 8 | UInt64($1) } }
        return declaredSize(value(at), value(at + bytes))
    }
}
