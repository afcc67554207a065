import Hummingbird
import VitrineAPI
import VitrineChannelFollower
import VitrineCore
import VitrineDoctor
import VitrinePlays
import VitrineRuntime
import VitrineSystem
import VitrineUpdate

/// `GET /metrics` (Prometheus) and `GET /healthz`, without authentication so
/// that monitoring needs no secret; neither tells anything about the content.
///
/// Without the token neither names an output either (docs/threat-model.md):
/// outputs are numbered in group order (`output="1"`, `"2"`), and a stalled
/// one is "output 2". A caller that sends the token (Prometheus's
/// `authorization` setting, a watchdog with `Authorization: Bearer`) gets the
/// connectors' names. Each call costs a bounded amount: one display probe at
/// a time, shared and briefly kept (`DisplayHealthProbe`), and heap figures
/// read at most once a second (`HeapSampler`).
struct MonitoringRoutes {
    let link: any DisplayLoopLink
    let monitoring: APIMonitoring
    let channel: ChannelFollower?
    let television: CECTelevision?
    let plays: ProofOfPlay?
    let board: BoardHealthWatch?
    let software: SoftwareUpdateWatch?
    let authenticator: APIAuthenticator
    let connections: ConnectionLimiter?
    let probe = DisplayHealthProbe()
    let heap = HeapSampler()

    func add(to router: RecordingRouter<APIRequestContext>) {
        router.get("/metrics") { request, context in
            let named = carriesToken(request, context)
            let uptime = MonotonicClock.now() - monitoring.startedAt
            let loops = monitoring.metrics.enumerated().map { index, loop in
                (output: Self.label(loop.output, index: index, named: named), snapshot: loop.metrics.snapshot)
            }
            var text = PrometheusExposition.text(kiosk: loops, requests: monitoring.requests.snapshot, uptimeSeconds: uptime.secondsValue)
            if let channel = channel { text += ChannelStatusReport.metrics(channel) }
            if let television = television { text += TelevisionReport.metrics(television.status) }
            if let plays = plays { text += plays.metrics() }
            if let health = board?.current { text += BoardHealthReport.metrics(health) }
            if let report = software?.current { text += SoftwareUpdateStatus.metrics(report) }
            text += PrometheusExposition.guards(authentication: authenticator.snapshot, connections: connections?.snapshot,
                                                heap: heap.sample())
            return JSONResponse.bytes(Array(text.utf8), contentType: "text/plain; version=0.0.4; charset=utf-8")
        }

        // Healthy means every display thread itself answers, not merely this server:
        // with several output groups, each group's loop is asked at once.
        router.get("/healthz") { request, context in
            let named = carriesToken(request, context)
            let groups = link.outputGroups
            let reading = await probe.reading(of: groups)
            let each = zip(groups, reading.answers).enumerated().map { index, pair in
                OutputHealthBody(output: Self.label(pair.0.name ?? "", index: index, named: named) ?? "",
                                 status: pair.1 == nil ? .stalled : .ok,
                                 displayAnswerMs: Self.milliseconds(pair.1 ?? reading.waited))
            }
            let stalled = each.enumerated().filter { $0.element.status == .stalled }
            let slowest = each.map(\.displayAnswerMs).max() ?? 0
            // One group: the body is as it always was, with no list of one.
            let outputs = groups.count > 1 ? each : nil
            guard stalled.isEmpty else {
                let which = groups.count > 1
                    ? " of " + stalled.map { named ? $0.element.output : "output \($0.offset + 1)" }.joined(separator: ", ") : ""
                return try JSONResponse.make(.serviceUnavailable, encoding: HealthBody(
                    status: .stalled, displayAnswerMs: slowest, outputs: outputs,
                    message: "the display thread\(which) did not answer within \(probe.timeout)"))
            }
            return try JSONResponse.make(.ok, encoding: HealthBody(status: .ok, displayAnswerMs: slowest, outputs: outputs))
        }
    }

    /// Whether `request` carries the token. Asked only when it sends an
    /// Authorization header, and through the authenticator, so that a wrong
    /// token is counted and throttled as on any route: a public route is no way around the throttle.
    private func carriesToken(_ request: Request, _ context: APIRequestContext) -> Bool {
        guard request.headers[.authorization] != nil else { return false }
        return (try? authenticator.authenticate(request, from: context.remoteAddress)) != nil
    }

    /// An output's name for a caller with the token; its number in group order (from 1) for anyone else.
    static func label(_ name: String?, index: Int, named: Bool) -> String? {
        guard let name else { return nil }
        return named ? name : "\(index + 1)"
    }

    static func milliseconds(_ duration: Duration) -> Int {
        Int(duration.nanoseconds / 1_000_000)
    }
}
