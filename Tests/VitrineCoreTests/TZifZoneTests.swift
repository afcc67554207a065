import Testing
@testable import VitrineCore

// The TZif reader and the POSIX TZ rule, on strings and hand-built bytes:
// no tzdata and no file system here (VitrineConfigTests compares the real
// zone files with glibc's zdump).

@Suite("Schedule: POSIX TZ rules")
struct PosixTZRuleTests {
    /// The rule's (offset, abbreviation, isDaylightSaving) at `instant`.
    func state(_ rule: PosixTZRule, _ instant: String) -> String {
        let type = rule.localTimeType(at: utc(instant))
        return "\(type.utcOffset) \(type.abbreviation)\(type.isDaylightSaving ? " dst" : "")"
    }

    @Test func berlinChangesOnTheLastSundaysOfMarchAndOctober() throws {
        let berlin = try PosixTZRule("CET-1CEST,M3.5.0,M10.5.0/3")
        #expect(berlin.standard == LocalTimeType(utcOffset: 3600, isDaylightSaving: false, abbreviation: "CET"))
        #expect(berlin.daylightSaving?.type == LocalTimeType(utcOffset: 7200, isDaylightSaving: true, abbreviation: "CEST"))
        let changes = try #require(berlin.changes(in: 2026))
        #expect(changes.start == utc("2026-03-29T01:00:00Z") && changes.end == utc("2026-10-25T01:00:00Z"))
        #expect(state(berlin, "2026-03-29T00:59:59Z") == "3600 CET")
        #expect(state(berlin, "2026-03-29T01:00:00Z") == "7200 CEST dst")
        #expect(state(berlin, "2026-10-25T00:59:59Z") == "7200 CEST dst")
        #expect(state(berlin, "2026-10-25T01:00:00Z") == "3600 CET")
        #expect(state(berlin, "2100-03-28T01:00:00Z") == "7200 CEST dst")  // zdump agrees
    }

    @Test func berlinsRuleIsTheEuropeanOneEveryYear() throws {
        let berlin = try PosixTZRule("CET-1CEST,M3.5.0,M10.5.0/3")
        let european = EuropeanRulesZone()
        var wrong: [String] = []
        for year in 1996...2200 {
            let changes = try #require(berlin.changes(in: year))
            if changes.start != WallInstant(utc: EuropeanRulesZone.lastSunday(of: 3, year), LocalTime(hour: 1, minute: 0)!)
                || changes.end != WallInstant(utc: EuropeanRulesZone.lastSunday(of: 10, year), LocalTime(hour: 1, minute: 0)!) {
                wrong.append("\(year): \(changes)")
            }
            for instant in [changes.start - 1, changes.start, changes.end - 1, changes.end]
            where berlin.localTimeType(at: instant).utcOffset != european.utcOffset(at: instant) {
                wrong.append("\(instant)")
            }
        }
        #expect(wrong.isEmpty, "\(wrong.prefix(5))")
    }

    @Test func newYorkChangesOnTheSecondSundayOfMarchAndTheFirstOfNovember() throws {
        let newYork = try PosixTZRule("EST5EDT,M3.2.0,M11.1.0")
        #expect(newYork.standard.utcOffset == -18_000 && newYork.daylightSaving?.type.utcOffset == -14_400)
        #expect(state(newYork, "2026-03-08T06:59:59Z") == "-18000 EST")
        #expect(state(newYork, "2026-03-08T07:00:00Z") == "-14400 EDT dst")
        #expect(state(newYork, "2026-11-01T05:59:59Z") == "-14400 EDT dst")  // 01:59:59 EDT
        #expect(state(newYork, "2026-11-01T06:00:00Z") == "-18000 EST")  // 02:00 EDT is 01:00 EST
        // No rule given: POSIX leaves it open, glibc and tzcode take these dates.
        let bare = try PosixTZRule("EST5EDT")
        #expect(bare.changes(in: 2026)?.start == utc("2026-03-08T07:00:00Z"))
        #expect(bare.changes(in: 2026)?.end == utc("2026-11-01T06:00:00Z"))
    }

