import FoundationEssentials
import Hummingbird
import VitrineChannel
import VitrineConfig
import VitrineRuntime

/// `GET /api/v1/plays?since=RFC3339&limit=N`: the proof-of-play log, oldest
/// first. Reading waits for the log's queue, so it runs on NIO's blocking pool.
struct PlaysRoutes {
    let kiosk: RemoteKiosk

    func add(to router: RecordingRouter<APIRequestContext>) {
        router.get("/api/v1/plays") { request, _ in
            let query = try Self.query(request.uri.queryParameters)
            guard let plays = kiosk.plays else {
                // A kiosk without a log (some tests): nothing was recorded.
                return try JSONResponse.make(.ok, encoding: PlaysBody.nothingRecorded)
            }
            return try await kiosk.offload { try JSONResponse.make(.ok, encoding: plays.body(query)) }
        }
    }

    /// The query from the parameters; a bad value is a 400 naming its parameter.
    static func query(_ parameters: Parameters) throws -> PlayQuery {
        var query = PlayQuery()
        if let raw = parameters.get("since") {
            // A form-encoded query writes the offset's + as a space: put it back.
            let since = raw.count > 19 ? String(raw.prefix(19)) + raw.dropFirst(19).replacing(" ", with: "+") : raw
            guard let nanoseconds = RFC3339.parseNanoseconds(since) else {
                throw APIError(.badRequest, "since must be an RFC 3339 date-time such as 2026-11-23T08:00:00Z, found \(since)",
                               issues: [.init(path: "since", message: "must be an RFC 3339 date-time")])
            }
            query.sinceNanoseconds = nanoseconds
        }
        if let limit = parameters.get("limit") {
            guard let value = Int(limit), (1...PlayQuery.maximumLimit).contains(value) else {
                throw APIError(.badRequest, "limit must be a whole number from 1 to \(PlayQuery.maximumLimit), found \(limit)",
                               issues: [.init(path: "limit", message: "must be a whole number from 1 to \(PlayQuery.maximumLimit)")])
            }
            query.limit = value
        }
        return query
    }
}
