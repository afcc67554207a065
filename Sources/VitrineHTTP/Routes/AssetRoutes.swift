import Hummingbird
import NIOCore
import VitrineConfig
import VitrineCore
import VitrineRuntime
import VitrineSystem
import VitrineAPI
import VitrineState

/// Uploads, listing, download, thumbnails and deletion of pictures.
struct AssetRoutes {
    let apply: ApplyPath
    let pictures: PictureServices
    let events: EventHub
    static let thumbnailBounds = PixelSize(width: 320, height: 180)

    func add(to router: RecordingRouter<APIRequestContext>) {
        router.post("/api/v1/assets") { request, _ in try await upload(request) }
        router.get("/api/v1/assets") { _, _ in
            let inUse = apply.assetsInUse
            let assets = try await offload { apply.store.assets.list() }
            return try JSONResponse.make(.ok, encoding: AssetListBody(assets: assets.map { $0.body(inUse: inUse.contains($0.id)) }))
        }
        router.get("/api/v1/assets/:id") { _, context in
            let asset = try existing(context)
            let bytes = try await offload { try apply.store.assets.bytes(asset.id) }
            return JSONResponse.bytes(bytes, contentType: asset.kind.contentType,
                                      headers: [.eTag: "\"\(asset.id)\"", .cacheControl: "private, max-age=31536000, immutable"])
        }
        router.get("/api/v1/assets/:id/thumbnail") { _, context in
            let asset = try existing(context)
            let maxPixels = apply.store.current.configuration.decode.maxPixels
            let png = try await offload {
                if asset.kind.isVideo {
                    return try Self.videoThumbnail(apply.store.assets.path(asset.id), named: asset.name, maxPixels: maxPixels, pictures: pictures.inspector)
                }
                let bytes = try apply.store.assets.bytes(asset.id)
                return try Self.thumbnail(bytes, named: asset.name, maxPixels: maxPixels, pictures: pictures.inspector)
            }
            return JSONResponse.bytes(png, contentType: "image/png", headers: [.cacheControl: "private, max-age=31536000, immutable"])
        }
        // Any picture the configuration names (a file, an asset, a URL's download), for the console's playlist.
        router.get("/api/v1/thumbnail") { request, _ in
            let path = request.decodedQuery.get("path") ?? ""
            let configuration = apply.effective(apply.store.current)
            guard configuration.slides.contains(where: { $0.path == path }) || configuration.placeholder == path else {
                throw APIError(.notFound, "\(path.isEmpty ? "a path" : path) is not a slide or the placeholder of the current configuration")
            }
            guard let file = configuration.resolve(path) else { throw APIError(.notFound, "\(path) has not been downloaded yet") }
            let maxPixels = configuration.decode.maxPixels
            let png = try await offload {
                // A video is opened where it is, never read into the kiosk's memory.
                if VideoFile.isVideo(atPath: file) {
                    return try Self.videoThumbnail(file, named: path, maxPixels: maxPixels, pictures: pictures.inspector)
                }
                let bytes: [UInt8]
                do { bytes = try VitrineSystem.FileIO.read(file, limit: 2_000_000_000) } catch let error as SystemError {
                    throw APIError(.notFound, "\(path): cannot read: \(error.reason)")
                }
                return try Self.thumbnail(bytes, named: path, maxPixels: maxPixels, pictures: pictures.inspector)
            }
            return JSONResponse.bytes(png, contentType: "image/png", headers: [.cacheControl: "no-cache"])
        }
        router.delete("/api/v1/assets/:id") { _, context in
            let id = try Self.id(context)
            let downloads = apply.fetcher.assetIDs
            try await offload { try apply.store.deleteAsset(id, downloads: downloads) }
            return Response(status: .noContent)
        }
    }

    private func upload(_ request: Request) async throws -> Response {
        let (asset, created) = try await store(request)
        let body = asset.body(inUse: apply.assetsInUse.contains(asset.id))
        return try JSONResponse.make(created ? .created : .ok, encoding: body, headers: [.location: "/api/v1/assets/\(asset.id)"])
    }

    /// Stores the picture in `request`'s body as an asset, inspected as an upload
    /// is (a whole decode, within the configuration's `decode.maxPixels`), named by
    /// its `name` query parameter, and announced (`assetAdded`) when it is new.
    /// Returns the asset and whether it is new; an override of one picture
    /// stores it this way too.
    func store(_ request: Request) async throws -> (asset: Asset, created: Bool) {
        let limit = pictures.maxUploadBytes
        let name = try Self.name(request.decodedQuery.get("name"))
        if let length = request.headers[.contentLength].flatMap(Int.init), length > limit {
            throw APIError(.contentTooLarge, "the upload is \(length) bytes; the limit (api.maxUploadSize) is \(limit)")
        }
        guard pictures.uploads.enter() else {
            var busy = APIError(.serviceUnavailable, "\(pictures.uploads.limit) uploads are being stored already; send this one again in a moment")
            busy.headers[.retryAfter] = "1"
            throw busy
        }
        defer { pictures.uploads.leave() }
        let label = name ?? "the upload"
        let upload = try await receive(request.body, named: label, limit: limit)
        let decode = apply.store.current.configuration.decode, maxPixels = decode.maxPixels
        let image: InspectedImage
        do {
            image = try await offload {
                // A video is opened in a video helper, and held to the configuration's bitrate as it would play.
                if VideoFile.isVideo(atPath: upload.path) {
                    return try pictures.inspector.inspectVideo(file: upload.path, maxPixels: maxPixels,
                                                               maxVideoBitsPerSecond: decode.maxVideoBitsPerSecond)
                }
                // Mapped, not read: the staged picture is decoded from the page cache.
                return try pictures.inspector.inspect(file: upload.path, named: label, maxPixels: maxPixels)
            }
        } catch let failure as ImageInspection.Failure {
            switch failure {
            case .notAnImage(let reason): throw APIError(.unsupportedMediaType, "\(label) is \(reason); upload a JPEG, PNG, WebP, GIF or HEIF picture, or an MP4, WebM or Matroska video")
            case .undecodable(let reason): throw APIError(.unprocessableContent, "\(label) cannot be decoded: \(reason)")
            case .overPixelLimit(let reason):
                throw APIError(.conflict, "\(label) is too large for this kiosk's configuration: \(reason); push a larger decode.maxPixels or upload a smaller picture")
            case .overBitrateLimit(let reason):
                throw APIError(.conflict, "\(label) is over this kiosk's configuration: \(reason)")
            }
        }
        let (asset, created) = try await offload { try apply.store.assets.adopt(upload, image: image, name: name ?? "upload") }
        if created {
            events.publish(ServerEvent("assetAdded", encoding: asset.body(inUse: apply.assetsInUse.contains(asset.id))))
            apply.collectUnusedAssets()
        }
        return (asset, created)
    }

