import Foundation
import Testing
import VitrineConfig
import VitrineCore

/// docs/configuration.md's schedule example must stay valid, and the
/// `vitrine schedule` listing printed under it must be what it does.
@Suite("docs/configuration.md: Schedule")
struct ScheduleDocumentationTests {
    /// The fenced blocks (any language) after the heading `## heading`, up to the next `## `.
    func blocks(after heading: String) throws -> [(language: String, text: String)] {
        let text = try String(contentsOfFile: repositoryRoot + "/docs/configuration.md", encoding: .utf8)
        let section = try #require(text.range(of: "\n## \(heading)\n"))
        var blocks: [(String, String)] = []
        var current: (language: String, lines: [Substring])?
        for line in text[section.upperBound...].split(separator: "\n", omittingEmptySubsequences: false) {
            if line.hasPrefix("## ") { break }
            if current == nil, line.hasPrefix("```") {
                current = (String(line.dropFirst(3)), [])
            } else if let open = current, line == "```" {
                blocks.append((open.language, open.lines.joined(separator: "\n")))
                current = nil
            } else {
                current?.lines.append(line)
            }
        }
        return blocks
    }

    @Test func theExampleIsValidAndTheListingIsWhatItDoes() throws {
        let sections = try blocks(after: "Schedule")
        let yaml = try #require(sections.first { $0.language == "yaml" }?.text)
        let (schedule, timeline) = try scheduled(yaml)
        #expect(schedule.timezone == "Europe/Berlin")
        #expect(schedule.playlists.map(\.name) == ["christmas", "day", "night"])
        let listing = try #require(sections.first { $0.text.hasPrefix("$ vitrine schedule") }?.text)
        // Each transition line: weekday, date, time, abbreviation, offset, UTC, what shows.
        let rows = listing.split(separator: "\n").filter { $0.hasPrefix("  ") }.map { row in
            row.split(separator: " ", maxSplits: 6, omittingEmptySubsequences: true).map(String.init)
        }
        try #require(rows.count == 10 && rows.allSatisfy { $0.count == 7 && $0[5].hasSuffix("Z") })
        let documented = rows.map { row -> ScheduleTransition in
            let showing: ScheduleShowing = row[6].trimmingCharacters(in: .whitespaces) == "screen off" ? .off
                : .playlist(String(row[6].split(separator: " ").last!), slides: [])
            return ScheduleTransition(utc(row[5]), showing)
        }
        let actual = transitions(timeline, from: utc("2026-03-27T11:00:00Z"), days: 3).map {
            ScheduleTransition($0.instant, $0.showing.playlistName.map { .playlist($0, slides: []) } ?? .off)
        }
        #expect(actual == documented)
        // 02:30 does not exist on 29 March: the night ends at 03:00 CEST.
        #expect(actual.contains(ScheduleTransition(utc("2026-03-29T01:00:00Z"), .off)))
    }
    @Test func theNamedOutputsExampleIsValidAndItsListingIsWhatEachOutputDoes() throws {
        let sections = try blocks(after: "Schedule")
        let yaml = try #require(sections.first { $0.language == "yaml" && $0.text.contains("outputs: [DSI-1]") }?.text)
        let c = try ConfigLoader.parse(yaml)
        let listing = try #require(sections.first { $0.text.hasPrefix("$ vitrine schedule --config lobby.yaml") }?.text)
        // One group of rows per output, each headed "Output NAME: ...".
        var documented: [String: [ScheduleTransition]] = [:]
        var output: String?
        for line in listing.split(separator: "\n") {
            if line.hasPrefix("Output ") { output = String(line.dropFirst(7).prefix { $0 != ":" }) }
            guard line.hasPrefix("  "), let output else { continue }
            let row = line.split(separator: " ", maxSplits: 6, omittingEmptySubsequences: true).map(String.init)
            let what = row[6].trimmingCharacters(in: .whitespaces)
            let showing: ScheduleShowing = what == "screen off" ? .off : .playlist(String(what.split(separator: " ").last!), slides: [])
            documented[output, default: []].append(ScheduleTransition(utc(row[5]), showing))
        }
        #expect(documented.keys.sorted() == ["DSI-1", "HDMI-A-1"])
        for (name, rows) in documented {
            let schedule = try #require(c.shown(onOutput: name).schedule)
            let timeline = try #require(schedule.timeline())
            let actual = transitions(timeline, from: utc("2026-12-30T11:00:00Z"), days: 2).map {
                ScheduleTransition($0.instant, $0.showing.playlistName.map { .playlist($0, slides: []) } ?? .off)
            }
            #expect(actual == rows, "\(name)")
        }
        // The television is off at night, the panel never.
        #expect(documented["HDMI-A-1"]?.contains { $0.showing == .off } == true)
        #expect(documented["DSI-1"]?.allSatisfy { $0.showing != .off } == true)
    }
}
