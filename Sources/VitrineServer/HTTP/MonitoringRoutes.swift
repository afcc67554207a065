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
                kiosk: kiosk.metrics.snapshot, requests: kiosk.requests.snapshot,
                uptimeSeconds: uptime.secondsValue)
            if let channel = kiosk.channel { text += ChannelStatusReport.metrics(channel) }
            if let television = kiosk.television { text += TelevisionReport.metrics(television.status) }
            if let plays = kiosk.plays { text += plays.metrics() }
            text += PrometheusExposition.guards(authentication: authenticator.snapshot, connections: connections?.snapshot)
            return JSONResponse.bytes(Array(text.utf8), contentType: "text/plain; version=0.0.4; charset=utf-8")
        }

        // Healthy means the display thread itself answers, not merely this server.
        router.get("/healthz") { _, _ in
            let asked = MonotonicClock.now()
            let answered = await StatusRoutes.displayAnswer { (reply: @escaping @Sendable (MonotonicInstant) -> Void) in
                kiosk.control.ping { reply(MonotonicClock.now()) }
            }
            guard let answered else {
                return try JSONResponse.make(.serviceUnavailable, encoding: HealthBody(
                    status: .stalled, displayAnswerMs: Self.milliseconds(MonotonicClock.now() - asked),
                    message: "the display thread did not answer within \(StatusRoutes.displayTimeout)"))
            }
            return try JSONResponse.make(.ok, encoding: HealthBody(status: .ok, displayAnswerMs: Self.milliseconds(answered - asked)))
        }
    }

    static func milliseconds(_ duration: Duration) -> Int {
        Int(duration.nanoseconds / 1_000_000)
    }
}
