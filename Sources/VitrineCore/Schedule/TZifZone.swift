/// How a zone's clock stands for a while: RFC 8536's "local time type".
public struct LocalTimeType: Hashable, Sendable {
    /// Seconds east of UTC: 3600 for CET, -18000 for EST.
    public let utcOffset: Int
    /// Whether this is daylight saving time. Not always the summer one:
    /// Europe/Dublin's IST (+1) is its standard time and its winter GMT (+0)
    /// its daylight saving time, a "negative" one.
    public let isDaylightSaving: Bool
    /// `CET`, `EDT`, `+1030`.
    public let abbreviation: String

    public init(utcOffset: Int, isDaylightSaving: Bool, abbreviation: String) {
        self.utcOffset = utcOffset
        self.isDaylightSaving = isDaylightSaving
        self.abbreviation = abbreviation
    }
}

/// A time zone read from a TZif file (RFC 8536), the format of tzdata's
/// files in /usr/share/zoneinfo, given as its bytes: the core reads no files.
///
/// The file holds a table of transitions (the instants at which the zone's
/// local time type changed, up to some year) and, from version 2 on, a
/// footer: a POSIX TZ string (`PosixTZRule`) for every instant after the
/// table. Versions 1 to 4 are read (4 is RFC 9636's, which only loosens the
/// leap second table); a later version digit is read as 4. From version 2
/// on only the 64-bit data block is used, and the 32-bit block before it is
/// skipped.
///
/// Every count, index and offset in the file is checked before use: a
/// truncated or corrupt file is a `TZifError`, never a trap.
public struct TZifZone: ZoneRules, Hashable {
    public let identifier: String
    /// The instants at which the local time type changes, ascending, in Unix
    /// time (seconds since the epoch, no leap seconds; two may coincide once
    /// leap seconds are taken out of a "right/" zone's).
    public let transitions: [Int64]
    /// For each transition, the index in `types` of the type it starts.
    public let transitionTypes: [UInt8]
    /// The local time types; never empty.
    public let types: [LocalTimeType]
    /// The footer's rule, for instants from the last transition on; nil when
    /// the file has none (version 1) or an empty one.
    public let rule: PosixTZRule?

