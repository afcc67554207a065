// libFuzzer target: PNG bytes through PNGCodec (libpng's simplified API), as
// the kiosk's decode queue and upload inspection take them. The pixel limit is
// small so that a header claiming a huge picture is refused rather than
// allocated. libpng itself is the system library, not instrumented.
import VitrineCore
import VitrinePNG

@_cdecl("LLVMFuzzerTestOneInput")
public func fuzzPNG(_ data: UnsafePointer<UInt8>?, _ size: Int) -> Int32 {
    let bytes = Array(UnsafeBufferPointer(start: data, count: size))
    _ = PNGCodec.hasSignature(bytes)
    guard let stored = try? PNGCodec.size(of: bytes) else { return 0 }
    guard let image = try? PNGCodec.decode(bytes, maxPixels: 1 << 20) else { return 0 }
    if image.size != stored { fatalError("decoded \(image.size), but the header says \(stored)") }
    // What the preview writer does with a decoded frame: encode it again, and read that back.
    if image.size.pixelCount <= 64 * 64 {
        let encoded = try! PNGCodec.encode(image, fast: true)
        let back = try! PNGCodec.decode(encoded)
        if back.size != image.size { fatalError("re-encoded \(image.size) reads back as \(back.size)") }
    }
    return 0
}
