import Foundation
import VitrineCore

/// An IANA time zone (tzdata) as the schedule's `ZoneRules`: offsets come from
/// Foundation's `TimeZone`, which reads tzdata; abbreviations (`CET`, `CEST`,
/// `EDT`) from the zone's TZif file itself, since Foundation on Linux only
/// offers `GMT+1`-style names.
public struct ScheduleTimeZone: ZoneRules {
    public let timeZone: TimeZone
    /// Whether this is the system's zone (`/etc/localtime`, or `$TZ`), not one
    /// the configuration named.
    public let isSystem: Bool
    private let names: ZoneAbbreviations?

    /// The zone named `identifier` (`Europe/Berlin`), or nil when tzdata has no such zone.
    public init?(identifier: String) {
        guard !identifier.isEmpty, !identifier.split(separator: "/").contains(".."),
              let timeZone = TimeZone(identifier: identifier) else { return nil }
        self.timeZone = timeZone
        self.isSystem = false
        self.names = ZoneAbbreviations(file: Self.tzdataDirectory + "/" + identifier)
    }

    /// The system's zone: `$TZ` if set, else `/etc/localtime`.
    public static func system() -> ScheduleTimeZone { ScheduleTimeZone(system: TimeZone.current) }

    private init(system timeZone: TimeZone) {
        self.timeZone = timeZone
        self.isSystem = true
        self.names = ZoneAbbreviations(file: Self.tzdataDirectory + "/" + timeZone.identifier)
            ?? ZoneAbbreviations(file: "/etc/localtime")
    }

    static var tzdataDirectory: String { ProcessInfo.processInfo.environment["TZDIR"] ?? "/usr/share/zoneinfo" }

    public var identifier: String { timeZone.identifier }

    public func utcOffset(at instant: WallInstant) -> Int {
        timeZone.secondsFromGMT(for: Date(timeIntervalSince1970: Double(instant.secondsSinceEpoch)))
    }

    public func abbreviation(at instant: WallInstant) -> String {
        let offset = utcOffset(at: instant)
        let date = Date(timeIntervalSince1970: Double(instant.secondsSinceEpoch))
        if let name = names?.name(offset: offset, isDaylightSaving: timeZone.isDaylightSavingTime(for: date)) { return name }
        // No TZif file to ask: Foundation's name, unless it is only the offset again.
        if let name = timeZone.abbreviation(for: date), !name.hasPrefix("GMT+"), !name.hasPrefix("GMT-") { return name }
        return formatUTCOffset(offset)
    }
}

/// The abbreviations a TZif file (RFC 8536) gives its offsets: from the POSIX
/// TZ string at its end, which rules the present and future, else from its
/// newest transition to that offset.
struct ZoneAbbreviations: Sendable {
    /// Local time types, newest use first: offset, daylight saving, name.
    private var types: [(offset: Int, isDaylightSaving: Bool, name: String)] = []

    init?(file: String) {
        guard let data = FileManager.default.contents(atPath: file) else { return nil }
        self.init(bytes: Array(data))
    }

