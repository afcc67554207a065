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
public struct PictureRetryBody: Codable, Hashable, Sendable {
    /// The picture to try again, as the configuration names it; nil: every refused picture.
    public var file: String?

    public init(file: String? = nil) { self.file = file }
}

/// Its answer: `components/schemas/PictureRetryAccepted`.
public struct PictureRetryAcceptedBody: Codable, Hashable, Sendable {
    /// How many refusals were forgotten; every slide that failed is decoded again either way.
    public var retried: Int

    public init(retried: Int) { self.retried = retried }
}