    /// The zone that `bytes`, a TZif file, describes.
    public init(identifier: String, bytes: [UInt8]) throws(TZifError) {
        var reader = TZifReader(bytes: bytes)
        var header = try reader.header()
        let version = header.version
        var timeSize = 4
        if version >= 2 {
            // The 32-bit block is there for version 1 readers; the 64-bit
            // block after it, with a header of its own, covers all of time.
            try header.checkFits(in: reader.remaining, timeSize: 4, as: .data32Bit)
            _ = try reader.take(header.dataLength(timeSize: 4), .data32Bit)
            header = try reader.header()
            guard header.version == version else { throw .versionMismatch }
            timeSize = 8
        }
        // Before reserving room for what the counts announce, make sure the
        // file holds it: a corrupt count must not make us allocate gigabytes.
        try header.checkFits(in: reader.remaining, timeSize: timeSize)
        let h = header

        var transitions: [Int64] = []
        transitions.reserveCapacity(h.transitionCount)
        for index in 0..<h.transitionCount {
            let time = try reader.time(timeSize, .transitionTimes)
            if let previous = transitions.last, time <= previous { throw .transitionsNotAscending(index: index) }
            transitions.append(time)
        }
        var transitionTypes: [UInt8] = []
        transitionTypes.reserveCapacity(h.transitionCount)
        for index in 0..<h.transitionCount {
            let type = try reader.byte(.transitionTypes)
            guard Int(type) < h.typeCount else { throw .typeIndexOutOfRange(transition: index, type: Int(type)) }
            transitionTypes.append(type)
        }
        var records: [(utcOffset: Int32, isDaylightSaving: UInt8, designation: UInt8)] = []
        for _ in 0..<h.typeCount {
            records.append((try reader.int32(.localTimeTypes), try reader.byte(.localTimeTypes), try reader.byte(.localTimeTypes)))
        }
        let designations = Array(try reader.take(h.designationCount, .designations))
        var types: [LocalTimeType] = []
        for (index, record) in records.enumerated() {
            // RFC 8536 §3.2: never -2^31, and within (-25, +26) hours.
            guard (-89_999...93_599).contains(record.utcOffset) else { throw .utcOffsetOutOfRange(type: index) }
            guard record.isDaylightSaving <= 1 else { throw .badDaylightSavingFlag(type: index) }
            let start = Int(record.designation)
            guard start < designations.count else { throw .designationIndexOutOfRange(type: index) }
            guard let end = designations[start...].firstIndex(of: 0) else { throw .unterminatedDesignation(type: index) }
            types.append(LocalTimeType(utcOffset: Int(record.utcOffset), isDaylightSaving: record.isDaylightSaving == 1,
                                       abbreviation: String(decoding: designations[start..<end], as: UTF8.self)))
        }
        var leapSeconds: [(occurrence: Int64, correction: Int64)] = []
        for _ in 0..<h.leapCount {
            let occurrence = try reader.time(timeSize, .leapSeconds)
            let correction = Int64(try reader.int32(.leapSeconds))
            if let previous = leapSeconds.last, occurrence <= previous.occurrence { throw .leapSecondsNotAscending }
            leapSeconds.append((occurrence, correction))
        }
        let standardIndicators = Array(try reader.take(h.standardIndicatorCount, .indicators))
        let utIndicators = Array(try reader.take(h.utIndicatorCount, .indicators))
        // Each indicator is 0 or 1, and a type whose transitions are in UT
        // is also standard time (a missing indicator is 0). Readers need
        // neither (they served POSIX rules without a footer), but a value
        // outside them means the file is not what it claims to be.
        guard standardIndicators.allSatisfy({ $0 <= 1 }), utIndicators.allSatisfy({ $0 <= 1 }),
              utIndicators.indices.allSatisfy({ utIndicators[$0] == 0 || standardIndicators.indices.contains($0) && standardIndicators[$0] == 1 })
        else { throw .badIndicator }

        var rule: PosixTZRule?
        if version >= 2 {
            // The footer: the TZ string between two newlines, at the very end.
            guard reader.remaining > 0, try reader.byte(.footer) == 0x0A else { throw .missingFooter }
            let text = reader.bytes[reader.position...]
            guard let close = text.firstIndex(of: 0x0A) else { throw .truncated(.footer) }
            let string = text[..<close]
            guard string.allSatisfy({ (0x20...0x7E).contains($0) }) else { throw .badFooter(nil) }
            if !string.isEmpty {
                do { rule = try PosixTZRule(String(decoding: string, as: UTF8.self)) } catch { throw .badFooter(error) }
            }
            _ = try reader.take(close - reader.position + 1, .footer)
        }
        guard reader.remaining == 0 else { throw .trailingBytes(reader.remaining) }

        // A "right/" zone counts leap seconds in its transition times;
        // `WallInstant` is Unix time, which does not, so take them out: each
        // time less the correction of the last leap second at or before it
        // (both lists ascend, so one pass; saturating at the ends of time).
        if !leapSeconds.isEmpty {
            var next = 0, correction: Int64 = 0
            transitions = transitions.map { time in
                while next < leapSeconds.count, leapSeconds[next].occurrence <= time {
                    correction = leapSeconds[next].correction
                    next += 1
                }
                let (corrected, overflow) = time.subtractingReportingOverflow(correction)
                return overflow ? (correction > 0 ? .min : .max) : corrected
            }
        }
        self.identifier = identifier
        self.transitions = transitions
        self.transitionTypes = transitionTypes
        self.types = types
        self.rule = rule
    }

    /// A zone with no table, only a rule: `$TZ` as a POSIX TZ string
    /// (`CET-1CEST,M3.5.0,M10.5.0/3`).
    public init(identifier: String, rule: PosixTZRule) {
        self.identifier = identifier
        self.transitions = []
        self.transitionTypes = []
        self.types = [rule.standard]
        self.rule = rule
    }

    /// Coordinated Universal Time, for when no file says otherwise.
    public static let utc = TZifZone(identifier: "UTC", rule: PosixTZRule.utc)

