/// A connector the plan drives: its CRTC and mode, how it is turned, and what it shows.
public struct PlannedOutput: Hashable, Sendable, CustomStringConvertible {
    public var connector: String
    /// The CRTC's index in the card's list.
    public var crtc: Int
    /// Whether that CRTC is the one the connector is on now (no modeset needed to move it).
    public var keepsCRTC: Bool
    public var mode: OutputMode
    /// The mode the configuration asked for; nil: the preferred one was taken.
    public var requestedMode: DisplayModeSpec?
    public var rotation: DisplayRotation
    /// How pictures fit it; nil: the top-level `fit`.
    public var fit: FitMode?
    /// Its pictures: its own, its canvas's, or its source's for a mirror.
    public var content: OutputContent
    public var showing: Showing
    /// The configured output whose place it takes: a mirror whose source is not driven.
    public var standsInFor: String?

    /// How the picture is laid out on it.
    public enum Showing: Hashable, Sendable {
        /// Its own picture at its own size.
        case own
        /// The same pictures as another driven output, at its own size.
        case mirror(of: String)
        /// Its part of a canvas picture.
        case canvas(CanvasPlacement)
    }

    /// The size the carousel is laid out at: the mode's, turned by a quarter for 90 and 270.
    public var logicalSize: PixelSize {
        rotation == .quarter || rotation == .threeQuarters ? mode.size.transposed : mode.size
    }

    /// `playlist lobby; CRTC 3 (as now), 1920x1080@60, rotation 90`: what it
    /// shows, then how it is driven.
    public var description: String { shows + "; " + drive }

    /// What it shows: `playlist lobby`, `mirror of HDMI-A-1 (the programme)`,
    /// `canvas wall 1922x1080+0+0 of 3875x1080 (playlist lobby) in place of HDMI-A-1`.
    public var shows: String {
        var what: String
        switch showing {
        case .own: what = "\(content)"
        case .mirror(let source): what = "mirror of \(source) (\(content))"
        case .canvas(let placement): what = "\(placement) (\(content))"
        }
        if let standsInFor { what += " in place of \(standsInFor)" }
        return what
    }

    /// How it is driven: `CRTC 3 (as now), 1920x1080@60, rotation 90, fit cover`.
    public var drive: String {
        var how = ["CRTC \(crtc)\(keepsCRTC ? " (as now)" : "")", "\(mode)"]
        if rotation != .none { how.append("rotation \(rotation.rawValue)") }
        if let fit { how.append("fit \(fit.rawValue)") }
        return how.joined(separator: ", ")
    }
}

/// Why the plan drives no picture on a connector, or on a configured output.
public enum UndrivenReason: Error, Hashable, Sendable, CustomStringConvertible {
    /// The configuration has an `outputs` section that does not list it.
    case notListed
    /// Without an `outputs` section the kiosk drives one output, and this is another.
    case notTheOneOutput(String)
    case notConnected
    /// No connector of that name on the card.
    case notOnCard
    case noModes
    case modeNotOffered(DisplayModeSpec)
    /// Its encoders can drive none of the card's CRTCs.
    case noCRTC
    /// Every CRTC it can drive went to an output listed before it.
    case noCRTCLeft

    public var description: String {
        switch self {
        case .notListed: return "not in outputs: left as it is"
        case .notTheOneOutput(let one): return "left as it is: without an outputs section the kiosk drives one output, \(one)"
        case .notConnected: return "not connected"
        case .notOnCard: return "not on this card"
        case .noModes: return "connected, but its display offers no mode"
        case .modeNotOffered(let mode): return "its display does not offer \(mode)"
        case .noCRTC: return "its encoders can drive no CRTC"
        case .noCRTCLeft: return "every CRTC it can drive went to an output listed before it"
        }
    }

    /// Whether it says the display is not there as asked (what `whenMissing` is about).
    public var isMissing: Bool {
        switch self {
        case .notConnected, .notOnCard, .noModes, .modeNotOffered: return true
        case .notListed, .notTheOneOutput, .noCRTC, .noCRTCLeft: return false
        }
    }
}

/// A configured output that is not there as asked, and what follows from it.
public struct MissingOutput: Hashable, Sendable, CustomStringConvertible {
    public var name: String
    public var reason: UndrivenReason
    /// Its `whenMissing`; nil for `output.connector` (no `outputs` section).
    public var policy: MissingOutputPolicy?
    /// The CRTC kept free for it (`wait`), if one could be.
    public var keptCRTC: Int?
    /// The canvas whose place for it is kept (`wait`) or given up (`skip`).
    public var canvas: String?
    /// The driven mirrors that show its pictures in its place.
    public var shownBy: [String]

    /// `HDMI-A-2: not connected; wait: CRTC 4 kept for it, its place in canvas wall kept`
    public var description: String {
        var consequences: [String] = []
        switch policy {
        case .wait?:
            consequences.append(keptCRTC.map { "CRTC \($0) kept for it" } ?? (reason == .notOnCard ? "no CRTC to keep for it on this card" : "no CRTC left to keep for it"))
            if let canvas { consequences.append("its place in canvas \(canvas) kept") }
        case .skip?:
            consequences.append("nothing kept for it")
            if let canvas { consequences.append("canvas \(canvas) spans the outputs that are there") }
        case nil:
            consequences.append("output.connector names it: the kiosk drives no output on this card")
        }
        if !shownBy.isEmpty { consequences.append("\(shownBy.joined(separator: " and ")) show\(shownBy.count == 1 ? "s" : "") its pictures") }
        return "\(name): \(reason); " + (policy.map { "\($0.rawValue): " } ?? "") + consequences.joined(separator: ", ")
    }
}