    init?(bytes: [UInt8]) {
        func u32(_ at: Int) -> Int? {
            guard at >= 0, at + 4 <= bytes.count else { return nil }
            return Int(UInt32(bytes[at]) << 24 | UInt32(bytes[at + 1]) << 16 | UInt32(bytes[at + 2]) << 8 | UInt32(bytes[at + 3]))
        }
        func header(_ at: Int) -> (version: UInt8, isut: Int, isstd: Int, leap: Int, time: Int, type: Int, char: Int)? {
            guard at + 44 <= bytes.count, bytes[at..<at + 4].elementsEqual("TZif".utf8),
                  let isut = u32(at + 20), let isstd = u32(at + 24), let leap = u32(at + 28), let time = u32(at + 32),
                  let type = u32(at + 36), let char = u32(at + 40) else { return nil }
            return (bytes[at + 4], isut, isstd, leap, time, type, char)
        }
        guard var h = header(0) else { return nil }
        var at = 44, timeSize = 4
        if h.version >= UInt8(ascii: "2") {
            // Skip the 32-bit block; the 64-bit one follows with its own header.
            at += h.time * 5 + h.type * 6 + h.char + h.leap * 8 + h.isstd + h.isut
            guard let second = header(at) else { return nil }
            h = second
            at += 44
            timeSize = 8
        }
        let typesOfTransitions = at + h.time * timeSize
        let ttinfo = typesOfTransitions + h.time
        let chars = ttinfo + h.type * 6
        let end = chars + h.char + h.leap * (timeSize + 4) + h.isstd + h.isut
        guard end <= bytes.count else { return nil }
        var all: [(offset: Int, isDaylightSaving: Bool, name: String)] = []
        for index in 0..<h.type {
            let base = ttinfo + index * 6
            guard let raw = u32(base) else { return nil }
            let offset = Int(Int32(bitPattern: UInt32(raw)))
            let nameStart = chars + Int(bytes[base + 5])
            guard nameStart < chars + h.char else { return nil }
            let nameEnd = bytes[nameStart..<(chars + h.char)].firstIndex(of: 0) ?? (chars + h.char)
            all.append((offset, bytes[base + 4] != 0, String(decoding: bytes[nameStart..<nameEnd], as: UTF8.self)))
        }
        // The footer's rule first, then types by their newest transition.
        if h.version >= UInt8(ascii: "2"), end < bytes.count, bytes[end] == 0x0A,
           let close = bytes[(end + 1)...].firstIndex(of: 0x0A) {
            types += Self.footerTypes(String(decoding: bytes[(end + 1)..<close], as: UTF8.self))
        }
        var seen = Set<Int>()
        for transition in stride(from: h.time - 1, through: 0, by: -1) {
            let type = Int(bytes[typesOfTransitions + transition])
            if type < all.count, seen.insert(type).inserted { types.append(all[type]) }
        }
        types += all
    }

    /// The name for `offset`, preferring one with the same daylight-saving flag.
    func name(offset: Int, isDaylightSaving: Bool) -> String? {
        (types.first { $0.offset == offset && $0.isDaylightSaving == isDaylightSaving } ?? types.first { $0.offset == offset })?.name
    }

    /// The standard and daylight-saving names and offsets a POSIX TZ string
    /// gives (`CET-1CEST,M3.5.0,M10.5.0/3`, `<+1030>-10:30<+11>-11,M10.1.0,M4.1.0`).
    static func footerTypes(_ rule: String) -> [(offset: Int, isDaylightSaving: Bool, name: String)] {
        var rest = Substring(rule)
        func name() -> String? {
            if rest.first == "<" {
                guard let close = rest.firstIndex(of: ">") else { return nil }
                defer { rest = rest[rest.index(after: close)...] }
                return String(rest[rest.index(after: rest.startIndex)..<close])
            }
            let text = rest.prefix { $0.isLetter }
            rest = rest.dropFirst(text.count)
            return text.count >= 3 ? String(text) : nil
        }
        func offset() -> Int? {
            var sign = 1
            if rest.first == "+" || rest.first == "-" {
                sign = rest.first == "-" ? -1 : 1
                rest = rest.dropFirst()
            }
            let text = rest.prefix { $0.isNumber || $0 == ":" }
            rest = rest.dropFirst(text.count)
            let parts = text.split(separator: ":", omittingEmptySubsequences: false).map { Int($0) }
            guard !parts.isEmpty, parts.count <= 3, !parts.contains(nil) else { return nil }
            let seconds = parts.enumerated().reduce(0) { $0 + $1.element! * [3600, 60, 1][$1.offset] }
            return -sign * seconds  // POSIX counts west of UTC as positive.
        }
        guard let standardName = name(), let standard = offset() else { return [] }
        var types = [(offset: standard, isDaylightSaving: false, name: standardName)]
        if let daylightName = name() {
            let daylight = (rest.first == "," || rest.isEmpty) ? standard + 3600 : offset() ?? standard + 3600
            types.append((daylight, true, daylightName))
        }
        return types
    }
}