    @Test func southernHemisphereZones() throws {
        let saoPaulo = try PosixTZRule("<-03>3")
        #expect(saoPaulo.daylightSaving == nil && saoPaulo.changes(in: 2026) == nil)
        #expect(state(saoPaulo, "2026-01-15T12:00:00Z") == "-10800 -03")

        let sydney = try PosixTZRule("AEST-10AEDT,M10.1.0,M4.1.0/3")
        let changes = try #require(sydney.changes(in: 2026))
        #expect(changes.end == utc("2026-04-04T16:00:00Z") && changes.start == utc("2026-10-03T16:00:00Z"))
        #expect(state(sydney, "2026-01-01T00:00:00Z") == "39600 AEDT dst")  // the year starts in summer
        #expect(state(sydney, "2026-04-04T15:59:59Z") == "39600 AEDT dst")
        #expect(state(sydney, "2026-04-04T16:00:00Z") == "36000 AEST")
        #expect(state(sydney, "2026-10-03T15:59:59Z") == "36000 AEST")
        #expect(state(sydney, "2026-10-03T16:00:00Z") == "39600 AEDT dst")
        #expect(state(sydney, "2026-12-31T23:59:59Z") == "39600 AEDT dst")
    }

    @Test func lordHoweMovesHalfAnHour() throws {
        let lordHowe = try PosixTZRule("<+1030>-10:30<+11>-11,M10.1.0,M4.1.0")
        #expect(lordHowe.standard == LocalTimeType(utcOffset: 37_800, isDaylightSaving: false, abbreviation: "+1030"))
        #expect(state(lordHowe, "2026-04-04T14:59:59Z") == "39600 +11 dst")  // 01:59:59 (+11)
        #expect(state(lordHowe, "2026-04-04T15:00:00Z") == "37800 +1030")  // 01:30 (+10:30)
        #expect(state(lordHowe, "2026-10-03T15:29:59Z") == "37800 +1030")
        #expect(state(lordHowe, "2026-10-03T15:30:00Z") == "39600 +11 dst")
    }

    @Test func julianAndZeroBasedDays() throws {
        // Jn never counts February 29: J60 is March 1, leap year or not.
        let julian = try PosixTZRule("XST3XDT,J60/0,J300/0")
        #expect(julian.changes(in: 2024)?.start == utc("2024-03-01T03:00:00Z"))
        #expect(julian.changes(in: 2026)?.start == utc("2026-03-01T03:00:00Z"))
        #expect(julian.changes(in: 2024)?.end == utc("2024-10-27T02:00:00Z"))  // day 300 of 365: October 27
        // n counts from 0 and counts February 29: day 59 is Feb 29 in 2024, Mar 1 in 2026.
        let zeroBased = try PosixTZRule("XST3XDT,59/0,300")
        #expect(zeroBased.changes(in: 2024)?.start == utc("2024-02-29T03:00:00Z"))
        #expect(zeroBased.changes(in: 2026)?.start == utc("2026-03-01T03:00:00Z"))
        #expect(zeroBased.changes(in: 2024)?.end == utc("2024-10-27T04:00:00Z"))  // day 300 of 366, 02:00 XDT
    }

    @Test func version3TimesBeforeAndAfterTheDay() throws {
        // America/Nuuk: 23:00 on the Saturday before the last Sunday of March.
        let nuuk = try PosixTZRule("<-02>2<-01>,M3.5.0/-1,M10.5.0/0")
        #expect(nuuk.changes(in: 2026)?.start == utc("2026-03-29T01:00:00Z"))
        #expect(nuuk.changes(in: 2026)?.end == utc("2026-10-25T01:00:00Z"))
        #expect(state(nuuk, "2026-03-29T00:59:59Z") == "-7200 -02")
        #expect(state(nuuk, "2026-03-29T01:00:00Z") == "-3600 -01 dst")
        // Asia/Jerusalem: 26:00 on the fourth Thursday, so 02:00 on the Friday after it.
        let jerusalem = try PosixTZRule("IST-2IDT,M3.4.4/26,M10.5.0")
        #expect(jerusalem.changes(in: 2026)?.start == utc("2026-03-27T00:00:00Z"))
        #expect(jerusalem.changes(in: 2026)?.end == utc("2026-10-24T23:00:00Z"))
        // Daylight saving time all year: it ends at 25:00 on December 31, the
        // instant it starts again on January 1.
        let always = try PosixTZRule("EST5EDT,0/0,J365/25")
        for instant in ["2025-12-31T23:59:59Z", "2026-01-01T04:59:59Z", "2026-01-01T05:00:00Z", "2026-07-01T00:00:00Z",
                        "2026-12-31T12:00:00Z", "2027-01-01T05:00:00Z"] {
            #expect(state(always, instant) == "-14400 EDT dst", "\(instant)")
        }
        // ±167 hours is the limit.
        #expect(try PosixTZRule("XST3XDT,M3.2.0/-167,M11.1.0/167").changes(in: 2026)?.start == utc("2026-03-01T04:00:00Z"))
        #expect(throws: PosixTZRule.ParseError.badTime(position: 23)) { try PosixTZRule("XST3XDT,M3.2.0,M11.1.0/168") }
    }

