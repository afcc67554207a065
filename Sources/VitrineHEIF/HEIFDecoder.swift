internal import CLibHEIF
import VitrineCore

/// What a HEIF file's boxes say about its primary image, read without decoding it.
public struct HEIFInfo: Hashable, Sendable {
    /// The size shown: after the file's own transforms (`irot`, `imir`,
    /// `clap`), which libheif applies as it decodes. This is the size a slide is framed by.
    public var size: PixelSize
    /// The size as coded (`ispe`), before the transforms.
    public var codedSize: PixelSize
    public var hasAlpha: Bool
    /// Bits a luma sample (8, or 10 and 12 for a deep picture, which is decoded to 8).
    public var bitDepth: Int
    /// A tiled primary image's layout, read by Vitrine (`HEIFGridLayout.read`); nil for any other.
    public var grid: HEIFGridLayout?
    /// The largest picture libheif would allocate for it, as the boxes declare
    /// it (`HEIFDeclaredCanvas`): its tiles, its alpha plane and what they are
    /// derived from included; nil when no item declares a size (a file whose
    /// boxes cannot be read exactly is refused, not given nil).
    public var largestCanvas: PixelSize?

    public init(size: PixelSize, codedSize: PixelSize, hasAlpha: Bool, bitDepth: Int, grid: HEIFGridLayout? = nil,
                largestCanvas: PixelSize? = nil) {
        self.size = size
        self.codedSize = codedSize
        self.hasAlpha = hasAlpha
        self.bitDepth = bitDepth
        self.grid = grid
        self.largestCanvas = largestCanvas
    }

    /// The most pixels any one picture of its decode has: shown, coded, or
    /// declared by its boxes.
    var decodedPixels: Int { max(size.pixelCount, codedSize.pixelCount, largestCanvas?.pixelCount ?? 0) }
}

/// How a picture is decoded. Both give the same pixels (the tests compare
/// them on every fixture); they differ in the memory libheif holds.
enum HEIFDecodeRoute: Equatable {
    /// libheif applies the transforms and interleaves: `heif_decode_image`
    /// to `heif_chroma_interleaved_RGB` (`_RGBA` with alpha).
    case libheif
    /// For a tiled 8-bit picture: libheif assembles the tiles as planar RGB
    /// (`heif_chroma_444`, `ignore_transformations`), which it then neither
    /// copies to turn it nor to interleave it; rows are read through `HEIFPixelMap`.
    case planarGrid(HEIFGridLayout)
}

/// A decoded HEIF: its primary image, upright as its transforms say.
public struct DecodedHEIF: Sendable {
    public let image: PixelImage
    public let info: HEIFInfo
}

/// HEIF and HEIC stills through libheif, into XRGB8888: the file's primary
/// image, with the transforms the file gives it (`irot`, `imir`, `clap`)
/// applied by libheif. Its EXIF orientation is never read: in HEIF the
/// transforms are the orientation (ISO/IEC 23008-12 requires a reader to
/// ignore EXIF's), so a picture is never turned twice.
///
/// libheif has no scaler: the picture is decoded whole at its own size
/// (`heif_decode_image`), then handed out in strips of XRGB to be framed. A
/// tiled picture too large for libheif's own route (a phone's 48-megapixel
/// photo) is assembled as planes and turned as its rows are read
/// (`HEIFDecodeRoute`), in a third of the memory.
/// Every call returns a `heif_error` (no longjmp). Decoding is strict
/// (`heif_decoding_options.strict_decoding`), and a decoding warning is an
/// error too: a damaged or truncated file is a `HEIFError`, never part of a
/// picture. Alpha is composited onto black, as a PNG's or WebP's is.
public enum HEIFDecoder {
    /// The `ftyp` brands sniffed as HEIF (ISO/IEC 23008-12 Annex B; AV1 Image
    /// File Format for `avif`): HEVC stills and sequences (`heic`, `heix`,
    /// `hevc`, `hevx`), multi-view and scalable HEVC (`heim`, `heis`), any
    /// codec (`mif1`, `msf1`), and AV1 (`avif`), which Debian's libheif decodes
    /// with dav1d. A sequence shows its primary still image, if it has one.
    public static let brands: [String] = ["heic", "heix", "hevc", "hevx", "heim", "heis", "mif1", "msf1", "avif"]