    /// The local time type in force at `instant`.
    public func localTimeType(at instant: WallInstant) -> LocalTimeType {
        let time = instant.secondsSinceEpoch
        guard let first = transitions.first, time >= first else {
            // RFC 8536 §3.2: with no transitions at all, the footer rules
            // every instant (a bare TZ string is such a zone); before the
            // first transition, time type 0 does. That is usually the local
            // mean time the zone kept before adopting a standard offset,
            // so no later type can stand in for it. (glibc instead takes
            // the first type without daylight saving time.)
            if transitions.isEmpty, let rule { return rule.localTimeType(at: instant) }
            return types[0]
        }
        // The last transition at or before `time`: transitions[low] <= time
        // throughout, and transitions[high] > time where high is in range.
        var low = 0, high = transitions.count
        while high - low > 1 {
            let middle = low + (high - low) / 2
            if transitions[middle] <= time { low = middle } else { high = middle }
        }
        // From the last transition on, the footer's rule says what the table
        // no longer does: the transitions it would list repeat every year
        // forever, and a file lists them only up to some year (2037 for
        // "fat" files, the year the rule took over for "slim" ones). Without
        // a rule, the last transition's type goes on for ever.
        if low == transitions.count - 1, let rule { return rule.localTimeType(at: instant) }
        return types[Int(transitionTypes[low])]
    }

    public func utcOffset(at instant: WallInstant) -> Int { localTimeType(at: instant).utcOffset }

    /// The type's abbreviation, or its offset (`+05:30`) if it has none.
    public func abbreviation(at instant: WallInstant) -> String {
        let type = localTimeType(at: instant)
        return type.abbreviation.isEmpty ? formatUTCOffset(type.utcOffset) : type.abbreviation
    }

    public func isDaylightSaving(at instant: WallInstant) -> Bool { localTimeType(at: instant).isDaylightSaving }
}

/// What is wrong with a TZif file.
public enum TZifError: Error, Hashable, Sendable, CustomStringConvertible {
    /// The file's parts, in order.
    public enum Part: String, Hashable, Sendable {
        case header, data32Bit = "32-bit data block", data = "data block", transitionTimes = "transition times"
        case transitionTypes = "transition types", localTimeTypes = "local time types", designations = "abbreviations"
        case leapSeconds = "leap seconds", indicators = "standard/UT indicators", footer
    }

    /// The file ends inside this part.
    case truncated(Part)
    /// It does not start with `TZif`.
    case badMagic
    /// The version byte is neither 0 nor an ASCII digit from 2 on.
    case unsupportedVersion(UInt8)
    /// The second header (version 2 on) gives another version than the first.
    case versionMismatch
    /// There are no local time types, or no abbreviation bytes.
    case noLocalTimeTypes, noDesignations
    /// The standard/UT indicator counts are neither 0 nor the type count.
    case badIndicatorCount
    case transitionsNotAscending(index: Int)
    /// Transition `transition` names a type the file does not have.
    case typeIndexOutOfRange(transition: Int, type: Int)
    case utcOffsetOutOfRange(type: Int)
    case badDaylightSavingFlag(type: Int)
    case designationIndexOutOfRange(type: Int)
    case unterminatedDesignation(type: Int)
    case leapSecondsNotAscending
    case badIndicator
    /// A version 2+ file without its newline-enclosed footer.
    case missingFooter
    /// The footer is not a TZ string (nil: not printable ASCII).
    case badFooter(PosixTZRule.ParseError?)
    /// Bytes after the end.
    case trailingBytes(Int)

    public var description: String {
        switch self {
        case .truncated(let part): return "TZif: the file ends in its \(part.rawValue)"
        case .badMagic: return "TZif: not a TZif file (no \"TZif\" at its start)"
        case .unsupportedVersion(let byte): return "TZif: unknown version byte \(byte)"
        case .versionMismatch: return "TZif: the 64-bit header's version differs from the first header's"
        case .noLocalTimeTypes: return "TZif: no local time types"
        case .noDesignations: return "TZif: no abbreviations"
        case .badIndicatorCount: return "TZif: the standard/UT indicator counts are neither 0 nor the type count"
        case .transitionsNotAscending(let index): return "TZif: transition \(index) is not after the one before"
        case .typeIndexOutOfRange(let transition, let type): return "TZif: transition \(transition) names type \(type), which does not exist"
        case .utcOffsetOutOfRange(let type): return "TZif: type \(type)'s UTC offset is out of range"
        case .badDaylightSavingFlag(let type): return "TZif: type \(type)'s daylight saving flag is neither 0 nor 1"
        case .designationIndexOutOfRange(let type): return "TZif: type \(type)'s abbreviation index is out of range"
        case .unterminatedDesignation(let type): return "TZif: type \(type)'s abbreviation has no terminating NUL"
        case .leapSecondsNotAscending: return "TZif: leap second records are not in order"
        case .badIndicator: return "TZif: a standard/UT indicator is neither 0 nor 1"
        case .missingFooter: return "TZif: no footer after the 64-bit data"
        case .badFooter(let error?): return "TZif footer: \(error)"
        case .badFooter(nil): return "TZif: the footer is not printable ASCII"
        case .trailingBytes(let count): return "TZif: \(count) bytes after the end"
        }
    }
}