    /// Receives a request body into a staging file (`AssetUpload.receive`),
    /// hashing it as it arrives, 256 KiB at a time: memory stays at one
    /// chunk, whatever the size. 413 past `limit`, 503 on a read-only state
    /// directory, 507 when the disk would go below its floor.
    private func receive(_ body: RequestBody, named label: String, limit: Int) async throws -> AssetUpload {
        let assets = apply.store.assets
        do {
            let upload = try await offload { try AssetUpload(in: assets) }
            try await upload.receive(body, limit: limit) {
                APIError(.contentTooLarge, "the upload is larger than the limit (api.maxUploadSize) of \(limit) bytes")
            }
            _ = try await offload { try upload.finish() }
            return upload
        } catch let readOnly as StateReadOnly {
            throw APIError(.serviceUnavailable, "\(label) was not stored: \(readOnly.message)")
        } catch let full as DiskFloorReached {
            throw APIError(HTTPResponse.Status(code: 507, reasonPhrase: "Insufficient Storage"), "\(label) was not stored: \(full.message)")
        }
    }

    /// A thumbnail, or the API's error for why there is none: 409 for a picture over
    /// the configuration's `decode.maxPixels`, 422 for one that does not decode.
    static func thumbnail(_ bytes: [UInt8], named name: String, maxPixels: Int, pictures: any PictureInspector) throws -> [UInt8] {
        try thumbnailFailures(named: name) { try pictures.thumbnail(bytes: bytes, bounds: thumbnailBounds, maxPixels: maxPixels) }
    }

    /// A video's thumbnail: its first frame, from the file where it lies.
    static func videoThumbnail(_ path: String, named name: String, maxPixels: Int, pictures: any PictureInspector) throws -> [UInt8] {
        try thumbnailFailures(named: name) { try pictures.videoThumbnail(file: path, bounds: thumbnailBounds, maxPixels: maxPixels) }
    }

    private static func thumbnailFailures(named name: String, _ make: () throws -> [UInt8]) throws -> [UInt8] {
        do {
            return try make()
        } catch let failure as ImageInspection.Failure {
            switch failure {
            case .notAnImage(let reason), .undecodable(let reason): throw APIError(.unprocessableContent, "\(name): \(reason)")
            case .overPixelLimit(let reason): throw APIError(.conflict, "\(name): \(reason); the configuration's decode.maxPixels is lower")
            case .overBitrateLimit(let reason): throw APIError(.conflict, "\(name): \(reason)")
            }
        } catch let error as APIError {
            throw error
        } catch {
            throw APIError(.unprocessableContent, "\(name): cannot be decoded: \(error)")
        }
    }

    private func existing(_ context: APIRequestContext) throws -> Asset {
        let id = try Self.id(context)
        guard let asset = apply.store.assets.asset(id) else { throw APIError(.notFound, "there is no asset \(id)") }
        return asset
    }

    static func id(_ context: APIRequestContext) throws -> String {
        let id = context.parameters.get("id") ?? ""
        guard SlideSource.isAssetID(id) else {
            throw APIError(.badRequest, "an asset id is 64 lowercase hex digits (its SHA-256), not \(id)")
        }
        return id
    }

    /// An upload's label: a plain file name, never a path. The rules are the
    /// spec's `name` pattern: 1 to 255 Unicode scalars (JSON Schema's characters),
    /// none of them `/`, `\\`, a C0 or C1 control character or a line or paragraph
    /// separator, and no `..` anywhere (so neither `.` nor `..` alone). Checked on
    /// scalars, not on Characters: a combining mark after `/` must not hide it.
    static func name(_ raw: String?) throws -> String? {
        guard let name = raw else { return nil }
        let scalars = name.unicodeScalars
        let forbidden = scalars.first { scalar in
            scalar == "/" || scalar == "\\" || scalar.properties.generalCategory == .control
                || scalar == "\u{2028}" || scalar == "\u{2029}"
        }
        let length = scalars.count
        let dots = zip(scalars, scalars.dropFirst()).contains { $0 == "." && $1 == "." }
        if length == 0 || length > 255 || (length == 1 && scalars.first == ".") || dots || forbidden != nil {
            let reason = if length == 0 { "it is empty" } else if length > 255 { "it is \(length) characters long" }
                else if let forbidden { "it contains \(forbidden.escaped(asASCII: true))" } else { "it is . or contains .." }
            throw APIError(.unprocessableContent, "name must be a plain file name of 1 to 255 characters without /, \\, .. or control characters: \(reason)",
                           issues: [.init(path: "name", message: "must be a plain file name of 1 to 255 characters without /, \\, .. or control characters")])
        }
        return name
    }
}
