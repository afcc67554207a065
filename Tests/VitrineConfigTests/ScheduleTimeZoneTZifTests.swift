import Foundation
import Testing
@testable import VitrineConfig
import VitrineCore

// The zones tzdata installs, read by our own TZif reader, against glibc's
// reading of the same files: `zdump -v` lists every transition with the
// second before it and the second it happens, each with its UT time, local
// time, abbreviation, isdst and offset. Every one of them must agree.

/// The tzdata directory both sides read.
private let tzdata = ProcessInfo.processInfo.environment["TZDIR"].flatMap { $0.isEmpty ? nil : $0 } ?? "/usr/share/zoneinfo"
private let zdump = "/usr/bin/zdump"
private let haveZdump = FileManager.default.isExecutableFile(atPath: zdump) && FileManager.default.fileExists(atPath: tzdata + "/UTC")

/// One line of `zdump -v`: `Europe/Berlin  Sun Mar 29 00:59:59 2026 UT = Sun Mar 29 01:59:59 2026 CET isdst=0 gmtoff=3600`.
private struct ZdumpLine {
    let zone: String
    let instant: WallInstant
    let local: LocalDateTime
    let abbreviation: String
    let isDaylightSaving: Bool
    let utcOffset: Int

    init?(_ line: Substring) {
        let fields = line.split(separator: " ", omittingEmptySubsequences: true)
        guard fields.count == 16, fields[6] == "UT", fields[7] == "=", fields[14].hasPrefix("isdst="), fields[15].hasPrefix("gmtoff="),
              let instant = Self.dateTime(fields[2...5]), let local = Self.dateTime(fields[9...12]),
              let isdst = Int(fields[14].dropFirst(6)), let offset = Int(fields[15].dropFirst(7)) else { return nil }
        zone = String(fields[0])
        self.instant = WallInstant(secondsSinceEpoch: instant.secondsAsIfUTC)
        self.local = local
        abbreviation = String(fields[13])
        isDaylightSaving = isdst != 0
        utcOffset = offset
    }

    /// `Mar 29 00:59:59 2026`.
    static func dateTime(_ fields: ArraySlice<Substring>) -> LocalDateTime? {
        let months = ["Jan", "Feb", "Mar", "Apr", "May", "Jun", "Jul", "Aug", "Sep", "Oct", "Nov", "Dec"]
        let f = Array(fields)
        let clock = f[2].split(separator: ":").compactMap { Int($0) }
        guard let month = months.firstIndex(of: String(f[0])), let day = Int(f[1]), let year = Int(f[3]), clock.count == 3,
              let date = LocalDate(year: year, month: month + 1, day: day),
              let time = LocalTime(hour: clock[0], minute: clock[1], second: clock[2]) else { return nil }
        return LocalDateTime(date, time)
    }
}

/// `zdump -v -c FROM,UNTIL zones…`, parsed; the "NULL" lines at the ends of time are left out.
private func zdumpLines(_ zones: [String], from: Int, until: Int) throws -> [ZdumpLine] {
    let process = Process()
    process.executableURL = URL(fileURLWithPath: zdump)
    process.arguments = ["-v", "-c", "\(from),\(until)"] + zones
    let output = Pipe()
    process.standardOutput = output
    try process.run()
    let data = output.fileHandleForReading.readDataToEndOfFile()
    process.waitUntilExit()
    #expect(process.terminationStatus == 0)
    let lines = String(decoding: data, as: UTF8.self).split(separator: "\n").filter { !$0.hasSuffix("= NULL") }
    let parsed = lines.compactMap(ZdumpLine.init)
    #expect(parsed.count == lines.count, "zdump lines not understood: \(lines.filter { ZdumpLine($0) == nil }.prefix(3))")
    return parsed
}

/// What our zone says where zdump's line says otherwise, as `zone instant: ours ≠ zdump's`.
private func disagreements(_ lines: [ZdumpLine]) -> [String] {
    var zones: [String: ScheduleTimeZone] = [:]
    var found: [String] = []
    for line in lines {
        guard let zone = zones[line.zone] ?? ScheduleTimeZone(identifier: line.zone) else {
            found.append("\(line.zone): not read")
            continue
        }
        zones[line.zone] = zone
        let ours = "\(zone.localDateTime(at: line.instant).iso8601) \(zone.abbreviation(at: line.instant)) isdst=\(zone.isDaylightSaving(at: line.instant)) \(zone.utcOffset(at: line.instant))"
        let theirs = "\(line.local.iso8601) \(line.abbreviation) isdst=\(line.isDaylightSaving) \(line.utcOffset)"
        if ours != theirs { found.append("\(line.zone) \(line.instant): \(ours) ≠ zdump's \(theirs)") }
    }
    return found
}

