import Hummingbird
import Synchronization
import VitrineRuntime

/// API requests counted by method and status, for `vitrine_api_requests_total`.
public final class RequestCounter: Sendable {
    private let counts = Mutex<[String: Int]>([:])
    public init() {}

    func count(method: String, status: Int) {
        counts.withLock { $0["method=\"\(method)\",status=\"\(status)\"", default: 0] += 1 }
    }

    var snapshot: [String: Int] { counts.withLock { $0 } }
}

/// Counts every request under /api/ (including refused ones) once its status is known.
struct RequestCountingMiddleware<Context: RequestContext>: RouterMiddleware {
    let counter: RequestCounter

    func handle(_ request: Request, context: Context, next: (Request, Context) async throws -> Response) async throws -> Response {
        let counted = request.uri.path.hasPrefix("/api/")
        do {
            let response = try await next(request, context)
            if counted { counter.count(method: request.method.rawValue, status: response.status.code) }
            return response
        } catch let error as any HTTPResponseError {
            if counted { counter.count(method: request.method.rawValue, status: error.status.code) }
            throw error
        } catch {
            if counted { counter.count(method: request.method.rawValue, status: 500) }
            throw error
        }
    }
}

/// The Prometheus text format (version 0.0.4) of the kiosk's counters.
enum PrometheusExposition {
    static func text(kiosk: KioskMetrics.Snapshot, requests: [String: Int], uptimeSeconds: Double) -> String {
        var out = PrometheusLines()
        func metric(_ name: String, _ type: String, _ help: String, _ samples: [(labels: String, value: String)]) {
            out.metric(name, type, help, samples)
        }
        metric("vitrine_frames_presented_total", "counter", "Frames presented to the display.", [("", "\(kiosk.framesPresented)")])
        metric("vitrine_slide_changes_total", "counter", "Page changes, by any cause.", [("", "\(kiosk.slideChanges)")])
        metric("vitrine_touches_total", "counter", "Fingers put down on a touch device.", [("", "\(kiosk.touches)")])
        metric("vitrine_screen_on", "gauge", "1 while the screen is lit, 0 while it is switched off.", [("", kiosk.screenOn ? "1" : "0")])
        out.append("# HELP vitrine_decode_seconds Time to decode and frame one slide picture.")
        out.append("# TYPE vitrine_decode_seconds histogram")
        for (index, bound) in KioskMetrics.decodeBuckets.enumerated() {
            out.append("vitrine_decode_seconds_bucket{le=\"\(bound)\"} \(kiosk.decodeBucketCounts[index])")
        }
        out.append("vitrine_decode_seconds_bucket{le=\"+Inf\"} \(kiosk.decodeBucketCounts[KioskMetrics.decodeBuckets.count])")
        out.append("vitrine_decode_seconds_sum \(kiosk.decodeSeconds)")
        out.append("vitrine_decode_seconds_count \(kiosk.decodeCount)")
        out.append("# HELP vitrine_frame_gap_seconds Time between consecutive frames presented for one motion: a transition, or a Ken Burns picture moving.")
        out.append("# TYPE vitrine_frame_gap_seconds histogram")
        for motion in FrameMotion.allCases {
            let gaps = kiosk.frameGaps[motion] ?? KioskMetrics.GapHistogram()
            for (index, bound) in KioskMetrics.frameGapBuckets.enumerated() {
                out.append("vitrine_frame_gap_seconds_bucket{motion=\"\(motion.rawValue)\",le=\"\(bound)\"} \(gaps.bucketCounts[index])")
            }
            out.append("vitrine_frame_gap_seconds_bucket{motion=\"\(motion.rawValue)\",le=\"+Inf\"} \(gaps.bucketCounts[KioskMetrics.frameGapBuckets.count])")
            out.append("vitrine_frame_gap_seconds_sum{motion=\"\(motion.rawValue)\"} \(gaps.seconds)")
            out.append("vitrine_frame_gap_seconds_count{motion=\"\(motion.rawValue)\"} \(gaps.count)")
        }
        metric("vitrine_api_requests_total", "counter", "API requests by method and status.",
               requests.sorted { $0.key < $1.key }.map { ($0.key, "\($0.value)") })
        metric("vitrine_uptime_seconds", "gauge", "Seconds since the kiosk started.", [("", "\(uptimeSeconds)")])
        return out.text
    }

    /// The server's own defences: failed authentications, throttled peers, and the connection cap.
    static func guards(authentication: APIAuthenticator.Counters, connections: ConnectionLimiter.Snapshot?) -> String {
        var out = PrometheusLines()
        out.metric("vitrine_api_auth_failures_total", "counter",
                   "Requests to a protected route with a missing, malformed or wrong token.", "\(authentication.failures)")
        out.metric("vitrine_api_auth_throttled_total", "counter",
                   "Requests refused with 429 because their address failed to authenticate too often.", "\(authentication.throttled)")
        out.metric("vitrine_malloc_in_use_bytes", "gauge", "Heap bytes allocated and not freed (glibc mallinfo2: uordblks + hblkhd).",
                   "\(HeapStatistics.bytesInUse)")
        out.metric("vitrine_malloc_held_bytes", "gauge", "Heap bytes the allocator holds from the kernel (mallinfo2: arena + hblkhd).",
                   "\(HeapStatistics.bytesHeld)")
        if let connections {
            out.metric("vitrine_api_connections_open", "gauge", "API connections open now.", "\(connections.open)")
            out.metric("vitrine_api_connections_limit", "gauge", "API connections allowed at once.", "\(connections.limit)")
            out.metric("vitrine_api_connections_refused_total", "counter",
                       "Connections closed as soon as accepted because the limit was reached.", "\(connections.refused)")
        }
        return out.text
    }
}
