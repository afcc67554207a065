import Foundation
import Hummingbird
import VitrineConfig

/// `GET`/`PUT /api/v1/config` and `POST /api/v1/config/rollback`.
struct ConfigRoutes {
    let kiosk: RemoteKiosk
    static let maxBodyBytes = 1 << 20
    static let contentTypes = ["application/json", "application/yaml", "application/x-yaml", "text/yaml"]

    func add(to router: Router<BasicRequestContext>) {
        router.get("/api/v1/config") { _, _ in
            let current = kiosk.store.current
            return JSONResponse.bytes(current.json, contentType: "application/json", headers: [.eTag: "\"\(current.version)\""])
        }
        router.put("/api/v1/config") { request, _ in try await put(request) }
        router.post("/api/v1/config/rollback") { _, _ in
            let change = try await kiosk.offload { [kiosk] in try kiosk.store.rollback() }
            kiosk.apply(change.current)
            return changeResponse(change)
        }
    }

    private func put(_ request: Request) async throws -> Response {
        let type = request.headers[.contentType]?.split(separator: ";").first.map { $0.trimmingCharacters(in: .whitespaces).lowercased() }
        guard let type, Self.contentTypes.contains(type) else {
            throw APIError(.unsupportedMediaType, "send the configuration as \(Self.contentTypes.joined(separator: ", ")), not \(type ?? "a body without Content-Type")")
        }
        var request = request
        let body = try await request.collectBody(upTo: Self.maxBodyBytes)
        guard let text = String(validating: body.readableBytesView, as: UTF8.self) else {
            throw APIError(.unprocessableContent, "the configuration is not valid UTF-8 text")
        }
        let local = kiosk.store.current.configuration
        let pushed: KioskConfiguration
        do {
            pushed = try ConfigLoader.parse(text, baseDirectory: local.baseDirectory)
        } catch {
            throw APIError(.unprocessableContent, "the configuration is not valid: \(error.issues.count) problem\(error.issues.count == 1 ? "" : "s")",
                           issues: error.issues)
        }
        let issues = kiosk.store.pushIssues(pushed, sections: ConfigLoader.topLevelKeys(text))
        guard issues.isEmpty else {
            throw APIError(.unprocessableContent, "the configuration cannot be pushed: \(issues.count) problem\(issues.count == 1 ? "" : "s")", issues: issues)
        }
        let ifMatch = request.headers[.ifMatch].map(Self.entityTag)
        let change = try await kiosk.offload { [kiosk] in try kiosk.store.replace(with: pushed, ifMatch: ifMatch) }
        if change.changed { kiosk.apply(change.current) }
        return changeResponse(change)
    }

    private func changeResponse(_ change: StateStore.Change) -> Response {
        JSONResponse.make(.ok, ["version": change.current.version, "previousVersion": change.previousVersion, "changed": change.changed],
                          headers: [.eTag: "\"\(change.current.version)\""])
    }

    /// `"abc"`, `W/"abc"` or `abc` to `abc`; `*` stays `*`.
    static func entityTag(_ header: String) -> String {
        var tag = header.trimmingCharacters(in: .whitespaces)
        if tag.hasPrefix("W/") { tag.removeFirst(2) }
        if tag.count >= 2, tag.hasPrefix("\""), tag.hasSuffix("\"") { tag = String(tag.dropFirst().dropLast()) }
        return tag
    }
}
