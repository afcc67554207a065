import Foundation
import Hummingbird
import HummingbirdTesting
import Testing
import VitrineCore
@testable import VitrineRuntime
@testable import VitrineHTTP

/// `/healthz` and `/metrics` of a kiosk with two output groups: every group's
/// display loop answers for the kiosk's health, and each group's counters are
/// its own.
@Suite("API: health and metrics of every output")
struct OutputMonitoringTests {
    @Test func healthAsksEveryGroupsLoopAndNamesTheOneThatHangs() async throws {
        let hang = DisplayHang()
        let harness = try ServerHarness(yaml: OutputsPushTests.yaml, groups: OutputRoutesTests.groups, hangs: ["DSI-1": hang])
        defer {
            hang.release()
            harness.close()
        }
        #expect(await harness.eventually { OutputRoutesTests.status(harness, "DSI-1")?.slideCount == 2 })
        try await harness.application().test(.router) { client in
            func health(token: Bool = true) async throws -> (HTTPResponse.Status, [String: Any]) {
                try await client.execute(uri: "/healthz", method: .get, headers: token ? authorized() : [:]) { ($0.status, json($0.body)) }
            }
            func outputs(_ answer: [String: Any]) -> [String] {
                (answer["outputs"] as? [[String: Any]] ?? []).map { "\($0["output"] as? String ?? "?") \($0["status"] as? String ?? "?")" }
            }
            var (status, answer) = try await health()
            #expect(status == .ok && answer["status"] as? String == "ok")
            #expect(outputs(answer) == ["HDMI-A-1 ok", "DSI-1 ok"])

            // The second group's loop stuck in its display: the first still answers, the kiosk is not healthy.
            hang.hang()
            // A turn of that loop (woken by a ping) reaches the display and stays there.
            let second = try #require(harness.api.link.outputGroups.last?.loop)
            _ = await StatusRoutes.displayAnswer { (reply: @escaping @Sendable (Bool) -> Void) in second.ping { reply(true) } }
            (status, answer) = try await health()
            #expect(status == .serviceUnavailable && answer["status"] as? String == "stalled")
            #expect(outputs(answer) == ["HDMI-A-1 ok", "DSI-1 stalled"])
            #expect(answer["message"] as? String == "the display thread of DSI-1 did not answer within 3.0 seconds")
            #expect((answer["displayAnswerMs"] as? Int ?? 0) >= 3000)
            // Without the token, the outputs are numbered, not named.
            let (publicStatus, publicAnswer) = try await health(token: false)
            #expect(publicStatus == .serviceUnavailable && outputs(publicAnswer) == ["1 ok", "2 stalled"])
            #expect(publicAnswer["message"] as? String == "the display thread of output 2 did not answer within 3.0 seconds")
            let first = (answer["outputs"] as? [[String: Any]])?.first?["displayAnswerMs"] as? Int ?? .max
            #expect(first < 3000, "the first group answered on its own: \(first) ms")

            hang.release()
            (status, answer) = try await health()
            #expect(status == .ok && outputs(answer) == ["HDMI-A-1 ok", "DSI-1 ok"])
        }
    }

    @Test func metricsHaveOneSampleForEachOutputLabelledWithIt() async throws {
        let harness = try ServerHarness(yaml: OutputsPushTests.yaml, groups: OutputRoutesTests.groups)
        defer { harness.close() }
        let metrics = harness.api.monitoring.metrics
        #expect(metrics.map(\.output) == ["HDMI-A-1", "DSI-1"])
        #expect(await harness.eventually { metrics.allSatisfy { $0.metrics.snapshot.framesPresented > 0 } })
        // Every frame of a headless display is composed on the CPU, and its cost is counted by that path alone.
        #expect(await harness.eventually { metrics.allSatisfy { ($0.metrics.snapshot.frameCPU[.cpu]?.count ?? 0) > 0 } })
        for snapshot in metrics.map(\.metrics.snapshot) {
            let cpu = snapshot.frameCPU[.cpu] ?? KioskMetrics.GapHistogram()
            #expect(cpu.count <= snapshot.framesPresented && cpu.seconds > 0 && cpu.bucketCounts.last == cpu.count)
            #expect(snapshot.frameCPU[.planes]?.count == 0 && snapshot.frameCPU[.mixed]?.count == 0)
        }
        try await harness.application().test(.router) { client in
            let (status, _) = try await sendJSON(client, .post, "/api/v1/control?output=DSI-1", #"{"command": "next"}"#)
            #expect(status == .accepted)
            #expect(await harness.eventually { metrics[1].metrics.snapshot.slideChanges == 1 })
            try await client.execute(uri: "/metrics", method: .get) { response in
                // Without the token, the outputs are numbered in group order: no connector's name is public.
                let text = String(buffer: response.body)
                #expect(text.contains("vitrine_slide_changes_total{output=\"2\"} 1\n"))
                #expect(!text.contains("DSI-1") && !text.contains("HDMI-A-1"), "\(text)")
            }
            try await client.execute(uri: "/metrics", method: .get, headers: authorized()) { response in
                let text = String(buffer: response.body)
                #expect(text.contains("vitrine_slide_changes_total{output=\"HDMI-A-1\"} 0\n"))
                #expect(text.contains("vitrine_slide_changes_total{output=\"DSI-1\"} 1\n"))
                #expect(text.contains("vitrine_screen_on{output=\"DSI-1\"} 1\n"))
                #expect(text.contains("vitrine_decode_seconds_bucket{output=\"DSI-1\",le=\"+Inf\"}"))
                #expect(text.contains("vitrine_frame_gap_seconds_count{output=\"HDMI-A-1\",motion=\"transition\"}"))
                #expect(text.contains("vitrine_frame_cpu_seconds_count{output=\"HDMI-A-1\",path=\"planes\"} 0\n"))
                #expect(text.contains("vitrine_frame_cpu_seconds_bucket{output=\"DSI-1\",path=\"cpu\",le=\"0.0167\"}"))
                #expect(!text.contains("\nvitrine_slide_changes_total "), "no bare sample beside the labelled ones")
                // Each family's HELP and TYPE once, however many outputs.
                #expect(text.components(separatedBy: "# TYPE vitrine_decode_seconds histogram\n").count == 2)
            }
        }
    }

    /// One group: the samples stay bare, as they were before outputs.
    @Test func oneGroupsSamplesCarryNoLabel() {
        var snapshot = KioskMetrics.Snapshot()
        snapshot.slideChanges = 3
        let bare = PrometheusExposition.text(kiosk: [(nil, snapshot)], requests: [:], uptimeSeconds: 1)
        #expect(bare.contains("vitrine_slide_changes_total 3\n"))
        #expect(bare.contains("vitrine_decode_seconds_sum 0.0\n"))
        #expect(bare.contains("vitrine_frame_gap_seconds_sum{motion=\"kenburns\"} 0.0\n"))
        #expect(bare.contains("vitrine_frame_cpu_seconds_sum{path=\"mixed\"} 0.0\n"))
        #expect(!bare.contains("output="))
    }
}
