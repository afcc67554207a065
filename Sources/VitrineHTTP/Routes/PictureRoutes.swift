import FoundationEssentials
import Hummingbird
import VitrineConfig
import VitrineRuntime
import VitrineAPI

/// The pictures the decoding sandbox refused: tried again when an operator asks.
struct PictureRoutes {
    let kiosk: RemoteKiosk

    func add(to router: RecordingRouter<APIRequestContext>) {
        // The refusals that hold pictures back are forgotten, and every loop decodes its failed slides anew.
        router.post("/api/v1/pictures/retry") { request, _ in
            var request = request
            let body = try await request.collectBody(upTo: 4 * 1024)
            let file = try Self.file(in: Array(body.readableBytesView))
            let retried = kiosk.slideDecoder.retry(file: file)
            kiosk.control.send(.retryFailedPictures)
            kiosk.logger.notice("an operator asked for \(file ?? "every refused picture") to be tried again (\(retried) held back)")
            return try JSONResponse.make(.accepted, encoding: PictureRetryAcceptedBody(retried: retried))
        }
    }

    /// The body's `file`: nil for an empty body or `{}`, every refused picture.
    static func file(in bytes: [UInt8]) throws -> String? {
        guard bytes.contains(where: { !($0 == 0x20 || $0 == 0x0A || $0 == 0x0D || $0 == 0x09) }) else { return nil }
        guard let object = try? JSONValue(parsing: bytes).object else {
            throw APIError(.unprocessableContent, #"the body must be empty or a JSON object such as {"file": "images/menu.heic"}"#)
        }
        if let key = Set(object.keys).subtracting(["file"]).sorted().first {
            throw APIError(.unprocessableContent, "unknown key \(key)", issues: [.init(path: key, message: "unknown key (known keys: file)")])
        }
        guard let value = object["file"] else { return nil }
        guard let file = value.string, !file.isEmpty else {
            throw APIError(.unprocessableContent, "file must be a picture's path as the configuration names it",
                           issues: [.init(path: "file", message: "must be a non-empty string")])
        }
        return file
    }
}
