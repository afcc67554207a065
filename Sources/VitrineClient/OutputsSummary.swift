import VitrineAPI
extension OutputsBody {
    /// What `vitrine remote outputs` prints, one line per output group:
    /// `HDMI-A-1: slide 2 of 6, playing, screen on`, with the other
    /// connectors it drives and why rotation is paused, if it is.
    public var summaryLines: [String] {
        outputs.map { group in
            let status = group.status
            var name = group.name ?? "(no connector name)"
            if group.connectors.count > 1 { name += " (with \(group.connectors.dropFirst().joined(separator: ", ")))" }
            let slide = status.slide.map { "slide \($0 + 1) of \(status.slideCount)" } ?? "no slides"
            let rotation = status.playing ? "playing"
                : status.pausedBecause.isEmpty ? "not rotating" : "paused (\(status.pausedBecause.joined(separator: ", ")))"
            return "\(name): \(slide), \(rotation), screen \(status.screen.rawValue), \(status.output)"
        }
    }
}
