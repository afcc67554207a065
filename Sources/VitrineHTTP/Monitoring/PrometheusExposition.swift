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

/// One output group's display-loop counters, under the name `/metrics` labels them with.
public struct OutputMetrics: Sendable {
    /// The group's leading output (`output="HDMI-A-1"`); nil on a kiosk without `outputs`, whose samples carry no label.
    public let output: String?
    public let metrics: KioskMetrics

    public init(output: String?, metrics: KioskMetrics) {
        self.output = output
        self.metrics = metrics
    }
}

/// The Prometheus text format (version 0.0.4) of the kiosk's counters.
///
/// Each output group's loop keeps its own counters. On a kiosk without
/// `outputs` its one group's samples are bare, as they always were; with
/// `outputs`, each family has one sample per group labelled
/// `output="<connector>"`, so that `sum without (output)` is the kiosk's and a
/// stalled or dark screen shows on its own.
enum PrometheusExposition {
    static func text(kiosk loops: [(output: String?, snapshot: KioskMetrics.Snapshot)], requests: [String: Int],
                     uptimeSeconds: Double) -> String {
        var out = PrometheusLines()
        func metric(_ name: String, _ type: String, _ help: String, _ value: (KioskMetrics.Snapshot) -> String) {
            out.metric(name, type, help, loops.map { (labels(output: $0.output), value($0.snapshot)) })
        }
        metric("vitrine_frames_presented_total", "counter", "Frames presented to the display.") { "\($0.framesPresented)" }
        metric("vitrine_slide_changes_total", "counter", "Page changes, by any cause.") { "\($0.slideChanges)" }
        metric("vitrine_touches_total", "counter", "Fingers put down on a touch device.") { "\($0.touches)" }
        out.metric("vitrine_video_frames_total", "counter",
                   "Video frames by what became of them: shown, shown late, dropped late, dropped by design (a frame rate above the refresh rate); counted as each video's playback ends.",
                   loops.flatMap { loop in
                       let frames = loop.snapshot.videoFrames
                       return [("shown", frames.shown), ("late", frames.late), ("dropped", frames.droppedLate), ("dropped_by_design", frames.droppedByDesign)]
                           .map { (labels(output: loop.output, "outcome=\"\($0.0)\""), "\($0.1)") }
                   })
        metric("vitrine_screen_on", "gauge", "1 while the screen is lit, 0 while it is switched off.") { $0.screenOn ? "1" : "0" }
        out.append("# HELP vitrine_decode_seconds Time to decode and frame one slide picture.")
        out.append("# TYPE vitrine_decode_seconds histogram")
        for (output, kiosk) in loops {
            histogram(&out, "vitrine_decode_seconds", labels: labels(output: output), bounds: KioskMetrics.decodeBuckets,
                      counts: kiosk.decodeBucketCounts, sum: kiosk.decodeSeconds, count: kiosk.decodeCount)
        }
        /// One histogram family with a label of its own (`motion`, `path`), every value of it for every output.
        func labelled<Key: RawRepresentable<String>>(_ name: String, help: String, label: String, _ keys: [Key], bounds: [Double],
                                                     _ histograms: (KioskMetrics.Snapshot) -> [Key: KioskMetrics.GapHistogram]) {
            out.append("# HELP \(name) \(help)")
            out.append("# TYPE \(name) histogram")
            for (output, kiosk) in loops {
                for key in keys {
                    let values = histograms(kiosk)[key] ?? KioskMetrics.GapHistogram()
                    histogram(&out, name, labels: labels(output: output, "\(label)=\"\(key.rawValue)\""),
                              bounds: bounds, counts: values.bucketCounts, sum: values.seconds, count: values.count)
                }
            }
        }
        labelled("vitrine_frame_gap_seconds", help: "Time between consecutive frames presented for one motion: a transition, or a Ken Burns picture moving.",
                 label: "motion", FrameMotion.allCases, bounds: KioskMetrics.frameGapBuckets) { $0.frameGaps }
        labelled("vitrine_frame_cpu_seconds", help: "The display thread's CPU time to draw and present one frame, by path: all on the display's planes, mixed, or composed on the CPU.",
                 label: "path", FramePath.allCases, bounds: KioskMetrics.frameCPUBuckets) { $0.frameCPU }
        out.metric("vitrine_api_requests_total", "counter", "API requests by method and status.",
                   requests.sorted { $0.key < $1.key }.map { ($0.key, "\($0.value)") })
        out.metric("vitrine_uptime_seconds", "gauge", "Seconds since the kiosk started.", "\(uptimeSeconds)")
        return out.text
    }

    /// One histogram's samples: cumulative buckets (the last `+Inf`), the sum and the count.
    private static func histogram(_ out: inout PrometheusLines, _ name: String, labels: String, bounds: [Double], counts: [Int],
                                  sum: Double, count: Int) {
        let prefix = labels.isEmpty ? "" : labels + ","
        for (index, bound) in bounds.enumerated() {
            out.append("\(name)_bucket{\(prefix)le=\"\(bound)\"} \(counts[index])")
        }
        out.append("\(name)_bucket{\(prefix)le=\"+Inf\"} \(counts[bounds.count])")
        let braced = labels.isEmpty ? "" : "{\(labels)}"
        out.append("\(name)_sum\(braced) \(sum)")
        out.append("\(name)_count\(braced) \(count)")
    }

    /// `output="..."` (when there is one) before `others`, comma-separated.
    /// Connector names are letters, digits and `-` (`OutputAddress`), so they need no escaping.
    private static func labels(output: String?, _ others: String...) -> String {
        ((output.map { ["output=\"\($0)\""] } ?? []) + others).joined(separator: ",")
    }

    /// The server's own defences: failed authentications, throttled peers, and the connection cap.
    static func guards(authentication: APIAuthenticator.Counters, connections: ConnectionLimiter.Snapshot?,
                       heap: HeapStatistics.Sample) -> String {
        var out = PrometheusLines()
        out.metric("vitrine_api_auth_failures_total", "counter",
                   "Requests to a protected route with a missing, malformed or wrong token.", "\(authentication.failures)")
        out.metric("vitrine_api_auth_throttled_total", "counter",
                   "Requests refused with 429 because their address failed to authenticate too often.", "\(authentication.throttled)")
        out.metric("vitrine_malloc_in_use_bytes", "gauge", "Heap bytes allocated and not freed (glibc mallinfo2: uordblks + hblkhd).",
                   "\(heap.bytesInUse)")
        out.metric("vitrine_malloc_held_bytes", "gauge", "Heap bytes the allocator holds from the kernel (mallinfo2: arena + hblkhd).",
                   "\(heap.bytesHeld)")
        if let connections {
            out.metric("vitrine_api_connections_open", "gauge", "API connections open now.", "\(connections.open)")
            out.metric("vitrine_api_connections_limit", "gauge", "API connections allowed at once.", "\(connections.limit)")
            out.metric("vitrine_api_connections_per_source_limit", "gauge",
                       "API connections allowed at once from one IPv4 address or IPv6 /64.", "\(connections.limitPerSource)")
            out.metric("vitrine_api_connections_refused_total", "counter",
                       "Connections closed as soon as accepted because the limit, or their source's share of it, was reached.",
                       "\(connections.refused)")
            out.metric("vitrine_api_connections_refused_for_share_total", "counter",
                       "Those of the refused connections whose source held its whole share.", "\(connections.refusedForShare)")
            out.metric("vitrine_api_connections_evicted_total", "counter",
                       "Connections closed, the oldest of the source holding the most, to make room when the cap was full.",
                       "\(connections.evicted)")
        }
        return out.text
    }
}
