import Logging
import VitrineConfig
import VitrineCore

/// What the kiosk shows and its decoded pictures: the display thread's owner
/// of content and cache, and of the apply path.
///
/// It holds the configuration on screen, which of its playlists that is, the
/// store of decoded slides, the programme (schedule and override) and a
/// configuration waiting for its slide boundary. A change (a push, a channel
/// version, the schedule, an override) becomes a `PendingConfiguration`
/// decoding into a store of its own (`follow`), and switches in at a slide
/// boundary with the engine as the diff of the playlists says (`switchIfDue`).
/// A URL download touches only the slides that show it (`updateDownloads`).
///
/// The engine is the loop's: it is passed in to read where the carousel is,
/// and `inout` where a switch replaces it.
final class KioskContent {
    /// The configuration the carousel runs: the one applied, with the slides
    /// its schedule or an override puts on screen.
    private(set) var configuration: KioskConfiguration
    /// Its version, and which of its playlists (or an override) it is.
    private(set) var shown: ShownIdentity
    private(set) var store: SlideFrameStore
    /// The schedule and the override: what to show by the wall clock.
    let programme: KioskProgramme
    /// A configuration waiting for its slide boundary, with its pictures decoding.
    private var pending: PendingConfiguration?
    /// The size the carousel is drawn at, which every store decodes for. Kept
    /// here, not read from the store on screen: a store knows it only from its
    /// slides, and one with none (an empty playlist) says 0x0.
    private var output: PixelSize
    private let wakeup: WakeupSignal
    private let metrics: KioskMetrics
    /// Where every store's pictures are decoded (`SlideDecoder`).
    private let decoder: any SlideDecoder
    /// Where slides are decoded when the display shows them from there (planes), for a
    /// playlist with this kind of page change; nil otherwise.
    private let frameMemory: (TransitionKind) -> (any SlideFrameMemorySource)?
    private let logger: Logger
    /// The notes about Ken Burns frames held below their zoom already logged:
    /// each is said once, not at every configuration that repeats it.
    private var headroomNotes: Set<String> = []

    /// What `switchIfDue` switched to, for the loop's other owners.
    struct Switch {
        var configuration: KioskConfiguration
        /// The version newly applied, when the version changed.
        var appliedVersion: String?
        /// The same version and playlist again, its pictures decoded anew: the
        /// engine and everything else stay.
        var picturesOnly: Bool
    }

    init(programme: KioskProgramme, configuration: KioskConfiguration, shown: ShownIdentity, output: PixelSize,
         wakeup: WakeupSignal, metrics: KioskMetrics, decoder: any SlideDecoder,
         frameMemory: @escaping (TransitionKind) -> (any SlideFrameMemorySource)? = { _ in nil }, logger: Logger) {
        self.decoder = decoder
        self.frameMemory = frameMemory
        self.programme = programme
        self.configuration = configuration
        self.shown = shown
        self.wakeup = wakeup
        self.metrics = metrics
        self.logger = logger
        self.output = output
        store = Self.makeStore(configuration, output: output, wakeup: wakeup, metrics: metrics, decoder: decoder, frameMemory: frameMemory)
        noteHeadroom(of: configuration)
    }

    /// Says once that Ken Burns frames at this output are held below their zoom (`SlideRequest.kenBurnsFramePixelLimit`).
    private func noteHeadroom(of configuration: KioskConfiguration) {
        guard let note = configuration.kenBurnsHeadroomNote(output: output), headroomNotes.insert(note).inserted else { return }
        logger.notice("\(note)")
    }

    /// The version the next change is made under: the one waiting, else the one on screen.
    var currentVersion: String? { pending?.identity.version ?? shown.version }

    private static func makeStore(_ configuration: KioskConfiguration, output: PixelSize, wakeup: WakeupSignal,
                                  metrics: KioskMetrics, decoder: any SlideDecoder,
                                  frameMemory: (TransitionKind) -> (any SlideFrameMemorySource)?) -> SlideFrameStore {
        SlideFrameStore(
            slides: configuration.slideRequests(output: output),
            placeholder: configuration.placeholderRequest(output: output),
            capacity: configuration.decode.cacheSlides,
            metrics: metrics, decoder: decoder, frameMemory: frameMemory(configuration.transition.kind),
            onChange: { wakeup.signal() })
    }

    /// The output was set up anew at another size: every slide is decoded again for it.
    func resize(to output: PixelSize) {
        guard output != self.output else { return }
        self.output = output
        logger.notice("output size is now \(output): decoding the slides again")
        store = Self.makeStore(configuration, output: output, wakeup: wakeup, metrics: metrics, decoder: decoder, frameMemory: frameMemory)
        noteHeadroom(of: configuration)
    }

    /// What the schedule or an override shows from now: decoded into a store of
    /// its own, and switched in by `switchIfDue`, so it never shows a black frame.
    func follow(_ show: Programme.Shown, version: String?, immediate: Bool, engine: CarouselEngine, at now: KioskInstant) {
        let next = show.configuration, identity = ShownIdentity(version: version, selection: show.selection)
        let store = Self.makeStore(next, output: output, wakeup: wakeup, metrics: metrics, decoder: decoder, frameMemory: frameMemory)
        noteHeadroom(of: next)
        // The same version and playlist sent again, or a change that leaves the
        // picture on screen in the playlist: keep the position, and have the
        // slides around it ready for the swap.
        let sameShow = identity == shown && next.carouselSettings == configuration.carouselSettings
        let continuity: SlideContinuity = sameShow ? .unchanged
            : next.continuity(from: configuration, showing: engine.currentSlide)
                .joiningGroup(at: Self.groupSlide(of: next, immediate: immediate, engine: engine, at: now))
        let waiting = PendingConfiguration(configuration: next, identity: identity, store: store, continuity: continuity,
                                           sameShow: sameShow, immediate: immediate)
        waiting.requestFirstSlides(engine: engine)
        pending = waiting
        let what = identity.selection == .configuration ? "configuration \(version ?? "")" : "\(identity.selection)"
        logger.info(sameShow ? "\(what) again: its pictures are decoded anew and show from the next slide boundary"
                             : immediate ? "\(what) shows as soon as its first picture is ready"
                             : "\(what) received; it applies at the next slide boundary (\(continuity))")
    }