    @Test func offsetsWithMinutesAndSeconds() throws {
        let kolkata = try PosixTZRule("IST-5:30")
        #expect(kolkata.standard.utcOffset == 19_800 && kolkata.daylightSaving == nil)
        #expect(try PosixTZRule("<+0130>-1:30:15").standard.utcOffset == 5415)
        #expect(try PosixTZRule("XST+3").standard.utcOffset == -10_800)
        #expect(try PosixTZRule("CET-1CEST").daylightSaving?.type.utcOffset == 7200)  // an hour ahead by default
        #expect(try PosixTZRule("UTC0") == PosixTZRule.utc)
    }

    @Test func malformedStringsSayWhere() {
        let cases: [(String, PosixTZRule.ParseError)] = [
            ("", .badName(position: 0)),
            ("CE-1", .badName(position: 0)),
            ("<+1>-1", .badName(position: 0)),
            ("<+1030-10:30", .badName(position: 0)),
            ("CET", .badOffset(position: 3)),
            ("CET-25", .badOffset(position: 3)),
            ("CET-1:60", .badOffset(position: 3)),
            ("CET-1CEST,M13.5.0,M10.5.0/3", .badDay(position: 10)),
            ("CET-1CEST,M3.6.0,M10.5.0/3", .badDay(position: 10)),
            ("CET-1CEST,M3.5.7,M10.5.0/3", .badDay(position: 10)),
            ("XST3XDT,J0,J365", .badDay(position: 8)),
            ("XST3XDT,0,366", .badDay(position: 10)),
            ("CET-1CEST,M3.5.0", .unexpected(position: 16)),
            ("CET-1CEST,M3.5.0,M10.5.0/3,", .unexpected(position: 26)),
            ("CET-1CEST,M3.5.0,M10.5.0/x", .badTime(position: 25)),
            ("CET-1 ", .badName(position: 5)),
        ]
        for (text, expected) in cases {
            #expect(throws: expected, "\(text)") { try PosixTZRule(text) }
        }
    }
}

@Suite("Schedule: TZif files")
struct TZifZoneTests {
    // MARK: Reading

    @Test func version1UsesTheTableAndKeepsTheLastTypeForEver() throws {
        let zone = try TZifZone(identifier: "Test/V1", bytes: TZifFixture.berlinLike(version: 0, footer: nil).bytes())
        #expect(zone.rule == nil && zone.transitions.count == 3)
        // Before the first transition: type 0, the local mean time.
        #expect(zone.utcOffset(at: utc("1970-01-01T00:00:00Z")) == 3208 && zone.abbreviation(at: utc("1970-01-01T00:00:00Z")) == "LMT")
        #expect(zone.abbreviation(at: utc("1980-04-06T00:59:59Z")) == "CET")
        #expect(zone.abbreviation(at: utc("1980-04-06T01:00:00Z")) == "CEST" && zone.isDaylightSaving(at: utc("1980-04-06T01:00:00Z")))
        #expect(zone.abbreviation(at: utc("1980-09-28T01:00:00Z")) == "CET")
        // No footer: the last transition's type, even in summer decades later.
        #expect(zone.abbreviation(at: utc("2026-07-01T00:00:00Z")) == "CET" && !zone.isDaylightSaving(at: utc("2026-07-01T00:00:00Z")))
    }

