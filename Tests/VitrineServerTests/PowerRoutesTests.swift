import Foundation
import Hummingbird
import HummingbirdTesting
import NIOCore
import Testing

@Suite("API: screen power")
struct PowerRoutesTests {
    static func put(_ client: some TestClientProtocol, _ text: String) async throws -> (HTTPResponse.Status, [String: Any]) {
        try await sendJSON(client, .put, "/api/v1/power", text)
    }

    static func power(_ client: some TestClientProtocol) async throws -> [String: Any] {
        try await client.execute(uri: "/api/v1/power", method: .get, headers: authorized()) { json($0.body) }
    }

    @Test func offPresentsNothingAndHoldsRotationAndOnShowsThePresentAtOnce() async throws {
        let harness = try ServerHarness()
        defer { harness.close() }
        let frames: @Sendable () -> Int = { harness.api.monitoring.metrics[0].metrics.snapshot.framesPresented }
        try await harness.application().test(.router) { client in
            let before = try await Self.power(client)
            #expect(before["state"] as? String == "on" && before["requested"] as? String == "on")
            #expect(before["wokenByTouch"] as? Bool == false && before["wakeEndsInSeconds"] is NSNull)
            #expect(await harness.eventually { frames() > 0 })

            let (status, answer) = try await Self.put(client, #"{"state": "off"}"#)
            #expect(status == .accepted && answer["requested"] as? String == "off")
            #expect(await harness.eventually { harness.api.link.status.pausedBecause.contains("screenOff") })
            #expect(try await Self.power(client)["state"] as? String == "off")
            #expect(harness.api.monitoring.metrics[0].metrics.snapshot.screenOn == false)
            // Off, a page change happens in the carousel but nothing reaches the display.
            let dark = frames()
            #expect(try await StatusAndEventsTests.control(client, #"{"command": "next"}"#).0 == .accepted)
            #expect(await harness.eventually { harness.api.link.status.currentSlide == 1 })
            try await Task.sleep(for: .milliseconds(200))
            #expect(frames() == dark, "nothing is presented while the screen is off")
            try await client.execute(uri: "/api/v1/status", method: .get, headers: authorized()) { response in
                #expect(json(response.body)["screen"] as? String == "off")
            }
            try await client.execute(uri: "/metrics", method: .get, headers: authorized()) { response in
                #expect(String(buffer: response.body).contains("vitrine_screen_on 0"))
            }

            #expect(try await Self.put(client, #"{"state": "on"}"#).0 == .accepted)
            #expect(await harness.eventually { frames() > dark }, "on again, the present is drawn at once")
            #expect(await harness.eventually { !harness.api.link.status.pausedBecause.contains("screenOff") })
            #expect(try await Self.power(client)["state"] as? String == "on")
        }
    }

    @Test(arguments: [
        (#"{"state": "dim"}"#, "state must be on or off"),
        (#"{}"#, "state must be on or off"),
        (#"{"state": true}"#, "state must be on or off"),
        (#"{"state": "off", "for": 10}"#, "unknown key for"),
        (#"off"#, #"the body must be a JSON object such as {"state": "off"}"#),
    ])
    func badRequestsAre422AndChangeNothing(body text: String, message: String) async throws {
        let harness = try ServerHarness()
        defer { harness.close() }
        try await harness.application().test(.router) { client in
            let (status, answer) = try await Self.put(client, text)
            #expect(status == .unprocessableContent)
            #expect(answer["error"] as? String == message)
            #expect(try await Self.power(client)["requested"] as? String == "on")
        }
    }
}
