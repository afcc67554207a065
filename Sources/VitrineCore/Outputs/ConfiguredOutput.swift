/// One entry of the configuration's `outputs`: a connector by its kernel
/// name, how to drive it, what it shows and what its absence means.
public struct ConfiguredOutput: Hashable, Sendable {
    /// The kernel's connector name (`ConnectorName`): `HDMI-A-1`, `DSI-1`.
    public var name: String
    /// The mode; nil: the display's preferred one.
    public var mode: DisplayModeSpec?
    /// How the panel is mounted; nil: `output.rotation`.
    public var rotation: DisplayRotation?
    /// How pictures fit it, unless a slide sets its own; nil: the top-level `fit`.
    public var fit: FitMode?
    /// Its pictures. A mirror's are its source's, so a mirror's is `.programme`.
    public var content: OutputContent
    public var role: OutputRole
    public var whenMissing: MissingOutputPolicy
    /// The touch devices whose touches page it (`TouchOutputBinding`); nil:
    /// those bound to it automatically, or by default.
    public var touch: [InputDevicePattern]?

    public init(name: String, mode: DisplayModeSpec? = nil, rotation: DisplayRotation? = nil, fit: FitMode? = nil,
                content: OutputContent = .programme, role: OutputRole = .own, whenMissing: MissingOutputPolicy = .wait,
                touch: [InputDevicePattern]? = nil) {
        self.name = name
        self.mode = mode
        self.rotation = rotation
        self.fit = fit
        self.content = content
        self.role = role
        self.whenMissing = whenMissing
        self.touch = touch
    }

    /// The source it mirrors, if it is a mirror.
    public var mirrored: String? {
        if case .mirror(let source) = role { return source }
        return nil
    }

    /// Its place in a canvas, if it is part of one.
    public var canvas: CanvasMembership? {
        if case .canvas(let membership) = role { return membership }
        return nil
    }
}

/// How an output's picture relates to the others'.
public enum OutputRole: Hashable, Sendable {
    /// A picture of its own, composed for its size.
    case own
    /// The picture of another listed output (by name), composed for its own size.
    case mirror(of: String)
    /// A part of a picture spanned across several outputs.
    case canvas(CanvasMembership)
}

/// An output's place in a canvas: a picture spanned across several outputs
/// (a video wall), laid out in millimetres, so that bezels and gaps are
/// skipped as the eye expects: a line crossing from one screen to the next
/// continues behind the frames.
public struct CanvasMembership: Hashable, Sendable {
    /// The canvas's name; the outputs that give the same one form it.
    public var name: String
    /// Where the output's picture area (its glass, not its frame) begins: its
    /// top left corner's distance from the canvas's origin, in millimetres.
    public var x: Double
    public var y: Double
    /// The picture area's size as mounted, in millimetres; nil: the size the
    /// display reports (its EDID), turned with the output's rotation.
    public var width: Double?
    public var height: Double?

    public init(name: String, x: Double, y: Double, width: Double? = nil, height: Double? = nil) {
        self.name = name
        self.x = x
        self.y = y
        self.width = width
        self.height = height
    }

    /// Its rectangle when its size is given in the configuration.
    public var configuredRect: MillimetreRect? {
        guard let width, let height else { return nil }
        return MillimetreRect(x: x, y: y, width: width, height: height)
    }
}
