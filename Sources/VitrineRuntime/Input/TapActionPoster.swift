import AsyncHTTPClient
import FoundationEssentials
import Logging
import NIOCore
import VitrineConfig
import VitrineCore

/// Sends tap reports, `{"slide": 2, "x": 512.0, "y": 300.5, "time": "2026-11-22T07:30:00.123Z"}`,
/// as HTTP(S) POSTs with AsyncHTTPClient, in tasks of their own, so a slow or
/// dead endpoint can never hold up the display thread. Failures are logged and
/// the report dropped.
public final class TapActionPoster: Sendable {
    private let logger: Logger

    public init(logger: Logger) {
        self.logger = logger
    }

    public func post(slide: Int, point: TouchPoint, to url: String, timeout: Duration, policy: OutboundPolicy) {
        let report = TapReport(slide: slide, x: point.x, y: point.y,
                               time: Date().formatted(Date.ISO8601FormatStyle(includingFractionalSeconds: true)))
        guard let json = try? JSONText.encode(report, [.sortedKeys]) else { return }
        let logger = self.logger
        Task {
            do {
                let status = try await HTTPPost.send(Array(json), to: url, timeout: timeout, policy: policy)
                if !(200..<300).contains(status) {
                    logger.warning("tap action POST \(url) answered HTTP \(status)")
                }
            } catch {
                logger.warning("tap action POST \(url) failed: \(error)")
            }
        }
    }
}

/// One JSON POST with AsyncHTTPClient, bounded by one overall timeout.
enum HTTPPost {
    struct TimedOut: Error, CustomStringConvertible {
        var timeout: Duration
        var description: String { "no answer within \(timeout)" }
    }

    /// - Returns: the HTTP status.
    static func send(_ body: [UInt8], to url: String, timeout: Duration, policy: OutboundPolicy) async throws -> Int {
        // AsyncHTTPClient's deadline is not always enforced while it waits for the
        // answer's head, and a cancelled request may take that long to unwind:
        // the caller gets its answer at the timeout whatever the request does.
        let outcome = FirstOutcome<Int>()
        return try await withCheckedThrowingContinuation { continuation in
            let request = Task {
                do {
                    var request = HTTPClientRequest(url: url)
                    request.method = .POST
                    request.headers.add(name: "Content-Type", value: "application/json")
                    request.headers.add(name: "User-Agent", value: "vitrine/\(VitrineVersion.current)")
                    request.body = .bytes(ByteBuffer(bytes: body))
                    // A POST follows no redirect: a 3xx is its answer.
                    let status = try await OutboundRequest.execute(request, policy: policy, timeout: timeout) { response in
                        _ = try await response.body.collect(upTo: 1 << 16)
                        return Int(response.status.code)
                    }
                    outcome.settle(continuation, with: .success(status))
                } catch {
                    outcome.settle(continuation, with: .failure(error))
                }
            }
            Task {
                try? await Task.sleep(for: timeout)
                if outcome.settle(continuation, with: .failure(TimedOut(timeout: timeout))) { request.cancel() }
            }
        }
    }
}

/// Resumes a continuation with whichever outcome comes first, and ignores the rest.
final class FirstOutcome<Value: Sendable>: Sendable {
    private let mutex = Mutex()
    nonisolated(unsafe) private var settled = false

    /// Whether this call was the first (and so resumed `continuation`).
    @discardableResult
    func settle(_ continuation: CheckedContinuation<Value, any Error>, with result: Result<Value, any Error>) -> Bool {
        let first = mutex.withLock { () -> Bool in
            defer { settled = true }
            return !settled
        }
        if first { continuation.resume(with: result) }
        return first
    }
}
