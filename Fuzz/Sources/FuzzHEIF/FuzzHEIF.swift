// libFuzzer target: HEIF bytes through VitrineHEIF, as the kiosk's decode
// queue and upload inspection take them: the ftyp sniff
// (HEIFDecoder.hasSignature), the boxes and the primary image's handle
// (HEIFDecoder.info), then the picture decoded whole by libheif and handed
// out in strips (HEIFDecoder.decodeRows, streamed as the display frames it)
// and into one image (HEIFDecoder.decode), which must agree on success, size
// and row order. Not on every pixel: libheif 1.15 (Debian 12) leaves pixels
// unwritten where a grid's tile decodes smaller than its `ispe` says, so two
// decodes of such a file differ there (docs/fuzzing.md); the first run of this
// target found it in seconds.
//
// The pixel and byte limits are small so that boxes claiming a huge picture
// are refused rather than decoded. libheif and its codecs are the system
// libraries, not instrumented: coverage guides the Swift side only, and an
// abort inside libheif (an assert) shows as a crash.
import VitrineCore
import VitrineHEIF

@_cdecl("LLVMFuzzerTestOneInput")
public func fuzzHEIF(_ data: UnsafePointer<UInt8>?, _ size: Int) -> Int32 {
    let bytes = UnsafeRawBufferPointer(start: data.map(UnsafeRawPointer.init), count: size)
    guard HEIFDecoder.hasSignature(bytes), let info = try? HEIFDecoder.info(bytes) else { return 0 }
    let maxPixels = 1 << 20  // 1 Mpixel: the fuzzer's memory and time stay small.
    let byteLimit = 16 << 20
    var next = 0
    var checksum: UInt32 = 0
    let streamed = try? HEIFDecoder.decodeRows(bytes, maxPixels: maxPixels, decoderByteLimit: byteLimit, strip: PixelStorage()) { rows, first, count in
        if first != next { fatalError("rows from \(first), expected \(next)") }
        next = first + count
        for i in 0..<(count * info.size.width) { checksum = checksum &* 31 &+ rows[i] }
    }
    if let streamed {
        if streamed != info { fatalError("decodeRows read \(streamed), info \(info)") }
        if next != info.size.height { fatalError("\(next) rows of \(info.size.height)") }
    }
    let whole = try? HEIFDecoder.decode(bytes, maxPixels: maxPixels, decoderByteLimit: byteLimit)
    if (whole == nil) != (streamed == nil) {
        fatalError("decodeRows \(streamed == nil ? "failed" : "succeeded") but decode \(whole == nil ? "failed" : "succeeded")")
    }
    if let whole, whole.image.size != info.size { fatalError("decoded \(whole.image.size), the boxes say \(info.size)") }
    // Every pixel read, so that AddressSanitizer sees a read past the plane.
    if checksum == 0x5EED_F00D { print("checksum") }
    return 0
}