@Suite("Schedule: tzdata through our TZif reader, against zdump", .enabled(if: haveZdump, "needs \(zdump) and tzdata"))
struct ScheduleTimeZoneZdumpTests {
    /// Zones with something to prove: a half-hour daylight saving time
    /// (Lord Howe), none at all (Kolkata), a skipped day (Apia, 2011-12-30),
    /// the southern hemisphere (São Paulo, until 2019), Ramadan changes
    /// listed for decades ahead (Casablanca), negative daylight saving time
    /// (Dublin's winter GMT), a two-hour one (Troll), and none ever (UTC).
    static let zones = [
        "Europe/Berlin", "America/New_York", "Australia/Lord_Howe", "Asia/Kolkata", "Pacific/Apia",
        "America/Sao_Paulo", "Africa/Casablanca", "Europe/Dublin", "Antarctica/Troll", "UTC",
        "Australia/Sydney", "America/Nuuk", "Asia/Jerusalem",
    ]

    /// Every transition from 1800 to 2040 (past 2037, where "fat" files
    /// end their tables and the footer's rule takes over), and from 2090 to
    /// 2100.
    @Test(arguments: zones)
    func everyTransitionAgrees(_ name: String) throws {
        let zone = try #require(ScheduleTimeZone(identifier: name))
        #expect(zone.identifier == name && !zone.isSystem)
        let lines = try zdumpLines([name], from: 1800, until: 2040) + zdumpLines([name], from: 2090, until: 2100)
        let problems = disagreements(lines)
        #expect(problems.isEmpty, "\(problems.count) of \(lines.count) disagree: \(problems.prefix(10))")
        if zone.rules.rule?.daylightSaving != nil {
            #expect(lines.contains { $0.instant.utc.date.year >= 2038 }, "zdump listed nothing past 2037")
            #expect(lines.contains { $0.instant.utc.date.year >= 2090 })
        }
    }

    @Test func apiaSkippedTheThirtiethOfDecember2011() throws {
        let apia = try zone("Pacific/Apia")
        #expect(apia.localDateTime(at: utc("2011-12-30T09:59:59Z")).iso8601 == "2011-12-29T23:59:59")
        #expect(apia.localDateTime(at: utc("2011-12-30T10:00:00Z")).iso8601 == "2011-12-31T00:00:00")
        #expect(apia.resolve(LocalDateTime(LocalDate(year: 2011, month: 12, day: 30)!, LocalTime(hour: 12, minute: 0)!))
            == .skipped(firstValidAfter: utc("2011-12-30T10:00:00Z")))
    }

    /// zdump lists nothing for these after 1945: no changes to compare.
    @Test func zonesThatNeverChange() throws {
        let utcZone = try zone("UTC"), kolkata = try zone("Asia/Kolkata")
        for instant in ["1970-01-01T00:00:00Z", "2026-03-29T01:00:00Z", "2026-07-01T12:00:00Z", "2039-12-31T23:59:59Z", "2100-06-01T00:00:00Z"] {
            #expect(utcZone.utcOffset(at: utc(instant)) == 0 && utcZone.abbreviation(at: utc(instant)) == "UTC")
            #expect(!utcZone.isDaylightSaving(at: utc(instant)))
            #expect(kolkata.utcOffset(at: utc(instant)) == 19_800 && kolkata.abbreviation(at: utc(instant)) == "IST")
            #expect(!kolkata.isDaylightSaving(at: utc(instant)))
        }
    }

    @Test func dublinsWinterIsItsDaylightSavingTime() throws {
        let dublin = try zone("Europe/Dublin")
        #expect(dublin.abbreviation(at: utc("2026-01-15T12:00:00Z")) == "GMT" && dublin.isDaylightSaving(at: utc("2026-01-15T12:00:00Z")))
        #expect(dublin.abbreviation(at: utc("2026-07-15T12:00:00Z")) == "IST" && !dublin.isDaylightSaving(at: utc("2026-07-15T12:00:00Z")))
        #expect(dublin.utcOffset(at: utc("2050-07-15T12:00:00Z")) == 3600)
    }

    /// Every canonical zone (zone1970.tab), 1970 to 2040, in one zdump run.
    @Test func everyCanonicalZoneAgrees() throws {
        let table = try String(contentsOfFile: tzdata + "/zone1970.tab", encoding: .utf8)
        let names = table.split(separator: "\n").filter { !$0.hasPrefix("#") }.compactMap { line in
            line.split(separator: "\t").dropFirst(2).first.map(String.init)
        }
        #expect(names.count > 300)
        let lines = try zdumpLines(names, from: 1970, until: 2040)
        #expect(Set(lines.map(\.zone)).count > 250)
        let problems = disagreements(lines)
        #expect(problems.isEmpty, "\(problems.count) of \(lines.count) disagree: \(problems.prefix(10))")
    }

    /// Every TZif file tzdata installs reads without error (links included),
    /// and nothing else there reads as a zone.
    @Test func everyFileInTzdataReads() throws {
        let files = try #require(FileManager.default.enumerator(atPath: tzdata)).compactMap { $0 as? String }
        var zones = 0
        for file in files.sorted() {
            var isDirectory: ObjCBool = false
            guard FileManager.default.fileExists(atPath: tzdata + "/" + file, isDirectory: &isDirectory), !isDirectory.boolValue,
                  let data = FileManager.default.contents(atPath: tzdata + "/" + file) else { continue }
            let isTZif = data.starts(with: Array("TZif".utf8))
            do {
                _ = try TZifZone(identifier: file, bytes: Array(data))
                #expect(isTZif, "\(file) read as a zone")
                zones += 1
            } catch {
                #expect(!isTZif, "\(file): \(error)")
            }
        }
        #expect(zones > 300)
    }
}

