import Foundation
import Hummingbird
import HummingbirdTesting
import NIOCore
import NIOPosix
import Testing
@testable import VitrineRuntime
@testable import VitrineAPI
@testable import VitrineHTTP

@Suite("API: status, control, screenshot, events, monitoring")
struct StatusAndEventsTests {
    static func control(_ client: some TestClientProtocol, _ text: String) async throws -> (HTTPResponse.Status, [String: Any]) {
        try await sendJSON(client, .post, "/api/v1/control", text)
    }

    @Test func controlCommandsMoveTheScreenAndShowInTheStatus() async throws {
        let harness = try ServerHarness()
        defer { harness.close() }
        try await harness.application().test(.router) { client in
            try await client.execute(uri: "/api/v1/status", method: .get, headers: authorized()) { response in
                let status = json(response.body)
                #expect(status["slide"] as? Int == 0)
                #expect(status["slideCount"] as? Int == 2)
                #expect(status["playing"] as? Bool == false, "autoplay is off")
                #expect(status["output"] as? String == "headless 64x48")
                #expect(status["configVersion"] as? String == harness.store.current.version)
                #expect(status["vitrineVersion"] as? String == "0.1.0")
                #expect((status["uptimeSeconds"] as? Double ?? -1) >= 0)
                #expect(status["recentErrors"] as? [String] == [])
                #expect(status["inputDevices"] as? [String] == [])
            }
            #expect(try await Self.control(client, #"{"command": "next"}"#).0 == .accepted)
            #expect(await harness.eventually { harness.api.link.status.currentSlide == 1 })
            // The screenshot is the frame presented, which follows within a refresh or two.
            var centre = (r: 0, g: 0, b: 0)
            for _ in 0..<50 where !near(centre, ServerHarness.colors["green"]!) {
                centre = try await client.execute(uri: "/api/v1/screenshot", method: .get, headers: authorized()) { try centreColour(ofPNG: $0.body) }
                try await Task.sleep(for: .milliseconds(20))
            }
            #expect(near(centre, ServerHarness.colors["green"]!))
            #expect(try await Self.control(client, #"{"command": "goto", "slide": 0}"#).0 == .accepted)
            #expect(await harness.eventually { harness.api.link.status.currentSlide == 0 })
            #expect(try await Self.control(client, #"{"command": "previous"}"#).0 == .accepted)
            #expect(await harness.eventually { harness.api.link.status.currentSlide == 1 }, "the carousel loops backwards")
            #expect(try await Self.control(client, #"{"command": "pause"}"#).0 == .accepted)
            #expect(await harness.eventually { harness.api.link.status.pausedBecause == ["remote"] })
            #expect(try await Self.control(client, #"{"command": "resume"}"#).0 == .accepted)
            #expect(await harness.eventually { harness.api.link.status.pausedBecause.isEmpty })
        }
    }

