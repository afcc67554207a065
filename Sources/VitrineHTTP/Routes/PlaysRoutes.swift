import FoundationEssentials
import Hummingbird
import VitrineAPI
import VitrineChannel
import VitrineConfig
import VitrinePlays
import VitrineRuntime

/// `GET /api/v1/plays?since=RFC3339&limit=N&output=NAME`: the proof-of-play
/// log, oldest first. Reading waits for the log's queue, so it runs on NIO's
/// blocking pool.
///
/// `output` filters by the name plays are recorded under, a group's leading
/// connector; any connector of a group the kiosk drives names that group (a
/// mirror's plays are its leader's). A name it does not drive now is looked
/// for as it is, not refused: the log keeps plays of outputs since unplugged.
struct PlaysRoutes {
    let plays: ProofOfPlay?
    let link: any DisplayLoopLink

    func add(to router: RecordingRouter<APIRequestContext>) {
        router.get("/api/v1/plays") { request, _ in
            var asked = try Self.query(request.decodedQuery)
            asked.output = asked.output.map { name in link.outputGroups.first { $0.answers(to: name) }?.name ?? name }
            let query = asked
            guard let plays = plays else {
                // A kiosk without a log (some tests): nothing was recorded.
                return try JSONResponse.make(.ok, encoding: PlaysBody.nothingRecorded)
            }
            return try await offload { try JSONResponse.make(.ok, encoding: plays.body(query)) }
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
        let outputs = parameters.getAll("output")
        if let output = outputs.first {
            // The same name twice is that name; two different ones are not one output.
            guard outputs.allSatisfy({ $0 == output }) else {
                throw APIError(.badRequest, "one output at a time: output is given \(Set(outputs).count) different ways",
                               issues: [.init(path: "output", message: "one output at a time")])
            }
            guard !output.isEmpty else {
                throw APIError(.badRequest, "output must name an output, such as HDMI-A-1, found nothing",
                               issues: [.init(path: "output", message: "must name an output")])
            }
            query.output = output
        }
        return query
    }
}
