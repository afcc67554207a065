import FoundationEssentials
import VitrineCore

/// What a follower persists in the kiosk's state directory
/// (`channel-state.json`): the channel and the version applied from it.
public struct ChannelFollowRecord: Hashable, Sendable {
    public static let fileName = "channel-state.json"

    /// The channel's URL: a record of another channel says nothing about this one.
    public var url: String
    public var applied: AppliedChannelVersion

    public init(url: String, applied: AppliedChannelVersion) {
        self.url = url
        self.applied = applied
    }

    private struct Document: Codable {
        var url: String
        var version: UInt64
        var published: String
        var expires: String?
        var appliedAt: String
        var manifestETag: String?
        var signatureETag: String?
        var configurationVersion: String
        var playsUpload: String?
        /// Absent in records written before root rotation existed: 0.
        var rootVersion: UInt64?
    }

    /// The file's bytes: JSON with sorted keys.
    public var json: [UInt8] {
        let document = Document(url: url, version: applied.version, published: RFC3339.format(applied.published),
                                expires: applied.expires.map(RFC3339.format), appliedAt: RFC3339.format(applied.appliedAt),
                                manifestETag: applied.manifestETag, signatureETag: applied.signatureETag,
                                configurationVersion: applied.configurationVersion, playsUpload: applied.playsUpload,
                                rootVersion: applied.rootVersion == 0 ? nil : applied.rootVersion)
        let encoder = JSONEncoder()
        encoder.outputFormatting = [.sortedKeys, .prettyPrinted, .withoutEscapingSlashes]
        return Array((try? encoder.encode(document)) ?? Data()) + [0x0A]
    }

    /// Reads the file's bytes; nil (with the reason) when they are not a record.
    public static func parse(_ bytes: [UInt8]) -> Result<ChannelFollowRecord, RecordError> {
        let document: Document
        do {
            document = try JSONDecoder().decode(Document.self, from: Data(bytes))
        } catch {
            return .failure(RecordError(message: "not a channel state record: \(error)"))
        }
        guard let published = RFC3339.parse(document.published), let appliedAt = RFC3339.parse(document.appliedAt) else {
            return .failure(RecordError(message: "published and appliedAt must be RFC 3339 times"))
        }
        var expires: WallInstant?
        if let text = document.expires {
            guard let instant = RFC3339.parse(text) else { return .failure(RecordError(message: "expires must be an RFC 3339 time")) }
            expires = instant
        }
        return .success(ChannelFollowRecord(url: document.url, applied: AppliedChannelVersion(
            version: document.version, published: published, expires: expires, appliedAt: appliedAt,
            manifestETag: document.manifestETag, signatureETag: document.signatureETag,
            configurationVersion: document.configurationVersion, playsUpload: document.playsUpload,
            rootVersion: document.rootVersion ?? 0)))
    }

    public struct RecordError: Error, Hashable, Sendable, CustomStringConvertible {
        public var message: String
        public var description: String { message }
    }
}
