// libFuzzer target: WebP bytes through VitrineWebP, as the kiosk's decode
// queue and upload inspection take them: the signature, the headers
// (WebPDecoder.info: WebPGetFeatures, the EXIF chunk through libwebpdemux),
// then WebPDecoder.decode scaled to a small target and at full size. An
// animation goes through libwebpdemux to its first frame, and through
// WebPAnimDecoder frame by frame (WebPDecoder.decodeAnimation).
//
// The pixel limit is small so that a header claiming a huge picture is refused
// rather than allocated. libwebp itself is the system library, not
// instrumented: coverage guides the Swift side only.
import VitrineCore
import VitrineWebP

@_cdecl("LLVMFuzzerTestOneInput")
public func fuzzWebP(_ data: UnsafePointer<UInt8>?, _ size: Int) -> Int32 {
    let bytes = UnsafeRawBufferPointer(start: data.map(UnsafeRawPointer.init), count: size)
    _ = WebPDecoder.hasSignature(bytes)
    guard let info = try? WebPDecoder.info(bytes) else { return 0 }
    _ = info.uprightSize
    let maxPixels = 1 << 20  // 1 Mpixel: the fuzzer's memory and time stay small.
    let target = PixelSize(width: 64, height: 48)
    if let scaled = try? WebPDecoder.decode(bytes, covering: target, maxPixels: maxPixels, decoderByteLimit: 16 << 20) {
        let expected = WebPDecoder.scaledSize(decoding: info.size, covering: target)
        if scaled.image.size != expected { fatalError("decoded \(scaled.image.size) for \(info.size) covering \(target), expected \(expected)") }
        if scaled.info != info { fatalError("decode read \(scaled.info), info read \(info)") }
    }
    if let whole = try? WebPDecoder.decode(bytes, covering: nil, maxPixels: 256 * 256), whole.image.size != info.size {
        fatalError("decoded \(whole.image.size), but the headers say \(info.size)")
    }
    if info.isAnimated {
        var frames = 0
        let animation = try? WebPDecoder.decodeAnimation(bytes, maxPixels: maxPixels, decoderByteLimit: 16 << 20) { canvas, duration in
            if canvas.size != info.size { fatalError("frame \(frames) is \(canvas.size), the canvas \(info.size)") }
            if duration < .zero { fatalError("frame \(frames) lasts \(duration)") }
            frames += 1
            return frames < 64
        }
        if let animation, animation.frameCount != frames || frames < 1 {
            fatalError("\(animation.frameCount) frames said, \(frames) handed out")
        }
    }
    return 0
}
