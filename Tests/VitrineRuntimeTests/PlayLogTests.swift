import Foundation
import Logging
import Synchronization
import Testing
import VitrineConfig
import VitrineCore
@testable import VitrineRuntime
import VitrineSystem

/// Proof of play's pure core on virtual time (records, bounding, torn tails,
/// queries, the tracker, the reporter) and the log's file edge in a temp dir.
@Suite("Proof of play: the log")
struct PlayLogTests {
    /// 2026-11-23T08:00:00Z in nanoseconds.
    static let morning: Int64 = 1_795_420_800 * 1_000_000_000

    static func record(_ sequence: UInt64, slide: Int = 0, start: Int64 = morning, ms: Int64 = 5000) -> PlayRecord {
        PlayRecord(sequence: sequence, slide: slide, path: "slide\(slide).jpg", sha256: slide == 0 ? nil : String(repeating: "ab", count: 32),
                   startNanoseconds: start, duration: .milliseconds(ms))
    }

    static func shown(_ slide: Int, at seconds: Double, path: String? = nil) -> SlideShown {
        let instant = MonotonicInstant(nanoseconds: Int64(seconds * 1e9))
        return SlideShown(slide: slide, path: path ?? "slide\(slide).jpg", file: nil, sha256: nil, presented: instant,
                          wallNanoseconds: morning + instant.nanoseconds)
    }

    // MARK: Records