    /// The brands in words, for messages.
    static var brandList: String { brands.joined(separator: ", ") }

    /// Whether `bytes` start as a HEIF file does: an ISO BMFF `ftyp` box whose
    /// major brand or one of its compatible brands is one of `brands`. The
    /// format is known by these bytes only, never by a file's name; an MP4 or
    /// QuickTime movie (`isom`, `qt  `) is not HEIF.
    public static func hasSignature(_ bytes: some Collection<UInt8>) -> Bool {
        let head = Array(bytes.prefix(maxFtypBytes))
        guard head.count >= 12, head[4..<8].elementsEqual("ftyp".utf8) else { return false }
        let size = head[0..<4].reduce(0) { $0 << 8 | Int($1) }
        guard size >= 16 else { return brands.contains { head[8..<12].elementsEqual($0.utf8) } }
        // The major brand, then (after the minor version) the compatible brands, within the box.
        let end = min(size, head.count)
        return stride(from: 8, to: end - 3, by: 4).contains { at in
            at != 12 && brands.contains { head[at..<at + 4].elementsEqual($0.utf8) }
        }
    }

    /// How far the `ftyp` box is looked at: 64 compatible brands.
    static let maxFtypBytes = 16 + 64 * 4

    /// Reads the boxes of the HEIF file in `bytes`, which must be the whole
    /// file (`heif_context_read_from_memory_without_copy`: libheif checks that
    /// every item's data lies within it), and its primary image's size,
    /// alpha and depth (`heif_context_get_primary_image_handle`,
    /// `heif_image_handle_get_width`/`_height` after transforms,
    /// `heif_image_handle_get_ispe_width`/`_height` before).
    ///
    /// Before libheif reads anything, Vitrine reads the `meta` box itself
    /// (`HEIFMetaBoxes`), refuses derivation cycles and deep chains
    /// (`HEIFDerivations`) and reads every canvas the primary's decode would
    /// allocate (`HEIFDeclaredCanvas`): a file those cannot read exactly is
    /// refused, never passed on unchecked.
    ///
    /// - Throws: `HEIFError.empty`, `.notHEIF` without the signature;
    ///   `.truncated`, `.corrupt` or `.uncheckable` from Vitrine's own reading
    ///   of the boxes; libheif's error as a `HEIFError` when it finds the
    ///   boxes damaged or cut short.
    public static func info(_ bytes: UnsafeRawBufferPointer) throws(HEIFError) -> HEIFInfo {
        try withPrimaryImage(bytes) { _, info throws(HEIFError) in info }
    }

    /// Refuses a picture over `maxPixels` (`decode.maxPixels`), shown or as
    /// coded, and one whose decode would take libheif more than
    /// `decoderByteLimit` bytes by every route (`decoderBytes`).
    public static func requireWithinLimits(_ info: HEIFInfo, maxPixels: Int, decoderByteLimit: Int) throws(HEIFError) {
        _ = try route(for: info, maxPixels: maxPixels, decoderByteLimit: decoderByteLimit)
    }

    /// The route a picture of `info` is decoded by: libheif's own when it
    /// fits in `decoderByteLimit`, else the planar one for a tiled picture
    /// when that fits. Each is tried in this order so that every picture that
    /// decoded before the planar route existed decodes exactly as it did.
    static func route(for info: HEIFInfo, maxPixels: Int, decoderByteLimit: Int) throws(HEIFError) -> HEIFDecodeRoute {
        for size in [info.size, info.codedSize] + (info.largestCanvas.map { [$0] } ?? []) {
            let (pixels, overflow) = size.width.multipliedReportingOverflow(by: size.height)
            guard !overflow, pixels <= maxPixels else { throw .tooManyPixels(size: size, limit: maxPixels) }
        }
        if libheifRouteBytes(info) <= decoderByteLimit { return .libheif }
        if let layout = planarGridLayout(info), planarGridBytes(info, layout) <= decoderByteLimit { return .planarGrid(layout) }
        throw .tooLargeToDecode(size: info.size, bytes: decoderBytes(info), limit: decoderByteLimit)
    }

