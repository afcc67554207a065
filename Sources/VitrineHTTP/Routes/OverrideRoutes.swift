import FoundationEssentials
import Hummingbird
import VitrineChannel
import VitrineConfig
import VitrineCore
import VitrineSystem
import VitrineAPI

/// `POST`/`GET`/`DELETE /api/v1/override`: the emergency override. It shows at
/// once (not at the next slide boundary), above any schedule and with the
/// screen held on, until its `until` on the wall clock or until it is deleted,
/// and a restart shows it again until then.
///
/// With several output groups, `?output=NAME` (`OutputAddress`: any connector
/// of a group; 404 naming the known ones otherwise) addresses one group's own
/// override, which shows there on top of the one for every output; when it
/// ends or is deleted that group shows the one for every output again, if it
/// is still active. Without `output`, `POST` sets the one for every output and
/// ends each output's own (every screen shows the emergency), and `DELETE`
/// ends every override. `GET` without `output` answers the one for every
/// output with each output's own in `outputs`; with it, what that output shows
/// and whose it is (`scope`).
///
/// `POST` takes either JSON (`{"slides": [...], "duration": "30m"}` or with
/// `until`) or one picture as the body (`image/jpeg`, `image/png`, `image/webp`, `image/gif`,
/// `image/heif`, `image/heic`, `image/avif`) with
/// `?duration=` or `?until=`, which is stored as an asset as an upload is.
struct OverrideRoutes {
    let overrides: EmergencyOverrides
    let link: any DisplayLoopLink
    /// How a picture sent as the override is stored: as an upload is.
    let assets: AssetRoutes
    static let path = "/api/v1/override"
    static let example = #"{"slides": ["asset:<sha256>"], "duration": "30m"}"#

    func add(to router: RecordingRouter<APIRequestContext>) {
        router.post("/api/v1/override") { request, _ in
            // The output first: an unknown one is refused before anything is read or stored.
            let output = try output(request)
            let override: KioskOverride
            switch try Self.bodyKind(request) {
            case .json: override = try await setFromJSON(request, output: output)
            case .picture: override = try await setFromPicture(request, output: output)
            }
            return try JSONResponse.make(.created, encoding: OverrideAnswerBody(OverrideBody(override), output: output),
                                         headers: [.location: Self.path + (output.map { "?output=" + $0 } ?? "")])
        }
        router.get("/api/v1/override") { request, _ in
            let output = try output(request)
            let active = overrides.stored.overrides(at: WallClock.now())
            guard let output else {
                guard !active.isEmpty else { throw Self.noneActive }
                return try JSONResponse.make(.ok, encoding: OverrideAnswerBody(active.all.map(OverrideBody.init),
                                                                                // None of an output's own: no map, as before outputs.
                                                                                outputs: active.outputs.isEmpty ? nil : active.outputs.mapValues(OverrideBody.init)))
            }
            if let own = active.outputs[output] { return try JSONResponse.make(.ok, encoding: OverrideAnswerBody(OverrideBody(own), output: output)) }
            guard let all = active.all else { throw APIError(.notFound, "no override is active on \(output)") }
            return try JSONResponse.make(.ok, encoding: OverrideAnswerBody(OverrideBody(all)))
        }
        router.delete("/api/v1/override") { request, _ in
            let output = try output(request)
            let now = WallClock.now()
            guard try await overrides.clear(output: output, now: now).isEmpty else { return Response(status: .noContent) }
            guard let output else { throw Self.noneActive }
            let all = overrides.stored.active(at: now) == nil ? ""
                : "; the override for every output shows there, and DELETE without output ends it"
            throw APIError(.notFound, "no override of its own is active on \(output)\(all)")
        }
    }

    /// The output group a request addresses, by its name; nil: the whole kiosk.
    func output(_ request: Request) throws -> String? {
        try OutputAddress(request, link: link).group?.name
    }

    static let noneActive = APIError(.notFound, "no override is active")

    enum BodyKind { case json, picture }

    /// What the body is, by its Content-Type.
    static func bodyKind(_ request: Request) throws -> BodyKind {
        let type = request.headers[.contentType]?.split(separator: ";").first?.trimmingWhitespace.lowercased() ?? ""
        switch type {
        case "application/json": return .json
        case "image/jpeg", "image/png", "image/webp", "image/gif", "image/heif", "image/heic", "image/avif", "application/octet-stream": return .picture
        default:
            throw APIError(.unsupportedMediaType,
                           "send the override as application/json (\(example)), or one picture as image/jpeg, image/png, image/webp, image/gif, image/heif, image/heic or image/avif with ?duration= or ?until=; the Content-Type was \(type.isEmpty ? "missing" : type)")
        }
    }

    private func setFromJSON(_ request: Request, output: String?) async throws -> KioskOverride {
        // The end belongs in the body here; a query's would be ignored, which is never what was meant.
        let query = request.decodedQuery
        if let key = ["duration", "until", "name"].first(where: { query.get($0) != nil }) {
            throw APIError(.unprocessableContent, "?\(key)= is for a picture body; with a JSON body, put the end in the body",
                           issues: [ConfigIssue(path: key, message: "is a query parameter for a picture body only; put duration or until in the JSON body")])
        }
        var request = request
        let body = try await request.collectBody(upTo: ConfigRoutes.maxBodyBytes)
        let now = WallClock.now()
        let parsed: OverrideRequest
        do {
            // JSON's surrogate pairs, as a push's body has them, become YAML's 32-bit escapes first.
            let text = ConfigRoutes.joiningSurrogatePairs(String(decoding: body.readableBytesView, as: UTF8.self))
            parsed = try OverrideDocument.request(text, now: now, parseTimestamp: RFC3339.parse)
        } catch {
            throw APIError(.unprocessableContent, "the override is not valid: \(error.issues.first?.description ?? "")", issues: error.issues)
        }
        return try await overrides.set(parsed, output: output, now: now)
    }

    private func setFromPicture(_ request: Request, output: String?) async throws -> KioskOverride {
        let query = request.decodedQuery
        let now = WallClock.now()
        let until: WallInstant
        // The end first: a wrong one is refused before the picture is read and decoded.
        do {
            // A form-encoded query writes a space as +, which no duration contains; an
            // until's + is its UTC offset's sign, kept as it is.
            let duration = query.get("duration")?.replacing("+", with: " ")
            until = try OverrideDocument.end(until: query.get("until"), duration: duration, now: now, parseTimestamp: RFC3339.parse)
        } catch {
            throw APIError(.unprocessableContent, "the override is not valid: \(error.issues.first?.description ?? "")", issues: error.issues)
        }
        let (asset, _) = try await assets.store(request)
        return try await overrides.set(OverrideRequest(slides: [SlideConfiguration(path: asset.reference)], until: until), output: output,
                                           now: now)
    }
}
