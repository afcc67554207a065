import Hummingbird
import VitrineCore
import VitrineSystem

/// `GET /metrics` (Prometheus) and `GET /healthz`, without authentication so
/// that monitoring needs no secret; neither tells anything about the content.
struct MonitoringRoutes {
    let kiosk: RemoteKiosk
    let authenticator: APIAuthenticator
    let connections: ConnectionLimiter?

    func add(to router: RecordingRouter<APIRequestContext>) {
        router.get("/metrics") { _, _ in
            let uptime = MonotonicClock.now() - kiosk.startedAt
            var text = PrometheusExposition.text(
                kiosk: kiosk.metrics.map { ($0.output, $0.metrics.snapshot) }, requests: kiosk.requests.snapshot,
                uptimeSeconds: uptime.secondsValue)
            if let channel = kiosk.channel { text += ChannelStatusReport.metrics(channel) }
            if let television = kiosk.television { text += TelevisionReport.metrics(television.status) }
            if let plays = kiosk.plays { text += plays.metrics() }
            text += PrometheusExposition.guards(authentication: authenticator.snapshot, connections: connections?.snapshot)
            return JSONResponse.bytes(Array(text.utf8), contentType: "text/plain; version=0.0.4; charset=utf-8")
        }

        // Healthy means every display thread itself answers, not merely this server:
        // with several output groups, each group's loop is asked at once.
        router.get("/healthz") { _, _ in
            let groups = kiosk.control.outputGroups
            let asked = MonotonicClock.now()
            let answers = await withTaskGroup(of: (Int, MonotonicInstant?).self) { tasks in
                for (index, group) in groups.enumerated() {
                    tasks.addTask {
                        (index, await StatusRoutes.displayAnswer { (reply: @escaping @Sendable (MonotonicInstant) -> Void) in
                            group.loop.ping { reply(MonotonicClock.now()) }
                        })
                    }
                }
                var answers = [MonotonicInstant?](repeating: nil, count: groups.count)
                for await (index, answered) in tasks { answers[index] = answered }
                return answers
            }
            let waited = MonotonicClock.now()
            let each = zip(groups, answers).map { group, answered in
                OutputHealthBody(output: group.name ?? "", status: answered == nil ? .stalled : .ok,
                                 displayAnswerMs: Self.milliseconds((answered ?? waited) - asked))
            }
            let stalled = each.filter { $0.status == .stalled }
            let slowest = each.map(\.displayAnswerMs).max() ?? 0
            // One group: the body is as it always was, with no list of one.
            let outputs = groups.count > 1 ? each : nil
            guard stalled.isEmpty else {
                let which = groups.count > 1 ? " of " + stalled.map(\.output).joined(separator: ", ") : ""
                return try JSONResponse.make(.serviceUnavailable, encoding: HealthBody(
                    status: .stalled, displayAnswerMs: slowest, outputs: outputs,
                    message: "the display thread\(which) did not answer within \(StatusRoutes.displayTimeout)"))
            }
            return try JSONResponse.make(.ok, encoding: HealthBody(status: .ok, displayAnswerMs: slowest, outputs: outputs))
        }
    }

    static func milliseconds(_ duration: Duration) -> Int {
        Int(duration.nanoseconds / 1_000_000)
    }
}