    /// The most bytes libheif holds at once to decode a picture of `info`
    /// by the cheapest route it can take (`libheifRouteBytes`, `planarGridBytes`).
    public static func decoderBytes(_ info: HEIFInfo) -> Int {
        let own = libheifRouteBytes(info)
        guard let layout = planarGridLayout(info) else { return own }
        return min(own, planarGridBytes(info, layout))
    }

    /// libheif's own route, estimated from above: the coded picture twice (the
    /// codec's frame and libheif's copy, or a grid's tiles and the whole it
    /// assembles them into, and the turned copy `irot` makes) as 4:4:4 planes
    /// of one byte a sample, two when deeper than 8 bits, plus the interleaved
    /// RGB or RGBA output. An 8-bit picture without alpha: 9 bytes a pixel.
    static func libheifRouteBytes(_ info: HEIFInfo) -> Int {
        let channels = info.hasAlpha ? 4 : 3
        let planar = channels * (info.bitDepth > 8 ? 2 : 1)
        return bytes(pixels: info.decodedPixels, times: 2 * planar + channels)
    }

    /// The planar route's layout, for a tiled 8-bit picture whose alpha, if
    /// it has one, is not turned: libheif 1.15 adds the alpha plane after it
    /// applies the transforms, not turning it, so that a turned picture with
    /// alpha is left to libheif to be shown as it shows it.
    static func planarGridLayout(_ info: HEIFInfo) -> HEIFGridLayout? {
        guard let layout = info.grid, info.bitDepth == 8, !info.hasAlpha || layout.transforms.isEmpty else { return nil }
        return layout
    }

    /// The planar route, estimated from above: the RGB planes (one byte a
    /// sample) and the grid as assembled before them, in the tiles' own
    /// chroma format (libheif 1.19 and later, Debian 13's 1.23.6 among them,
    /// assemble a grid so and convert it after; 1.15 to 1.18 assemble it as
    /// RGB directly, and the estimate is above them); with alpha, the alpha image
    /// decoded as a picture of its own (three bytes a pixel) and its plane
    /// kept; beside them, as many tiles as libheif decodes at once
    /// (`tileDecodingThreads`), each at 9 bytes a pixel as above. A
    /// 48-megapixel grid of 4:2:0 512x512 tiles: 219 MB plus 9 MB.
    static func planarGridBytes(_ info: HEIFInfo, _ layout: HEIFGridLayout) -> Int {
        let doubleBytes = 2 * 3 + layout.tileChroma.doubleBytesPerPixel + (info.hasAlpha ? 2 * (3 + 1) : 0)
        let planes = bytes(pixels: info.decodedPixels, times: doubleBytes) / 2
        let tiles = bytes(pixels: layout.largestTile.pixelCount, times: 9 * tileDecodingThreads)
        let (sum, overflow) = planes.addingReportingOverflow(tiles)
        return overflow ? .max : sum
    }

    private static func bytes(pixels: Int, times perPixel: Int) -> Int {
        let (product, overflow) = pixels.multipliedReportingOverflow(by: perPixel)
        return overflow ? .max : product
    }

    /// How many tiles libheif decodes at once (`heif_context_set_max_decoding_threads`,
    /// set on every context to libheif 1.15's own default, so that the estimate names it).
    static let tileDecodingThreads = 4

    /// Decoded rows are handed over in strips of about this many bytes.
    public static let stripBytes = 256 << 10