    @Test func aRecordIsOneLineThatReadsBackTheSame() throws {
        let record = PlayRecord(sequence: 42, slide: 3, path: "asset:\(String(repeating: "0f", count: 32))",
                                sha256: String(repeating: "0f", count: 32), startNanoseconds: Self.morning + 123_456_789,
                                duration: .milliseconds(8004))
        let line = record.line
        #expect(line.last == UInt8(ascii: "\n") && line.dropLast().allSatisfy { $0 != UInt8(ascii: "\n") })
        #expect(record.start == "2026-11-23T08:00:00.123456Z")
        let back = try #require(PlayRecord(line: line.dropLast()))
        // Microseconds are what the line keeps.
        #expect(back == PlayRecord(sequence: 42, slide: 3, path: record.path, sha256: record.sha256,
                                   startNanoseconds: Self.morning + 123_456_000, duration: .milliseconds(8004)))
        #expect(PlayRecord(line: Array(#"{"seq":1}"#.utf8)) == nil)
    }

    @Test func aLineWithoutOutputReadsAndARecordWithoutOneIsWrittenAsBefore() throws {
        // A line as the log wrote it before plays named their output.
        let older = #"{"durationMs":8004,"path":"red.jpg","seq":7,"sha256":null,"slide":1,"start":"2026-11-23T08:00:00.123456Z"}"#
        let read = try #require(PlayRecord(line: Array(older.utf8)))
        #expect(read == PlayRecord(sequence: 7, slide: 1, path: "red.jpg", sha256: nil, startNanoseconds: Self.morning + 123_456_000,
                                   duration: .milliseconds(8004)))
        #expect(read.output == nil)
        // Without an output, the line is byte for byte what it was.
        #expect(read.line == Array(older.utf8) + [UInt8(ascii: "\n")])
        // With one, it is one more key, read back.
        var named = read
        named.output = "DSI-1"
        #expect(String(decoding: named.line, as: UTF8.self)
                == #"{"durationMs":8004,"output":"DSI-1","path":"red.jpg","seq":7,"sha256":null,"slide":1,"start":"2026-11-23T08:00:00.123456Z"}"# + "\n")
        #expect(PlayRecord(line: named.line.dropLast()) == named)
        #expect(named.body.output == "DSI-1" && read.body.output == nil)
    }

    @Test func startIsFixedWidthSoTextOrderIsTimeOrder() {
        #expect(PlayRecord.format(nanoseconds: 0) == "1970-01-01T00:00:00.000000Z")
        #expect(PlayRecord.format(nanoseconds: -1_000) == "1969-12-31T23:59:59.999999Z")
        #expect(PlayRecord.format(nanoseconds: Self.morning + 5_000) == "2026-11-23T08:00:00.000005Z")
        #expect(PlayRecord.parse("2026-11-23T08:00:00.000005Z") == Self.morning + 5_000)
        #expect(PlayRecord.parse("2026-11-23T08:00:00Z") == nil)
        #expect(PlayRecord.parse("2026-13-23T08:00:00.000005Z") == nil)
    }

    // MARK: Torn tails

    @Test func aTornLastLineIsSkippedAndCutOffNeverRead() {
        let good = Self.record(1).line + Self.record(2).line
        let torn = good + Array(Self.record(3).line.prefix(30))
        let contents = PlayLogLayout.parse(torn)
        #expect(contents.records.map(\.sequence) == [1, 2])
        #expect(contents.completeBytes == good.count)
        #expect(contents.unreadableLines == 0)
        // A damaged complete line in the middle hides nothing after it.
        let damaged = Self.record(1).line + Array("{\"seq\": garbage}\n".utf8) + Self.record(3).line
        let read = PlayLogLayout.parse(damaged)
        #expect(read.records.map(\.sequence) == [1, 3] && read.unreadableLines == 1 && read.completeBytes == damaged.count)
        #expect(PlayLogLayout.parse([]).records.isEmpty)
    }

    // MARK: Bounding

    @Test func segmentsRotateAtTheirSizeAndTheOldestGoWholeCounted() {
        var layout = PlayLogLayout(bounds: .init(segmentBytes: 1000, maxSegments: 3))
        var appends: [PlayLogLayout.Append] = []
        for _ in 0..<40 { appends.append(layout.append(bytes: 200)) }
        // 5 records of 200 bytes fill a segment; the 6th starts a new one.
        #expect(appends[0] == .init(segment: "plays-000000000001.jsonl", creates: true, deletes: [], droppedRecords: 0))
        #expect(appends[4].creates == false && appends[5] == .init(segment: "plays-000000000006.jsonl", creates: true, deletes: [], droppedRecords: 0))
        // The 16th record starts a 4th segment: the 1st goes, with its 5 records.
        #expect(appends[15] == .init(segment: "plays-000000000016.jsonl", creates: true, deletes: ["plays-000000000001.jsonl"], droppedRecords: 5))
        #expect(layout.segments.count == 3)
        #expect(layout.byteCount <= 3 * 1000 && layout.recordCount == 15)
        #expect(layout.dropped == 25 && layout.firstSequence == 26 && layout.lastSequence == 40 && layout.nextSequence == 41)
        #expect(layout.segments(from: 37).map(\.firstSequence) == [36])
        #expect(layout.segments(from: 1).map(\.firstSequence) == [26, 31, 36])
    }

    @Test func aBoundIsKeptForThousandsOfRecordsOfAnySize() {
        var layout = PlayLogLayout(bounds: .init(segmentBytes: 4096, maxSegments: 4))
        var dropped = 0
        for index in 0..<10_000 {
            dropped += layout.append(bytes: 150 + index % 90).droppedRecords
            #expect(layout.byteCount <= 4 * 4096)
            #expect(layout.segments.allSatisfy { $0.bytes <= 4096 })
        }
        #expect(UInt64(dropped) == layout.dropped)
        #expect(UInt64(layout.recordCount) + layout.dropped == 10_000)
    }

    @Test func recoveryContinuesTheSequencesAndTheDropCount() {
        let first = PlayLogLayout.parse(Self.record(11).line + Self.record(12).line)
        let second = PlayLogLayout.parse(Self.record(13).line + Array(Self.record(14).line.prefix(10)))
        let layout = PlayLogLayout.recovered([("plays-000000000013.jsonl", second), ("plays-000000000011.jsonl", first),
                                              ("notes.txt", first)])
        #expect(layout.segments.map(\.firstSequence) == [11, 13])
        // The torn 14 was never counted: its sequence is used again.
        #expect(layout.nextSequence == 14 && layout.dropped == 10 && layout.recordCount == 3)
        // A segment created but never written (a crash right after rotating) keeps its place.
        let empty = PlayLogLayout.recovered([("plays-000000000020.jsonl", PlayLogLayout.parse([]))])
        #expect(empty.nextSequence == 20 && empty.dropped == 19 && empty.lastSequence == 19)
        #expect(PlayLogLayout.firstSequence(ofFile: "plays-000000000000.jsonl") == nil)
        #expect(PlayLogLayout.firstSequence(ofFile: "plays-12.jsonl.tmp") == nil)
    }

    // MARK: Queries

    @Test func sinceAndLimitSelectOldestFirstAndSayWhetherMoreMatched() {
        let records = (1...10).map { Self.record(UInt64($0), start: Self.morning + Int64($0) * 1_000_000_000) }
        let all = PlayQuery().select(records)
        #expect(all.records.count == 10 && !all.more)
        let since = PlayQuery(sinceNanoseconds: Self.morning + 4_000_000_000, limit: 3).select(records)
        #expect(since.records.map(\.sequence) == [4, 5, 6] && since.more)
        let exact = PlayQuery(sinceNanoseconds: Self.morning + 8_000_000_000, limit: 3).select(records)
        #expect(exact.records.map(\.sequence) == [8, 9, 10] && !exact.more)
        let after = PlayQuery(afterSequence: 9).select(records)
        #expect(after.records.map(\.sequence) == [10])
        #expect(PlayQuery(sinceNanoseconds: Self.morning + 60_000_000_000).select(records).records.isEmpty)
    }

    @Test func outputSelectsThePlaysRecordedUnderThatName() {
        let outputs: [String?] = [nil, "HDMI-A-1", "DSI-1", "HDMI-A-1", "DSI-1", "HDMI-A-1"]
        let records = outputs.enumerated().map { index, output in
            var record = Self.record(UInt64(index + 1), start: Self.morning + Int64(index) * 1_000_000_000)
            record.output = output
            return record
        }
        #expect(PlayQuery().select(records).records.count == 6, "no output: every play, named or not")
        let hdmi = PlayQuery(limit: 2, output: "HDMI-A-1").select(records)
        #expect(hdmi.records.map(\.sequence) == [2, 4] && hdmi.more)
        #expect(PlayQuery(output: "DSI-1").select(records).records.map(\.sequence) == [3, 5])
        #expect(PlayQuery(sinceNanoseconds: Self.morning + 3_000_000_000, output: "DSI-1").select(records).records.map(\.sequence) == [5])
        #expect(PlayQuery(output: "DP-1").select(records).records.isEmpty)
    }

    // MARK: The tracker, on virtual time

    @Test func aPlayEndsWhenTheNextShowsOrTheScreenGoesDark() {
        var tracker = PlayTracker()
        #expect(tracker.shown(Self.shown(0, at: 1), sha256: "a", sequence: 1) == nil)
        let first = tracker.shown(Self.shown(1, at: 6.25), sha256: nil, sequence: 1)
        #expect(first == PlayRecord(sequence: 1, slide: 0, path: "slide0.jpg", sha256: "a",
                                    startNanoseconds: Self.morning + 1_000_000_000, duration: .milliseconds(5250)))
        let second = tracker.end(at: MonotonicInstant(nanoseconds: 9_000_000_000), sequence: 2)
        #expect(second?.slide == 1 && second?.duration == .milliseconds(2750) && second?.sha256 == nil)
        #expect(tracker.end(at: MonotonicInstant(nanoseconds: 10_000_000_000), sequence: 3) == nil, "nothing on screen")
    }

    /// A video slide's play carries how much of its video played, which the
    /// carousel reports as it pages away, before the next slide rests.
    @Test func aVideoPlayCarriesHowMuchOfItsVideoPlayed() throws {
        var tracker = PlayTracker()
        _ = tracker.shown(Self.shown(2, at: 1, path: "clip.mp4"), sha256: "c", sequence: 1)
        // A report for a slide not on screen (it never came to rest) is dropped.
        tracker.videoPlayed(slide: 5, played: .seconds(1))
        tracker.videoPlayed(slide: 2, played: .milliseconds(3960))
        let ended = tracker.shown(Self.shown(3, at: 11), sha256: nil, sequence: 1)
        let video = try #require(ended)
        #expect(video.videoPlayed == .milliseconds(3960) && video.duration == .seconds(10))
        // The next play is a picture's: nothing carried over.
        let last = tracker.end(at: MonotonicInstant(nanoseconds: 15_000_000_000), sequence: 2)
        let picture = try #require(last)
        #expect(picture.videoPlayed == nil)
        // The line and the API's body say it in milliseconds, and it reads back.
        let line = String(decoding: video.line, as: UTF8.self)
        #expect(line.contains(#""videoPlayedMs":3960"#), "\(line)")
        #expect(PlayRecord(line: video.line.dropLast()) == video)
        #expect(video.body.videoPlayedMs == 3960 && picture.body.videoPlayedMs == nil)
        #expect(!String(decoding: picture.line, as: UTF8.self).contains("videoPlayedMs"))
    }

    // MARK: The reporter

    static func scene(_ layers: [Scene.Layer]) -> Scene { Scene(layers: layers, indicator: nil) }

    @Test func onlyAFrameShowingANewSlideAtRestIsAPlay() throws {
        var configuration = KioskConfiguration()
        configuration.slides = [SlideConfiguration(path: "a.jpg"), SlideConfiguration(path: "asset:" + String(repeating: "cd", count: 32))]
        configuration.baseDirectory = "/srv"
        var reporter = PlayReporter()
        let rest0 = Self.scene([.init(content: .slide(0))])
        let moving = Self.scene([.init(content: .slide(0), offset: -0.4), .init(content: .slide(1), offset: 0.6)])
        let rest1 = Self.scene([.init(content: .slide(1))])
        // The turn's reading, on virtual time: a play shown without a flip is stamped with it.
        let turn = MonotonicInstant(nanoseconds: 40_000_000)
        // Not decoded yet: the background showed, not the picture.
        #expect(reporter.presented(rest0, configuration: configuration, decoded: { _ in false }, flipPending: false, at: turn) == nil)
        let firstShown = reporter.presented(rest0, configuration: configuration, decoded: { _ in true }, flipPending: false, at: turn)
        let first = try #require(firstShown)
        #expect(first.slide == 0 && first.file == "/srv/a.jpg" && first.sha256 == nil && first.presented == turn)
        // Redraws of the same slide are not new plays.
        #expect(reporter.presented(rest0, configuration: configuration, decoded: { _ in true }, flipPending: false, at: turn) == nil)
        #expect(reporter.presented(moving, configuration: configuration, decoded: { _ in true }, flipPending: true, at: turn) == nil)
        #expect(reporter.scanoutCompleted(at: MonotonicInstant(nanoseconds: 5), now: turn) == nil)
        // On DRM the play starts at the flip's completion, not at present.
        #expect(reporter.presented(rest1, configuration: configuration, decoded: { _ in true }, flipPending: true, at: turn) == nil)
        let flip = MonotonicInstant(nanoseconds: 123_000_000)
        let secondShown = reporter.scanoutCompleted(at: flip, now: turn)
        let second = try #require(secondShown)
        #expect(second.slide == 1 && second.presented == flip && second.sha256 == String(repeating: "cd", count: 32))
        #expect(reporter.presented(rest1, configuration: configuration, decoded: { _ in true }, flipPending: false, at: turn) == nil)
        // A flip without the driver's vblank time: the play starts at the reading the flip was handled at.
        #expect(reporter.presented(moving, configuration: configuration, decoded: { _ in true }, flipPending: true, at: turn) == nil)
        #expect(reporter.presented(rest0, configuration: configuration, decoded: { _ in true }, flipPending: true, at: turn) == nil)
        let handled = MonotonicInstant(nanoseconds: 200_000_000)
        #expect(reporter.scanoutCompleted(at: nil, now: handled)?.presented == handled)
        #expect(reporter.presented(rest1, configuration: configuration, decoded: { _ in true }, flipPending: true, at: turn) == nil)
        #expect(reporter.scanoutCompleted(at: flip, now: handled)?.slide == 1)
        // Dark, then lit again: the same slide is a new play.
        reporter.screenWentDark()
        #expect(reporter.presented(rest1, configuration: configuration, decoded: { _ in true }, flipPending: false, at: turn)?.slide == 1)
        // A placeholder or a crossfade is not a slide at rest.
        #expect(PlayReporter.resting(Self.scene([.init(content: .placeholder)])) == nil)
        #expect(PlayReporter.resting(Self.scene([.init(content: .slide(2), opacity: 0.5)])) == nil)
    }

    @Test func monotonicToWallCarriesTheOffsetOfOnePairedReading() {
        let now = MonotonicClock.now()
        let wall = PlayReporter.wallNanoseconds(at: now - .milliseconds(250))
        let realtime = WallClock.now().secondsSinceEpoch * 1_000_000_000
        // A quarter second before now, to within the reading's own second.
        #expect(abs(wall - (realtime - 250_000_000)) < 1_100_000_000)
    }

    // MARK: The file edge

    @Test func playsSurviveAReopenAndATornLastLineIsSkippedThenCutOff() throws {
        let directory = makeTemporaryDirectory()
        defer { removeTemporaryDirectory(directory) }
        let hashed = Mutex<[String]>([])
        let picture = directory + "/red.jpg"
        try Data("picture".utf8).write(to: URL(fileURLWithPath: picture))
        let hash: @Sendable (String) -> String? = { path in
            hashed.withLock { $0.append(path) }
            return String(repeating: "ee", count: 32)
        }
        let log = try PlayLog(directory: directory + "/plays", logger: Logger(label: "test"), hashFile: hash)
        for (index, slide) in [0, 1, 0, 1].enumerated() {
            var shown = Self.shown(slide, at: Double(index) * 5)
            shown.file = picture
            log.shown(shown)
        }
        log.ended(at: MonotonicInstant(nanoseconds: 20_000_000_000))
        log.flush()
        #expect(log.query(PlayQuery()).records.map(\.slide) == [0, 1, 0, 1])
        #expect(log.query(PlayQuery()).records.allSatisfy { $0.sha256 == String(repeating: "ee", count: 32) && $0.duration == .seconds(5) })
        #expect(hashed.withLock { $0 } == [picture], "one hash per file version")
        #expect(log.status.recorded == 4 && log.status.kept == 4 && log.status.lastSequence == 4)

        // SIGKILL mid-write: half a line at the end of the segment.
        let segment = directory + "/plays/plays-000000000001.jsonl"
        let handle = try #require(FileHandle(forWritingAtPath: segment))
        handle.seekToEndOfFile()
        handle.write(Data(Self.record(5).line.prefix(25)))
        try handle.close()

        let reopened = try PlayLog(directory: directory + "/plays", logger: Logger(label: "test"), hashFile: hash)
        #expect(reopened.query(PlayQuery()).records.map(\.sequence) == [1, 2, 3, 4])
        reopened.shown(Self.shown(2, at: 30))
        reopened.ended(at: MonotonicInstant(nanoseconds: 31_000_000_000))
        reopened.flush()
        // The next record follows the last complete line, readable: the torn bytes are gone.
        #expect(reopened.query(PlayQuery()).records.map(\.sequence) == [1, 2, 3, 4, 5])
        let bytes = try FileIO.read(segment)
        #expect(PlayLogLayout.parse(bytes).completeBytes == bytes.count && PlayLogLayout.parse(bytes).unreadableLines == 0)
    }

    /// Two output groups, each with its own play on screen: one group's next
    /// slide ends its own play only, and the sequences of both count on in one log.
    @Test func eachOutputHasItsOwnPlayAndTheSequencesAreShared() throws {
        let directory = makeTemporaryDirectory()
        defer { removeTemporaryDirectory(directory) }
        let log = try PlayLog(directory: directory, logger: Logger(label: "test"), hashFile: { _ in nil })
        log.shown(Self.shown(0, at: 1), output: "HDMI-A-1")
        log.shown(Self.shown(0, at: 2), output: "DSI-1")
        log.shown(Self.shown(1, at: 5), output: "DSI-1")
        log.shown(Self.shown(2, at: 7), output: "DSI-1")
        log.flush()
        // DSI-1's page changes ended DSI-1's plays; HDMI-A-1's play is still on screen.
        var records = log.query(PlayQuery()).records
        #expect(records.map(\.output) == ["DSI-1", "DSI-1"])
        #expect(records.map(\.slide) == [0, 1] && records.map(\.sequence) == [1, 2])
        #expect(records.map(\.duration) == [.seconds(3), .seconds(2)])
        // DSI-1 goes dark: its play ends, HDMI-A-1's goes on.
        log.ended(at: MonotonicInstant(nanoseconds: 8_000_000_000), output: "DSI-1")
        log.ended(at: MonotonicInstant(nanoseconds: 8_000_000_000), output: "DP-1")
        log.flush()
        records = log.query(PlayQuery()).records
        #expect(records.map(\.output) == ["DSI-1", "DSI-1", "DSI-1"] && records.last?.duration == .seconds(1))
        // The kiosk stops: every play still on screen ends, each under its own output.
        log.shown(Self.shown(3, at: 9), output: "DSI-1")
        log.endedEverywhere(at: MonotonicInstant(nanoseconds: 10_000_000_000))
        log.flush()
        records = log.query(PlayQuery()).records
        #expect(records.map(\.sequence) == [1, 2, 3, 4, 5])
        #expect(records.suffix(2).map(\.output) == ["DSI-1", "HDMI-A-1"])
        #expect(records.last == PlayRecord(sequence: 5, slide: 0, path: "slide0.jpg", sha256: nil, startNanoseconds: Self.morning + 1_000_000_000,
                                           duration: .seconds(9), output: "HDMI-A-1"))
        #expect(log.query(PlayQuery(output: "HDMI-A-1")).records.map(\.sequence) == [5])
    }

    @Test func theLogStaysWithinItsBoundOnDiskAndCountsWhatItDropped() throws {
        let directory = makeTemporaryDirectory()
        defer { removeTemporaryDirectory(directory) }
        let bounds = PlayLogLayout.Bounds(segmentBytes: 1024, maxSegments: 3)
        let log = try PlayLog(directory: directory, bounds: bounds, logger: Logger(label: "test"), hashFile: { _ in nil })
        for index in 0...60 { log.shown(Self.shown(index % 4, at: Double(index))) }
        log.flush()
        let files = try FileManager.default.contentsOfDirectory(atPath: directory).sorted()
        #expect(files.count == 3)
        let sizes = try files.map { try FileIO.read(directory + "/" + $0).count }
        #expect(sizes.reduce(0, +) <= 3 * 1024)
        let status = log.status
        #expect(status.recorded == 60 && status.dropped > 0)
        #expect(UInt64(status.kept) + status.dropped == 60)
        let kept = log.query(PlayQuery(limit: PlayQuery.maximumLimit)).records
        #expect(kept.first?.sequence == status.dropped + 1 && kept.last?.sequence == 60)
        // Limits read only as far as they need.
        let some = log.query(PlayQuery(limit: 2))
        #expect(some.records.count == 2 && some.more)
        // Reopened, the drop count and sequences carry on.
        let again = try PlayLog(directory: directory, bounds: bounds, logger: Logger(label: "test"), hashFile: { _ in nil })
        #expect(again.status.dropped == status.dropped && again.status.lastSequence == 60)
    }
}
