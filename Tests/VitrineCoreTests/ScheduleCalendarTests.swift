import Testing
@testable import VitrineCore

@Suite("Schedule: calendar arithmetic and zone rules")
struct ScheduleCalendarTests {
    @Test func daysCountFromTheEpochBothWays() {
        #expect(LocalDate(year: 1970, month: 1, day: 1)!.daysSinceEpoch == 0)
        #expect(LocalDate(year: 1969, month: 12, day: 31)!.daysSinceEpoch == -1)
        #expect(LocalDate(year: 2000, month: 3, day: 1)!.daysSinceEpoch == 11_017)
        #expect(LocalDate(year: 2026, month: 3, day: 29)!.daysSinceEpoch == 20_541)
        for days in stride(from: Int64(-800_000), through: 800_000, by: 997) {
            #expect(LocalDate(daysSinceEpoch: days).daysSinceEpoch == days)
        }
        #expect(LocalDate(daysSinceEpoch: 20_541) == LocalDate(year: 2026, month: 3, day: 29))
        #expect(utc("2026-03-29T01:00:00Z").secondsSinceEpoch == 1_774_746_000)
        #expect(utc("2026-03-29T01:00:00Z").description == "2026-03-29T01:00:00Z")
        #expect(WallInstant(secondsSinceEpoch: -1).description == "1969-12-31T23:59:59Z")
        #expect(WallInstant(nanosecondsSinceEpoch: -1) == WallInstant(secondsSinceEpoch: -1))
        #expect(WallInstant(nanosecondsSinceEpoch: 1_999_999_999) == WallInstant(secondsSinceEpoch: 1))
    }

    @Test func impossibleDatesAndTimesDoNotExist() {
        #expect(LocalDate(year: 2026, month: 2, day: 30) == nil)
        #expect(LocalDate(year: 2026, month: 2, day: 29) == nil)
        #expect(LocalDate(year: 2028, month: 2, day: 29) != nil)
        #expect(LocalDate(year: 1900, month: 2, day: 29) == nil)
        #expect(LocalDate(year: 2000, month: 2, day: 29) != nil)
        #expect(LocalDate(year: 2026, month: 4, day: 31) == nil)
        #expect(LocalDate(year: 2026, month: 13, day: 1) == nil)
        #expect(LocalTime(hour: 25, minute: 0) == nil)
        #expect(LocalTime(hour: 7, minute: 60) == nil)
        #expect(LocalTime(hour: 24, minute: 0) == .endOfDay)
        #expect(LocalTime(hour: 24, minute: 1) == nil)
        // 24:00 is the next day's 00:00.
        #expect(LocalDateTime(date("2026-03-31"), .endOfDay) == local("2026-04-01 00:00"))
    }

    @Test func weekdays() {
        #expect(date("1970-01-01").weekday == .thursday)
        #expect(date("2026-03-29").weekday == .sunday)
        #expect(date("2026-12-24").weekday == .thursday)
        #expect(date("1969-12-29").weekday == .monday)
        #expect(Weekday.sunday.next == .monday)
        #expect(Weekday(name: "fri") == .friday && Weekday(name: "friday") == .friday && Weekday(name: "fr") == nil)
    }

    @Test func theMissingHourResolvesToTheInstantTheClockJumps() {
        let zone = EuropeanRulesZone()
        // 2026-03-29: 02:00 CET becomes 03:00 CEST at 01:00Z.
        #expect(zone.resolve(local("2026-03-29 02:30")) == .skipped(firstValidAfter: utc("2026-03-29T01:00:00Z")))
        #expect(zone.resolve(local("2026-03-29 02:00")) == .skipped(firstValidAfter: utc("2026-03-29T01:00:00Z")))
        #expect(zone.instant(for: local("2026-03-29 02:59:59")) == utc("2026-03-29T01:00:00Z"))
        #expect(zone.instant(for: local("2026-03-29 03:00")) == utc("2026-03-29T01:00:00Z"))
        #expect(zone.instant(for: local("2026-03-29 01:59:59")) == utc("2026-03-29T00:59:59Z"))
        #expect(zone.localDateTime(at: utc("2026-03-29T01:00:00Z")) == local("2026-03-29 03:00"))
    }

    @Test func theRepeatedHourResolvesToItsFirstOccurrence() {
        let zone = EuropeanRulesZone()
        // 2026-10-25: 03:00 CEST becomes 02:00 CET at 01:00Z; 02:00–02:59 happen twice.
        #expect(zone.resolve(local("2026-10-25 02:30"))
            == .repeated(first: utc("2026-10-25T00:30:00Z"), second: utc("2026-10-25T01:30:00Z")))
        #expect(zone.instant(for: local("2026-10-25 02:00")) == utc("2026-10-25T00:00:00Z"))
        #expect(zone.instant(for: local("2026-10-25 03:00")) == utc("2026-10-25T02:00:00Z"))
        #expect(zone.resolve(local("2026-10-25 12:00")) == .unique(utc("2026-10-25T11:00:00Z")))
    }

    @Test func aFixedZoneHasNoGapsOrRepeats() {
        let tokyo = FixedOffsetZone(identifier: "Asia/Tokyo", offsetSeconds: 9 * 3600, abbreviation: "JST")
        #expect(tokyo.resolve(local("2026-03-29 02:30")) == .unique(utc("2026-03-28T17:30:00Z")))
        #expect(formatUTCOffset(9 * 3600) == "+09:00")
        #expect(formatUTCOffset(-4 * 3600) == "-04:00")
        #expect(formatUTCOffset(37_800) == "+10:30")
    }
}
