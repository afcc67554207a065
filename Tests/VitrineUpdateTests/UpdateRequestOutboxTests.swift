import Foundation
import Testing
import VitrineChannel
import VitrineCore
import VitrineSystem
import VitrineUpdate

/// The kiosk's side: the request it leaves, and the report it reads back.
@Suite struct UpdateRequestOutboxTests {
    let directory: String

    init() throws {
        directory = NSTemporaryDirectory() + "vitrine-outbox-\(UUID().uuidString)"
        try FileManager.default.createDirectory(atPath: directory, withIntermediateDirectories: true)
    }

    func names(_ path: String) -> [String] { ((try? FileManager.default.contentsOfDirectory(atPath: path)) ?? []).sorted() }

    @Test func aRequestIsRenamedIntoPlaceWholeAndTheNewestReplacesAnOlder() throws {
        defer { try? FileManager.default.removeItem(atPath: directory) }
        let outbox = UpdateRequestOutbox(runtimeDirectory: directory)
        try outbox.leave(UpdateRequest(manifest: Array("first".utf8), signature: Array("sig 1".utf8)))
        #expect(names(outbox.directory) == [ChannelManifest.fileName, ChannelManifest.signatureFileName])
        try outbox.leave(UpdateRequest(manifest: Array("second".utf8), signature: Array("sig 2".utf8), root: Array("root".utf8),
                                       rootSignature: Array("root sig".utf8)))
        #expect(names(outbox.directory) == [ChannelManifest.fileName, ChannelManifest.signatureFileName, ChannelRoot.fileName,
                                            ChannelRoot.signatureFileName])
        #expect(FileManager.default.contents(atPath: outbox.directory + "/" + ChannelManifest.fileName) == Data("second".utf8))
        // Nothing half-written is left beside it.
        #expect(names(directory) == [UpdateRequest.directoryName])
    }

    @Test func onlyAKioskOfTheUnitOnABoardWithTheHelperHasAnOutbox() throws {
        defer { try? FileManager.default.removeItem(atPath: directory) }
        let unit = directory + "/vitrine-update.path"
        #expect(UpdateRequestOutbox.standard(environment: ["RUNTIME_DIRECTORY": "/run/vitrine"], unitFiles: [unit]) == nil)
        _ = FileManager.default.createFile(atPath: unit, contents: Data())
        #expect(UpdateRequestOutbox.standard(environment: [:], unitFiles: [unit]) == nil)
        #expect(UpdateRequestOutbox.standard(environment: ["RUNTIME_DIRECTORY": "/run/vitrine"], unitFiles: [unit])?.runtimeDirectory
            == "/run/vitrine")
    }

    @Test func theWatchAnnouncesEachNewReportOnceAndKeepsTheLastThroughAnUnreadableOne() throws {
        defer { try? FileManager.default.removeItem(atPath: directory) }
        let watch = SoftwareUpdateWatch(directory: directory)
        let start = MonotonicInstant(nanoseconds: 1_000_000_000_000)
        #expect(watch.takeNew(now: start) == nil && watch.current == nil)
        let report = SoftwareUpdateReport(at: WallInstant(secondsSinceEpoch: 1_795_478_400), outcome: .rolledBack, manifestVersion: 2,
                                          wanted: "1.1.0", from: "1.0.0", installed: "1.0.0", floor: nil, detail: "restarted 2 times")
        _ = FileManager.default.createFile(atPath: watch.reportPath, contents: Data(report.json))
        #expect(watch.takeNew(now: start) == report)
        #expect(watch.takeNew(now: start) == nil)
        #expect(watch.current == report)
        _ = FileManager.default.createFile(atPath: watch.reportPath, contents: Data("{".utf8))
        #expect(watch.takeNew(now: start) == nil)
        #expect(watch.current == report)
    }

    @Test func theStatusReadsANewReportWithinTwoSecondsAndNotAtEveryRequest() throws {
        defer { try? FileManager.default.removeItem(atPath: directory) }
        let watch = SoftwareUpdateWatch(directory: directory)
        let start = MonotonicInstant(nanoseconds: 1_000_000_000_000)
        func report(_ outcome: SoftwareUpdateReport.Outcome) -> SoftwareUpdateReport {
            SoftwareUpdateReport(at: WallInstant(secondsSinceEpoch: 1_795_478_400), outcome: outcome, detail: outcome.rawValue)
        }
        _ = FileManager.default.createFile(atPath: watch.reportPath, contents: Data(report(.installed).json))
        watch.refresh(now: start)
        #expect(watch.current == report(.installed))
        _ = FileManager.default.createFile(atPath: watch.reportPath, contents: Data(report(.rolledBack).json))
        #expect(!watch.isRefreshDue(now: start + .milliseconds(1_900)))
        watch.refresh(now: start + .milliseconds(1_900))
        #expect(watch.current == report(.installed), "read again within 2 s")
        #expect(watch.isRefreshDue(now: start + .seconds(2)))
        watch.refresh(now: start + .seconds(2))
        #expect(watch.current == report(.rolledBack))
        // What the status saw is still announced once to the log.
        #expect(watch.takeNew(now: start + .seconds(3)) == report(.rolledBack))
    }
}
