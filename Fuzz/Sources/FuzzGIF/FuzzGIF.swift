// libFuzzer target: GIF bytes through VitrineGIF, as the kiosk's decode
// queue and upload inspection take them: the signature, the logical screen
// descriptor (GIFDecoder.info), then the first frame through giflib record by
// record (GIFDecoder.decodeRows, streamed as the display frames it) and whole
// onto its canvas (GIFDecoder.decode), which must agree; then every frame
// composed (GIFDecoder.decodeAnimation), whose first frame must be the same
// picture.
//
// The pixel limit is small so that a header claiming a huge picture is refused
// rather than allocated. giflib itself is the system library, not
// instrumented: coverage guides the Swift side only.
import VitrineCore
import VitrineGIF

@_cdecl("LLVMFuzzerTestOneInput")
public func fuzzGIF(_ data: UnsafePointer<UInt8>?, _ size: Int) -> Int32 {
    let bytes = UnsafeRawBufferPointer(start: data.map(UnsafeRawPointer.init), count: size)
    _ = GIFDecoder.hasSignature(bytes)
    guard let info = try? GIFDecoder.info(bytes) else { return 0 }
    let maxPixels = 1 << 20  // 1 Mpixel: the fuzzer's memory and time stay small.
    var next = 0
    var checksum: UInt32 = 0
    let streamed = try? GIFDecoder.decodeRows(bytes, maxPixels: maxPixels, decoderByteLimit: 1 << 20, strip: PixelStorage()) { rows, first, count in
        if first != next { fatalError("rows from \(first), expected \(next)") }
        next = first + count
        for i in 0..<(count * info.size.width) { checksum = checksum &* 31 &+ rows[i] }
    }
    if let streamed {
        if next != info.size.height { fatalError("\(next) rows of \(info.size.height)") }
        if streamed.canvas != info.size { fatalError("decoded \(streamed.canvas), the header says \(info.size)") }
        let frame = streamed.frame
        if frame.x < 0 || frame.y < 0 || frame.x + frame.width > info.size.width || frame.y + frame.height > info.size.height {
            fatalError("frame \(frame) outside \(info.size)")
        }
    }
    let whole = try? GIFDecoder.decode(bytes, maxPixels: maxPixels, decoderByteLimit: 4 << 20)
    if (whole == nil) != (streamed == nil), info.size.pixelCount * 4 <= 4 << 20 {
        fatalError("decodeRows \(streamed == nil ? "failed" : "succeeded") but decode \(whole == nil ? "failed" : "succeeded")")
    }
    if let whole {
        var sum: UInt32 = 0
        for pixel in whole.image.pixels.prefix(info.size.pixelCount) { sum = sum &* 31 &+ pixel }
        if sum != checksum { fatalError("decode and decodeRows gave different pixels") }
    }
    var frames = 0
    var firstFrameSum: UInt32 = 0
    let animation = try? GIFDecoder.decodeAnimation(bytes, maxPixels: maxPixels, decoderByteLimit: 16 << 20) { screen, duration in
        if screen.size != info.size { fatalError("frame \(frames) is \(screen.size), the screen \(info.size)") }
        if duration < .zero { fatalError("frame \(frames) lasts \(duration)") }
        if frames == 0 { for pixel in screen.pixels.prefix(info.size.pixelCount) { firstFrameSum = firstFrameSum &* 31 &+ pixel } }
        frames += 1
        return frames < 64
    }
    if let animation {
        if animation.frameCount != frames || frames < 1 { fatalError("\(animation.frameCount) frames said, \(frames) handed out") }
        if streamed != nil, firstFrameSum != checksum { fatalError("the animation's first frame differs from decodeRows'") }
    }
    return 0
}
