import Testing
@testable import VitrineConfig
import VitrineCore

/// The schedule in real IANA zones, on virtual wall time: the days clocks
/// change, with windows that start in the missing hour and in the repeated one.
@Suite("Schedule: real zones and their clock changes")
struct ScheduleZoneTests {
    /// A schedule of one playlist "w" with one weekly window, in `zone`.
    func window(_ zone: String, days: String, from: String, until: String) throws -> ScheduleTimeline {
        try scheduled("""
            schedule:
              timezone: \(zone)
              playlists: {w: [a.jpg]}
              entries: [{playlist: w, days: \(days), from: "\(from)", until: "\(until)"}]
            """).1
    }

    // MARK: Europe/Berlin: 2026-03-29 02:00 CET → 03:00 CEST; 2026-10-25 03:00 CEST → 02:00 CET.

    @Test func berlinOffsetsAndNames() throws {
        let berlin = try zone("Europe/Berlin")
        #expect(berlin.utcOffset(at: utc("2026-03-29T00:59:59Z")) == 3600)
        #expect(berlin.utcOffset(at: utc("2026-03-29T01:00:00Z")) == 7200)
        #expect(berlin.abbreviation(at: utc("2026-01-15T12:00:00Z")) == "CET")
        #expect(berlin.abbreviation(at: utc("2026-07-15T12:00:00Z")) == "CEST")
        #expect(berlin.resolve(LocalDateTime(LocalDate(year: 2026, month: 3, day: 29)!, LocalTime(hour: 2, minute: 30)!))
            == .skipped(firstValidAfter: utc("2026-03-29T01:00:00Z")))
    }

    @Test func berlinAWindowStartingInTheMissingHourStartsAt0300CEST() throws {
        let t = try window("Europe/Berlin", days: "sun", from: "02:30", until: "05:00")
        #expect(transitions(t, from: utc("2026-03-28T12:00:00Z"), days: 1) == [
            ScheduleTransition(utc("2026-03-29T01:00:00Z"), showing("w")),  // 03:00 CEST
            ScheduleTransition(utc("2026-03-29T03:00:00Z"), .off),  // 05:00 CEST
        ])
    }

    @Test func berlinAWindowStartingInTheRepeatedHourStartsAtItsFirstOccurrence() throws {
        let t = try window("Europe/Berlin", days: "sun", from: "02:30", until: "04:00")
        #expect(transitions(t, from: utc("2026-10-24T12:00:00Z"), days: 1) == [
            ScheduleTransition(utc("2026-10-25T00:30:00Z"), showing("w")),  // 02:30 CEST, not 02:30 CET (01:30Z)
            ScheduleTransition(utc("2026-10-25T03:00:00Z"), .off),  // 04:00 CET
        ])
    }

    @Test func berlinAWindowAcrossMidnightAndTheSpringChange() throws {
        let t = try window("Europe/Berlin", days: "sat", from: "22:00", until: "04:00")
        #expect(transitions(t, from: utc("2026-03-28T12:00:00Z"), days: 1) == [
            ScheduleTransition(utc("2026-03-28T21:00:00Z"), showing("w")),  // 22:00 CET
            ScheduleTransition(utc("2026-03-29T02:00:00Z"), .off),  // 04:00 CEST: five hours later
        ])
    }

    // MARK: America/New_York: 2026-03-08 02:00 EST → 03:00 EDT; 2026-11-01 02:00 EDT → 01:00 EST.

    @Test func newYorkSpringForward() throws {
        let newYork = try zone("America/New_York")
        #expect(newYork.abbreviation(at: utc("2026-03-08T06:59:59Z")) == "EST")
        #expect(newYork.abbreviation(at: utc("2026-03-08T07:00:00Z")) == "EDT")
        let t = try window("America/New_York", days: "sun", from: "02:30", until: "06:00")
        #expect(transitions(t, from: utc("2026-03-07T12:00:00Z"), days: 1) == [
            ScheduleTransition(utc("2026-03-08T07:00:00Z"), showing("w")),  // 03:00 EDT
            ScheduleTransition(utc("2026-03-08T10:00:00Z"), .off),  // 06:00 EDT
        ])
    }

    @Test func newYorkFallBackUsesTheFirstOneThirty() throws {
        let t = try window("America/New_York", days: "sun", from: "01:30", until: "03:00")
        #expect(transitions(t, from: utc("2026-10-31T12:00:00Z"), days: 1) == [
            ScheduleTransition(utc("2026-11-01T05:30:00Z"), showing("w")),  // 01:30 EDT
            ScheduleTransition(utc("2026-11-01T08:00:00Z"), .off),  // 03:00 EST
        ])
    }

    @Test func newYorkAWindowAcrossTheEndOfTheWeek() throws {
        let t = try window("America/New_York", days: "sun", from: "23:00", until: "01:00")
        // Sunday 2026-11-01 23:00 EST (the day clocks went back) into Monday 01:00 EST.
        #expect(transitions(t, from: utc("2026-11-01T12:00:00Z"), days: 1) == [
            ScheduleTransition(utc("2026-11-02T04:00:00Z"), showing("w")),
            ScheduleTransition(utc("2026-11-02T06:00:00Z"), .off),
        ])
        #expect(t.showing(at: utc("2026-11-02T05:59:59Z")) == showing("w"))  // Monday 00:59:59
    }

    // MARK: Australia/Lord_Howe: half-hour changes. 2026-04-05 02:00 (+11) → 01:30 (+10:30);
    // 2026-10-04 02:00 (+10:30) → 02:30 (+11).

    @Test func lordHoweSpringsForwardHalfAnHour() throws {
        let lordHowe = try zone("Australia/Lord_Howe")
        #expect(lordHowe.utcOffset(at: utc("2026-10-03T15:29:59Z")) == 37_800)
        #expect(lordHowe.utcOffset(at: utc("2026-10-03T15:30:00Z")) == 39_600)
        #expect(lordHowe.abbreviation(at: utc("2026-10-03T15:29:59Z")) == "+1030")
        #expect(lordHowe.abbreviation(at: utc("2026-10-03T15:30:00Z")) == "+11")
        // 02:15 does not exist: the window starts at 02:30 (+11), when the clock jumps.
        let t = try window("Australia/Lord_Howe", days: "sun", from: "02:15", until: "03:00")
        #expect(transitions(t, from: utc("2026-10-03T00:00:00Z"), days: 1) == [
            ScheduleTransition(utc("2026-10-03T15:30:00Z"), showing("w")),
            ScheduleTransition(utc("2026-10-03T16:00:00Z"), .off),  // 03:00 (+11)
        ])
    }

    @Test func lordHoweFallsBackHalfAnHour() throws {
        // 01:30–01:59 happen twice on 2026-04-05; 01:45 is the first one, at +11.
        let t = try window("Australia/Lord_Howe", days: "sun", from: "01:45", until: "03:00")
        #expect(transitions(t, from: utc("2026-04-04T00:00:00Z"), days: 1) == [
            ScheduleTransition(utc("2026-04-04T14:45:00Z"), showing("w")),
            ScheduleTransition(utc("2026-04-04T16:30:00Z"), .off),  // 03:00 (+10:30)
        ])
    }

    // MARK: Asia/Tokyo: no daylight saving time.

    @Test func tokyoSevenOrdinaryDays() throws {
        let tokyo = try zone("Asia/Tokyo")
        #expect(tokyo.abbreviation(at: utc("2026-03-29T01:00:00Z")) == "JST")
        let t = try window("Asia/Tokyo", days: "daily", from: "07:00", until: "19:00")
        let week = transitions(t, from: utc("2026-03-25T00:00:00Z"), days: 7)
        #expect(week.count == 14)
        #expect(week.first == ScheduleTransition(utc("2026-03-25T10:00:00Z"), .off))  // 19:00 JST
        #expect(week[1] == ScheduleTransition(utc("2026-03-25T22:00:00Z"), showing("w")))  // 07:00 JST on the 26th
        #expect(week.allSatisfy { ($0.instant.secondsSinceEpoch % 86_400) == ($0.showing == .off ? 36_000 : 79_200) })
    }

    @Test func theSystemZoneIsTheMachinesAndBadNamesAreRefused() {
        let system = ScheduleTimeZone.system()
        #expect(system.isSystem)
        #expect(!system.identifier.isEmpty)
        #expect(ScheduleTimeZone(identifier: "Europe/Berln") == nil)
        #expect(ScheduleTimeZone(identifier: "../../etc/passwd") == nil)
    }

    @Test func posixRuleStringsNameTheOffsets() throws {
        func types(_ text: String) throws -> [LocalTimeType] {
            let rule = try PosixTZRule(text)
            return [rule.standard] + [rule.daylightSaving?.type].compactMap { $0 }
        }
        let berlin = try types("CET-1CEST,M3.5.0,M10.5.0/3")
        #expect(berlin.map(\.abbreviation) == ["CET", "CEST"] && berlin.map(\.utcOffset) == [3600, 7200])
        let lordHowe = try types("<+1030>-10:30<+11>-11,M10.1.0,M4.1.0")
        #expect(lordHowe.map(\.abbreviation) == ["+1030", "+11"] && lordHowe.map(\.utcOffset) == [37_800, 39_600])
        let newYork = try types("EST5EDT,M3.2.0,M11.1.0")
        #expect(newYork.map(\.abbreviation) == ["EST", "EDT"] && newYork.map(\.utcOffset) == [-18_000, -14_400])
        #expect(try types("JST-9").map(\.abbreviation) == ["JST"])
    }
}
