import Foundation
import Hummingbird
import HummingbirdTesting
import Logging
import NIOCore
import Synchronization
import ServerTestSupport
import Testing
import VitrineChannel
import VitrineConfig
import VitrineCore
@testable import VitrineRuntime
@testable import VitrineAPI
@testable import VitrinePlays
import VitrineSystem

/// A receiver of play uploads on loopback: keeps every body it accepts, and
/// can be taken down (503).
final class PlayReceiver: Sendable {
    /// What the route shares with the tests.
    final class Record: Sendable {
        /// Every body accepted, as received.
        let bodies = Mutex<[Data]>([])
        /// Each accepted body's Vitrine-Signature and Vitrine-Key headers.
        let signatures = Mutex<[(signature: String?, key: String?)]>([])
        let down = Mutex(false)
    }

    let record = Record()
    private let server: LoopbackServer

    var url: String { "http://127.0.0.1:\(server.port ?? 0)/plays" }
    func setDown(_ value: Bool) { record.down.withLock { $0 = value } }
    var bodies: [[String: Any]] {
        record.bodies.withLock { $0 }.compactMap { try? JSONSerialization.jsonObject(with: $0) as? [String: Any] }
    }
    var sequences: [UInt64] {
        bodies.flatMap { ($0["plays"] as? [[String: Any]] ?? []).compactMap { ($0["seq"] as? NSNumber)?.uint64Value } }
    }

    init() async throws {
        let router = Router()
        let record = self.record
        router.post("/plays") { request, _ -> Response in
            if record.down.withLock({ $0 }) { return Response(status: .serviceUnavailable) }
            var request = request
            let data = Data(try await request.collectBody(upTo: 1 << 20).readableBytesView)
            guard (try? JSONSerialization.jsonObject(with: data)) is [String: Any] else { return Response(status: .badRequest) }
            record.bodies.withLock { $0.append(data) }
            record.signatures.withLock {
                $0.append((request.headers[.init("Vitrine-Signature")!], request.headers[.init("Vitrine-Key")!]))
            }
            return Response(status: .noContent)
        }
        server = try await LoopbackServer(router)
    }

    func stop() async { await server.stop() }
}

@Suite("Proof of play: API and upload")
struct PlaysTests {
    static func shown(_ slide: Int, at seconds: Double) -> SlideShown {
        let instant = MonotonicInstant(nanoseconds: Int64(seconds * 1e9))
        return SlideShown(slide: slide, path: "slide\(slide).jpg", file: nil, sha256: nil, presented: instant,
                          wallNanoseconds: 1_795_420_800_000_000_000 + instant.nanoseconds)
    }

    /// A log in a temp dir with `count` plays recorded.
    static func log(_ directory: String, plays count: Int, bounds: PlayLogLayout.Bounds = .standard) throws -> PlayLog {
        try FileManager.default.createDirectory(atPath: directory, withIntermediateDirectories: true)
        let log = try PlayLog(directory: directory + "/plays", bounds: bounds, logger: Logger(label: "test"), hashFile: { _ in nil })
        for index in 0...count { log.shown(Self.shown(index % 3, at: Double(index))) }
        log.flush()
        return log
    }

    // MARK: The queue's policy, on virtual time

    @Test func fullBatchesGoAtOnceAndThenTheIntervalRules() {
        let start = MonotonicInstant(nanoseconds: 0)
        var queue = PlayUploadQueue(batch: 10, interval: .seconds(60), acknowledged: 0, start: start)
        #expect(queue.isDue(at: start), "the first upload after a start goes at once")
        #expect(queue.pending(logLast: 25, logDropped: 0) == 25)
        queue.accepted(1...10, full: true, at: start + .seconds(1))
        #expect(queue.isDue(at: start + .seconds(1)) && queue.acknowledged == 10)
        queue.accepted(11...15, full: false, at: start + .seconds(2))
        #expect(!queue.isDue(at: start + .seconds(61)) && queue.isDue(at: start + .seconds(62)))
        queue.idle(at: start + .seconds(62))
        #expect(queue.nextAttempt == start + .seconds(122))
        #expect(queue.pending(logLast: 15, logDropped: 0) == 0 && queue.pending(logLast: nil, logDropped: 0) == 0)
    }