    /// Decodes `bytes`, the whole file, and hands its primary image out in
    /// strips of XRGB rows over `strip`'s memory, top to bottom: `consume`
    /// gets each strip's first pixel, the index of its first row, and its row
    /// count (rows are `info.size.width` pixels apart). libheif decodes the
    /// picture whole (`heif_decode_image` to `heif_chroma_interleaved_RGB`, or
    /// `_RGBA` with alpha, deep pictures to 8 bits, strictly; or, by the planar
    /// route, to `heif_chroma_444` untransformed); each strip is converted from
    /// the planes (`heif_image_get_plane_readonly`) as it is handed out.
    ///
    /// - Throws: `HEIFError.tooManyPixels` and `.tooLargeToDecode` from the
    ///   headers, before anything is decoded (`requireWithinLimits`); libheif's
    ///   error as a `HEIFError` otherwise. Nothing is handed out unless the
    ///   whole picture decoded.
    @discardableResult
    public static func decodeRows(_ bytes: UnsafeRawBufferPointer, maxPixels: Int, decoderByteLimit: Int = .max, strip storage: PixelStorage,
                                  consume: (UnsafePointer<UInt32>, _ first: Int, _ count: Int) -> Void) throws(HEIFError) -> HEIFInfo {
        try withDecodedPlane(bytes, maxPixels: maxPixels, decoderByteLimit: decoderByteLimit) { plane, info in
            let width = info.size.width
            let rowsPerStrip = max(1, min(info.size.height, stripBytes / max(1, width * 4)))
            let strip = PixelImage(size: PixelSize(width: width, height: rowsPerStrip), storage: storage)
            let base = strip.pixels.baseAddress!
            var first = 0
            while first < info.size.height {
                let count = min(rowsPerStrip, info.size.height - first)
                plane.convert(rows: first..<first + count, into: base)
                consume(base, first, count)
                first += count
            }
            return info
        }
    }

    /// Decodes `bytes`, the whole file, into one picture of `info.size`
    /// (upright as its transforms say), as `decodeRows` does.
    ///
    /// With `storage`, the picture is decoded into that memory (grown if needed)
    /// instead of a fresh allocation; see `PixelStorage`.
    public static func decode(_ bytes: UnsafeRawBufferPointer, maxPixels: Int, decoderByteLimit: Int = .max,
                              into storage: PixelStorage? = nil) throws(HEIFError) -> DecodedHEIF {
        try withDecodedPlane(bytes, maxPixels: maxPixels, decoderByteLimit: decoderByteLimit) { plane, info in
            let image = storage.map { PixelImage(size: info.size, storage: $0) } ?? PixelImage(size: info.size)
            plane.convert(rows: 0..<info.size.height, into: image.pixels.baseAddress!)
            return DecodedHEIF(image: image, info: info)
        }
    }

    /// `heif_init`, once for the process (Swift runs a static's initialiser
    /// once, whichever thread comes first): the display's decode queue and the
    /// server's uploads use libheif at the same time, and a libheif that loads
    /// its decoders as plugins (1.17 and later) would otherwise load them from
    /// whichever first `heif_context_alloc` it sees, unguarded. Never matched
    /// by `heif_deinit`: the plugins stay loaded for the process's life. A
    /// plugin that fails to load shows later, as the codec it decodes missing.
    private static let libraryStarted: Bool = heif_init(nil).code == heif_error_Ok

    /// Starts libheif now (`heif_init`), loading its decoder plugins: a
    /// sandboxed decoder calls it before its system-call filter forbids opening files.
    public static func prepareLibrary() { _ = libraryStarted }

    /// Runs `body` with the primary image's handle and what it says, from a
    /// context over `bytes` (not copied: `bytes` outlives it); frees both after.
    private static func withPrimaryImage<Result>(_ bytes: UnsafeRawBufferPointer,
                                                 _ body: (OpaquePointer, HEIFInfo) throws(HEIFError) -> Result) throws(HEIFError) -> Result {
        guard !bytes.isEmpty else { throw .empty }
        guard hasSignature(bytes) else { throw .notHEIF }
        // Vitrine's own reading first, so that a file libheif would loop on
        // (a grid that is its own tile) or allocate unchecked never reaches it.
        let meta = try HEIFMetaBoxes(bytes)
        try HEIFDerivations.check(meta)
        let largestCanvas = try HEIFDeclaredCanvas.largest(meta)
        _ = libraryStarted
        guard let context = heif_context_alloc() else { throw .outOfMemory("heif_context_alloc") }
        defer { heif_context_free(context) }
        heif_context_set_max_decoding_threads(context, Int32(tileDecodingThreads))
        // libheif's own security limits (the largest image side, the boxes'
        // counts and sizes) stay as they are: on, at their defaults.
        var error = heif_context_read_from_memory_without_copy(context, bytes.baseAddress, bytes.count, nil)
        guard error.code == heif_error_Ok else { throw HEIFError(error, during: "reading the boxes") }
        var found: OpaquePointer?
        error = heif_context_get_primary_image_handle(context, &found)
        guard error.code == heif_error_Ok, let handle = found else { throw HEIFError(error, during: "finding the primary image") }
        defer { heif_image_handle_release(handle) }
        let size = PixelSize(width: Int(heif_image_handle_get_width(handle)), height: Int(heif_image_handle_get_height(handle)))
        let coded = PixelSize(width: Int(heif_image_handle_get_ispe_width(handle)), height: Int(heif_image_handle_get_ispe_height(handle)))
        guard size.width > 0, size.height > 0 else { throw .corrupt("the primary image is \(size.width)x\(size.height)") }
        // What libheif 1.15 does not tell, from the boxes read above.
        let info = HEIFInfo(size: size, codedSize: PixelSize(width: max(coded.width, 0), height: max(coded.height, 0)),
                            hasAlpha: heif_image_handle_has_alpha_channel(handle) != 0,
                            bitDepth: Int(max(8, heif_image_handle_get_luma_bits_per_pixel(handle))),
                            grid: HEIFGridLayout.read(meta), largestCanvas: largestCanvas)
        return try body(handle, info)
    }

