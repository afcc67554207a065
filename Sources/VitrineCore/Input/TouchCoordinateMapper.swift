/// How the panel is mounted relative to the picture Vitrine draws: the picture
/// is turned by this much clockwise to appear upright, and touches turn with it.
public enum DisplayRotation: Int, Hashable, Sendable, CaseIterable {
    case none = 0, quarter = 90, half = 180, threeQuarters = 270
}

/// Maps a device's raw axis values to output pixels: normalise over the axis
/// ranges, apply the calibration matrix (libinput's convention: a 3x2 affine
/// matrix on normalised coordinates), then the display rotation, then onto
/// the part of the output the device's panel shows (`region`).
public struct TouchCoordinateMapper: Hashable, Sendable {
    public var xAxis: AxisRange
    public var yAxis: AxisRange
    /// The output in the orientation the carousel is drawn (logical, upright).
    public var output: PixelSize
    public var rotation: DisplayRotation
    /// `[a, b, c, d, e, f]`: x' = a·x + b·y + c, y' = d·x + e·y + f, on 0...1 coordinates.
    public var calibration: [Double]
    /// The part of the output the device's panel shows, upright, in output
    /// pixels: one screen's region of a canvas picture (`CanvasPlacement.region`).
    /// Nil: the whole output.
    public var region: PixelRect?

    public static let identityCalibration: [Double] = [1, 0, 0, 0, 1, 0]

    public init(xAxis: AxisRange, yAxis: AxisRange, output: PixelSize, rotation: DisplayRotation = .none,
                calibration: [Double] = TouchCoordinateMapper.identityCalibration, region: PixelRect? = nil) {
        precondition(calibration.count == 6, "a calibration matrix has six values")
        self.xAxis = xAxis
        self.yAxis = yAxis
        self.output = output
        self.rotation = rotation
        self.calibration = calibration
        self.region = region
    }

    /// Where the panel's picture is in the output: `region`, else all of it.
    public var area: PixelRect { region ?? PixelRect(x: 0, y: 0, width: output.width, height: output.height) }

    public func map(x rawX: Int32, y rawY: Int32) -> TouchPoint {
        let nx = xAxis.normalized(rawX), ny = yAxis.normalized(rawY)
        let c = calibration
        let cx = c[0] * nx + c[1] * ny + c[2], cy = c[3] * nx + c[4] * ny + c[5]
        // The panel's own top-left is (0, 0); a panel mounted turned a quarter
        // clockwise shows the picture's top-left at its top-right, and so on.
        let (u, v): (Double, Double)
        switch rotation {
        case .none: (u, v) = (cx, cy)
        case .quarter: (u, v) = (cy, 1 - cx)
        case .half: (u, v) = (1 - cx, 1 - cy)
        case .threeQuarters: (u, v) = (1 - cy, cx)
        }
        // (u, v) is on the panel's upright picture, which is `area` of the
        // output: a canvas screen shows its region scaled to its whole panel.
        let area = self.area
        return TouchPoint(x: Double(area.x) + u * Double(area.width), y: Double(area.y) + v * Double(area.height))
    }

    /// Output pixels per millimetre of finger travel, when the device reports its
    /// resolution: what turns the millimetre thresholds into pixels.
    public var pixelsPerMillimetre: Double? {
        guard let width = xAxis.lengthMillimetres, let height = yAxis.lengthMillimetres, width > 0, height > 0 else { return nil }
        let rotated = rotation == .quarter || rotation == .threeQuarters, area = self.area
        let across = Double(rotated ? area.height : area.width) / width
        let down = Double(rotated ? area.width : area.height) / height
        return (across + down) / 2
    }
}