    @Test func version2UsesThe64BitBlockAndTheFooterAfterIt() throws {
        var fixture = TZifFixture.berlinLike(version: UInt8(ascii: "2"), footer: "CET-1CEST,M3.5.0,M10.5.0/3")
        // A transition before 1901, which only 64 bits hold: Berlin's from LMT in 1893.
        fixture.transitions.insert((-2_422_054_408, 1), at: 0)
        // A 32-bit block that says something else, to show it is not read.
        fixture.block32 = [TZifFixture(types: [(0, false, 0)], designations: "XXX\0")]
        let zone = try TZifZone(identifier: "Test/V2", bytes: fixture.bytes())
        #expect(zone.rule?.description == "CET-1CEST,M3.5.0,M10.5.0/3")
        #expect(zone.abbreviation(at: utc("1893-03-31T23:06:31Z")) == "LMT")
        #expect(zone.abbreviation(at: utc("1893-03-31T23:06:32Z")) == "CET")
        #expect(zone.abbreviation(at: utc("1980-04-06T01:00:00Z")) == "CEST")
        // From the last transition on (1980-09-28), the footer's rule, which
        // in this made-up file disagrees with the table: today's rule has
        // summer time until the end of October.
        #expect(zone.abbreviation(at: utc("1980-09-28T00:59:59Z")) == "CEST")
        #expect(zone.abbreviation(at: utc("1980-09-28T01:00:00Z")) == "CEST")
        #expect(zone.abbreviation(at: utc("1980-10-26T01:00:00Z")) == "CET")
        #expect(zone.abbreviation(at: utc("2026-03-29T00:59:59Z")) == "CET")
        #expect(zone.utcOffset(at: utc("2026-03-29T01:00:00Z")) == 7200 && zone.isDaylightSaving(at: utc("2026-03-29T01:00:00Z")))
        #expect(zone.abbreviation(at: utc("2100-10-31T00:59:59Z")) == "CEST")
        #expect(zone.abbreviation(at: utc("2100-10-31T01:00:00Z")) == "CET")
        for version in [UInt8(ascii: "3"), UInt8(ascii: "4")] {
            fixture.version = version
            #expect(try TZifZone(identifier: "Test/V", bytes: fixture.bytes()).transitions == zone.transitions)
        }
    }

    @Test func withoutTransitionsTheFooterRulesAllTime() throws {
        let fixture = TZifFixture(version: UInt8(ascii: "2"), types: [(3600, false, 0)], designations: "CET\0",
                                  footer: "CET-1CEST,M3.5.0,M10.5.0/3")
        let zone = try TZifZone(identifier: "Test/Rule", bytes: fixture.bytes())
        #expect(zone.abbreviation(at: utc("1950-07-01T00:00:00Z")) == "CEST")
        #expect(zone.abbreviation(at: utc("2026-01-01T00:00:00Z")) == "CET")
        // An empty footer: the table alone, so type 0 here.
        var empty = fixture
        empty.footer = ""
        #expect(try TZifZone(identifier: "Test/Empty", bytes: empty.bytes()).abbreviation(at: utc("2026-07-01T00:00:00Z")) == "CET")
    }

    @Test func aZoneOfARuleAlone() throws {
        let zone = TZifZone(identifier: "CET-1CEST,M3.5.0,M10.5.0/3", rule: try PosixTZRule("CET-1CEST,M3.5.0,M10.5.0/3"))
        #expect(zone.identifier == "CET-1CEST,M3.5.0,M10.5.0/3")
        #expect(zone.abbreviation(at: utc("2026-07-01T00:00:00Z")) == "CEST")
        #expect(zone.resolve(local("2026-03-29T02:30")) == .skipped(firstValidAfter: utc("2026-03-29T01:00:00Z")))
        #expect(TZifZone.utc.utcOffset(at: utc("2026-07-01T00:00:00Z")) == 0 && TZifZone.utc.abbreviation(at: .epoch) == "UTC")
    }

    @Test func leapSecondsAreTakenOutOfTransitionTimes() throws {
        // A "right/" zone counts leap seconds: 1000 in its time is 998 in Unix time.
        var fixture = TZifFixture(version: UInt8(ascii: "2"), transitions: [(1000, 1)],
                                  types: [(0, false, 0), (3600, false, 4)], designations: "AAA\0BBB\0")
        fixture.leapSeconds = [(100, 1), (500, 2)]
        let zone = try TZifZone(identifier: "Test/Leap", bytes: fixture.bytes())
        #expect(zone.transitions == [998])
        #expect(zone.abbreviation(at: WallInstant(secondsSinceEpoch: 997)) == "AAA")
        #expect(zone.abbreviation(at: WallInstant(secondsSinceEpoch: 998)) == "BBB")
    }

    @Test func theBinarySearchAgreesWithALinearOne() throws {
        var generator = SplitMix64(seed: 8536)
        var time: Int64 = -3_000_000_000
        var fixture = TZifFixture(version: UInt8(ascii: "2"), types: [(0, false, 0), (3600, true, 4), (-1800, false, 8)],
                                  designations: "AAA\0BBB\0CCC\0")
        for _ in 0..<1000 {
            time += Int64.random(in: 1...10_000_000, using: &generator)
            fixture.transitions.append((time, UInt8.random(in: 0...2, using: &generator)))
        }
        let zone = try TZifZone(identifier: "Test/Many", bytes: fixture.bytes())
        for _ in 0..<5000 {
            let instant = Int64.random(in: -3_100_000_000...(time - 1), using: &generator)
            let index = fixture.transitions.lastIndex { $0.time <= instant }
            let expected = index.map { Int(fixture.transitions[$0].type) } ?? 0
            #expect(zone.utcOffset(at: WallInstant(secondsSinceEpoch: instant)) == fixture.types[expected].offset)
        }
        for (time, type) in fixture.transitions.dropLast() {
            #expect(zone.utcOffset(at: WallInstant(secondsSinceEpoch: time)) == fixture.types[Int(type)].offset)
        }
    }

