import FoundationEssentials
import Glibc
import Synchronization
import Testing
import VitrineConfig
import VitrineCore
import VitrineRuntime
import VitrineSandbox
import VitrineSystem
@testable import VitrineDoctor

/// The decoding section: its judgement and its rendering from made-up
/// figures (no clock), what the kiosk's report at start says, the package's
/// pictures, and one run of the real path (small pictures, a helper of the
/// `vitrine` built beside the test runner; no display here).
@Suite("Doctor: decoding")
struct DecodingCheckTests {
    typealias Tree = DoctorChecksTests.Tree

    /// A folder with both pictures' names (empty files: the made-up measure never reads them).
    static func pictureFolder() throws -> Tree {
        try Tree(["/photo-12mp.jpg": "", "/photo-48mp.heic": ""])
    }

    static let uhd = DecodingReport.Target(size: PixelSize(width: 3840, height: 2160), origin: "HDMI-A-1's preferred mode")

    static func cost(milliseconds wall: Int64, cpu: Int64?, peakKiB: Int?) -> SandboxedDecodeCost {
        SandboxedDecodeCost(wall: .milliseconds(wall), cpu: cpu.map { .milliseconds($0) }, peakResidentKiB: peakKiB,
                            frame: PixelSize(width: 1920, height: 1080))
    }

    /// What the made-up measure was asked: each file's name and the size it decoded for.
    final class Requests: Sendable {
        let list = Mutex<[String]>([])
        func record(_ path: String, _ output: PixelSize) {
            list.withLock { $0.append("\(path.split(separator: "/").last ?? "") \(output)") }
        }
        var all: [String] { list.withLock { $0 } }
    }

    /// A check whose measure answers from `answers` by file name, and whose display is `target`.
    static func check(_ folder: String?, target: DecodingReport.Target? = uhd, requests: Requests = Requests(),
                      answers: [String: Result<SandboxedDecodeCost, SandboxedDecodeTimer.Failure>]) -> DecodingCheck {
        DecodingCheck(pictures: folder, plan: .measure { path, output in
            requests.record(path, output)
            return answers[String(path.split(separator: "/").last ?? "")] ?? .failure(.refused("\(path): no answer"))
        }, target: { _ in target })
    }

