import FoundationEssentials
import VitrineConfig
import VitrineCore

/// One slide shown, start to end: a line of the proof-of-play log, an item
/// of `GET /api/v1/plays` and of an upload batch. Pure.
public struct PlayRecord: Hashable, Sendable {
    /// 1, 2, 3… in the order the plays ended, never reused while the log
    /// keeps any record: what the upload cursor and the drop count count.
    public var sequence: UInt64
    /// The slide's index in the playlist that showed it.
    public var slide: Int
    /// The slide's `path` as the configuration names it (a file, `asset:…`, a URL).
    public var path: String
    /// The SHA-256 of the picture shown, lowercase hex; nil when it could not be read.
    public var sha256: String?
    /// When the first frame showing the slide at rest reached the screen, in
    /// nanoseconds since the Unix epoch (UTC).
    public var startNanoseconds: Int64
    /// How long it stayed, measured on the monotonic clock (a wall-clock step
    /// in between does not change it).
    public var duration: Duration
    /// The output group that showed it (its leading connector), on a kiosk with
    /// `outputs`; nil otherwise. A mirror group's play is one record under its
    /// leader's name, however many screens showed it.
    public var output: String?
    /// How much of a video slide's video played (its frames' time, across
    /// loops), when the carousel paged away from it; nil for pictures, and for
    /// a video whose play ended otherwise (the screen went dark, the kiosk stopped).
    public var videoPlayed: Duration?

    public init(sequence: UInt64, slide: Int, path: String, sha256: String?, startNanoseconds: Int64, duration: Duration,
                output: String? = nil, videoPlayed: Duration? = nil) {
        self.sequence = sequence
        self.slide = slide
        self.path = path
        self.sha256 = sha256
        self.startNanoseconds = startNanoseconds
        self.duration = duration
        self.output = output
        self.videoPlayed = videoPlayed
    }

    public var durationMilliseconds: Int64 { duration.nanoseconds / 1_000_000 }

    /// `start` as the API writes it: RFC 3339 in UTC with microseconds,
    /// `2026-11-23T08:15:46.123456Z` (fixed width, so text order is time order).
    public var start: String { Self.format(nanoseconds: startNanoseconds) }

    /// The API's (and the log line's) JSON object.
    public var body: PlayBody {
        PlayBody(seq: sequence, slide: slide, path: path, sha256: sha256, start: start, durationMs: durationMilliseconds, output: output,
                 videoPlayedMs: videoPlayed.map { $0.nanoseconds / 1_000_000 })
    }

    /// One line of the log file: the JSON object, then `\n`. The newline is
    /// what marks a record complete (see `PlayLogFile.parse`).
    public var line: [UInt8] {
        let data = (try? JSONText.encode(body, [.sortedKeys, .withoutEscapingSlashes])) ?? []
        return Array(data) + [UInt8(ascii: "\n")]
    }

    /// A record from one line's bytes (without its newline); nil if it is not one.
    /// A line without `output` (every line before several outputs were recorded) has none.
    public init?(line: some Collection<UInt8>) {
        guard let object = try? JSONValue(parsing: line),
              let sequence = object["seq"]?.uint64, sequence > 0,
              let slide = object["slide"]?.int, let path = object["path"]?.string,
              let start = object["start"]?.string, let nanoseconds = Self.parse(start),
              let milliseconds = object["durationMs"]?.int64, milliseconds >= 0
        else { return nil }
        let sha256 = object["sha256"]?.string
        // Lines before videos were recorded have no videoPlayedMs.
        let played = object["videoPlayedMs"]?.int64.flatMap { $0 >= 0 ? Duration.milliseconds($0) : nil }
        self.init(sequence: sequence, slide: slide, path: path, sha256: sha256, startNanoseconds: nanoseconds,
                  duration: .milliseconds(milliseconds), output: object["output"]?.string, videoPlayed: played)
    }

    /// `2026-11-23T08:15:46.123456Z`.
    public static func format(nanoseconds: Int64) -> String {
        let (seconds, remainder) = nanoseconds.quotientAndRemainder(dividingBy: 1_000_000_000)
        let whole = remainder < 0 ? seconds - 1 : seconds
        let micros = (remainder < 0 ? remainder + 1_000_000_000 : remainder) / 1000
        let fraction = String(micros)
        return WallInstant(secondsSinceEpoch: whole).utc.iso8601 + "." + String(repeating: "0", count: 6 - fraction.count) + fraction + "Z"
    }

    /// Reads back exactly what `format` writes (the log's own lines); anything
    /// else is nil. The API's `since` takes any RFC 3339 (`RFC3339.parseNanoseconds`).
    static func parse(_ text: String) -> Int64? {
        let bytes = Array(text.utf8)
        guard bytes.count == 27, bytes[19] == UInt8(ascii: "."), bytes[26] == UInt8(ascii: "Z"),
              let seconds = WallInstant(utcISO8601: String(decoding: bytes[0..<19], as: UTF8.self)),
              let micros = Int64(String(decoding: bytes[20..<26], as: UTF8.self)), micros >= 0
        else { return nil }
        return seconds.secondsSinceEpoch * 1_000_000_000 + micros * 1000
    }
}

extension WallInstant {
    /// `yyyy-mm-ddThh:mm:ss`, read as UTC; nil if it is not one.
    init?(utcISO8601 text: String) {
        let parts = text.split(whereSeparator: { $0 == "-" || $0 == "T" || $0 == ":" }).map { Int($0) }
        guard parts.count == 6, text.count == 19, let date = LocalDate(year: parts[0] ?? -1, month: parts[1] ?? -1, day: parts[2] ?? -1),
              let time = LocalTime(hour: parts[3] ?? -1, minute: parts[4] ?? -1, second: parts[5] ?? -1), time < .endOfDay
        else { return nil }
        self.init(utc: date, time)
    }
}