    // MARK: Rejecting

    @Test func everyTruncationIsAnError() throws {
        let bytes = TZifFixture.berlinLike(version: UInt8(ascii: "2"), footer: "CET-1CEST,M3.5.0,M10.5.0/3").bytes()
        #expect(throws: Never.self) { try TZifZone(identifier: "Test", bytes: bytes) }
        for length in 0..<bytes.count {
            #expect(throws: TZifError.self, "\(length) bytes") { try TZifZone(identifier: "Test", bytes: Array(bytes[..<length])) }
        }
        #expect(throws: TZifError.truncated(.header)) { try TZifZone(identifier: "Test", bytes: []) }
        #expect(throws: TZifError.truncated(.footer)) { try TZifZone(identifier: "Test", bytes: Array(bytes.dropLast())) }
    }

    @Test func corruptFilesNameTheirProblem() throws {
        func error(_ change: (inout TZifFixture) -> Void) -> TZifError? {
            var fixture = TZifFixture.berlinLike(version: UInt8(ascii: "2"), footer: "CET-1CEST,M3.5.0,M10.5.0/3")
            change(&fixture)
            do {
                _ = try TZifZone(identifier: "Test", bytes: fixture.bytes())
                return nil
            } catch {
                return error
            }
        }
        #expect(error { $0.magic = "TZiF" } == .badMagic)
        #expect(error { $0.version = UInt8(ascii: "1") } == .unsupportedVersion(UInt8(ascii: "1")))
        #expect(error { $0.transitions[2].type = 4 } == .typeIndexOutOfRange(transition: 2, type: 4))
        #expect(error { $0.transitions[2].time = $0.transitions[1].time } == .transitionsNotAscending(index: 2))
        #expect(error { $0.types[1].offset = Int(Int32.min) } == .utcOffsetOutOfRange(type: 1))
        #expect(error { $0.types[1].offset = 93_600 } == .utcOffsetOutOfRange(type: 1))
        #expect(error { $0.types[2].designation = 200 } == .designationIndexOutOfRange(type: 2))
        #expect(error { $0.designations = "LMT\0CET\0CEST" } == .unterminatedDesignation(type: 2))
        #expect(error { $0.types = [] } == .noLocalTimeTypes)
        #expect(error { $0.designations = "" } == .noDesignations)
        #expect(error { $0.footer = nil } == .missingFooter)
        #expect(error { $0.footer = "CET-1CEST,M3.5.0" } == .badFooter(.unexpected(position: 16)))
        #expect(error { $0.footer = "CET-1\tCEST" } == .badFooter(nil))
        #expect(error { $0.trailer = [0] } == .trailingBytes(1))
        #expect(error { $0.leapSeconds = [(500, 1), (400, 2)] } == .leapSecondsNotAscending)
        #expect(error { $0.standardIndicators = [0, 0, 2] } == .badIndicator)
        #expect(error { $0.utIndicators = [0, 1, 0] } == .badIndicator)  // UT but not standard
        #expect(error { $0.standardIndicators = [0, 0] } == .badIndicatorCount)
        #expect(error { $0.isDaylightSavingOverride = (1, 2) } == .badDaylightSavingFlag(type: 1))
        #expect(error { $0.secondVersion = UInt8(ascii: "3") } == .versionMismatch)
        #expect(error { $0.transitionCountOverride = UInt32.max } == .truncated(.data32Bit))
        #expect(error { $0.version = 0; $0.transitionCountOverride = UInt32.max } == .truncated(.transitionTimes))
        #expect(error { $0.version = 0; $0.designationCountOverride = 1000 } == .truncated(.designations))
    }