    /// Decodes the primary image whole, within the limits, by the route they
    /// leave (`route(for:)`, or `forcedRoute` in the tests), and runs `body`
    /// with its rows; releases the image after.
    private static func withDecodedPlane<Result>(_ bytes: UnsafeRawBufferPointer, maxPixels: Int, decoderByteLimit: Int,
                                                 forcedRoute: HEIFDecodeRoute? = nil,
                                                 _ body: (any DecodedRows, HEIFInfo) throws(HEIFError) -> Result) throws(HEIFError) -> Result {
        try withPrimaryImage(bytes) { handle, info throws(HEIFError) in
            let route: HEIFDecodeRoute
            if let forcedRoute { route = forcedRoute } else { route = try Self.route(for: info, maxPixels: maxPixels, decoderByteLimit: decoderByteLimit) }
            guard let options = heif_decoding_options_alloc() else { throw .outOfMemory("heif_decoding_options_alloc") }
            defer { heif_decoding_options_free(options) }
            // Deep pictures to 8 bits, and an error rather than a best effort on
            // damaged input. libheif's route applies the transforms (the default);
            // the planar one does not, and reads the rows turned instead.
            options.pointee.convert_hdr_to_8bit = 1
            options.pointee.strict_decoding = 1
            let colour: heif_chroma
            switch route {
            case .libheif:
                options.pointee.ignore_transformations = 0
                colour = info.hasAlpha ? heif_chroma_interleaved_RGBA : heif_chroma_interleaved_RGB
            case .planarGrid:
                options.pointee.ignore_transformations = 1
                colour = heif_chroma_444
            }
            var decoded: OpaquePointer?
            let error = heif_decode_image(handle, &decoded, heif_colorspace_RGB, colour, options)
            guard error.code == heif_error_Ok, let image = decoded else { throw HEIFError(error, during: "decoding the picture") }
            defer { heif_image_release(image) }
            var warning = heif_error()
            if heif_image_get_decoding_warnings(image, 0, &warning, 1) > 0 {
                throw HEIFError(warning, during: "decoding the picture (a warning)")
            }
            let rows: any DecodedRows
            switch route {
            case .libheif:
                rows = try DecodedPlane(image, info: info)
            case .planarGrid(let layout):
                rows = try DecodedPlanes(image, info: info, layout: layout)
            }
            return try body(rows, info)
        }
    }

    /// `decode`, by the route given instead of the one the limits choose: for
    /// the tests, which compare the routes on every fixture.
    static func decode(_ bytes: UnsafeRawBufferPointer, route: HEIFDecodeRoute) throws(HEIFError) -> DecodedHEIF {
        try withDecodedPlane(bytes, maxPixels: .max, decoderByteLimit: .max, forcedRoute: route) { rows, info in
            let image = PixelImage(size: info.size)
            rows.convert(rows: 0..<info.size.height, into: image.pixels.baseAddress!)
            return DecodedHEIF(image: image, info: info)
        }
    }
}
