import VitrineCore

/// Everything a kiosk is told to do, as read from its YAML or JSON file.
/// Every key, its default and its limits are listed in docs/configuration.md.
public struct KioskConfiguration: Hashable, Sendable {
    public var slides: [SlideConfiguration] = []
    /// How long a slide stays when it does not set its own duration.
    public var interval: Duration = .seconds(5)
    public var autoplay = true
    public var loop = true
    /// The default fit for slides that do not set their own.
    public var fit: FitMode = .contain
    public var background: RGBAColor = .black
    /// Shown when the playlist is empty and, by default, in place of a picture that fails.
    public var placeholder: String?
    public var onImageError: ImageErrorPolicy = .placeholder
    /// Show the kiosk's address over its slides (`AddressNotice`): the starter
    /// configuration sets it, so that a new board says where to set it up, and
    /// a configuration of one's own leaves it out.
    public var showAddress = false
    /// Ken Burns pan and zoom for every slide that does not set its own
    /// `kenBurns`; nil: none (`kenBurns: false`, or left out).
    public var kenBurns: KenBurns?
    public var transition = TransitionStyle()
    public var indicator = IndicatorStyle()
    public var touch = TouchConfiguration()
    public var output = OutputConfiguration()
    /// The connectors to drive, each with its mode, rotation and pictures
    /// (`OutputPlan` decides on a card's connectors); nil: today's one output,
    /// `output.connector` or the first connected one.
    public var outputs: OutputLayout?
    public var decode = DecodeConfiguration()
    public var power = PowerConfiguration()
    /// Rotation in step with other kiosks, by the wall clock; nil: on its own.
    public var sync: RotationSync?
    /// Playlists by time of day, day of the week and date; nil: `slides` shows all the time.
    public var schedule: ScheduleConfiguration?
    /// The remote API; set only in the local file (see `APIConfiguration`).
    public var api = APIConfiguration()
    /// The signed channel this kiosk follows; nil: none. Like `api`, set only in
    /// the local file (see `ChannelConfiguration`).
    public var channel: ChannelConfiguration?
    /// Proof of play: where the log of slides shown is uploaded. Like `api`,
    /// set only in the local file (see `PlaysConfiguration`).
    public var plays = PlaysConfiguration()

    // Not keys of the file: where paths lead on this machine.

    /// The directory relative slide and placeholder paths are resolved against:
    /// the configuration file's own directory.
    public var baseDirectory = "."
    /// Where `asset:` pictures are kept (the state directory's assets).
    public var assetDirectory: String?
    /// Downloaded copies of URL slides: URL to local file.
    public var downloads: [String: String] = [:]

    public init() {}

    /// A local file path made absolute against `baseDirectory`.
    public func absolute(_ file: String) -> String {
        file.hasPrefix("/") ? file : (baseDirectory == "." ? file : baseDirectory + "/" + file)
    }

    /// The local file that holds the picture `path` names, or nil while there is
    /// none: a URL not downloaded yet, or an asset without an asset directory.
    public func resolve(_ path: String) -> String? {
        switch SlideSource(path) {
        case .file(let file):
            return absolute(file)
        case .asset(let id):
            return assetDirectory.map { $0 + "/" + id }
        case .url(let url):
            return downloads[url]
        }
    }

    /// The engine's view of this configuration.
    public var carouselSettings: CarouselSettings {
        CarouselSettings(
            slideDwells: slides.map { $0.duration ?? interval },
            loop: loop,
            rotation: RotationPolicy(autoplay: autoplay, interval: interval, resumeDelayAfterTouch: touch.resumeDelay),
            transition: transition)
    }

    public var outputSize: PixelSize { PixelSize(width: output.width, height: output.height) }

    /// The `output` keys the output plan takes besides `outputs`: those that
    /// choose the one output without it, and the rotation of every output
    /// that gives none.
    public var singleOutput: OutputPlan.SingleOutput {
        OutputPlan.SingleOutput(connector: output.connector, mode: output.mode, rotation: DisplayRotation(rawValue: output.rotation) ?? .none)
    }

    /// The pan and zoom `slide` shows with: its own `kenBurns`, else the
    /// top-level default; nil when neither sets one or the slide turns it off.
    public func kenBurns(of slide: SlideConfiguration) -> KenBurns? {
        let chosen = slide.kenBurns ?? kenBurns
        return chosen == .off ? nil : chosen
    }
}

