/// How a slide's picture is fitted to the output.
public enum FitMode: String, Sendable, CaseIterable, Codable {
    /// The whole picture is visible, scaled uniformly and centred; the rest of the
    /// output shows the background colour (letterbox or pillarbox).
    case contain
    /// The picture fills the output, scaled uniformly and centred; what overhangs is cropped.
    case cover
    /// The picture is scaled to the output's size exactly, ignoring its aspect ratio.
    case stretch
}
