import Foundation
import Glibc
import PictureTestSupport
import Testing
import VitrineCore
@testable import VitrineFFmpeg

/// VitrineFFmpeg against clips `ffmpeg` makes now, each frame carrying its number.
@Suite struct VideoFileReaderTests {
    private static let black = RGBAColor(red: 0, green: 0, blue: 0)

    private func withReader<Result>(_ path: String, maxPixels: Int = 8_000_000,
                                    _ body: (VideoFileReader) throws -> Result) throws -> Result {
        let descriptor = open(path, O_RDONLY | O_CLOEXEC)
        #expect(descriptor >= 0)
        defer { close(descriptor) }
        let reader = try VideoFileReader(descriptor: descriptor, maxPixels: maxPixels)
        return try body(reader)
    }

    @Test(arguments: NumberedClip.Codec.allCases)
    func everyFrameDecodesInOrderAtItsTime(codec: NumberedClip.Codec) throws {
        let clip = try NumberedClip(codec: codec, framesPerSecond: 25, seconds: 2)
        defer { clip.remove() }
        try withReader(clip.path) { reader in
            #expect(reader.info.codec == codec.rawValue)
            #expect(reader.info.size == clip.size)
            #expect(reader.info.frameRate == 25)
            let duration = try #require(reader.info.duration)
            #expect(abs(Double(duration.nanoseconds) / 1e9 - 2) < 0.05)
            let frame = PixelImage(size: clip.size)
            var index = 0
            while let timestamp = try reader.nextFrame(into: frame.canvas, fit: .contain, background: Self.black) {
                #expect(NumberedClip.number(in: frame) == index, "frame \(index) of \(codec)")
                #expect(abs(timestamp.nanoseconds - Int64(index) * 40_000_000) < 1_000_000, "frame \(index) at \(timestamp)")
                index += 1
            }
            #expect(index == clip.frameCount)
        }
    }

    /// The container's duration is its longest stream's: a soundtrack that runs
    /// on must not make the slide stand on the last frame for a second.
    @Test func theLengthIsThePictures_notALongerSoundtracks() throws {
        let clip = try NumberedClip(codec: .h264, framesPerSecond: 25, seconds: 1, soundtrackSeconds: 2)
        defer { clip.remove() }
        try withReader(clip.path) { reader in
            #expect(reader.info.hasAudio)
            let duration = try #require(reader.info.duration)
            #expect(abs(Double(duration.nanoseconds) / 1e9 - 1) < 0.05, "\(duration)")
        }
    }

    /// The stream's average bitrate, which `decode.maxVideoBitrate` bounds:
    /// about the file's size over its length (the rest is the MP4's index).
    @Test func theBitrateIsTheStreamsAverage() throws {
        let clip = try NumberedClip(codec: .h264, size: PixelSize(width: 640, height: 480), framesPerSecond: 25, seconds: 2)
        defer { clip.remove() }
        let bytes = try #require(FileManager.default.attributesOfItem(atPath: clip.path)[.size] as? Int)
        try withReader(clip.path) { reader in
            let bitRate = try #require(reader.info.bitRate)
            let overall = Double(bytes * 8) / 2
            #expect(Double(bitRate) > overall * 0.8 && Double(bitRate) <= overall * 1.01, "\(bitRate) bit/s against \(overall) for the file")
            #expect(reader.info.summary.contains("Mbit/s"))
        }
    }

    @Test func rewindStartsAgainFromTheFirstFrame() throws {
        let clip = try NumberedClip(codec: .h264, framesPerSecond: 30, seconds: 1)
        defer { clip.remove() }
        try withReader(clip.path) { reader in
            let frame = PixelImage(size: clip.size)
            for _ in 0..<20 { _ = try reader.nextFrame(into: frame.canvas, fit: .contain, background: Self.black) }
            #expect(NumberedClip.number(in: frame) == 19)
            try reader.rewind()
            let first = try reader.nextFrame(into: frame.canvas, fit: .contain, background: Self.black)
            #expect(first == .zero)
            #expect(NumberedClip.number(in: frame) == 0)
        }
    }

    @Test func containLetterboxesAndCoverCrops() throws {
        let clip = try NumberedClip(codec: .h264, framesPerSecond: 25, seconds: 0.4)
        defer { clip.remove() }
        let red = RGBAColor(red: 255, green: 0, blue: 0)
        // 4:3 on 16:9: pillarboxed in the middle 320 of 426 columns.
        let wide = PixelImage(size: PixelSize(width: 426, height: 240))
        try withReader(clip.path) { reader in
            for _ in 0..<6 { _ = try reader.nextFrame(into: wide.canvas, fit: .contain, background: red) }
            #expect(wide[2, 120] == red.xrgb)
            #expect(wide[423, 120] == red.xrgb)
            #expect(NumberedClip.number(in: wide, within: PixelRect(x: 53, y: 0, width: 320, height: 240)) == 5)
        }
        // Cover on a square: the middle 240 of 320 columns, scaled to 120; no background shows.
        let square = PixelImage(size: PixelSize(width: 120, height: 120))
        try withReader(clip.path) { reader in
            _ = try reader.nextFrame(into: square.canvas, fit: .cover, background: red)
            for x in stride(from: 0, to: 120, by: 7) { #expect(square[x, 60] != red.xrgb) }
        }
    }

    @Test func aPictureOverTheLimitIsRefusedFromItsHeaders() throws {
        let clip = try NumberedClip(codec: .h264, framesPerSecond: 25, seconds: 0.2)
        defer { clip.remove() }
        #expect(throws: VideoError.tooManyPixels(size: clip.size, limit: 10_000)) {
            try withReader(clip.path, maxPixels: 10_000) { _ in }
        }
    }

    @Test func somethingThatIsNotAVideoIsRefusedByName() throws {
        let path = FileManager.default.temporaryDirectory.appendingPathComponent("vitrine-not-video-\(getpid()).mp4").path
        try Data("this is a shopping list, not a film\n".utf8).write(to: URL(fileURLWithPath: path))
        defer { try? FileManager.default.removeItem(atPath: path) }
        do {
            try withReader(path) { _ in }
            Issue.record("a text file opened as a video")
        } catch let error as VideoError {
            guard case .notAVideo = error else { Issue.record("\(error)"); return }
            #expect("\(error)".contains("cannot be read as a video"))
        }
    }

    @Test func aTruncatedClipEndsEarlyWithoutHarm() throws {
        let clip = try NumberedClip(codec: .h264, framesPerSecond: 25, seconds: 2)
        defer { clip.remove() }
        let bytes = try Data(contentsOf: URL(fileURLWithPath: clip.path))
        let path = clip.path + ".cut.mp4"
        // An MP4 written by ffmpeg has its index (moov) last: cut in the middle, nothing can be found.
        try bytes.prefix(bytes.count / 2).write(to: URL(fileURLWithPath: path))
        defer { try? FileManager.default.removeItem(atPath: path) }
        do {
            let decoded = try withReader(path) { reader in
                let frame = PixelImage(size: clip.size)
                var count = 0
                while try reader.nextFrame(into: frame.canvas, fit: .contain, background: Self.black) != nil { count += 1 }
                return count
            }
            #expect(decoded < clip.frameCount)
        } catch let error as VideoError {
            #expect(!"\(error)".isEmpty)
        }
    }
}