/// One entry of the playlist.
extension KioskConfiguration {
    /// The slides shown only while nobody uses the kiosk (`attractOnly`).
    public var attractOnlySlides: Set<Int> { Set(slides.indices.filter { slides[$0].attractOnly }) }
}

public struct SlideConfiguration: Hashable, Sendable {
    /// The JPEG file, absolute or relative to the configuration file.
    public var path: String
    /// Overrides `interval` for this slide.
    public var duration: Duration?
    /// Overrides the default `fit` for this slide.
    public var fit: FitMode?
    /// What a tap on this slide does.
    public var action: TapAction?
    /// Shown only while nobody uses the kiosk (`attractOnly: true`): attract
    /// mode (`touch.attract`) takes it out of paging from a visitor's first
    /// touch until it goes back home.
    public var attractOnly: Bool
    /// Overrides the top-level `kenBurns` for this slide; `.off` turns it off
    /// here, nil takes the top-level one.
    public var kenBurns: KenBurns?
    /// A video slide plays again and again, with no seam, for its `duration`
    /// (`loop: true`, which needs one); without it a video plays once, and is
    /// cut at `duration` when the slide has one. A picture ignores it.
    public var loop: Bool

    public init(path: String, duration: Duration? = nil, fit: FitMode? = nil, action: TapAction? = nil,
                attractOnly: Bool = false, kenBurns: KenBurns? = nil, loop: Bool = false) {
        self.path = path
        self.duration = duration
        self.fit = fit
        self.action = action
        self.attractOnly = attractOnly
        self.kenBurns = kenBurns
        self.loop = loop
    }

    /// How long the slide plays if its file is a video.
    public var videoLength: VideoLength {
        switch (duration, loop) {
        case (let duration?, true): .loop(for: duration)
        case (let duration?, false): .stop(after: duration)
        case (nil, _): .wholeVideo
        }
    }
}

/// What a slide whose picture cannot be decoded shows.
public enum ImageErrorPolicy: String, Hashable, Sendable, CaseIterable {
    /// The placeholder takes the slide's place and its time.
    case placeholder
    /// The slide leaves the rotation until the configuration changes.
    case skip
}

public struct TouchConfiguration: Hashable, Sendable {
    /// After the last finger lifts, rotation waits this long plus a full dwell.
    public var resumeDelay: Duration = .seconds(3)
    /// Use only input devices matching one of these (a part of the name, or
    /// vendor:product), even ones the classification alone would leave out;
    /// empty: every touch device.
    public var include: [String] = []
    /// Never use input devices matching one of these.
    public var exclude: [String] = []
    /// libinput's 3x2 calibration matrix on normalised coordinates.
    public var calibration: [Double] = [1, 0, 0, 0, 1, 0]
    /// Per-device calibrations, the first match winning over `calibration`.
    public var devices: [TouchDeviceCalibration] = []

    /// The device choice these keys make.
    public var deviceSelection: TouchDeviceSelection {
        TouchDeviceSelection(include: include.map { InputDevicePattern($0) }, exclude: exclude.map { InputDevicePattern($0) },
                             calibrations: devices, defaultCalibration: calibration)
    }
    /// A touch at most this long that barely moves is a tap.
    public var tapMaxDuration: Duration = .milliseconds(250)
    /// How far a tap may move, in millimetres.
    public var tapSlopMillimetres: Double = 5
    /// A release pages when the finger travelled this fraction of the width.
    public var swipeFraction: Double = 0.25
    /// A release pages when the finger moved at least this fast, in mm/s.
    public var flickVelocityMillimetresPerSecond: Double = 150
    /// Attract mode (`touch.attract`): a visitor's touch holds rotation, and the
    /// kiosk goes back home this long after the last touch. Nil: off.
    public var attract: AttractMode.Settings?
    /// Which touch devices this kiosk takes when the board has several
    /// outputs: set by `shown(onOutput:)`, never read from or written to a
    /// file. Nil (no `outputs` section): every touch device, as always.
    public var outputContext: TouchOutputContext?
    /// Millimetres to pixels when a device does not report its resolution: 96 dpi.
    public static let assumedPixelsPerMillimetre = 96 / 25.4
    public init() {}
}

/// What tapping a slide does besides reporting the tap.
public enum TapAction: Hashable, Sendable {
    /// Go to the slide with this index.
    case goTo(Int)
    /// POST `{slide, x, y, time}` as JSON to this http URL, giving up after `timeout`.
    case post(url: String, timeout: Duration)
}

