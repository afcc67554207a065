extension ExifOrientation {
    /// The turn that shows upright a video whose stream carries a display
    /// matrix: the nine entries of ISO-BMFF's `tkhd` matrix (16.16 fixed
    /// point, the last column 2.30), which a phone writes for a video it filmed
    /// held upright, and `counterClockwiseDegrees`, what FFmpeg's
    /// `av_display_rotation_get` reads from it.
    ///
    /// It turns as FFmpeg's own command line does (fftools' `get_rotation` and
    /// the `transpose`, `hflip` and `vflip` it inserts), so a video shows here
    /// as `ffmpeg` and every player built on it show it. Nil for a turn that
    /// is not a quarter one, or a matrix that gives no angle: such a video is
    /// shown as stored, as before.
    public init?(displayMatrix matrix: [Int32], counterClockwiseDegrees: Double) {
        guard matrix.count == 9, counterClockwiseDegrees.isFinite else { return nil }
        // fftools: theta = -round(rotation), then brought into [-0.9, 359.1).
        var theta = -counterClockwiseDegrees.rounded()
        theta -= 360 * (theta / 360 + 0.9 / 360).rounded(.down)
        if abs(theta - 90) < 1 {
            // transpose=cclock_flip when the matrix also mirrors, else transpose=clock.
            self = matrix[3] > 0 ? .leftMirrored : .right
        } else if abs(theta - 180) < 1 {
            switch (matrix[0] < 0, matrix[4] < 0) {
            case (true, true): self = .down
            case (true, false): self = .upMirrored
            case (false, true): self = .downMirrored
            case (false, false): self = .up
            }
        } else if abs(theta - 270) < 1 {
            // transpose=clock_flip when the matrix also mirrors, else transpose=cclock.
            self = matrix[3] < 0 ? .rightMirrored : .left
        } else if abs(theta) < 1 {
            self = matrix[4] < 0 ? .downMirrored : .up
        } else {
            return nil
        }
    }
}