/// A TZif header (RFC 8536 §3.1): its version and six counts.
private struct TZifHeader {
    var version: Int
    var utIndicatorCount: Int, standardIndicatorCount: Int, leapCount: Int
    var transitionCount: Int, typeCount: Int, designationCount: Int

    /// The data block's parts after this header and their lengths in bytes.
    func parts(timeSize: Int) -> [(part: TZifError.Part, count: Int, size: Int)] {
        [(.transitionTimes, transitionCount, timeSize), (.transitionTypes, transitionCount, 1), (.localTimeTypes, typeCount, 6),
         (.designations, designationCount, 1), (.leapSeconds, leapCount, timeSize + 4),
         (.indicators, standardIndicatorCount, 1), (.indicators, utIndicatorCount, 1)]
    }

    /// Throws `truncated` with the first part that does not fit in
    /// `remaining` bytes (or with `part`, if given, for the whole block).
    /// Overflow-safe: each count is below 2^32, each size at most 12.
    func checkFits(in remaining: Int, timeSize: Int, as part: TZifError.Part? = nil) throws(TZifError) {
        var left = remaining
        for piece in parts(timeSize: timeSize) {
            let (length, overflow) = piece.count.multipliedReportingOverflow(by: piece.size)
            guard !overflow, length <= left else { throw .truncated(part ?? piece.part) }
            left -= length
        }
    }

    /// The data block's length; call `checkFits` first.
    func dataLength(timeSize: Int) -> Int { parts(timeSize: timeSize).reduce(0) { $0 + $1.count * $1.size } }
}

/// Reads a TZif file's big-endian fields; every read checks its bounds.
private struct TZifReader {
    let bytes: [UInt8]
    var position = 0

    var remaining: Int { bytes.count - position }

    mutating func take(_ count: Int, _ part: TZifError.Part) throws(TZifError) -> ArraySlice<UInt8> {
        guard count >= 0, count <= remaining else { throw .truncated(part) }
        defer { position += count }
        return bytes[position..<position + count]
    }

    mutating func byte(_ part: TZifError.Part) throws(TZifError) -> UInt8 { try take(1, part).first! }

    mutating func uint32(_ part: TZifError.Part) throws(TZifError) -> UInt32 {
        try take(4, part).reduce(0) { $0 << 8 | UInt32($1) }
    }

    mutating func int32(_ part: TZifError.Part) throws(TZifError) -> Int32 { Int32(bitPattern: try uint32(part)) }

    /// A transition or leap second time: 32 bits in version 1 data, 64 after.
    mutating func time(_ size: Int, _ part: TZifError.Part) throws(TZifError) -> Int64 {
        if size == 4 { return Int64(try int32(part)) }
        return Int64(bitPattern: try take(8, part).reduce(0) { $0 << 8 | UInt64($1) })
    }

    /// A header: magic, version, 15 reserved bytes, six counts.
    mutating func header() throws(TZifError) -> TZifHeader {
        guard remaining >= 4 else { throw .truncated(.header) }
        guard try take(4, .header).elementsEqual("TZif".utf8) else { throw .badMagic }
        let versionByte = try byte(.header)
        let version: Int
        switch versionByte {
        case 0: version = 1
        case UInt8(ascii: "2")...UInt8(ascii: "9"): version = Int(versionByte - UInt8(ascii: "0"))
        default: throw .unsupportedVersion(versionByte)
        }
        _ = try take(15, .header)
        var counts: [Int] = []
        for _ in 0..<6 {
            // Counts are unsigned 32-bit; on a 32-bit `Int` a huge one could
            // not be held, and the file could not hold what it counts either.
            guard let count = Int(exactly: try uint32(.header)) else { throw .truncated(.data) }
            counts.append(count)
        }
        let header = TZifHeader(version: version, utIndicatorCount: counts[0], standardIndicatorCount: counts[1],
                                leapCount: counts[2], transitionCount: counts[3], typeCount: counts[4], designationCount: counts[5])
        guard header.typeCount > 0 else { throw .noLocalTimeTypes }
        guard header.designationCount > 0 else { throw .noDesignations }
        guard [0, header.typeCount].contains(header.utIndicatorCount),
              [0, header.typeCount].contains(header.standardIndicatorCount) else { throw .badIndicatorCount }
        return header
    }
}
