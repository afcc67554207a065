import FoundationEssentials
import Hummingbird
import NIOCore
import VitrineAPI
import VitrineChannelFollower
import VitrineConfig
import VitrineCore
import VitrineDoctor
import VitrinePNG
import VitrineRuntime
import VitrineState
import VitrineSystem
import VitrineUpdate

/// Status, control and the screenshot.
struct StatusRoutes {
    let link: any DisplayLoopLink
    let store: StateStore
    let channel: ChannelFollower?
    let television: CECTelevision?
    let slides: any SlideDecoder
    /// The board's health, read every minute by the kiosk; nil where nobody reads it (tests).
    let board: BoardHealthWatch?
    /// The update helper's last report, read with the board's health; nil where nobody reads it.
    let software: SoftwareUpdateWatch?
    /// How long the display thread has to answer a screenshot or health ping.
    static let displayTimeout: Duration = .seconds(3)

    func add(to router: RecordingRouter<APIRequestContext>) {
        router.get("/api/v1/status") { request, _ in
            let address = try OutputAddress(request, link: link)
            // The update helper's report, read off the event loop and at most every 2 s.
            if let software, software.isRefreshDue(now: MonotonicClock.now()) {
                try await offload { software.refresh(now: MonotonicClock.now()) }
            }
            return try JSONResponse.make(.ok, encoding: body(address.loop(link).status))
        }
        router.post("/api/v1/control") { request, _ in try await control(request) }
        router.get("/api/v1/screenshot") { request, _ in
            let loop = try OutputAddress(request, link: link).loop(link)
            guard let frame = await Self.displayAnswer({ reply in loop.requestFrame(reply: reply) }) else {
                throw APIError(.serviceUnavailable, "the display thread did not answer within \(Self.displayTimeout)")
            }
            let png = try await offload { try PNGCodec.encode(frame, fast: true) }
            return JSONResponse.bytes(png, contentType: "image/png", headers: [.cacheControl: "no-store"])
        }
    }

    /// The status one loop published, as the API answers it now: the
    /// kiosk's parts (version, channel, TV) with the loop's own.
    func body(_ status: KioskStatus) -> StatusBody {
        let now = MonotonicClock.now()
        return StatusBody(
            slide: status.currentSlide, slideCount: status.slideCount, playing: status.playing, pausedBecause: status.pausedBecause,
            output: status.output, inputDevices: status.inputDevices, configVersion: store.current.version,
            uptimeSeconds: (now - status.startedAt).secondsValue, recentErrors: status.recentErrors,
            vitrineVersion: VitrineVersion.current, screen: status.screen.isLit ? .on : .off,
            schedule: status.schedule.map(ScheduleStatusBody.init), override: status.override.map(OverrideBody.init),
            channel: channel.map { ChannelStatusBody($0, wall: WallClock.now()) },
            tv: television.map { TelevisionStatusBody($0.status) },
            attract: status.attract.map { AttractStatusBody($0, now: now) },
            refusedPictures: slides.refusedPictures.map(RefusedPictureBody.init),
            board: board?.current.map(BoardHealthBody.init),
            video: status.video.map(VideoStatusBody.init),
            software: software?.current.map(SoftwareStatusBody.init))
    }

    private func control(_ request: Request) async throws -> Response {
        let address = try OutputAddress(request, link: link)
        let decoded = try await RequestBodyDecoder.decode(ControlCommand.self, from: request, upTo: 64 * 1024)
        let command: KioskCommand
        switch decoded {
        case .next: command = .navigate(.next)
        case .previous: command = .navigate(.previous)
        case .pause: command = .pause
        case .resume: command = .resume
        case .goTo(let slide):
            // A malformed slide is the body's fault (422, above); a slide the playlist does not
            // have now is a conflict with the kiosk's state (409), as the playlist can change.
            // Every group the command goes to must have it.
            let groups = address.group.map { [$0] } ?? link.outputGroups
            for group in groups where slide >= group.loop.status.slideCount {
                let count = group.loop.status.slideCount
                let playlist = count == 0 ? "the playlist is empty" : "the playlist has \(count) slide\(count == 1 ? "" : "s") (counting from 0)"
                let place = link.outputGroups.count > 1 ? group.name.map { " on \($0)" } ?? "" : ""
                let message = "there is no slide \(slide)\(place): \(playlist)"
                throw APIError(.conflict, message, issues: [.init(path: "slide", message: message)])
            }
            command = .navigate(.goTo(slide))
        }
        address.loop(link).send(command)
        return try JSONResponse.make(.accepted, encoding: ControlAccepted(accepted: decoded.name))
    }

    /// Waits for the display thread's answer to a query, or nil after `displayTimeout`.
    static func displayAnswer<T: Sendable>(_ ask: (@escaping @Sendable (T) -> Void) -> Void) async -> T? {
        let (stream, continuation) = AsyncStream.makeStream(of: T.self, bufferingPolicy: .bufferingNewest(1))
        ask { value in
            continuation.yield(value)
            continuation.finish()
        }
        let timeout = Task {
            try await Task.sleep(for: displayTimeout)
            continuation.finish()
        }
        defer { timeout.cancel() }
        for await value in stream { return value }
        return nil
    }
}
