import Testing
import VitrineCore

/// A video's display matrix read as FFmpeg's command line turns it. The
/// matrices are those FFmpeg's `av_display_rotation_set` and
/// `av_display_matrix_flip` write (16.16 fixed point; the last entry 2.30),
/// with the angle `av_display_rotation_get` reads back, counter-clockwise.
@Suite struct VideoDisplayMatrixTests {
    private static let one: Int32 = 1 << 16

    /// A clockwise quarter turn, as a phone writes for a video filmed held
    /// upright (the `tkhd` matrix 0 1 -1 0; `ffprobe` says "rotation of -90.00 degrees").
    private static let phoneUpright: [Int32] = [0, one, 0, -one, 0, 0, 0, 0, 1 << 30]

    private static func matrix(_ a: Int32, _ b: Int32, _ c: Int32, _ d: Int32) -> [Int32] {
        [a * one, b * one, 0, c * one, d * one, 0, 0, 0, 1 << 30]
    }

    @Test func aPhonesUprightVideoIsTurnedClockwise() {
        let orientation = ExifOrientation(displayMatrix: Self.phoneUpright, counterClockwiseDegrees: -90)
        #expect(orientation == .right)
        #expect(orientation?.displaySize(forStored: PixelSize(width: 1920, height: 1080)) == PixelSize(width: 1080, height: 1920))
    }

    @Test func quarterAndHalfTurns() {
        #expect(ExifOrientation(displayMatrix: Self.matrix(0, -1, 1, 0), counterClockwiseDegrees: 90) == .left)
        #expect(ExifOrientation(displayMatrix: Self.matrix(-1, 0, 0, -1), counterClockwiseDegrees: -180) == .down)
        #expect(ExifOrientation(displayMatrix: Self.matrix(-1, 0, 0, -1), counterClockwiseDegrees: 180) == .down)
        #expect(ExifOrientation(displayMatrix: Self.matrix(1, 0, 0, 1), counterClockwiseDegrees: 0) == .up)
        // av_display_rotation_get returns -0.0 for the identity.
        #expect(ExifOrientation(displayMatrix: Self.matrix(1, 0, 0, 1), counterClockwiseDegrees: -0.0) == .up)
    }

    /// Mirrored matrices (`av_display_matrix_flip`), which fftools meets with
    /// `hflip`, `vflip` and the `_flip` kinds of `transpose`.
    @Test func mirrors() {
        // The identity flipped left to right reads as a half turn whose first entry is negative.
        #expect(ExifOrientation(displayMatrix: Self.matrix(-1, 0, 0, 1), counterClockwiseDegrees: -180) == .upMirrored)
        #expect(ExifOrientation(displayMatrix: Self.matrix(1, 0, 0, -1), counterClockwiseDegrees: 0) == .downMirrored)
        // The phone's clockwise turn flipped left to right: transpose=cclock_flip.
        #expect(ExifOrientation(displayMatrix: Self.matrix(0, 1, 1, 0), counterClockwiseDegrees: -90) == .leftMirrored)
        // The counter-clockwise turn flipped left to right: transpose=clock_flip.
        #expect(ExifOrientation(displayMatrix: Self.matrix(0, -1, -1, 0), counterClockwiseDegrees: 90) == .rightMirrored)
    }

    /// What every picture path already does for EXIF: the upright pixel at
    /// (u, v) of a phone's video is the stored one a clockwise turn puts there.
    @Test func theTurnMovesPixelsClockwise() throws {
        let orientation = try #require(ExifOrientation(displayMatrix: Self.phoneUpright, counterClockwiseDegrees: -90))
        let stored = PixelSize(width: 4, height: 2)
        // The stored bottom-left pixel is the upright top-left one.
        #expect(orientation.storedPixel(u: 0, v: 0, stored: stored) == (0, 1))
        #expect(orientation.storedPixel(u: 1, v: 0, stored: stored) == (0, 0))
    }

    @Test func aTurnThatIsNotAQuarterOneOrNoAngleIsNotApplied() {
        #expect(ExifOrientation(displayMatrix: Self.matrix(1, 1, -1, 1), counterClockwiseDegrees: -45) == nil)
        #expect(ExifOrientation(displayMatrix: Self.matrix(0, 0, 0, 0), counterClockwiseDegrees: .nan) == nil)
        #expect(ExifOrientation(displayMatrix: [0, 1], counterClockwiseDegrees: 0) == nil)
    }

    @Test func theSummarySaysHowAVideoIsTurned() {
        let info = VideoInfo(container: "mov,mp4,m4a,3gp,3g2,mj2", codec: "h264", size: PixelSize(width: 1920, height: 1080),
                             orientation: .right, frameRate: 30, duration: .seconds(12), hasAudio: false)
        #expect(info.displaySize == PixelSize(width: 1080, height: 1920))
        #expect(info.summary == "h264 1920x1080 turned 90° clockwise 30 fps 12.0 s (mov,mp4,m4a,3gp,3g2,mj2)")
    }
}
