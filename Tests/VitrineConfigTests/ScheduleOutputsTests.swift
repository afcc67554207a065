import Foundation
import Testing
import VitrineConfig
import VitrineCore

@Suite("Schedule entries for named outputs")
struct ScheduleOutputsTests {
    /// A Raspberry Pi 4 in a hotel lobby: the television on HDMI-A-1 shows the
    /// lobby playlist by day and is off at night; the DSI menu panel stays on
    /// all night with a night menu; the second HDMI port has a playlist of its
    /// own (promo), which an entry naming it replaces at the weekend.
    static let lobby = """
        schedule:
          timezone: UTC
          playlists:
            lobby: [lobby.jpg, events.jpg]
            menu: [menu.jpg]
            night: [night.jpg]
            promo: [promo.jpg]
          entries:
            - {playlist: lobby, outputs: [HDMI-A-1], days: daily, from: "07:00", until: "22:00"}
            - {playlist: menu, outputs: [DSI-1], days: daily, from: "06:00", until: "23:00"}
            - {playlist: night, outputs: [DSI-1], days: daily, from: "23:00", until: "06:00"}
            - {playlist: lobby, outputs: [HDMI-A-2], days: weekend}
          otherwise: off
        outputs:
          - name: HDMI-A-1
          - {name: DSI-1, rotation: 90}
          - {name: HDMI-A-2, playlist: promo}
          - {name: DP-1, mirror: DSI-1}
        """

    static func timeline(_ c: KioskConfiguration, output: String) throws -> ScheduleTimeline {
        let schedule = try #require(c.shown(onOutput: output).schedule)
        return ScheduleTimeline(schedule: schedule.schedule, zone: FixedOffsetZone.utc)
    }

