import FoundationEssentials
import Hummingbird
import VitrineAPI
import VitrineConfig
import VitrineCore
import VitrineRuntime
import VitrineState
import VitrineURLImages

/// `GET`/`PUT /api/v1/config` and `POST /api/v1/config/rollback`.
struct ConfigRoutes {
    let apply: ApplyPath
    /// Where a push's pictures are proven.
    let pictures: any PictureInspector
    static let maxBodyBytes = 1 << 20
    static let contentTypes = ["application/json", "application/yaml", "application/x-yaml", "text/yaml"]

    func add(to router: RecordingRouter<APIRequestContext>) {
        router.get("/api/v1/config") { _, _ in
            let current = apply.store.current
            return JSONResponse.bytes(current.json, contentType: "application/json", headers: [.eTag: "\"\(current.version)\""])
        }
        router.put("/api/v1/config") { request, _ in try await put(request) }
        router.post("/api/v1/config/rollback") { _, _ in
            try refuseWhileFollowingAChannel()
            let change = try await offload { try apply.store.rollback() }
            // On the blocking pool: applying reads the schedule's zone file (TZif).
            try await offload { apply.applyCurrent() }
            return try changeResponse(change)
        }
    }

    /// A kiosk that follows a channel shows what the channel says: a local push
    /// or rollback would be replaced by the channel's next version, and would
    /// silently make this kiosk differ from its fleet meanwhile. So both are
    /// refused, naming the channel, unless the local file sets
    /// `channel.allowLocalPush: true`.
    private func refuseWhileFollowingAChannel() throws {
        guard let channel = apply.store.current.configuration.channel, !channel.allowLocalPush else { return }
        throw APIError(.conflict, "this kiosk follows the channel \(channel.url): publish to the channel instead, or set channel.allowLocalPush: true in its local configuration file",
                       channel: channel.url)
    }

    private func put(_ request: Request) async throws -> Response {
        try refuseWhileFollowingAChannel()
        // With output=, the output first: an unknown one (404), or one without a
        // playlist of its own (409), is refused before the body is read.
        let playlist = try OutputAddress(request, link: apply.link).group.map(ownPlaylist)
        let ifMatch = try request.headers[.ifMatch].map(Self.ifMatchVersion)
        let document = try await Self.document(request)
        if let playlist { return try await put(document, toOutput: playlist, ifMatch: ifMatch) }
        let local = apply.store.current.configuration
        let pushed: KioskConfiguration
        do {
            pushed = try document.configuration(baseDirectory: local.baseDirectory)
        } catch {
            throw Self.notValid(error)
        }
        let issues = apply.store.pushIssues(pushed, sections: document.sections)
        guard issues.isEmpty else { throw Self.cannotBePushed(issues) }
        try await checkPictures(in: pushed)
        let change = try await offload { try apply.store.replace(with: pushed, ifMatch: ifMatch) }
        return try await applied(change)
    }

    /// The pushed document, composed once (the sections a push may not set,
    /// and the values, from one tree): a configuration as JSON or YAML, at most
    /// `maxBodyBytes`, in UTF-8. A syntax error is a 422.
    static func document(_ request: Request) async throws -> ComposedConfiguration {
        let type = request.headers[.contentType]?.split(separator: ";").first.map { $0.trimmingWhitespace.lowercased() }
        guard let type, contentTypes.contains(type) else {
            throw APIError(.unsupportedMediaType, "send the configuration as \(contentTypes.joined(separator: ", ")), not \(type ?? "a body without Content-Type")")
        }
        var request = request
        let body = try await request.collectBody(upTo: maxBodyBytes)
        guard let text = String(validating: body.readableBytesView, as: UTF8.self) else {
            throw APIError(.unprocessableContent, "the configuration is not valid UTF-8 text")
        }
        do {
            return try ConfigLoader.compose(type == "application/json" ? joiningSurrogatePairs(text) : text)
        } catch {
            throw notValid(error)
        }
    }

    static func notValid(_ error: ConfigError) -> APIError {
        APIError(.unprocessableContent, "the configuration is not valid: \(error.issues.count) problem\(error.issues.count == 1 ? "" : "s")",
                 issues: error.issues)
    }

    static func cannotBePushed(_ issues: [ConfigIssue]) -> APIError {
        APIError(.unprocessableContent, "the configuration cannot be pushed: \(issues.count) problem\(issues.count == 1 ? "" : "s")", issues: issues)
    }