    @Test func failuresBackOffExponentiallyWithJitterUpToTheLimitAndASuccessResets() {
        let start = MonotonicInstant(nanoseconds: 0)
        var queue = PlayUploadQueue(batch: 10, interval: .seconds(60), acknowledged: 0, start: start,
                                    backoffBase: .seconds(10), backoffLimit: .seconds(600))
        var random = SystemRandomNumberGenerator()
        var now = start
        var waits: [Duration] = []
        for _ in 0..<10 {
            queue.failed(at: now, using: &random)
            waits.append(queue.nextAttempt - now)
            now = queue.nextAttempt
        }
        // Equal jitter: between half the ceiling and the ceiling, the ceiling doubling from 10 s to 600 s.
        let ceilings: [Duration] = [10, 20, 40, 80, 160, 320, 600, 600, 600, 600].map { .seconds($0) }
        for (wait, ceiling) in zip(waits, ceilings) { #expect(wait >= ceiling / 2 && wait <= ceiling, "\(wait) for \(ceiling)") }
        #expect(queue.failures == 10 && queue.acknowledged == 0)
        queue.accepted(1...3, full: false, at: now)
        #expect(queue.failures == 0 && queue.nextAttempt == now + .seconds(60))
    }

    @Test func playsTheLogDroppedBeforeTheyWentAreCountedOnceAndSurviveARestart() {
        let start = MonotonicInstant(nanoseconds: 0)
        var queue = PlayUploadQueue(batch: 10, interval: .seconds(60), acknowledged: 5, start: start)
        // The log dropped 1…20 while offline: 6…20 never went.
        #expect(queue.droppedUnsent(logDropped: 20) == 15 && queue.pending(logLast: 30, logDropped: 20) == 10)
        queue.accepted(21...30, full: true, at: start)
        #expect(queue.skipped == 15 && queue.droppedUnsent(logDropped: 20) == 15)
        let cursor = PlayUploadQueue.resumedCursor(queue.cursorText, logLast: 30)
        #expect(cursor.acknowledged == 30 && cursor.skipped == 15)
        // A log emptied by hand starts again, and so does the cursor.
        #expect(PlayUploadQueue.resumedCursor("30 15\n", logLast: nil).acknowledged == 0)
        #expect(PlayUploadQueue.resumedCursor("garbage", logLast: 9) == (0, 0))
    }

    // MARK: The uploader against a receiver on loopback

    @Test func batchesQueueWhileTheReceiverIsDownAndGoOnceLaterNotAgainAfterARestart() async throws {
        let directory = NSTemporaryDirectory() + "vitrine-plays-" + UUID().uuidString
        defer { try? FileManager.default.removeItem(atPath: directory) }
        let receiver = try await PlayReceiver()
        let log = try Self.log(directory, plays: 5)
        var settings = PlaysConfiguration()
        settings.upload = receiver.url
        settings.batch = 2
        settings.interval = .seconds(60)
        // A generous timeout: an upload that times out after the receiver took it is sent again
        // (at least once, by design), which a CPU-starved CI machine would turn into [1, 2, 1, 2, …].
        let uploader = PlayUploader(settings: settings, log: log, device: "lobby-left", logger: Logger(label: "test"), policy: .loopbackAllowed,
                                    timeout: .seconds(30), backoffBase: .milliseconds(50))
        #expect(uploader.status.pending == 5)

        receiver.setDown(true)
        await uploader.attempt()
        #expect(uploader.status.failures == 1 && uploader.status.pending == 5 && uploader.status.uploaded == 0)
        #expect(uploader.status.lastError?.contains("503") == true)

        receiver.setDown(false)
        for _ in 0..<4 { await uploader.attempt() }
        #expect(receiver.sequences == [1, 2, 3, 4, 5])
        #expect(uploader.status.uploaded == 5 && uploader.status.pending == 0 && uploader.status.lastError == nil)
        let first = try #require(receiver.bodies.first.map { ($0["device"] as? String, $0["dropped"] as? Int) })
        #expect(first.0 == "lobby-left" && first.1 == 0)
        #expect(String(decoding: try FileIO.read(directory + "/plays/upload.cursor"), as: UTF8.self) == "5 0\n")

        // A restart: the cursor says everything went.
        let again = PlayUploader(settings: settings, log: log, device: "lobby-left", logger: Logger(label: "test"), policy: .loopbackAllowed)
        #expect(again.status.pending == 0)
        await again.attempt()
        #expect(receiver.sequences.count == 5)
        await receiver.stop()
    }

    /// Each batch carries the board's last health reading, so that a fleet's operator sees
    /// under-voltage and storage errors where the plays arrive; none before the first reading.
    @Test func batchesCarryTheBoardsLastHealthReading() async throws {
        let directory = NSTemporaryDirectory() + "vitrine-plays-" + UUID().uuidString
        defer { try? FileManager.default.removeItem(atPath: directory) }
        let receiver = try await PlayReceiver()
        let log = try Self.log(directory, plays: 3)
        var settings = PlaysConfiguration()
        settings.upload = receiver.url
        settings.batch = 2
        settings.interval = .seconds(60)
        let reading = Mutex<BoardHealthBody?>(nil)
        let uploader = PlayUploader(settings: settings, log: log, device: "lobby-left", logger: Logger(label: "test"),
                                    policy: .loopbackAllowed, timeout: .seconds(30), backoffBase: .milliseconds(50),
                                    boardHealth: { reading.withLock { $0 } })
        await uploader.attempt()
        #expect(receiver.bodies.count == 1 && receiver.bodies.first?["board"] == nil, "no reading yet, no board")
        reading.withLock {
            $0 = BoardHealthBody(status: "problem", checkedAt: "2026-11-28T04:00:00Z", subjects: [
                BoardHealthSubjectBody(id: "power", status: "problem", summary: "Under-voltage now",
                                       findings: ["Under-voltage now: the supply is too weak for the board."]),
                BoardHealthSubjectBody(id: "storage", status: "ok", summary: "No errors", findings: []),
            ])
        }
        await uploader.attempt()
        let board = try #require(receiver.bodies.last?["board"] as? [String: Any])
        #expect(board["status"] as? String == "problem" && board["checkedAt"] as? String == "2026-11-28T04:00:00Z")
        let subjects = try #require(board["subjects"] as? [[String: Any]])
        #expect(subjects.map { $0["id"] as? String } == ["power", "storage"])
        #expect((subjects[0]["findings"] as? [String])?.first?.hasPrefix("Under-voltage now") == true)
        #expect(receiver.sequences == [1, 2, 3])
        await receiver.stop()
    }

    /// Each batch is signed with the kiosk's own key, made at first start in
    /// the log's directory and kept: the receiver checks the signature of the
    /// exact bytes with device.pub, here and with signify-openbsd.
    @Test func batchesAreSignedWithTheKiosksOwnKey() async throws {
        let directory = NSTemporaryDirectory() + "vitrine-plays-" + UUID().uuidString
        defer { try? FileManager.default.removeItem(atPath: directory) }
        let receiver = try await PlayReceiver()
        var settings = PlaysConfiguration()
        settings.upload = receiver.url
        settings.batch = 2
        try FileManager.default.createDirectory(atPath: directory, withIntermediateDirectories: true)
        let proof = try ProofOfPlay(stateDirectory: directory, settings: settings, device: "lobby-left", logger: Logger(label: "test"),
                                    policy: .loopbackAllowed)
        let key = try #require(proof.signingKey)
        let publicFile = directory + "/plays/" + PlaySigningKey.publicFileName
        let published = try SignifyPublicKey(parsing: try FileIO.read(publicFile))
        #expect(published.keyNumber == key.keyNumber)
        #expect(proof.body(PlayQuery()).signingKey == PlaySigningKey.publicLine(key))
        let mode = try FileManager.default.attributesOfItem(atPath: directory + "/plays/device.sec")[.posixPermissions] as? Int
        #expect(mode == 0o600)
        for index in 0...3 { proof.log.shown(Self.shown(index, at: Double(index))) }
        proof.log.flush()
        let uploader = try #require(proof.uploader)
        await uploader.attempt()
        await uploader.attempt()
        let bodies = receiver.record.bodies.withLock { $0 }
        let headers = receiver.record.signatures.withLock { $0 }
        #expect(bodies.count == 2 && headers.count == 2)
        for (body, header) in zip(bodies, headers) {
            let signatureFile = Array("untrusted comment: from the header\n\(header.signature ?? "")\n".utf8)
            let signature = try SignifySignature(parsing: signatureFile)
            #expect(published.isValid(signature, for: Array(body)))
            #expect(header.key == "\(key.keyNumber)")
            // One byte changed: no longer valid.
            var forged = Array(body)
            forged[forged.count / 2] ^= 1
            #expect(!published.isValid(signature, for: forged))
            if FileManager.default.isExecutableFile(atPath: "/usr/bin/signify-openbsd") {
                let bodyFile = directory + "/batch.json", sigFile = directory + "/batch.json.sig"
                try Array(body).write(to: bodyFile)
                try signatureFile.write(to: sigFile)
                let process = Process()
                process.executableURL = URL(fileURLWithPath: "/usr/bin/signify-openbsd")
                process.arguments = ["-V", "-q", "-p", publicFile, "-x", sigFile, "-m", bodyFile]
                try process.run()
                process.waitUntilExit()
                #expect(process.terminationStatus == 0, "signify-openbsd -V")
            }
        }
        // A restart keeps the key.
        let again = try ProofOfPlay(stateDirectory: directory, settings: settings, device: "lobby-left", logger: Logger(label: "test"),
                                    policy: .loopbackAllowed)
        #expect(again.signingKey?.keyNumber == key.keyNumber)
        await receiver.stop()
    }

    @Test func runningItUploadsByItselfAndCountsWhatTheBoundDropped() async throws {
        let directory = NSTemporaryDirectory() + "vitrine-plays-" + UUID().uuidString
        defer { try? FileManager.default.removeItem(atPath: directory) }
        let receiver = try await PlayReceiver()
        // Small segments: most of 60 plays are dropped before any upload.
        let log = try Self.log(directory, plays: 60, bounds: .init(segmentBytes: 1024, maxSegments: 2))
        let dropped = log.status.dropped
        #expect(dropped > 0)
        var settings = PlaysConfiguration()
        settings.upload = receiver.url
        settings.batch = 4
        settings.interval = .seconds(1)
        let uploader = PlayUploader(settings: settings, log: log, device: "k", logger: Logger(label: "test"), policy: .loopbackAllowed)
        let running = Task { await uploader.run() }
        for _ in 0..<250 where receiver.sequences.last != 60 { try await Task.sleep(for: .milliseconds(20)) }
        running.cancel()
        await running.value
        #expect(receiver.sequences == Array((dropped + 1)...60))
        #expect(uploader.status.dropped == dropped && uploader.status.pending == 0)
        #expect((receiver.bodies.last?["dropped"] as? NSNumber)?.uint64Value == dropped)
        await receiver.stop()
    }

    // MARK: GET /api/v1/plays through the router

    @Test func slidesShownAreServedWithTheirHashStartAndDuration() async throws {
        let harness = try ServerHarness()
        defer { harness.close() }
        let red = ContentDigest.sha256(try FileIO.read(harness.directory + "/red.jpg"))
        let before = Date()
        try await harness.application().test(.router) { client in
            #expect(await harness.eventually { harness.api.link.status.currentSlide == 0 && harness.api.monitoring.metrics[0].metrics.snapshot.framesPresented > 0 })
            try await Task.sleep(for: .milliseconds(100))
            for command in ["next", "next"] {
                let slide = harness.api.link.status.currentSlide
                #expect(try await StatusAndEventsTests.control(client, #"{"command": "\#(command)"}"#).0 == .accepted)
                #expect(await harness.eventually { harness.api.link.status.currentSlide != slide })
                try await Task.sleep(for: .milliseconds(100))
            }
            harness.api.plays?.log.flush()
            let answer = try await client.execute(uri: "/api/v1/plays", method: .get, headers: authorized()) { json($0.body) }
            let plays = try #require(answer["plays"] as? [[String: Any]])
            #expect(plays.map { $0["slide"] as? Int } == [0, 1])
            #expect(plays.map { $0["seq"] as? Int } == [1, 2])
            #expect(plays.first?["path"] as? String == "red.jpg" && plays.first?["sha256"] as? String == red)
            #expect(answer["more"] as? Bool == false && answer["dropped"] as? Int == 0 && answer["upload"] is NSNull)
            let start = try #require(plays.first?["start"] as? String)
            #expect(start.count == 27 && start.hasSuffix("Z"))
            let startDate = try #require(ISO8601DateFormatter.withFraction.date(from: start))
            #expect(abs(startDate.timeIntervalSince(before)) < 10)
            #expect(((plays.first?["durationMs"] as? Int) ?? 0) >= 50)

            let limited = try await client.execute(uri: "/api/v1/plays?limit=1", method: .get, headers: authorized()) { json($0.body) }
            #expect((limited["plays"] as? [[String: Any]])?.count == 1 && limited["more"] as? Bool == true)
            let second = try #require(plays.last?["start"] as? String)
            let since = try await client.execute(uri: "/api/v1/plays?since=\(second)", method: .get, headers: authorized()) { json($0.body) }
            #expect((since["plays"] as? [[String: Any]])?.map { $0["seq"] as? Int } == [2])
            let later = try await client.execute(uri: "/api/v1/plays?since=2100-01-01T00:00:00%2B01:00", method: .get, headers: authorized()) {
                json($0.body)
            }
            #expect((later["plays"] as? [[String: Any]])?.isEmpty == true)

            try await client.execute(uri: "/metrics", method: .get) { response in
                let text = String(buffer: response.body)
                #expect(text.contains("vitrine_plays_recorded_total 2") && text.contains("vitrine_plays_dropped_total 0"))
            }
        }
    }

    @Test(arguments: [
        ("since=yesterday", "since"), ("since=2026-11-23", "since"), ("limit=0", "limit"), ("limit=10001", "limit"),
        ("limit=ten", "limit"),
    ])
    func badQueryValuesAre400NamingTheParameter(query: String, parameter: String) async throws {
        let harness = try ServerHarness()
        defer { harness.close() }
        try await harness.application().test(.router) { client in
            try await client.execute(uri: "/api/v1/plays?\(query)", method: .get, headers: authorized()) { response in
                #expect(response.status == .badRequest)
                let answer = json(response.body)
                #expect((answer["error"] as? String)?.hasPrefix("\(parameter) must be") == true)
                #expect((answer["issues"] as? [[String: Any]])?.first?["path"] as? String == parameter)
            }
            try await client.execute(uri: "/api/v1/plays", method: .get) { #expect($0.status == .unauthorized) }
        }
    }

    @Test func aPushMayNotSetPlays() async throws {
        let harness = try ServerHarness()
        defer { harness.close() }
        try await harness.application().test(.router) { client in
            let (status, answer) = try await sendJSON(client, .put, "/api/v1/config",
                                                      #"{"slides": ["green.jpg"], "plays": {"upload": "https://evil.example/p"}}"#)
            #expect(status == .unprocessableContent)
            #expect((answer["issues"] as? [[String: Any]])?.contains { $0["path"] as? String == "plays" } == true)
        }
    }
}

extension ISO8601DateFormatter {
    static var withFraction: ISO8601DateFormatter {
        let formatter = ISO8601DateFormatter()
        formatter.formatOptions = [.withInternetDateTime, .withFractionalSeconds]
        return formatter
    }
}
