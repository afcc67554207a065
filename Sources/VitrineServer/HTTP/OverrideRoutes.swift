import FoundationEssentials
import Hummingbird
import VitrineChannel
import VitrineConfig
import VitrineCore
import VitrineSystem

/// `POST`/`GET`/`DELETE /api/v1/override`: the emergency override. It shows at
/// once (not at the next slide boundary), above any schedule and with the
/// screen held on, until its `until` on the wall clock or until it is deleted,
/// and a restart shows it again until then. A new one replaces the current one.
///
/// `POST` takes either JSON (`{"slides": [...], "duration": "30m"}` or with
/// `until`) or one picture as the body (`image/jpeg`, `image/png`, `image/webp`, `image/gif`,
/// `image/heif`, `image/heic`, `image/avif`) with
/// `?duration=` or `?until=`, which is stored as an asset as an upload is.
struct OverrideRoutes {
    let kiosk: RemoteKiosk
    static let path = "/api/v1/override"
    static let example = #"{"slides": ["asset:<sha256>"], "duration": "30m"}"#

    func add(to router: RecordingRouter<APIRequestContext>) {
        router.post("/api/v1/override") { request, _ in
            let override: KioskOverride
            switch try Self.bodyKind(request) {
            case .json: override = try await setFromJSON(request)
            case .picture: override = try await setFromPicture(request)
            }
            return try JSONResponse.make(.created, encoding: OverrideBody(override), headers: [.location: Self.path])
        }
        router.get("/api/v1/override") { _, _ in
            guard let active = kiosk.overrides.active(at: WallClock.now()) else { throw Self.noneActive }
            return try JSONResponse.make(.ok, encoding: OverrideBody(active))
        }
        router.delete("/api/v1/override") { _, _ in
            guard try await kiosk.clearOverride(now: WallClock.now()) != nil else { throw Self.noneActive }
            return Response(status: .noContent)
        }
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

    private func setFromJSON(_ request: Request) async throws -> KioskOverride {
        // The end belongs in the body here; a query's would be ignored, which is never what was meant.
        let query = request.uri.queryParameters
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
        return try await kiosk.setOverride(parsed, now: now)
    }

    private func setFromPicture(_ request: Request) async throws -> KioskOverride {
        let query = request.uri.queryParameters
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
        let (asset, _) = try await AssetRoutes.store(request, kiosk: kiosk)
        return try await kiosk.setOverride(OverrideRequest(slides: [SlideConfiguration(path: asset.reference)], until: until), now: now)
    }
}