    @Test func bothPicturesWithinTheirBudgetsAreFineAndDecodedForTheFirstDisplay() throws {
        let folder = try Self.pictureFolder()
        let requests = Requests()
        let section = Self.check(folder.root, requests: requests, answers: [
            "photo-12mp.jpg": .success(Self.cost(milliseconds: 180, cpu: 171, peakKiB: 62_000)),
            "photo-48mp.heic": .success(Self.cost(milliseconds: 2_400, cpu: 4_100, peakKiB: 320_000)),
        ]).run(on: folder.system)
        #expect(requests.all == ["photo-12mp.jpg 3840x2160", "photo-48mp.heic 3840x2160"])
        #expect(section.id == "decoding" && section.title == "Decoding")
        #expect(section.status == .ok)
        #expect(section.summary == "12 MP JPEG in 180 ms, 48 MP HEIC in 2.4 s, for 3840x2160")
        #expect(section.fact("decoded for") == "3840x2160, HDMI-A-1's preferred mode")
        #expect(section.fact("12 MP JPEG") == "photo-12mp.jpg (4000x3000, 4:2:0, baseline, 1.8 MB): 180 ms, CPU 171 ms, peak 60 MiB")
        #expect(section.fact("48 MP HEIC")
                    == "photo-48mp.heic (8064x6048 in 192 HEVC tiles of 512x512, turned upright): 2.4 s, CPU 4.1 s, peak 312 MiB")
        #expect(section.fact("judged against")
                    == "the default 5 s interval: a 12 MP JPEG within 1 s (a fifth of it), a 48 MP HEIC within 5 s")
        #expect(section.findings.isEmpty)
    }

    @Test func withNoConnectedDisplayThePicturesAreDecodedForA1080pScreen() throws {
        let folder = try Self.pictureFolder()
        let requests = Requests()
        let fine = Self.cost(milliseconds: 90, cpu: nil, peakKiB: nil)
        let section = Self.check(folder.root, target: nil, requests: requests,
                                 answers: ["photo-12mp.jpg": .success(fine), "photo-48mp.heic": .success(fine)]).run(on: folder.system)
        #expect(requests.all == ["photo-12mp.jpg 1920x1080", "photo-48mp.heic 1920x1080"])
        #expect(section.fact("decoded for") == "1920x1080, no connected display found: a 1080p screen's size")
        // A helper whose clock or memory could not be read: the wall time alone, said so.
        #expect(section.fact("12 MP JPEG")?.hasSuffix(": 90 ms, CPU time unknown") == true)
    }

    @Test func aDecodeOverItsBudgetIsAWarningSayingWhatToDo() throws {
        let folder = try Self.pictureFolder()
        let slow = Self.check(folder.root, answers: [
            "photo-12mp.jpg": .success(Self.cost(milliseconds: 1_300, cpu: 1_250, peakKiB: 62_000)),
            "photo-48mp.heic": .success(Self.cost(milliseconds: 7_900, cpu: 15_000, peakKiB: 330_000)),
        ]).run(on: folder.system)
        #expect(slow.status == .warning)
        #expect(slow.summary == "12 MP JPEG in 1.3 s, 48 MP HEIC in 7.9 s, for 3840x2160")
        #expect(slow.findings == [
            "A 12 MP JPEG takes 1.3 s to decode here, over a fifth of the default 5 s interval: photos of that size may not be ready "
                + "when a visitor swipes through them, or at an interval under 7 s. Resize them to the screen's size before they go on "
                + "the kiosk: a JPEG of the screen's size decodes many times faster.",
            "A 48 MP HEIC takes 7.9 s to decode here, longer than the default 5 s interval: the carousel waits for such a picture, "
                + "and its slide comes late. Give playlists of phone photos an interval of at least 8 s, or convert the photos to JPEG "
                + "at the screen's size.",
        ])
        // Exactly at the budget is within it.
        let atBudget = Self.check(folder.root, answers: [
            "photo-12mp.jpg": .success(Self.cost(milliseconds: 1_000, cpu: 990, peakKiB: nil)),
            "photo-48mp.heic": .success(Self.cost(milliseconds: 5_000, cpu: 9_000, peakKiB: nil)),
        ]).run(on: folder.system)
        #expect(atBudget.status == .ok && atBudget.findings.isEmpty)
        #expect(atBudget.summary == "12 MP JPEG in 1 s, 48 MP HEIC in 5 s, for 3840x2160")
    }

    @Test func theBudgetsAreSharesOfTheDefaultInterval() {
        let interval = KioskConfiguration().interval
        #expect(DecodingReport.phoneJPEGBudget * 5 == interval)
        #expect(DecodingReport.phoneHEICBudget == interval)
        #expect(DecodingReport.defaultInterval == interval)
        #expect(DecodingReport.budget(for: .phoneJPEG) == .milliseconds(1_000))
        #expect(DecodingReport.budget(for: .phoneHEIC) == .milliseconds(5_000))
    }

    @Test func missingPicturesAreUnavailableAndNothingIsDecoded() throws {
        let empty = try Tree([:])
        let requests = Requests()
        let section = Self.check(empty.root, requests: requests, answers: [:]).run(on: empty.system)
        #expect(requests.all.isEmpty)
        #expect(section.status == .unavailable)
        #expect(section.fact("12 MP JPEG") == "missing: \(empty.root)/photo-12mp.jpg")
        #expect(section.summary == "not measured: \(empty.root)/photo-12mp.jpg and \(empty.root)/photo-48mp.heic are missing "
                    + "(reinstall the package; in a checkout, --pictures deploy/doctor)")
        // Nothing decoded: no size decoded for, nothing judged.
        #expect(section.fact("decoded for") == nil && section.fact("judged against") == nil)
        // Installed nowhere: named where the package puts them.
        let nowhere = Self.check(nil, answers: [:]).run(on: empty.system)
        #expect(nowhere.fact("48 MP HEIC") == "missing: /usr/share/vitrine/doctor/photo-48mp.heic")
        #expect(nowhere.status == .unavailable)
        // One picture there and one missing: the one there is measured, the other said missing.
        let half = try Tree(["/photo-12mp.jpg": ""])
        let partial = Self.check(half.root, answers: ["photo-12mp.jpg": .success(Self.cost(milliseconds: 150, cpu: 140, peakKiB: nil))])
            .run(on: half.system)
        #expect(partial.status == .unavailable)
        #expect(partial.summary == "12 MP JPEG in 150 ms, 48 MP HEIC missing, for 3840x2160")
        #expect(partial.fact("48 MP HEIC") == "missing: \(half.root)/photo-48mp.heic")
    }

    @Test func aSandboxThatCannotStartIsUnavailableAndTriedOnce() throws {
        let folder = try Self.pictureFolder()
        let requests = Requests()
        let why = "decoding is not available: cannot start /nonexistent/vitrine: No such file or directory"
        let section = Self.check(folder.root, requests: requests, answers: ["photo-12mp.jpg": .failure(.cannotStart(why))])
            .run(on: folder.system)
        #expect(requests.all == ["photo-12mp.jpg 3840x2160"])
        #expect(section.status == .unavailable)
        #expect(section.summary == "not measured: " + why)
        #expect(section.fact("48 MP HEIC") == "not decoded: " + why)
        #expect(section.fact("decoded for") == nil)
        #expect(section.findings.isEmpty)
    }

    @Test func aRefusedPictureIsAProblemNamingIt() throws {
        let folder = try Self.pictureFolder()
        let reason = "\(folder.root)/photo-48mp.heic: cannot be decoded (libheif: Unsupported feature: Unsupported codec)"
        let section = Self.check(folder.root, answers: [
            "photo-12mp.jpg": .success(Self.cost(milliseconds: 150, cpu: 140, peakKiB: 60_000)),
            "photo-48mp.heic": .failure(.refused(reason)),
        ]).run(on: folder.system)
        #expect(section.status == .problem)
        #expect(section.summary == "12 MP JPEG in 150 ms, 48 MP HEIC refused, for 3840x2160")
        #expect(section.fact("48 MP HEIC") == "refused: " + reason)
        #expect(section.findings == ["The package's 48 MP HEIC is refused here (\(reason)). Reinstall the package (on Debian 13 a HEIC also "
                                     + "needs libheif-plugin-libde265): if it is still refused, so are such photos on the kiosk."])
    }

    @Test func theKiosksReportAtStartSaysItWasNotMeasured() throws {
        let tree = try Tree([:])
        let checks = Doctor.standardChecks(stateDirectory: tree.root)
        let index = try #require(checks.firstIndex { $0 is DecodingCheck })
        #expect(checks[index - 1] is TouchCheck && checks[index + 1] is VideoCheck)
        let section = checks[index].run(on: tree.system)
        #expect(section.id == "decoding")
        #expect(section.status == .unavailable)
        #expect(section.summary == DecodingCheck.notAtStart)
        #expect(section.summary.contains("`vitrine doctor`"))
        #expect(section.facts.isEmpty && section.findings.isEmpty)
        #expect(DecodingCheck.skipped("not measured (--no-decode)").run(on: DoctorSystem()).summary == "not measured (--no-decode)")
    }

    /// The kiosk's report at start replaces doctor.json: it keeps the figures
    /// `vitrine doctor` measured, with their date, rather than dropping them.
    @Test func theKiosksReportAtStartKeepsTheLastMeasuredFigures() throws {
        let folder = try Self.pictureFolder()
        let measured = Self.check(folder.root, target: nil, answers: [
            "photo-12mp.jpg": .success(Self.cost(milliseconds: 300, cpu: 280, peakKiB: 45_000)),
            "photo-48mp.heic": .success(Self.cost(milliseconds: 2_100, cpu: 2_000, peakKiB: 190_000)),
        ]).run(on: folder.system)
        let state = try Tree([:])
        let byDoctor = DoctorReport(version: "1.2.3", generatedAt: "2026-11-30T10:00:00Z", sections: [measured])
        try Doctor.save(byDoctor, stateDirectory: state.root)

        let atStart = DecodingCheck.carriedOver(stateDirectory: state.root).run(on: state.system)
        #expect(atStart.status == measured.status)
        #expect(atStart.summary == measured.summary)
        #expect(atStart.facts.first == DoctorFact("measured at", "2026-11-30T10:00:00Z by `vitrine doctor` (the kiosk's start does not measure)"))
        #expect(Array(atStart.facts.dropFirst()) == measured.facts)

        // The next start keeps the first date, not its own report's.
        try Doctor.save(DoctorReport(version: "1.2.3", generatedAt: "2026-12-01T08:00:00Z", sections: [atStart]), stateDirectory: state.root)
        let again = DecodingCheck.carriedOver(stateDirectory: state.root).run(on: state.system)
        #expect(again == atStart)

        // A report whose section was not measured (or none, or an unreadable file) carries nothing over.
        try Doctor.save(DoctorReport(version: "1.2.3", generatedAt: "2026-12-02T08:00:00Z",
                                     sections: [DecodingReport.notMeasured("not measured (--no-decode)")]), stateDirectory: state.root)
        #expect(DecodingCheck.carriedOver(stateDirectory: state.root).run(on: state.system).summary == DecodingCheck.notAtStart)
        try FileIO.writeAtomically(Array("{ not json".utf8), to: state.root + "/" + Doctor.fileName, mode: 0o644)
        #expect(DecodingCheck.carriedOver(stateDirectory: state.root).run(on: state.system).summary == DecodingCheck.notAtStart)
    }

    @Test func theSectionReadsTheSameAsTextAndAsJSON() throws {
        let folder = try Self.pictureFolder()
        let section = Self.check(folder.root, target: nil, answers: [
            "photo-12mp.jpg": .success(Self.cost(milliseconds: 1_300, cpu: 1_250, peakKiB: 62_000)),
            "photo-48mp.heic": .success(Self.cost(milliseconds: 3_400, cpu: 6_000, peakKiB: 300_000)),
        ]).run(on: folder.system)
        let report = DoctorReport(version: "1.2.3", generatedAt: "2026-11-30T10:00:00Z", sections: [section])
        #expect(report.status == .warning)
        let lines = report.text.split(separator: "\n", omittingEmptySubsequences: false).map(String.init)
        #expect(Array(lines.prefix(8)) == [
            "vitrine doctor 1.2.3, 2026-11-30T10:00:00Z: warning",
            "",
            "Decoding [warning]: 12 MP JPEG in 1.3 s, 48 MP HEIC in 3.4 s, for 1920x1080",
            "  decoded for     1920x1080, no connected display found: a 1080p screen's size",
            "  12 MP JPEG      photo-12mp.jpg (4000x3000, 4:2:0, baseline, 1.8 MB): 1.3 s, CPU 1.3 s, peak 60 MiB",
            "  48 MP HEIC      photo-48mp.heic (8064x6048 in 192 HEVC tiles of 512x512, turned upright): 3.4 s, CPU 6 s, peak 292 MiB",
            "  judged against  the default 5 s interval: a 12 MP JPEG within 1 s (a fifth of it), a 48 MP HEIC within 5 s",
            "  ! A 12 MP JPEG takes 1.3 s to decode here, over a fifth of the default 5 s interval: photos of that size may not be ready "
                + "when a visitor swipes through them, or at an interval under 7 s. Resize them to the screen's size before they go on "
                + "the kiosk: a JPEG of the screen's size decodes many times faster.",
        ])
        let json = String(decoding: try Doctor.json(report), as: UTF8.self)
        #expect(json.contains("\"id\" : \"decoding\""))
        #expect(json.contains("\"summary\" : \"12 MP JPEG in 1.3 s, 48 MP HEIC in 3.4 s, for 1920x1080\""))
        let decoded = try JSONDecoder().decode(DoctorReport.self, from: Data(try Doctor.json(report)))
        #expect(decoded == report)
    }

    @Test func durationsReadAsMillisecondsUnderASecondAndSecondsFromOne() {
        #expect(DecodingReport.duration(.microseconds(212_400)) == "212 ms")
        #expect(DecodingReport.duration(.microseconds(999_400)) == "999 ms")
        #expect(DecodingReport.duration(.microseconds(999_600)) == "1 s")
        #expect(DecodingReport.duration(.milliseconds(1_960)) == "2 s")
        #expect(DecodingReport.duration(.milliseconds(3_449)) == "3.4 s")
        #expect(DecodingReport.duration(.milliseconds(12_060)) == "12.1 s")
    }

    // MARK: The package's pictures and the real path

    /// This file is Tests/VitrineDoctorTests/DecodingCheckTests.swift: three levels under the package.
    static let repository: String = {
        var root = Substring(#filePath)
        for _ in 0..<3 { root = root[..<(root.lastIndex(of: "/") ?? root.startIndex)] }
        return String(root)
    }()

    @Test func thePackagesPicturesAreWhatTheReportSaysTheyAre() throws {
        let jpeg = try FileIO.read(Self.repository + "/" + DoctorPicture.sourceDirectory + "/" + DoctorPicture.jpeg12MP.file)
        let heic = try FileIO.read(Self.repository + "/" + DoctorPicture.sourceDirectory + "/" + DoctorPicture.heic48MP.file)
        // Small enough to ship in every package.
        #expect(jpeg.count < 2_000_000 && heic.count < 2_000_000)
        #expect(try ImageInspection.uprightSize(of: jpeg) == PixelSize(width: 4000, height: 3000))
        // Coded 8064x6048, turned upright by its irot.
        #expect(try ImageInspection.uprightSize(of: heic) == PixelSize(width: 6048, height: 8064))
        // Baseline (SOF0) with 2x2-sampled luma and 1x1 chroma: 4:2:0.
        let sof = try #require((0..<(jpeg.count - 1)).first { jpeg[$0] == 0xFF && jpeg[$0 + 1] == 0xC0 })
        #expect(jpeg[sof + 9] == 3)
        #expect([jpeg[sof + 11], jpeg[sof + 14], jpeg[sof + 17]] == [0x22, 0x11, 0x11])
        #expect(!(0..<(jpeg.count - 1)).contains { jpeg[$0] == 0xFF && jpeg[$0 + 1] == 0xC2 }, "not progressive")
        // A photo's bits, not a flat colour's: over a bit a pixel.
        #expect(jpeg.count * 8 > 4000 * 3000)
    }

    /// The `vitrine` built beside this test runner (`swift build --build-tests` builds both).
    static var vitrine: String {
        var buffer = [CChar](repeating: 0, count: 4096)
        let count = readlink("/proc/self/exe", &buffer, buffer.count - 1)
        let runner = String(decoding: buffer.prefix(max(count, 0)).map { UInt8(bitPattern: $0) }, as: UTF8.self)
        return String(runner[..<(runner.lastIndex(of: "/") ?? runner.startIndex)]) + "/vitrine"
    }

    @Test func smallPicturesDecodeThroughTheKiosksSandboxedPath() throws {
        // Small stand-ins under the pictures' names: the path is what is tested, not the board.
        let folder = try Tree([:])
        try FileIO.writeAtomically(try FileIO.read(Self.repository + "/deploy/demo/images/01-welcome.jpg"),
                                   to: folder.root + "/photo-12mp.jpg", durable: false)
        try FileIO.writeAtomically(try FileIO.read(Self.repository + "/Tests/VitrineHEIFTests/Fixtures/grid-2x2.heic"),
                                   to: folder.root + "/photo-48mp.heic", durable: false)
        // The made-up tree has no /dev/dri: decoded for a 1080p screen.
        let section = DecodingCheck(pictures: folder.root, timer: SandboxedDecodeTimer(executable: Self.vitrine)).run(on: folder.system)
        // Whether a budget was kept depends on this machine's load: not asserted.
        #expect(section.status == .ok || section.status == .warning, "\(section)")
        #expect(section.summary.hasSuffix(", for 1920x1080"), "\(section)")
        for picture in DoctorPicture.all {
            let fact = try #require(section.fact(picture.title))
            #expect(fact.hasPrefix("\(picture.file) ("), "\(fact)")
            #expect(fact.contains(", CPU ") && fact.contains(", peak ") && !fact.contains("unknown"), "\(fact)")
        }
    }
}
