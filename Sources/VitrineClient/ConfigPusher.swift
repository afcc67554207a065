import FoundationEssentials
import VitrineConfig
import VitrineCore
import VitrineRuntime
import VitrineSystem
import VitrineAPI

/// What `vitrine push` does: uploads the local pictures a configuration names,
/// rewrites them to `asset:` references, and PUTs the configuration. Running it
/// twice sends nothing new: pictures the kiosk has are not uploaded again (by
/// digest) and an unchanged configuration comes back `changed: false`.
public struct ConfigPusher: Sendable {
    public struct Outcome: Sendable {
        public var version: String
        public var previousVersion: String
        public var changed: Bool
        /// Local paths and the assets they became, in upload order.
        public var uploaded: [(path: String, id: String)]
        public var alreadyThere: Int
    }

    /// A local picture that cannot be read.
    public struct UnreadablePicture: Error, CustomStringConvertible {
        public var keyPath: String
        public var file: String
        public var reason: String
        public var description: String { "\(keyPath): cannot read \(file): \(reason)" }
    }

    let client: RemoteClient
    public init(client: RemoteClient) { self.client = client }

    /// - Parameters:
    ///   - ifVersion: apply only over this version (If-Match).
    ///   - output: push only the slides, as that output's own playlist
    ///     (`PUT /api/v1/config?output=NAME`); nil: the whole configuration.
    public func push(_ configuration: KioskConfiguration, ifVersion: String? = nil, output: String? = nil) async throws -> Outcome {
        let present = Set(try await client.send(.GET, "/api/v1/assets").decoded(AssetListBody.self, from: "/api/v1/assets").assets.map(\.id))
        var pushed = configuration
        var outcome = Outcome(version: "", previousVersion: "", changed: false, uploaded: [], alreadyThere: 0)
        var references: [String: String] = [:]
        func reference(for path: String, at keyPath: String) async throws -> String {
            guard case .file = SlideSource(path), let file = configuration.resolve(path) else { return path }
            if let known = references[path] { return known }
            let bytes: [UInt8]
            do { bytes = try FileIO.read(file) } catch { throw UnreadablePicture(keyPath: keyPath, file: file, reason: error.reason) }
            let id = ContentDigest.sha256(bytes)
            if present.contains(id) || outcome.uploaded.contains(where: { $0.id == id }) {
                outcome.alreadyThere += 1
            } else {
                let name = lastComponentOfPath(file).percentEncodingAllButAlphanumerics
                _ = try await client.send(.POST, "/api/v1/assets?name=\(name)", body: bytes, contentType: "application/octet-stream",
                                          expecting: [200, 201])
                outcome.uploaded.append((path, id))
            }
            references[path] = SlideSource.assetPrefix + id
            return SlideSource.assetPrefix + id
        }
        for index in pushed.slides.indices {
            pushed.slides[index].path = try await reference(for: pushed.slides[index].path, at: "slides[\(index)].path")
        }
        if output == nil, let placeholder = pushed.placeholder { pushed.placeholder = try await reference(for: placeholder, at: "placeholder") }

        // `output` and `outputs`, like `api` (which the document never has), belong to the kiosk's own file.
        var document = ConfigDocument.tree(pushed)
        document.removeValue(forKey: "output")
        document.removeValue(forKey: "outputs")
        // To one output, only the slides (PlaylistPush.key): the rest stays the kiosk's.
        if output != nil { document = document.filter { $0.key == PlaylistPush.key } }
        let json = JSONValue.object(document).encoded([.sortedKeys, .withoutEscapingSlashes])
        let path = RemoteClient.path("/api/v1/config", output: output)
        let reply = try await client.send(.PUT, path, body: json, contentType: "application/json",
                                          headers: ifVersion.map { [("If-Match", "\"\($0)\"")] } ?? [])
        let answer = try reply.decoded(ConfigVersionBody.self, from: path)
        outcome.version = answer.version
        outcome.previousVersion = answer.previousVersion
        outcome.changed = answer.changed
        return outcome
    }
}