    @Test func theTelevisionGoesOffAtNightWhileThePanelStaysOn() throws {
        let c = try ConfigLoader.parse(Self.lobby)
        let tv = try Self.timeline(c, output: "HDMI-A-1"), panel = try Self.timeline(c, output: "DSI-1")
        // Across a Wednesday night (2026-03-25), on virtual wall time.
        let night: [(String, ScheduleShowing, ScheduleShowing)] = [
            ("2026-03-25T21:00:00Z", showing("lobby", slides: 2), showing("menu")),
            ("2026-03-25T22:00:00Z", .off, showing("menu")),
            ("2026-03-25T22:59:59Z", .off, showing("menu")),
            ("2026-03-25T23:00:00Z", .off, showing("night")),
            ("2026-03-26T03:00:00Z", .off, showing("night")),
            ("2026-03-26T06:00:00Z", .off, showing("menu")),
            ("2026-03-26T07:00:00Z", showing("lobby", slides: 2), showing("menu")),
        ]
        for (instant, onTV, onPanel) in night {
            #expect(tv.showing(at: utc(instant)) == onTV, "HDMI-A-1 at \(instant)")
            #expect(panel.showing(at: utc(instant)) == onPanel, "DSI-1 at \(instant)")
        }
        // The panel never goes dark; the television twice a day changes.
        #expect(transitions(panel, from: utc("2026-03-25T12:00:00Z"), days: 1).allSatisfy { $0.showing != .off })
        #expect(transitions(tv, from: utc("2026-03-25T12:00:00Z"), days: 1) == [
            ScheduleTransition(utc("2026-03-25T22:00:00Z"), .off),
            ScheduleTransition(utc("2026-03-26T07:00:00Z"), showing("lobby", slides: 2)),
        ])
        // The mirror follows its source, the panel.
        #expect(c.shown(onOutput: "DP-1").schedule == c.shown(onOutput: "DSI-1").schedule)
    }

    @Test func eachOutputKeepsTheEntriesNamingItOrNone() throws {
        let c = try ConfigLoader.parse(Self.lobby + "\n")
        var withCommon = c
        // An entry naming no output joins every output that follows the schedule.
        let common = ScheduleEntry(playlist: "menu", period: .dates(ScheduleDateRange(
            from: LocalDateTime(LocalDate(year: 2026, month: 12, day: 24)!), until: LocalDateTime(LocalDate(year: 2026, month: 12, day: 25)!))))
        withCommon.schedule?.entries.append(common)
        let tv = try #require(withCommon.shown(onOutput: "HDMI-A-1").schedule)
        #expect(tv.entries == [c.schedule!.entries[0], common])
        #expect(tv.outputs(ofEntry: 0) == ["HDMI-A-1"] && tv.outputs(ofEntry: 1) == [])
        let panel = try #require(withCommon.shown(onOutput: "DSI-1").schedule)
        #expect(panel.entries == [c.schedule!.entries[1], c.schedule!.entries[2], common])
        #expect(panel.otherwise == .off && panel.playlists == c.schedule!.playlists && panel.timezone == "UTC")
        // An output with a playlist of its own: only the entries naming it, never the common one;
        // its playlist is what shows otherwise, and the playlists it can show come along.
        let promo = try #require(withCommon.shown(onOutput: "HDMI-A-2").schedule)
        #expect(promo.entries == [c.schedule!.entries[3]] && promo.otherwise == .playlist("promo"))
        #expect(promo.playlists.map(\.name) == ["lobby", "promo"])
        let promoTimeline = try Self.timeline(c, output: "HDMI-A-2")
        #expect(promoTimeline.showing(at: utc("2026-03-27T12:00:00Z")) == showing("promo"))  // a Friday
        #expect(promoTimeline.showing(at: utc("2026-03-28T12:00:00Z")) == showing("lobby", slides: 2))  // a Saturday
        // Filtering twice changes nothing.
        #expect(withCommon.shown(onOutput: "HDMI-A-1").shown(onOutput: "HDMI-A-1").schedule == tv)
        #expect(withCommon.shown(onOutput: "HDMI-A-2").shown(onOutput: "HDMI-A-2").schedule == promo)
    }

    /// An output with a playlist of its own goes dark at night through an
    /// entry that switches it off, while the panel, with the schedule, stays on.
    @Test func anEntryOfOffSwitchesANamedOutputOff() throws {
        let c = try ConfigLoader.parse("""
            schedule:
              timezone: UTC
              playlists: {promo: [p.jpg], menu: [m.jpg]}
              entries:
                - {playlist: off, outputs: [HDMI-A-2], days: daily, from: "22:00", until: "07:00"}
                - {playlist: menu, outputs: [DSI-1], days: daily}
                - {playlist: promo, outputs: [HDMI-A-2], dates: 2026-12-31, priority: 1}
              otherwise: menu
            outputs:
              - {name: HDMI-A-2, playlist: promo}
              - name: DSI-1
            """)
        let promo = try Self.timeline(c, output: "HDMI-A-2"), panel = try Self.timeline(c, output: "DSI-1")
        #expect(c.shown(onOutput: "HDMI-A-2").schedule?.playlists.map(\.name) == ["promo"], "off is no playlist to carry")
        for (instant, onPromo) in [("2026-03-25T21:59:59Z", showing("promo")), ("2026-03-25T22:00:00Z", .off),
                                   ("2026-03-26T06:59:59Z", .off), ("2026-03-26T07:00:00Z", showing("promo")),
                                   // A date range beats the nightly window: New Year's Eve stays lit.
                                   ("2026-12-31T23:00:00Z", showing("promo"))] as [(String, ScheduleShowing)] {
            #expect(promo.showing(at: utc(instant)) == onPromo, "HDMI-A-2 at \(instant)")
            #expect(panel.showing(at: utc(instant)) == showing("menu"), "DSI-1 at \(instant)")
        }
        // It reads back from the canonical JSON as it was written.
        let json = String(decoding: ConfigDocument.json(c), as: UTF8.self)
        #expect(try ConfigLoader.parse(json) == c)
        // An entry of off overlapping one with a playlist, at the same priority, is a conflict as any other.
        let clash = issues("""
            schedule:
              playlists: {promo: [p.jpg]}
              entries:
                - {playlist: off, days: daily, from: "22:00", until: "07:00"}
                - {playlist: promo, days: fri}
            """)
        #expect(clash.count == 1 && clash.first?.hasPrefix("schedule.entries[1]: overlaps schedule.entries[0]") == true, "\(clash)")
    }

    @Test func aCanvasFollowsTheEntriesNamingItsOutputs() throws {
        let c = try ConfigLoader.parse("""
            schedule:
              playlists: {wall: [w.jpg], menu: [m.jpg]}
              entries:
                - {playlist: wall, outputs: [HDMI-A-1, HDMI-A-2], days: daily, from: "08:00", until: "20:00"}
                - {playlist: menu, outputs: [DSI-1], days: daily}
            outputs:
              - {name: HDMI-A-1, canvas: {name: wall, x: 0, y: 0, width: 100, height: 60}}
              - {name: HDMI-A-2, canvas: {name: wall, x: 110, y: 0, width: 100, height: 60}}
              - name: DSI-1
            """)
        for member in ["HDMI-A-1", "HDMI-A-2"] {
            #expect(c.shown(onOutput: member).schedule?.entries.map(\.playlist) == ["wall"], "\(member)")
        }
        #expect(c.shown(onOutput: "DSI-1").schedule?.entries.map(\.playlist) == ["menu"])
    }

    @Test func readerErrorsNameTheKeyPath() {
        let head = "schedule:\n  playlists: {day: [a.jpg], menu: [m.jpg]}\n  entries:\n    - {playlist: day, days: mon}\n    - {playlist: menu, days: tue}\n"
        let outputs = "outputs:\n  - name: HDMI-A-1\n  - name: DSI-1\n"
        #expect(issues(head + "    - {playlist: day, days: wed, outputs: [HDMI-A-3]}\n" + outputs)
            == ["schedule.entries[2].outputs[0]: no output named HDMI-A-3 in outputs; outputs lists HDMI-A-1, DSI-1"])
        #expect(issues(head + "    - {playlist: day, days: wed, outputs: [DSI-1]}\n")
            == ["schedule.entries[2].outputs: names DSI-1, but the configuration has no outputs section: list the connectors in outputs, or leave this out for every output"])
        #expect(issues(head + "    - {playlist: day, days: wed, outputs: [DSI-1, HDMI-A-1, DSI-1]}\n" + outputs)
            == ["schedule.entries[2].outputs[2]: names DSI-1 again (as schedule.entries[2].outputs[0]): name each output once"])
        #expect(issues(head + "    - {playlist: day, days: wed, outputs: []}\n" + outputs)
            == ["schedule.entries[2].outputs: must name at least one output; leave outputs out for every output that follows the schedule"])
        #expect(issues(head + "    - {playlist: day, days: wed, outputs: DSI-1}\n" + outputs).count == 1)
        // A mirror shows its source's carousel; a canvas is one carousel.
        #expect(issues(head + "    - {playlist: day, days: wed, outputs: [DP-1]}\n" + outputs + "  - {name: DP-1, mirror: DSI-1}\n")
            == ["schedule.entries[2].outputs[0]: DP-1 mirrors DSI-1 and shows what it shows: name DSI-1"])
        #expect(issues(head + "    - {playlist: day, days: wed, outputs: [HDMI-A-1]}\n"
                       + "outputs:\n  - {name: HDMI-A-1, canvas: {name: wall, x: 0, y: 0}}\n  - {name: HDMI-A-2, canvas: {name: wall, x: 1000, y: 0}}\n")
            == ["schedule.entries[2].outputs: names HDMI-A-1 but not HDMI-A-2 of canvas wall, which shows one picture across them: name all of its outputs, or none"])
        // The key path is the file's even when an earlier entry could not be read.
        #expect(issues(head + "    - {playlist: nope, days: wed}\n    - {playlist: day, days: wed, outputs: [HDMI-A-9]}\n" + outputs)
            == ["schedule.entries[2].playlist: unknown playlist nope (playlists: day, menu)",
                "schedule.entries[3].outputs[0]: no output named HDMI-A-9 in outputs; outputs lists HDMI-A-1, DSI-1"])
    }

    @Test func overlapsConflictOnlyOnAnOutputBothApplyTo() {
        // The example's entries overlap (lobby 07–22 on the television, menu 06–23 on the panel): different outputs.
        #expect(issues(Self.lobby) == [])
        // An entry for every output against one for the panel: a conflict there, and only there.
        #expect(issues(Self.lobby.replacingOccurrences(of: "  otherwise: off", with: "    - {playlist: promo, days: daily, from: \"12:00\", until: \"13:00\"}\n  otherwise: off"))
            == ["schedule.entries[4]: overlaps schedule.entries[1] on mon 12:00–mon 13:00 every week on output DSI-1 with the same priority (0) and another playlist (promo, not menu): give one of them a higher priority",
                "schedule.entries[4]: overlaps schedule.entries[0] on mon 12:00–mon 13:00 every week on output HDMI-A-1 with the same priority (0) and another playlist (promo, not lobby): give one of them a higher priority"].sorted())
        // An entry naming both outputs: one conflict per pair, naming the outputs it happens on.
        let both = "    - {playlist: promo, outputs: [DSI-1, HDMI-A-1], days: daily, from: \"12:00\", until: \"13:00\"}\n"
        #expect(issues(Self.lobby.replacingOccurrences(of: "  otherwise: off", with: both + "  otherwise: off")).count == 2)
        // Entries for the second HDMI port, which has a playlist of its own: the entries naming no output never apply to it.
        let weekend = "    - {playlist: night, days: weekend}\n"
        #expect(issues(Self.lobby.replacingOccurrences(of: "  otherwise: off", with: weekend + "  otherwise: off")).count == 2)  // HDMI-A-1 and DSI-1 only
        // Two entries for the same output that overlap: a conflict on that output.
        #expect(issues(Self.lobby.replacingOccurrences(of: "from: \"23:00\", until: \"06:00\"", with: "from: \"22:00\", until: \"06:00\""))
            == ["schedule.entries[2]: overlaps schedule.entries[1] on mon 22:00–mon 23:00 every week on output DSI-1 with the same priority (0) and another playlist (night, not menu): give one of them a higher priority"])
        // A higher priority decides, as before.
        #expect(issues(Self.lobby.replacingOccurrences(of: "from: \"23:00\", until: \"06:00\"}", with: "from: \"22:00\", until: \"06:00\", priority: 1}")) == [])
    }

    @Test func theConflictRuleOnPlainValues() throws {
        let c = try ConfigLoader.parse(Self.lobby)
        var schedule = try #require(c.schedule)
        let layout = try #require(c.outputs)
        #expect(schedule.outputConflicts(in: layout) == [])
        // Name the panel's night entry for the television as well: it meets the lobby entry there (22:00–23:00 is not
        // in the night window, so move it).
        schedule.entries[2].period = .weekly(WeeklyWindow(days: Set(Weekday.allCases), from: LocalTime(hour: 21, minute: 0)!, until: LocalTime(hour: 6, minute: 0)!))
        schedule.entryOutputs[2] = ["DSI-1", "HDMI-A-1"]
        let found = schedule.outputConflicts(in: layout)
        #expect(found.map { [$0.first, $0.second] } == [[0, 2], [1, 2]])
        #expect(found.map(\.outputs) == [["HDMI-A-1"], ["DSI-1"]])
        // Without the names every entry is everyone's, and the pairs are judged once for all.
        schedule.entryOutputs = [:]
        #expect(schedule.outputConflicts(in: layout).allSatisfy { $0.outputs.isEmpty })
        #expect(schedule.outputConflicts(in: layout).map { [$0.first, $0.second] } == schedule.schedule.conflicts().map { [$0.first, $0.second] })
    }

    @Test func itRoundTripsThroughTheCanonicalJSON() throws {
        let c = try ConfigLoader.parse(Self.lobby)
        let json = String(decoding: ConfigDocument.json(c), as: UTF8.self)
        #expect(try ConfigLoader.parse(json) == c)
        #expect(json.contains(#""outputs" : [\#n          "DSI-1"\#n        ],"#))
        // Entries without outputs are written as they always were: no outputs key.
        let plain = try ConfigLoader.parse(ScheduleConfigTests.example)
        #expect(!String(decoding: ConfigDocument.json(plain), as: UTF8.self).contains("outputs"))
    }

    @Test func withoutNamedOutputsNothingChanges() throws {
        // The outputs example of OutputsConfigTests plus an output following the schedule, whose entries name no output.
        let yaml = """
            schedule:
              timezone: UTC
              playlists: {day: [a.jpg], night: [b.jpg], menu: [m.jpg]}
              entries:
                - {playlist: day, days: weekdays, from: "07:00", until: "19:00"}
                - {playlist: night, days: [fri, sat], from: "22:00", until: "02:00"}
              otherwise: off
            outputs:
              - name: HDMI-A-1
              - {name: DSI-1, playlist: menu}
            """
        let c = try ConfigLoader.parse(yaml)
        #expect(c.schedule?.entryOutputs == [:])
        // The output following the schedule keeps it whole: the same value, the same transitions.
        #expect(c.shown(onOutput: "HDMI-A-1").schedule == c.schedule)
        let whole = ScheduleTimeline(schedule: c.schedule!.schedule, zone: FixedOffsetZone.utc)
        let start = utc("2026-03-23T00:00:00Z")
        #expect(transitions(try Self.timeline(c, output: "HDMI-A-1"), from: start, days: 14) == transitions(whole, from: start, days: 14))
        // The playlist output: its playlist alone, as before.
        let panel = try #require(c.shown(onOutput: "DSI-1").schedule)
        #expect(panel == ScheduleConfiguration(timezone: "UTC", playlists: [c.schedule!.playlist(named: "menu")!], entries: [], otherwise: .playlist("menu")))
        // The canonical JSON of a schedule without outputs in its entries, byte for byte as written before.
        let json = String(decoding: ConfigDocument.json(try ConfigLoader.parse("schedule:\n  playlists: {x: [a.jpg]}\n  entries: [{playlist: x, days: mon}]\n")), as: UTF8.self)
        #expect(json.contains(#"""
                "entries" : [
                  {
                    "days" : [
                      "mon"
                    ],
                    "from" : "00:00",
                    "playlist" : "x",
                    "priority" : 0,
                    "until" : "24:00"
                  }
                ],
            """#))
    }
}
