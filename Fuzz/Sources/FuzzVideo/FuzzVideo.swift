// libFuzzer target: video bytes through VitrineFFmpeg's VideoFileReader, the
// code the sandboxed video helper (vitrine-video) runs on every video slide:
// avformat_open_input over the AVIO callbacks on a descriptor (a memfd here,
// as the helper reads the kiosk's descriptor), the stream's bounds
// (decode.maxPixels, a day's duration), then frames decoded and scaled into a
// small canvas, a rewind, and a frame after it.
//
// In process, not through the helper: libFuzzer needs the code under test in
// its own process, and the process boundary is tested by SandboxedVideoTests.
// FFmpeg is the system library, not instrumented: coverage guides the Swift
// side only, and a crash inside FFmpeg is what this looks for most.
import Glibc
import VitrineCore
import VitrineFFmpeg

@_silgen_name("memfd_create")
private func memfd_create(_ name: UnsafePointer<CChar>, _ flags: UInt32) -> Int32

/// A day: what the reader promises no timestamp or duration exceeds.
private let day = Duration.seconds(24 * 3600)

@_cdecl("LLVMFuzzerTestOneInput")
public func fuzzVideo(_ data: UnsafePointer<UInt8>?, _ size: Int) -> Int32 {
    let file = memfd_create("fuzz-video", 1 /* MFD_CLOEXEC */)
    if file < 0 { fatalError("memfd_create: \(errno)") }
    defer { close(file) }
    var written = 0
    while written < size {
        let count = write(file, data! + written, size - written)
        if count <= 0 { fatalError("write: \(errno)") }
        written += count
    }
    lseek(file, 0, SEEK_SET)
    // 1 Mpixel and one thread: the fuzzer's memory and time stay small.
    let maxPixels = 1 << 20
    guard let reader = try? VideoFileReader(descriptor: file, maxPixels: maxPixels, threads: 1) else { return 0 }
    let info = reader.info
    if info.size.pixelCount > maxPixels || info.size.width <= 0 || info.size.height <= 0 { fatalError("opened a \(info.size) stream") }
    if let duration = info.duration, duration <= .zero || duration > day { fatalError("a duration of \(duration)") }
    if let rate = info.frameRate, !(rate > 0 && rate <= 240) { fatalError("a frame rate of \(rate)") }
    let canvas = PixelImage(size: PixelSize(width: 64, height: 48))
    let black = RGBAColor(red: 0, green: 0, blue: 0)
    var frames = 0
    for fit in [FitMode.contain, .cover] {
        for _ in 0..<24 {
            guard let timestamp = try? reader.nextFrame(into: canvas.canvas, fit: fit, background: black) else { break }
            if timestamp < .zero || timestamp > day { fatalError("frame \(frames) at \(timestamp)") }
            frames += 1
        }
        guard (try? reader.rewind()) != nil else { break }
    }
    return 0
}
