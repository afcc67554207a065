#if canImport(Glibc)
import Glibc
#elseif canImport(Musl)
import Musl
#elseif canImport(Darwin)
import Darwin
#endif
import VitrineCore

/// An IANA time zone (tzdata) as the schedule's `ZoneRules`: the zone's TZif
/// file, read from `$TZDIR` (else /usr/share/zoneinfo) by the core's
/// `TZifZone`. Foundation is not involved: its named zones need ICU.
public struct ScheduleTimeZone: ZoneRules {
    /// The zone's offsets and abbreviations, from its TZif file (or, for a
    /// `$TZ` written as a POSIX TZ string, from that rule alone).
    public let rules: TZifZone
    /// Whether this is the system's zone (`/etc/localtime`, or `$TZ`), not one
    /// the configuration named.
    public let isSystem: Bool

    /// The zone named `identifier` (`Europe/Berlin`), or nil when tzdata has
    /// no such zone or its file is not a valid TZif file.
    public init?(identifier: String) {
        guard let rules = Self.zone(named: identifier, in: Self.tzdataDirectory) ?? Self.builtIn(identifier) else { return nil }
        self.init(rules: rules, isSystem: false)
    }

    public init(rules: TZifZone, isSystem: Bool) {
        self.rules = rules
        self.isSystem = isSystem
    }

    /// The system's zone: `$TZ` if set, else `/etc/localtime`.
    public static func system() -> ScheduleTimeZone {
        system(tz: environment("TZ"), tzdataDirectory: tzdataDirectory)
    }

    /// The system's zone for a `$TZ` of `tz` (nil: unset), as glibc reads it:
    ///
    /// - `:Europe/Berlin` or `Europe/Berlin`: the file of that name in the
    ///   tzdata directory; `:/path` or `/path`: that file;
    /// - else, unless it starts with `:`, a POSIX TZ string
    ///   (`CET-1CEST,M3.5.0,M10.5.0/3`): a zone of that rule alone;
    /// - empty, or none of these: UTC, as glibc, and so `date`, take it;
    /// - unset, or `:` alone: the file `localtime` (/etc/localtime), named by
    ///   where its symbolic link points (what follows the tzdata directory or
    ///   `zoneinfo/`), else by the first word of `timezoneFile`
    ///   (/etc/timezone), else by its own path. Without a readable
    ///   `localtime`, the zone `timezoneFile` names; failing that, UTC.
    static func system(tz: String?, tzdataDirectory: String,
                       localtime: String = "/etc/localtime", timezoneFile: String = "/etc/timezone") -> ScheduleTimeZone {
        if let tz, tz != ":" {
            let name = tz.hasPrefix(":") ? String(tz.dropFirst()) : tz
            let zone = name.hasPrefix("/")
                ? zone(atPath: name, identifier: identifier(ofPath: name, tzdataDirectory: tzdataDirectory) ?? name)
                : zone(named: name, in: tzdataDirectory)
            if let zone { return ScheduleTimeZone(rules: zone, isSystem: true) }
            if !tz.hasPrefix(":"), !tz.isEmpty, let rule = try? PosixTZRule(tz) {
                return ScheduleTimeZone(rules: TZifZone(identifier: tz, rule: rule), isSystem: true)
            }
            return ScheduleTimeZone(rules: .utc, isSystem: true)
        }
        let named = contents(of: timezoneFile).map { String(decoding: $0, as: UTF8.self) }?
            .split(whereSeparator: \.isWhitespace).first.map(String.init)
        if let zone = zone(atPath: localtime, identifier: identifier(ofPath: localtime, tzdataDirectory: tzdataDirectory) ?? named ?? localtime) {
            return ScheduleTimeZone(rules: zone, isSystem: true)
        }
        if let named, let zone = zone(named: named, in: tzdataDirectory) {
            return ScheduleTimeZone(rules: zone, isSystem: true)
        }
        return ScheduleTimeZone(rules: .utc, isSystem: true)
    }

    static var tzdataDirectory: String {
        guard let directory = environment("TZDIR"), !directory.isEmpty else { return "/usr/share/zoneinfo" }
        return directory
    }

    public var identifier: String { rules.identifier }

    public func utcOffset(at instant: WallInstant) -> Int { rules.utcOffset(at: instant) }