    @Test func randomDamageNeverTraps() throws {
        let bytes = TZifFixture.berlinLike(version: UInt8(ascii: "2"), footer: "CET-1CEST,M3.5.0,M10.5.0/3").bytes()
        var generator = SplitMix64(seed: 20_260_329)
        for _ in 0..<3000 {
            var damaged = bytes
            for _ in 0..<Int.random(in: 1...4, using: &generator) {
                damaged[Int.random(in: 0..<damaged.count, using: &generator)] = UInt8.random(in: 0...255, using: &generator)
            }
            // Either error or a zone whose every answer is in range.
            if let zone = try? TZifZone(identifier: "Test", bytes: damaged) {
                for instant in [Int64.min, -1_000_000_000_000, 0, 321_000_000, 1_800_000_000, Int64.max] {
                    #expect(abs(zone.utcOffset(at: WallInstant(secondsSinceEpoch: instant))) < 93_600)
                }
            }
        }
    }
}

/// A TZif file built field by field, to be damaged at will.
struct TZifFixture {
    var magic = "TZif"
    /// 0 for version 1, else the ASCII digit.
    var version: UInt8 = UInt8(ascii: "2")
    var secondVersion: UInt8?
    var transitions: [(time: Int64, type: UInt8)] = []
    var types: [(offset: Int, isDaylightSaving: Bool, designation: UInt8)] = []
    var designations = ""
    var leapSeconds: [(occurrence: Int64, correction: Int32)] = []
    var standardIndicators: [UInt8] = []
    var utIndicators: [UInt8] = []
    /// The TZ string of a version 2+ file; nil leaves the footer out.
    var footer: String? = ""
    var trailer: [UInt8] = []
    /// The data of the 32-bit block of a version 2+ file, if not the same.
    var block32: [TZifFixture] = []
    var isDaylightSavingOverride: (type: Int, value: UInt8)?
    var transitionCountOverride: UInt32?
    var designationCountOverride: UInt32?

    init(version: UInt8 = UInt8(ascii: "2"), transitions: [(time: Int64, type: UInt8)] = [],
         types: [(offset: Int, isDaylightSaving: Bool, designation: UInt8)], designations: String, footer: String? = "") {
        self.version = version
        self.transitions = transitions
        self.types = types
        self.designations = designations
        self.footer = footer
    }

    /// Berlin's types (LMT, CET, CEST) and its changes of 1980.
    static func berlinLike(version: UInt8, footer: String?) -> TZifFixture {
        TZifFixture(version: version,
                    transitions: [(100_000_000, 1), (323_830_800, 2), (338_950_800, 1)],
                    types: [(3208, false, 0), (3600, false, 4), (7200, true, 8)], designations: "LMT\0CET\0CEST\0",
                    footer: version == 0 ? nil : footer)
    }

    func bytes() -> [UInt8] {
        var out: [UInt8] = []
        if version == 0 {
            append(header: version, block: self, timeSize: 4, to: &out)
        } else {
            append(header: version, block: block32.first ?? self, timeSize: 4, to: &out)
            append(header: secondVersion ?? version, block: self, timeSize: 8, to: &out)
            if let footer { out += [0x0A] + Array(footer.utf8) + [0x0A] }
        }
        return out + trailer
    }

    private func append(header version: UInt8, block: TZifFixture, timeSize: Int, to out: inout [UInt8]) {
        func be(_ value: UInt64, _ size: Int) { for shift in stride(from: (size - 1) * 8, through: 0, by: -8) { out.append(UInt8(truncatingIfNeeded: value >> UInt64(shift))) } }
        out += Array(magic.utf8) + [version] + Array(repeating: 0, count: 15)
        for count in [block.utIndicators.count, block.standardIndicators.count, block.leapSeconds.count] { be(UInt64(count), 4) }
        be(UInt64(transitionCountOverride ?? UInt32(block.transitions.count)), 4)
        be(UInt64(block.types.count), 4)
        be(UInt64(designationCountOverride ?? UInt32(block.designations.utf8.count)), 4)
        for transition in block.transitions { be(UInt64(bitPattern: transition.time), timeSize) }
        out += block.transitions.map(\.type)
        for (index, type) in block.types.enumerated() {
            be(UInt64(UInt32(bitPattern: Int32(truncatingIfNeeded: type.offset))), 4)
            out.append(isDaylightSavingOverride?.type == index ? isDaylightSavingOverride!.value : type.isDaylightSaving ? 1 : 0)
            out.append(type.designation)
        }
        out += Array(block.designations.utf8)
        for leap in block.leapSeconds {
            be(UInt64(bitPattern: leap.occurrence), timeSize)
            be(UInt64(UInt32(bitPattern: leap.correction)), 4)
        }
        out += block.standardIndicators + block.utIndicators
    }
}