    /// Only once every path is one a push may name: each picture's format and
    /// header, read off the event loop. A text file named as a slide, or a
    /// picture over decode.maxPixels, is refused here rather than found later
    /// as the placeholder on the screen.
    /// - Parameter named: the pictures to check; nil: every one `pushed` names.
    func checkPictures(in pushed: KioskConfiguration, named: [(keyPath: String, path: String)]? = nil) async throws {
        let inspector = pictures
        let issues = try await offload { ConfiguredPictures.issues(in: pushed, named: named, depth: .header, pictures: inspector) }
        guard issues.isEmpty else {
            throw APIError(.unprocessableContent, "the configuration names \(issues.count) picture\(issues.count == 1 ? "" : "s") that cannot be shown",
                           issues: issues)
        }
    }

    /// A stored change shown: each output group is sent the configuration as it shows it.
    func applied(_ change: StateStore.Change) async throws -> Response {
        // On the blocking pool: applying reads the schedule's zone file (TZif).
        if change.changed { try await offload { apply.applyCurrent() } }
        return try changeResponse(change)
    }

    private func changeResponse(_ change: StateStore.Change) throws -> Response {
        try JSONResponse.make(.ok, encoding: ConfigVersionBody(version: change.current.version, previousVersion: change.previousVersion,
                                                               changed: change.changed),
                              headers: [.eTag: "\"\(change.current.version)\""])
    }

    /// JSON is read by the YAML parser, and YAML's double-quoted `\u` escapes cannot
    /// be UTF-16 surrogates, which JSON writes characters beyond U+FFFF as
    /// (`"\ud83d\ude00"` for 😀): each such pair inside a string becomes YAML's
    /// 32-bit escape (`\U0001F600`), the same character. Everything else is left as it is.
    static func joiningSurrogatePairs(_ json: String) -> String {
        guard json.contains("\\u") else { return json }
        let units = Array(json.utf8)
        var output: [UInt8] = []
        output.reserveCapacity(units.count)
        func hex(at index: Int) -> UInt16? {
            guard index + 4 <= units.count else { return nil }
            return UInt16(String(decoding: units[index..<index + 4], as: UTF8.self), radix: 16)
        }
        var index = 0, inString = false
        while index < units.count {
            let unit = units[index]
            if !inString {
                if unit == UInt8(ascii: "\"") { inString = true }
                output.append(unit)
                index += 1
            } else if unit == UInt8(ascii: "\"") {
                inString = false
                output.append(unit)
                index += 1
            } else if unit == UInt8(ascii: "\\"), index + 1 < units.count {
                if units[index + 1] == UInt8(ascii: "u"), let high = hex(at: index + 2), (0xD800...0xDBFF).contains(high),
                   index + 7 < units.count, units[index + 6] == UInt8(ascii: "\\"), units[index + 7] == UInt8(ascii: "u"),
                   let low = hex(at: index + 8), (0xDC00...0xDFFF).contains(low) {
                    let scalar = 0x10000 + ((UInt32(high) - 0xD800) << 10) + (UInt32(low) - 0xDC00)
                    let digits = String(scalar, radix: 16, uppercase: true)
                    output.append(contentsOf: Array("\\U\(String(repeating: "0", count: 8 - digits.count))\(digits)".utf8))
                    index += 12
                } else {
                    // Any other escape, copied whole so that an escaped quote or backslash is not misread.
                    output.append(contentsOf: units[index...index + 1])
                    index += 2
                }
            } else {
                output.append(unit)
                index += 1
            }
        }
        return String(decoding: output, as: UTF8.self)
    }

    /// `If-Match: "<version>"` to the version, `*` to `*`. Anything else is refused
    /// (400) rather than compared: it could never name a version, and answering it
    /// 412 would tell a client with a broken header that someone else changed the
    /// configuration. Weak tags (`W/"..."`) never match under If-Match (RFC 9110 §13.1.1).
    static func ifMatchVersion(_ header: String) throws -> String {
        let tag = header.trimmingWhitespace
        if tag == "*" { return tag }
        let hex = tag.utf8.dropFirst().dropLast()
        guard tag.utf8.count == 18, tag.hasPrefix("\""), tag.hasSuffix("\""),
              hex.allSatisfy({ (UInt8(ascii: "0")...UInt8(ascii: "9")).contains($0) || (UInt8(ascii: "a")...UInt8(ascii: "f")).contains($0) }) else {
            throw APIError(.badRequest, "If-Match must be * or a configuration version in double quotes (its ETag, such as \"3f9a2c71d04be815\"), found \(tag.debugDescription)",
                           issues: [.init(path: "If-Match", message: "must be * or \"<16 lower-case hex digits>\"")])
        }
        return String(decoding: hex, as: UTF8.self)
    }
}
