import VitrineChannel
import VitrineCore
import VitrineRuntime

/// One of the status's `refusedPictures`: `components/schemas/RefusedPicture`.
public struct RefusedPictureBody: Codable, Hashable, Sendable {
    /// The file as the configuration names it.
    public var file: String
    /// Why, as the decoder or the sandbox words it.
    public var reason: String
    /// When it was last refused (RFC 3339, UTC).
    public var lastRefused: String
    public var refusals: Int
    /// Not decoded again until an operator asks: it stopped a decoding helper.
    public var heldBack: Bool

    public init(_ picture: RefusedPicture) {
        file = picture.file
        reason = picture.reason
        lastRefused = RFC3339.format(WallInstant(nanosecondsSinceEpoch: picture.lastRefused))
        refusals = picture.refusals
        heldBack = picture.heldBack
    }
}

/// `POST /api/v1/pictures/retry`'s body: `components/schemas/PictureRetry`.
public struct PictureRetryBody: Codable, Hashable, Sendable, APIRequestBody {
    public static let keys = ["file"]
    public static let example = #"{"file": "images/menu.heic"}"#
    /// An empty body, or `{}`: every refused picture.
    public static let empty: PictureRetryBody? = PictureRetryBody()

    /// The picture to try again, as the configuration names it; nil: every refused picture.
    public var file: String?

    public init(file: String? = nil) { self.file = file }

    private enum CodingKeys: String, CodingKey { case file }

    public init(from decoder: any Decoder) throws {
        let container = try decoder.container(keyedBy: CodingKeys.self)
        guard container.contains(.file) else { return }
        guard let file = try? container.decode(String.self, forKey: .file), !file.isEmpty else {
            throw DecodingError.refused(.file, in: container, "must be a picture's path as the configuration names it, a non-empty string")
        }
        self.file = file
    }
}

/// Its answer: `components/schemas/PictureRetryAccepted`.
public struct PictureRetryAcceptedBody: Codable, Hashable, Sendable {
    /// How many refusals were forgotten; every slide that failed is decoded again either way.
    public var retried: Int

    public init(retried: Int) { self.retried = retried }
}