    public func abbreviation(at instant: WallInstant) -> String { rules.abbreviation(at: instant) }

    public func isDaylightSaving(at instant: WallInstant) -> Bool { rules.isDaylightSaving(at: instant) }

    // MARK: Files

    /// The zone file `identifier` names below `directory`. Names are relative
    /// paths without `.` or `..` components, so that a configuration cannot
    /// reach outside tzdata (`../../etc/passwd`).
    static func zone(named identifier: String, in directory: String) -> TZifZone? {
        let components = identifier.split(separator: "/", omittingEmptySubsequences: false)
        guard !identifier.isEmpty, components.allSatisfy({ !$0.isEmpty && $0 != "." && $0 != ".." }) else { return nil }
        return zone(atPath: directory + "/" + identifier, identifier: identifier)
    }

    /// The TZif file at `path`, or nil if it is unreadable or not TZif.
    static func zone(atPath path: String, identifier: String) -> TZifZone? {
        guard let bytes = contents(of: path) else { return nil }
        return try? TZifZone(identifier: identifier, bytes: bytes)
    }

    /// UTC, which must work even where tzdata is not installed (a kiosk image
    /// without it), as it did with Foundation.
    static func builtIn(_ identifier: String) -> TZifZone? { identifier == "UTC" ? .utc : nil }

    /// The zone name in `path` or, following up to eight symbolic links, in
    /// the path one of them points to: what comes after the tzdata directory
    /// or after `zoneinfo/` (`/usr/share/zoneinfo/Europe/Berlin`,
    /// `../usr/share/zoneinfo/Europe/Berlin`).
    static func identifier(ofPath path: String, tzdataDirectory: String) -> String? {
        var current = path
        for _ in 0...8 {
            if current.hasPrefix(tzdataDirectory + "/"), current.count > tzdataDirectory.count + 1 {
                return String(current.dropFirst(tzdataDirectory.count + 1))
            }
            if let name = afterLastZoneinfo(current) { return name }
            guard let target = symbolicLinkTarget(current) else { return nil }
            if !target.hasPrefix("/"), let slash = current.lastIndex(of: "/") {
                current = String(current[...slash]) + target  // Relative to the link's directory.
            } else {
                current = target
            }
        }
        return nil
    }

    /// `Europe/Berlin` in `…/zoneinfo/Europe/Berlin`: what follows the last
    /// `zoneinfo/`, if anything does.
    private static func afterLastZoneinfo(_ path: String) -> String? {
        let bytes = Array(path.utf8), marker = Array("zoneinfo/".utf8)
        guard bytes.count > marker.count else { return nil }
        for start in stride(from: bytes.count - marker.count - 1, through: 0, by: -1)
        where bytes[start..<start + marker.count].elementsEqual(marker) {
            return String(decoding: bytes[(start + marker.count)...], as: UTF8.self)
        }
        return nil
    }

    /// Where the symbolic link at `path` points, or nil if it is none.
    static func symbolicLinkTarget(_ path: String) -> String? {
        var buffer = [CChar](repeating: 0, count: 4096)
        let count = readlink(path, &buffer, buffer.count)
        guard count > 0, count < buffer.count else { return nil }
        return String(decoding: buffer[..<count].map { UInt8(bitPattern: $0) }, as: UTF8.self)
    }

    /// The bytes of the regular file at `path`, if it is at most 1 MiB (the
    /// largest tzdata file is a few kilobytes); nil otherwise.
    static func contents(of path: String) -> [UInt8]? {
        let descriptor = open(path, O_RDONLY | O_CLOEXEC | O_NONBLOCK)
        guard descriptor >= 0 else { return nil }
        defer { close(descriptor) }
        var status = stat()
        guard fstat(descriptor, &status) == 0, status.st_mode & S_IFMT == S_IFREG else { return nil }
        let limit = 1 << 20
        var bytes: [UInt8] = []
        var chunk = [UInt8](repeating: 0, count: 16_384)
        while true {
            let count = chunk.withUnsafeMutableBytes { read(descriptor, $0.baseAddress, $0.count) }
            if count < 0 {
                if errno == EINTR { continue }
                return nil
            }
            if count == 0 { return bytes }
            bytes += chunk[..<count]
            if bytes.count > limit { return nil }
        }
    }

    static func environment(_ name: String) -> String? { getenv(name).map { String(cString: $0) } }
}
