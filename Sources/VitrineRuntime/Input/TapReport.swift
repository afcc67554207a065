/// What a tap action's `post` sends: `{"slide": 2, "x": 512.0, "y": 300.5,
/// "time": "2026-11-22T07:30:00.123Z"}`, the slide tapped, where on the output
/// (pixels, upright) and when (RFC 3339, UTC, milliseconds).
public struct TapReport: Codable, Hashable, Sendable {
    public var slide: Int
    public var x: Double
    public var y: Double
    public var time: String

    public init(slide: Int, x: Double, y: Double, time: String) {
        self.slide = slide
        self.x = x
        self.y = y
        self.time = time
    }
}
