// libFuzzer target: libheif against Vitrine's own reading of the same bytes
// (issue 39, "Isolation"). Vitrine's box reader decides what libheif may
// allocate before libheif sees a file (HEIFDecoder.info: HEIFMetaBoxes,
// HEIFDerivations, HEIFDeclaredCanvas); a file it passes within the limits
// is then read and decoded by libheif itself (CHEIFDifferential: the calls
// VitrineHEIF's libheif route makes), with every allocation of any thread
// watched through AddressSanitizer's allocator hooks. The target traps when
// libheif asks for one block larger than the canvas Vitrine saw allows:
// `bytesPerPixel` bytes a pixel of the largest size Vitrine read (shown,
// coded, or declared by any item the decode reaches), plus `fixedSlack` for
// the codecs' own tables, which do not grow with the picture.
//
// A file Vitrine refuses is never given to libheif: the kiosk never would.
// libheif and its codecs are the system libraries, not instrumented: coverage
// guides the Swift side (the box reader), and the allocation watch is the oracle.
import CHEIFDifferential
#if canImport(Glibc)
import Glibc
#endif
import VitrineCore
import VitrineHEIF

/// The largest block one pixel of a canvas may take: 16-bit RGBA interleaved
/// is 8; dav1d's padded 8-bit 4:4:4 pictures took 7.7 on the corpus
/// (chroma-444.avif), so twice that for 16-bit ones.
let bytesPerPixel = 16
/// What libde265, dav1d and libheif allocate whatever the picture's size:
/// the largest such block on the corpus was dav1d's 519,552 bytes
/// (FUZZ_HEIF_REPORT=1 on Tests/VitrineHEIFTests/Fixtures/corpus), with room to spare.
let fixedSlack = 4 << 20
/// The kiosk's limits, small: a picture Vitrine passes is at most this many pixels.
let maxPixels = 1 << 20
let decoderByteLimit = 16 << 20

let hooksInstalled: Bool = heif_differential_install_hooks() != 0
/// `FUZZ_HEIF_REPORT=1`: each input's largest allocation and Vitrine's canvas on stderr (to measure `fixedSlack`).
let report = getenv("FUZZ_HEIF_REPORT") != nil

@_cdecl("LLVMFuzzerTestOneInput")
public func fuzzHEIFDifferential(_ data: UnsafePointer<UInt8>?, _ size: Int) -> Int32 {
    guard hooksInstalled else { fatalError("AddressSanitizer's allocator hooks are not installed: build with -sanitize=address") }
    let bytes = UnsafeRawBufferPointer(start: data.map(UnsafeRawPointer.init), count: size)
    guard HEIFDecoder.hasSignature(bytes), let info = try? HEIFDecoder.info(bytes) else { return 0 }
    guard (try? HEIFDecoder.requireWithinLimits(info, maxPixels: maxPixels, decoderByteLimit: decoderByteLimit)) != nil else { return 0 }
    let seen = max(info.size.pixelCount, info.codedSize.pixelCount, info.largestCanvas?.pixelCount ?? 0)
    let limit = seen * bytesPerPixel + fixedSlack
    var decoded: Int32 = 0
    let largest = heif_differential_decode(bytes.baseAddress, size, limit, &decoded)
    if report { fputs("largest allocation \(largest) bytes, decoded \(decoded), Vitrine saw \(seen) pixels\n", stderr) }
    if largest > limit { fatalError("libheif allocated \(largest) bytes at once; Vitrine saw \(seen) pixels (limit \(limit))") }
    return 0
}