    @Test(arguments: [
        (#"{"command": "jump"}"#, "command must be one of next, previous, goto, pause, resume, found jump"),
        (#"{"command": "goto", "slide": -1}"#, "slide must be a slide index for goto, a whole number from 0 to 1000000"),
        (#"{"command": "goto", "slide": "1"}"#, "slide must be a slide index for goto, a whole number from 0 to 1000000"),
        (#"{"command": "goto", "slide": 1000001}"#, "slide must be a slide index for goto, a whole number from 0 to 1000000"),
        (#"{"command": "goto", "slide": 1.5}"#, "slide must be a slide index for goto, a whole number from 0 to 1000000"),
        (#"{"command": "goto"}"#, "slide must be a slide index for goto, a whole number from 0 to 1000000"),
        (#"{"command": "next", "speed": 2}"#, "unknown key speed"),
        (#"["next"]"#, #"the body must be a JSON object such as {"command": "next"}"#),
        ("next", #"the body must be a JSON object such as {"command": "next"}"#),
    ])
    func badControlBodies(text: String, message: String) async throws {
        let harness = try ServerHarness()
        defer { harness.close() }
        try await harness.application().test(.router) { client in
            let (status, answer) = try await Self.control(client, text)
            #expect(status == .unprocessableContent)
            #expect(answer["error"] as? String == message)
        }
    }

    /// A well-formed goto to a slide the playlist does not have is a conflict with
    /// the kiosk's state (409), not a bad body: the playlist may have just changed.
    @Test(arguments: [(2, "there is no slide 2: the playlist has 2 slides (counting from 0)"),
                      (1_000_000, "there is no slide 1000000: the playlist has 2 slides (counting from 0)")])
    func gotoASlideThePlaylistDoesNotHaveIsAConflict(slide: Int, message: String) async throws {
        let harness = try ServerHarness()
        defer { harness.close() }
        try await harness.application().test(.router) { client in
            let (status, answer) = try await Self.control(client, #"{"command": "goto", "slide": \#(slide)}"#)
            #expect(status == .conflict)
            #expect(answer["error"] as? String == message)
            #expect((answer["issues"] as? [[String: Any]])?.first?["path"] as? String == "slide")
            #expect(try await Self.control(client, #"{"command": "goto", "slide": 1}"#).0 == .accepted)
        }
    }

    /// Over a real socket: the event stream carries a page change and a configuration change.
    @Test func theEventStreamCarriesSlideChangesAndConfigurations() async throws {
        let harness = try ServerHarness()
        defer { harness.close() }
        try await harness.application().test(.live) { client in
            let port = try #require(client.port)
            let stream = try await SSEReader(port: port, token: ServerHarness.token)
            defer { stream.close() }
            #expect(await harness.eventually { harness.api.events.subscriberCount == 1 })
            _ = try await Self.control(client, #"{"command": "next"}"#)
            try await client.execute(uri: "/api/v1/config", method: .put, headers: authorized([.contentType: "application/yaml"]),
                                     body: body("slides: [green.jpg]\nautoplay: false")) { #expect($0.status == .ok) }
            let text = try await stream.read(until: "configApplied", timeout: 10)
            #expect(text.hasPrefix(": connected\n\n"))
            #expect(text.contains("event: slideChanged\ndata: {\"cause\":\"command\",\"from\":0,\"to\":1}\n\n"))
            #expect(text.contains("event: configApplied\ndata: {\"version\":\"\(harness.store.current.version)\"}\n\n"))
        }
        #expect(await harness.eventually { harness.api.events.subscriberCount == 0 }, "a closed stream unsubscribes")
    }

    /// The server hears that an event-stream client left only when a write to
    /// it fails, up to a keep-alive later. Clients that reconnect quickly must
    /// not pile up streams (each holding a connection) past the hub's bound:
    /// a new stream ends the oldest.
    @Test func eventStreamsThatClientsLeftAreBoundedByEndingTheOldest() async throws {
        let hub = EventHub(maximumSubscribers: 3)
        let streams = (0..<4).map { _ in hub.subscribe() }
        #expect(hub.subscriberCount == 3)
        var oldest = streams[0].makeAsyncIterator()
        #expect(await oldest.next() == nil, "the oldest stream ended")
        hub.publish(ServerEvent("ping", encoding: [String: String]()))
        var newest = streams[3].makeAsyncIterator()
        #expect(await newest.next()?.name == "ping")

        let harness = try ServerHarness()
        defer { harness.close() }
        try await harness.application().test(.live) { client in
            let port = try #require(client.port)
            for _ in 0..<40 {
                let stream = try await SSEReader(port: port, token: ServerHarness.token)
                _ = try await stream.read(until: ": connected", timeout: 10)
                stream.close()
            }
            #expect(harness.api.events.subscriberCount <= harness.api.events.maximumSubscribers)
            try await client.execute(uri: "/api/v1/status", method: .get, headers: authorized()) { #expect($0.status == .ok) }
        }
    }

    @Test func metricsCountFramesDecodesAndRequests() async throws {
        let harness = try ServerHarness()
        defer { harness.close() }
        #expect(await harness.eventually { harness.api.monitoring.metrics[0].metrics.snapshot.framesPresented > 0 })
        try await harness.application().test(.router) { client in
            try await client.execute(uri: "/api/v1/status", method: .get) { _ in }
            try await client.execute(uri: "/api/v1/status", method: .get, headers: authorized()) { _ in }
            _ = try await Self.control(client, #"{"command": "next"}"#)
            #expect(await harness.eventually { harness.api.monitoring.metrics[0].metrics.snapshot.slideChanges == 1 })
            try await client.execute(uri: "/metrics", method: .get) { response in
                let text = String(buffer: response.body)
                #expect(text.contains("# TYPE vitrine_frames_presented_total counter\n"))
                #expect(text.contains("vitrine_slide_changes_total 1\n"))
                #expect(text.contains("vitrine_touches_total 0\n"))
                #expect(text.contains("# TYPE vitrine_decode_seconds histogram\n"))
                #expect(text.contains("vitrine_decode_seconds_bucket{le=\"+Inf\"} "))
                #expect(text.contains("vitrine_api_requests_total{method=\"GET\",status=\"401\"} 1\n"))
                #expect(text.contains("vitrine_api_requests_total{method=\"GET\",status=\"200\"} 1\n"))
                #expect(text.contains("vitrine_api_requests_total{method=\"POST\",status=\"202\"} 1\n"))
                let decodes = text.split(separator: "\n").first { $0.hasPrefix("vitrine_decode_seconds_count ") }
                #expect((decodes.flatMap { Int($0.split(separator: " ")[1]) } ?? 0) >= 2, "both slides decoded")
                // Frame gaps by motion (this playlist cuts and does not pan: none of either yet).
                func sample(_ name: String) -> Int? {
                    text.split(separator: "\n").first { $0.hasPrefix(name + " ") }.flatMap { Int($0.split(separator: " ")[1]) }
                }
                #expect(text.contains("# TYPE vitrine_frame_gap_seconds histogram\n"))
                for motion in ["transition", "kenburns"] {
                    #expect(sample("vitrine_frame_gap_seconds_count{motion=\"\(motion)\"}") == 0)
                    #expect(sample("vitrine_frame_gap_seconds_bucket{motion=\"\(motion)\",le=\"0.0167\"}") == nil, "no such bound")
                    #expect(sample("vitrine_frame_gap_seconds_bucket{motion=\"\(motion)\",le=\"0.0175\"}") == 0)
                    #expect(sample("vitrine_frame_gap_seconds_bucket{motion=\"\(motion)\",le=\"+Inf\"}") == 0)
                }
            }
            try await client.execute(uri: "/healthz", method: .get) { response in
                #expect(response.status == .ok)
                #expect(json(response.body)["status"] as? String == "ok")
            }
        }
    }

    /// Frame gaps as a Prometheus histogram per motion: cumulative buckets, the sum and the count.
    @Test func frameGapsAreAHistogramPerMotion() {
        var snapshot = KioskMetrics.Snapshot()
        var gaps = KioskMetrics.GapHistogram()
        gaps.bucketCounts = [0, 0, 3, 9, 10, 10, 11, 11, 11, 11, 11, 11, 11]
        gaps.seconds = 0.2
        gaps.count = 11
        snapshot.frameGaps[.kenBurns] = gaps
        let text = PrometheusExposition.text(kiosk: [(nil, snapshot)], requests: [:], uptimeSeconds: 1)
        #expect(text.contains("# TYPE vitrine_frame_gap_seconds histogram\n"))
        #expect(text.contains("vitrine_frame_gap_seconds_bucket{motion=\"kenburns\",le=\"0.0155\"} 3\n"))
        #expect(text.contains("vitrine_frame_gap_seconds_bucket{motion=\"kenburns\",le=\"0.0175\"} 9\n"))
        #expect(text.contains("vitrine_frame_gap_seconds_bucket{motion=\"kenburns\",le=\"+Inf\"} 11\n"))
        #expect(text.contains("vitrine_frame_gap_seconds_sum{motion=\"kenburns\"} 0.2\n"))
        #expect(text.contains("vitrine_frame_gap_seconds_count{motion=\"kenburns\"} 11\n"))
        #expect(text.contains("vitrine_frame_gap_seconds_count{motion=\"transition\"} 0\n"))
    }

    /// Video frames by outcome, one sample each, labelled by output where there are several.
    @Test func videoFramesAreCountedByOutcome() {
        var snapshot = KioskMetrics.Snapshot()
        snapshot.videoFrames.shown = 1798
        snapshot.videoFrames.late = 1
        snapshot.videoFrames.droppedLate = 2
        snapshot.videoFrames.droppedByDesign = 300
        let text = PrometheusExposition.text(kiosk: [(nil, snapshot)], requests: [:], uptimeSeconds: 1)
        #expect(text.contains("# TYPE vitrine_video_frames_total counter\n"))
        #expect(text.contains("vitrine_video_frames_total{outcome=\"shown\"} 1798\n"))
        #expect(text.contains("vitrine_video_frames_total{outcome=\"late\"} 1\n"))
        #expect(text.contains("vitrine_video_frames_total{outcome=\"dropped\"} 2\n"))
        #expect(text.contains("vitrine_video_frames_total{outcome=\"dropped_by_design\"} 300\n"))
        let two = PrometheusExposition.text(kiosk: [("HDMI-A-1", snapshot), ("HDMI-A-2", KioskMetrics.Snapshot())], requests: [:], uptimeSeconds: 1)
        #expect(two.contains("vitrine_video_frames_total{output=\"HDMI-A-2\",outcome=\"shown\"} 0\n"))
    }

    @Test func healthIsStalledOnceTheDisplayThreadStops() async throws {
        let harness = try ServerHarness()
        let application = try harness.application()
        harness.close()
        try await application.test(.router) { client in
            try await client.execute(uri: "/healthz", method: .get) { response in
                #expect(response.status == .serviceUnavailable)
                #expect(json(response.body)["status"] as? String == "stalled")
            }
        }
    }
}

/// A minimal server-sent-event client over a plain socket.
final class SSEReader: @unchecked Sendable {
    private let channel: any Channel
    private let collected: Collected

    final class Collected: ChannelInboundHandler, @unchecked Sendable {
        typealias InboundIn = ByteBuffer
        let lock = NSLock()
        var text = ""
        func channelRead(context: ChannelHandlerContext, data: NIOAny) {
            let buffer = unwrapInboundIn(data)
            lock.withLock { text += String(buffer: buffer) }
        }
    }

    init(port: Int, token: String) async throws {
        let collected = Collected()
        self.collected = collected
        channel = try await ClientBootstrap(group: MultiThreadedEventLoopGroup.singleton)
            .channelInitializer { channel in channel.eventLoop.makeCompletedFuture { try channel.pipeline.syncOperations.addHandler(collected) } }
            .connect(host: "127.0.0.1", port: port).get()
        let request = "GET /api/v1/events HTTP/1.1\r\nHost: 127.0.0.1\r\nAuthorization: Bearer \(token)\r\nAccept: text/event-stream\r\n\r\n"
        try await channel.writeAndFlush(ByteBuffer(string: request)).get()
    }

    /// The body so far (chunked framing removed), once it contains `marker`.
    func read(until marker: String, timeout: Double) async throws -> String {
        let deadline = Date().addingTimeInterval(timeout)
        while Date() < deadline {
            let body = Self.dechunk(collected.lock.withLock { collected.text })
            if body.contains(marker) { return body }
            try await Task.sleep(for: .milliseconds(20))
        }
        return Self.dechunk(collected.lock.withLock { collected.text })
    }

    func close() { channel.close(promise: nil) }

    /// Removes HTTP/1.1 chunked framing, on bytes: in Swift's String, "\r\n" is one Character.
    private static func dechunk(_ raw: String) -> String {
        let bytes = Array(raw.utf8)
        let crlf: [UInt8] = [13, 10]
        func find(_ from: Int) -> Int? {
            guard from + 1 < bytes.count else { return nil }
            return (from..<(bytes.count - 1)).first { bytes[$0] == 13 && bytes[$0 + 1] == 10 }
        }
        guard let headerEnd = (0..<max(0, bytes.count - 3)).first(where: { Array(bytes[$0..<$0 + 4]) == crlf + crlf }) else { return "" }
        var position = headerEnd + 4
        var body: [UInt8] = []
        while let lineEnd = find(position), let size = Int(String(decoding: bytes[position..<lineEnd], as: UTF8.self), radix: 16), size > 0,
              lineEnd + 2 + size <= bytes.count {
            body += bytes[(lineEnd + 2)..<(lineEnd + 2 + size)]
            position = lineEnd + 2 + size + 2
        }
        return String(decoding: body, as: UTF8.self)
    }
}
