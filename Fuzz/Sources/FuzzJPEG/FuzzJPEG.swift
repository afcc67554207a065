// libFuzzer target: JPEG bytes through the marker scan and the decoder, as the
// kiosk's decode queue and upload inspection take them.
//
// Public API only (JPEGMarkerScanner.scan, JPEGDecoder.decode): the decoder's
// internals are free to change under it. The pixel limit is small so that a
// header claiming a huge picture is refused rather than allocated, and a small
// target size exercises the DCT-scaled path. libjpeg-turbo itself is the
// system library, not instrumented: coverage guides the Swift side only.
import VitrineCore
import VitrineJPEG

nonisolated(unsafe) private let decoder = try! JPEGDecoder()

@_cdecl("LLVMFuzzerTestOneInput")
public func fuzzJPEG(_ data: UnsafePointer<UInt8>?, _ size: Int) -> Int32 {
    // An empty buffer has no base address; the kiosk never reads an empty file as JPEG
    // (it sniffs the signature first), but the API must not trap on it either.
    let bytes = UnsafeRawBufferPointer(start: data.map(UnsafeRawPointer.init), count: size)
    guard let info = try? JPEGMarkerScanner.scan(bytes) else { return 0 }
    _ = info.uprightSize
    let maxPixels = 1 << 20  // 1 Mpixel: the fuzzer's memory and time stay small.
    _ = try? decoder.decode(bytes, covering: PixelSize(width: 64, height: 48), maxPixels: maxPixels)
    _ = try? decoder.decode(bytes, covering: nil, maxPixels: 256 * 256)
    return 0
}