@Suite("Schedule: the system zone and zone names")
struct ScheduleSystemZoneTests {
    let berlin = tzdata + "/Europe/Berlin"

    @Test func namesStayInsideTzdata() throws {
        for name in ["", "../../etc/passwd", "/etc/localtime", "Europe/../Europe/Berlin", "Europe/./Berlin", "Europe//Berlin",
                     "Europe/Berlin/", "Europe/Berln", "zone1970.tab", "Europe"] {
            #expect(ScheduleTimeZone(identifier: name) == nil, "\(name)")
        }
        #expect(ScheduleTimeZone(identifier: "UTC")?.abbreviation(at: .epoch) == "UTC")
        // UTC is there even without tzdata.
        #expect(ScheduleTimeZone.zone(named: "UTC", in: "/nonexistent") == nil)
        #expect(ScheduleTimeZone.builtIn("UTC") == TZifZone.utc)
    }

    @Test(.enabled(if: haveZdump)) func tzNamesAZoneFile() throws {
        for tz in ["Europe/Berlin", ":Europe/Berlin", berlin, ":" + berlin] {
            let zone = ScheduleTimeZone.system(tz: tz, tzdataDirectory: tzdata)
            #expect(zone.isSystem && zone.identifier == "Europe/Berlin", "\(tz)")
            #expect(zone.abbreviation(at: utc("2026-07-01T00:00:00Z")) == "CEST", "\(tz)")
            #expect(!zone.rules.transitions.isEmpty, "\(tz)")
        }
    }

    @Test func tzAsAPosixRule() throws {
        let zone = ScheduleTimeZone.system(tz: "CET-1CEST,M3.5.0,M10.5.0/3", tzdataDirectory: "/nonexistent")
        #expect(zone.isSystem && zone.identifier == "CET-1CEST,M3.5.0,M10.5.0/3" && zone.rules.transitions.isEmpty)
        #expect(zone.utcOffset(at: utc("2026-03-29T00:59:59Z")) == 3600)
        #expect(zone.utcOffset(at: utc("2026-03-29T01:00:00Z")) == 7200)
        #expect(zone.abbreviation(at: utc("2026-07-01T00:00:00Z")) == "CEST")
        let lordHowe = ScheduleTimeZone.system(tz: "<+1030>-10:30<+11>-11,M10.1.0,M4.1.0", tzdataDirectory: "/nonexistent")
        #expect(lordHowe.utcOffset(at: utc("2026-10-03T15:30:00Z")) == 39_600)
        // With a colon it is a file name only.
        #expect(ScheduleTimeZone.system(tz: ":CET-1CEST,M3.5.0,M10.5.0/3", tzdataDirectory: "/nonexistent").identifier == "UTC")
    }