/// Which display backend to use.
public enum DisplayMode: String, Hashable, Sendable, CaseIterable {
    /// KMS/DRM if a usable card is found, otherwise headless with a log line saying why.
    case auto
    /// KMS/DRM only: fail with a clear message if it cannot be used.
    case drm
    /// Render into memory and keep a preview PNG up to date.
    case headless
}

/// Which KMS interface programs the display.
public enum ModesettingInterface: String, Hashable, Sendable, CaseIterable {
    /// Atomic commits where the driver supports them, the legacy ioctls otherwise.
    case auto, atomic, legacy
}

public struct OutputConfiguration: Hashable, Sendable {
    public var display: DisplayMode = .auto
    /// The DRM card; nil picks the first card with a connected display.
    public var card: String?
    /// The connector by its kernel name (`HDMI-A-1`); nil picks the first connected one.
    public var connector: String?
    /// The mode; nil uses the display's preferred mode.
    public var mode: DisplayModeSpec?
    public var modesetting: ModesettingInterface = .auto
    /// Whether frames may go on the display's overlay planes (`auto`, where the
    /// output has overlays and atomic modesetting) or are always composed on the
    /// CPU (`cpu`, for a board whose planes misbehave).
    public var planes: PlanePlanner.Mode = .auto
    /// The most memory the slides' scan-out buffers take, in MiB: on a Raspberry
    /// Pi they come from CMA, which other users share.
    public var planeMemoryMiB = 96
    /// How far the panel is turned: the picture (and touch) turn clockwise by this many degrees.
    public var rotation = 0
    /// The output size when headless (a DRM display uses its mode's size).
    public var width = 1920
    public var height = 1080
    /// Where the headless backend keeps its live preview PNG.
    public var preview = "/tmp/vitrine-preview.png"
    public init() {}
}

public struct PowerConfiguration: Hashable, Sendable {
    /// How long a touch lights a screen that was switched off; nil (`off`):
    /// touches leave it dark (they still do nothing else).
    public var wakeOnTouch: Duration? = .seconds(30)
    /// Which HDMI-CEC adapter tells the TV when the screen goes off and on.
    public var cec: CECSetting = .auto
    public init() {}
}

/// `power.cec`: whether, and through which adapter, the TV follows the screen's power over HDMI-CEC.
public enum CECSetting: Hashable, Sendable, CustomStringConvertible {
    /// The adapter of the HDMI output the kiosk drives, if the kernel has one; nothing otherwise.
    case auto
    case off
    /// This adapter (/dev/cecN).
    case adapter(String)

    /// `/dev/cec0`, `/dev/cec1`, …: the names the kernel's CEC framework gives its adapters.
    public static func isCECDeviceNode(_ path: String) -> Bool {
        guard path.hasPrefix("/dev/cec") else { return false }
        let number = path.dropFirst("/dev/cec".count)
        return (1...3).contains(number.count) && number.allSatisfy { $0.isASCII && $0.isNumber }
    }

    public init?(_ text: String) {
        switch text {
        case "auto": self = .auto
        case "off": self = .off
        default:
            // Only the kernel's CEC device nodes: a configuration must not point
            // the kiosk's ioctls at any other file or device.
            guard Self.isCECDeviceNode(text) else { return nil }
            self = .adapter(text)
        }
    }

    public var description: String {
        switch self {
        case .auto: return "auto"
        case .off: return "off"
        case .adapter(let path): return path
        }
    }
}

public struct DecodeConfiguration: Hashable, Sendable {
    /// Pictures with more pixels than this are refused before decoding (decompression bombs).
    public var maxPixels = 100_000_000
    /// How many decoded slides are kept in memory at most: the current slide and
    /// its two neighbours by default, as three-view carousels do; more keeps
    /// recently shown ones too, at one output-sized frame each.
    public var cacheSlides = 3
    /// The highest average bitrate a video slide may have, in megabits a
    /// second (`decode.maxVideoBitrate`). 60 is above what signage video is
    /// encoded at (1080p H.264 at 8 to 20, 4K HEVC at 20 to 40) and within a
    /// Pi 4's H.264 decoder (level 4.2: 50 for main, 62.5 for high profile);
    /// more is decoded too late for its frames, and fills the card and the
    /// network for nothing on a 1 GB board.
    public var maxVideoBitrateMbps = 60
    /// `maxVideoBitrateMbps` in bits a second.
    public var maxVideoBitsPerSecond: Int { maxVideoBitrateMbps * 1_000_000 }
    public init() {}
}
