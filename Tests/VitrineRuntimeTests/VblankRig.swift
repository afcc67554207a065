import VitrineCore
@testable import VitrineRuntime

/// A kiosk's display loop over a composite display, on virtual time: each
/// member is a `FakeDisplay` whose flips complete at its own vblanks (every
/// `period` from `phase`), and the loop wakes when a flip completes, at its
/// frame timer and when the picture changes at rest, as the kiosk's does. At each wake it does what `KioskOutput.draw` does: a picture that
/// changed is drawn (one value in every pixel) and presented when the frame
/// pacing and the display allow; an unchanged one lets a member that skipped
/// it catch up.
struct VblankRig {
    struct Screen {
        let display: FakeDisplay
        let period: Duration
        let phase: Duration
    }

    let display: CompositeDisplay
    let screens: [Screen]
    private var pacing: FramePacing
    /// The picture last presented to the group.
    private var shown: UInt32?
    /// When the loop presented a frame, and the picture it drew.
    private(set) var frames: [(at: MonotonicInstant, picture: UInt32)] = []

    /// `screens`' displays must be `display`'s members; each is set to flip on present.
    init(_ display: CompositeDisplay, screens: [Screen]) {
        self.display = display
        self.screens = screens
        for screen in screens {
            screen.display.flipsOnPresent = true
            screen.display.refreshInterval = screen.period
        }
        pacing = FramePacing(refreshInterval: display.refreshInterval)
    }

    /// A canvas of 30x24 screens side by side, a 5-column bezel between each two.
    static func canvas(_ screens: Screen...) -> VblankRig {
        VblankRig(SpannedDisplay(canvasSize: PixelSize(width: 35 * screens.count - 5, height: 24), members: screens.indices.map {
            SpannedDisplay.Member(display: screens[$0].display, region: PixelRect(x: 35 * $0, y: 0, width: 30, height: 24))
        }), screens: screens)
    }

    /// A source and its mirrors, all 30x24.
    static func mirror(_ source: Screen, _ mirrors: Screen...) -> VblankRig {
        VblankRig(MirroredDisplay(source: MirroredDisplay.Member(display: source.display),
                                  mirrors: mirrors.map { MirroredDisplay.Member(display: $0.display) }),
                  screens: [source] + mirrors)
    }

    /// 60 Hz, and 30 Hz exactly twice as long, so that every other vblank of a
    /// 60 Hz screen is one of a 30 Hz screen of the same phase.
    static let sixtyHertz = Duration.nanoseconds(16_666_667), thirtyHertz = sixtyHertz * 2

    static func screen(_ name: String, period: Duration, phase: Duration = .zero) -> Screen {
        Screen(display: FakeDisplay(name, size: PixelSize(width: 30, height: 24)), period: period, phase: phase)
    }

    /// The first vblank of `screen` strictly after `instant`.
    static func vblank(of screen: Screen, after instant: MonotonicInstant) -> MonotonicInstant {
        let period = screen.period.nanoseconds, phase = screen.phase.nanoseconds
        let since = instant.nanoseconds - phase
        let count = since < 0 ? 0 : since / period + 1
        return MonotonicInstant(nanoseconds: phase + count * period)
    }

    /// Runs the loop over [`start`, `end`): `picture(t)` is what the kiosk
    /// wants on screen at `t` (opaque); it changes at the instants `changes`
    /// at rest, or at every instant when `animating`.
    mutating func run(from start: MonotonicInstant, to end: MonotonicInstant, animating: Bool = false,
                      changes: [MonotonicInstant] = [], picture: (MonotonicInstant) -> UInt32) throws {
        var flips: [MonotonicInstant?] = screens.map { _ in nil }
        var timer: MonotonicInstant?
        var now = start
        while now < end {
            for (index, screen) in screens.enumerated() where flips[index] == now {
                screen.display.completeFlip(at: now)
                flips[index] = nil
            }
            let wanted = picture(now)
            if wanted != shown {
                if !pacing.isTooSoon(now), display.isReadyForFrame, let canvas = display.acquireCanvas() {
                    for y in 0..<canvas.size.height {
                        for x in 0..<canvas.size.width { canvas.row(y)[x] = wanted }
                    }
                    try display.present(at: now)
                    pacing.presented(at: now, animating: true)
                    shown = wanted
                    frames.append((now, wanted))
                }
            } else if display.canCatchUp {
                try display.catchUp(at: now)
            }
            // A flip presented now completes at the member's next vblank, if it shows.
            for (index, screen) in screens.enumerated() where screen.display.isFlipPending && screen.display.isShowing && flips[index] == nil {
                flips[index] = Self.vblank(of: screen, after: now)
            }
            // As `KioskOutput.nextFrame`: a frame wanted and the display ready.
            timer = (animating || picture(now) != shown) && display.isReadyForFrame ? pacing.nextFrame(after: now) : nil
            // The next wake: a flip completing, the timer, or a change.
            now = (flips.compactMap { $0 } + [timer].compactMap { $0 } + changes.filter { $0 > now }).min() ?? end
        }
    }

    /// The instant `screen`'s display first showed `picture`, if it did.
    func firstShown(_ picture: UInt32, on screen: Screen) -> MonotonicInstant? {
        screen.display.scanouts.first { $0.pixel == picture }?.at
    }
}