    @Test func emptyOrUnknownTzIsUTCAsForGlibc() {
        for tz in ["", "Mars/Olympus", "/nonexistent/zone", "CE-1", ":../../etc/passwd"] {
            let zone = ScheduleTimeZone.system(tz: tz, tzdataDirectory: tzdata)
            #expect(zone.identifier == "UTC" && zone.utcOffset(at: utc("2026-07-01T00:00:00Z")) == 0 && zone.isSystem, "\(tz)")
        }
    }

    @Test(.enabled(if: haveZdump)) func localtimeIsNamedByItsLink() throws {
        try withTemporaryDirectory { directory in
            let manager = FileManager.default
            let zoneinfo = directory + "/usr/share/zoneinfo"
            try manager.createDirectory(atPath: zoneinfo + "/Asia", withIntermediateDirectories: true)
            try manager.createDirectory(atPath: directory + "/etc", withIntermediateDirectories: true)
            try manager.createDirectory(atPath: zoneinfo + "/Europe", withIntermediateDirectories: true)
            try manager.copyItem(atPath: tzdata + "/Asia/Tokyo", toPath: zoneinfo + "/Asia/Tokyo")
            try manager.copyItem(atPath: berlin, toPath: zoneinfo + "/Europe/Berlin")
            let localtime = directory + "/etc/localtime", timezone = directory + "/etc/timezone"
            func system(_ tz: String? = nil) -> ScheduleTimeZone {
                ScheduleTimeZone.system(tz: tz, tzdataDirectory: zoneinfo, localtime: localtime, timezoneFile: timezone)
            }

            // An absolute link, as systemd makes it.
            try manager.createSymbolicLink(atPath: localtime, withDestinationPath: zoneinfo + "/Europe/Berlin")
            #expect(system().identifier == "Europe/Berlin" && system().isSystem)
            #expect(system(":").identifier == "Europe/Berlin")
            #expect(system().abbreviation(at: utc("2026-01-15T12:00:00Z")) == "CET")
            // A relative one.
            try manager.removeItem(atPath: localtime)
            try manager.createSymbolicLink(atPath: localtime, withDestinationPath: "../usr/share/zoneinfo/Asia/Tokyo")
            #expect(system().identifier == "Asia/Tokyo" && system().abbreviation(at: .epoch) == "JST")
            // A link to a link to the zone.
            try manager.removeItem(atPath: localtime)
            try manager.createSymbolicLink(atPath: directory + "/etc/alternative", withDestinationPath: zoneinfo + "/Asia/Tokyo")
            try manager.createSymbolicLink(atPath: localtime, withDestinationPath: "alternative")
            #expect(system().identifier == "Asia/Tokyo")
            // A copy: /etc/timezone names it, else its path does.
            try manager.removeItem(atPath: localtime)
            try manager.copyItem(atPath: tzdata + "/America/New_York", toPath: localtime)
            #expect(system().identifier == localtime && system().abbreviation(at: utc("2026-07-01T00:00:00Z")) == "EDT")
            try "America/New_York\n".write(toFile: timezone, atomically: true, encoding: .utf8)
            #expect(system().identifier == "America/New_York" && system().abbreviation(at: utc("2026-07-01T00:00:00Z")) == "EDT")
            // $TZ wins over both.
            #expect(system("Asia/Tokyo").identifier == "Asia/Tokyo")
            #expect(system(localtime).identifier == localtime)  // a path outside zoneinfo/ names itself
            // No /etc/localtime: the zone /etc/timezone names.
            try manager.removeItem(atPath: localtime)
            try "Asia/Tokyo\n".write(toFile: timezone, atomically: true, encoding: .utf8)
            #expect(system().identifier == "Asia/Tokyo" && system().abbreviation(at: .epoch) == "JST")
            // Neither: UTC.
            try manager.removeItem(atPath: timezone)
            #expect(system().identifier == "UTC" && system().utcOffset(at: .epoch) == 0)
            // Not a TZif file: UTC too.
            try "not a zone".write(toFile: localtime, atomically: true, encoding: .utf8)
            #expect(system().identifier == "UTC")
        }
    }
}
