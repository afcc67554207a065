/// A time zone's rules: how far its wall clock is from UTC at each instant.
///
/// The core stays free of Foundation and of the file system, so the zone is a
/// protocol: `TZifZone` implements it from a tzdata file's bytes (IANA
/// zones from tzdata), tests may implement it with a table or a formula, and
/// `FixedOffsetZone` is one without transitions. Everything else, local time
/// to UTC and back, is derived here from `utcOffset(at:)` alone.
public protocol ZoneRules: Sendable {
    /// The zone's name: `Europe/Berlin`.
    var identifier: String { get }
    /// Seconds east of UTC at `instant`: 3600 for CET, 7200 for CEST, -18000 for EST.
    func utcOffset(at instant: WallInstant) -> Int
    /// A short name for the offset at `instant` (`CEST`), for people to read.
    func abbreviation(at instant: WallInstant) -> String
}

/// What a wall-clock reading corresponds to in a zone.
public enum LocalTimeResolution: Hashable, Sendable {
    /// The reading happens once: the usual case.
    case unique(WallInstant)
    /// The reading happens twice, because clocks were turned back (the
    /// repeated hour in autumn); `first` is in the earlier offset.
    case repeated(first: WallInstant, second: WallInstant)
    /// The clock never shows the reading, because clocks were turned forward
    /// over it (the missing hour in spring); `firstValidAfter` is the instant
    /// the clock jumped, the first instant whose reading is later.
    case skipped(firstValidAfter: WallInstant)
}

extension ZoneRules {
    /// The wall-clock date and time at `instant`.
    public func localDateTime(at instant: WallInstant) -> LocalDateTime {
        LocalDateTime(secondsAsIfUTC: instant.secondsSinceEpoch + Int64(utcOffset(at: instant)))
    }

    /// Every instant at which the clock reads `local`, or the gap it falls in.
    ///
    /// Assumes, as every real zone does, that the offset changes at most once
    /// in the 26 hours around the reading.
    public func resolve(_ local: LocalDateTime) -> LocalTimeResolution {
        let asIfUTC = local.secondsAsIfUTC
        let window: Int64 = 26 * 3600
        let offsets = Set([
            utcOffset(at: WallInstant(secondsSinceEpoch: asIfUTC - window)),
            utcOffset(at: WallInstant(secondsSinceEpoch: asIfUTC)),
            utcOffset(at: WallInstant(secondsSinceEpoch: asIfUTC + window)),
        ])
        let matches = offsets.map { WallInstant(secondsSinceEpoch: asIfUTC - Int64($0)) }
            .filter { utcOffset(at: $0) == Int(asIfUTC - $0.secondsSinceEpoch) }
            .sorted()
        if let first = matches.first, let last = matches.last {
            return first == last ? .unique(first) : .repeated(first: first, second: last)
        }
        // In a gap: the offset grows from the smallest to the largest candidate.
        // Before `low` the clock reads earlier than `local`; at `high` later.
        // The jump happens in (low, high]: find it.
        let smallest = Int64(offsets.min()!), largest = Int64(offsets.max()!)
        var low = asIfUTC - largest, high = asIfUTC - smallest
        let before = utcOffset(at: WallInstant(secondsSinceEpoch: low))
        while high - low > 1 {
            let middle = low + (high - low) / 2
            if utcOffset(at: WallInstant(secondsSinceEpoch: middle)) == before { low = middle } else { high = middle }
        }
        return .skipped(firstValidAfter: WallInstant(secondsSinceEpoch: high))
    }

    /// The instant a schedule means by `local`, whatever the clocks do:
    ///
    /// - a reading that happens once is that instant;
    /// - a reading inside the **repeated** hour (clocks turned back) is its
    ///   **first** occurrence: a window that starts or ends at 02:30 on the
    ///   night Europe/Berlin goes from 03:00 CEST back to 02:00 CET starts or
    ///   ends at 02:30 CEST (00:30Z), and the second 02:30 (CET, 01:30Z) is
    ///   not a boundary;
    /// - a reading inside the **missing** hour (clocks turned forward) is the
    ///   **first valid instant after the gap**, the instant the clock jumped:
    ///   02:30 on the day Europe/Berlin goes from 02:00 CET to 03:00 CEST is
    ///   03:00 CEST (01:00Z). A window whose both ends are in the gap is empty
    ///   that day.
    ///
    /// The mapping never goes backwards (a later reading is never an earlier
    /// instant), so windows that do not overlap on the clock do not overlap
    /// in time either.
    public func instant(for local: LocalDateTime) -> WallInstant {
        switch resolve(local) {
        case .unique(let instant): return instant
        case .repeated(let first, _): return first
        case .skipped(let firstValidAfter): return firstValidAfter
        }
    }
}

/// A zone whose offset never changes: UTC, or `+09:00`.
public struct FixedOffsetZone: ZoneRules, Hashable {
    public let identifier: String
    public let offsetSeconds: Int
    public let abbreviationText: String

    public init(identifier: String, offsetSeconds: Int, abbreviation: String) {
        self.identifier = identifier
        self.offsetSeconds = offsetSeconds
        self.abbreviationText = abbreviation
    }

    public static let utc = FixedOffsetZone(identifier: "UTC", offsetSeconds: 0, abbreviation: "UTC")

    public func utcOffset(at instant: WallInstant) -> Int { offsetSeconds }
    public func abbreviation(at instant: WallInstant) -> String { abbreviationText }
}

/// An offset from UTC as people write it: `+01:00`, `-04:00`, `+10:30`.
public func formatUTCOffset(_ seconds: Int) -> String {
    let sign = seconds < 0 ? "-" : "+"
    let magnitude = abs(seconds)
    let text = "\(sign)\(pad(magnitude / 3600, 2)):\(pad(magnitude / 60 % 60, 2))"
    return magnitude % 60 == 0 ? text : text + ":\(pad(magnitude % 60, 2))"
}