    /// With `sync`, the slide the group shows when `next` switches in: at once
    /// (`immediate`), or at the rotation deadline, which is the next slide boundary.
    private static func groupSlide(of next: KioskConfiguration, immediate: Bool, engine: CarouselEngine,
                                   at now: KioskInstant) -> Int? {
        let switchAt = immediate ? now.monotonic : max(engine.scheduler.deadline ?? now.monotonic, now.monotonic)
        return SyncedRotationFollower.groupSlide(for: next, atWallNanoseconds: now.wallNanoseconds(at: switchAt))
    }

    /// Switches to the waiting configuration once its first picture is ready and
    /// the carousel is at a slide boundary (or at once, for an override); the
    /// engine becomes what the diff of the playlists says. Nil: nothing switched.
    func switchIfDue(at now: MonotonicInstant, engine: inout CarouselEngine) -> Switch? {
        guard let pending, pending.isReady(currentSlide: engine.currentSlide),
              pending.immediate || PendingConfiguration.isAtSlideBoundary(engine, at: now) else { return nil }
        let next = pending.configuration, previous = shown
        configuration = next
        shown = pending.identity
        store = pending.store
        self.pending = nil
        if pending.sameShow {
            logger.info("the pictures decoded anew now showing")
            return Switch(configuration: next, appliedVersion: nil, picturesOnly: true)
        }
        switch pending.continuity {
        case .unchanged:
            break
        case .keeps(let slide):
            engine = engine.continuing(with: next.carouselSettings, atSlide: slide, at: now)
        case .restarts, .joinsGroup:
            // A new engine at the first slide, or at the group's (whose deadline the
            // follower, updated below, puts on the group's next instant at the next turn).
            let pauses = engine.scheduler.pauseReasons
            let first = pending.continuity.firstSlide(current: nil)
            engine = next.slides.isEmpty ? CarouselEngine(settings: next.carouselSettings, start: now)
                : CarouselEngine(settings: next.carouselSettings, start: now, atSlide: first)
            for reason in pauses { engine.pause(reason, at: now) }
        }
        programme.inStep.update(for: next)
        var applied: String?
        if shown.version != previous.version {
            let version = shown.version ?? ""
            logger.notice("configuration \(version) applied", metadata: ["slides": "\(next.slides.count)"])
            applied = version
        }
        if shown.selection != previous.selection {
            logger.notice("now showing \(shown.selection)", metadata: ["slides": "\(next.slides.count)"])
        }
        return Switch(configuration: next, appliedVersion: applied, picturesOnly: false)
    }

    /// Refused pictures are tried again (an operator asked): on screen and in the store waiting to switch in.
    func retryFailedPictures() {
        store.retryFailed()
        pending?.store.retryFailed()
    }

    /// A URL's downloaded copy arrived or changed: the slides that show it decode
    /// the new file and change in place; the slide on screen, its deadline and
    /// every other frame are left alone. A placeholder that is such a URL is
    /// the one case that makes its store anew. Returns whether the store on
    /// screen was made anew (the picture must be drawn again).
    func updateDownloads(_ downloads: [String: String], engine: CarouselEngine) -> Bool {
        programme.updateDownloads(downloads)
        let remade = update(&configuration, &store, to: downloads)
        if remade { store.request(engine.slidesToPrefetch()) }
        if var waiting = pending {
            if update(&waiting.configuration, &waiting.store, to: downloads) {
                waiting.requestFirstSlides(engine: engine)
            }
            pending = waiting
        }
        return remade
    }

    /// `configuration`'s downloads and `store`'s requests brought to `downloads`;
    /// true when the store was made anew.
    private func update(_ configuration: inout KioskConfiguration, _ store: inout SlideFrameStore,
                        to downloads: [String: String]) -> Bool {
        let change = configuration.change(toDownloads: downloads)
        configuration.downloads = downloads
        if change.placeholder {
            store = Self.makeStore(configuration, output: output, wakeup: wakeup, metrics: metrics, decoder: decoder, frameMemory: frameMemory)
            return true
        }
        let requests = configuration.slideRequests(output: output)
        store.replace(Dictionary(uniqueKeysWithValues: change.slides.map { ($0, requests[$0]) }))
        return false
    }
}

extension PendingConfiguration {
    /// Asks its store for the slides the switch shows first: the ones around
    /// the current slide when the carousel goes on, else the first and the next.
    func requestFirstSlides(engine: CarouselEngine) {
        if continuity == .unchanged {
            store.request(engine.slidesToPrefetch())
        } else if !configuration.slides.isEmpty {
            let first = continuity.firstSlide(current: engine.currentSlide)
            store.request(configuration.slides.count > 1 ? [first, (first + 1) % configuration.slides.count] : [first])
        }
    }
}
