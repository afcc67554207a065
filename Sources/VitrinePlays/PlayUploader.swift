import AsyncHTTPClient
import FoundationEssentials
import Logging
import NIOCore
import NIOPosix
import Synchronization
import VitrineChannel
import VitrineConfig
import VitrineCore
import VitrineRuntime
import VitrineSystem
import VitrineAPI

/// POSTs the play log in batches to `plays.upload` (AsyncHTTPClient, as the
/// URL slides use): the I/O edge of `PlayUploadQueue`, which decides when and
/// what. A batch is
///
///     {"device": "lobby-left", "dropped": 0, "plays": [PlayRecord.body, …]}
///
/// and any 2xx accepts it all. With the kiosk's signing key (`PlaySigningKey`)
/// the request carries `Vitrine-Signature`, the base64 line of a signify
/// signature of the body's exact bytes, and `Vitrine-Key`, the key's number.
/// The cursor (the newest sequence accepted) is
/// written to `plays/upload.cursor` with `FileIO.writeAtomically` before the
/// next batch goes, so a restart sends nothing twice that was accepted, and at
/// worst (a crash between the answer and the write) one batch again: a
/// receiver should key plays by device and `seq`.
public final class PlayUploader: Sendable {
    /// What the uploads have done, for the API and the metrics.
    public struct Status: Hashable, Sendable {
        public var url: String
        /// Plays accepted since the kiosk started.
        public var uploaded = 0
        /// Batches that did not get through since the kiosk started.
        public var failures = 0
        public var pending: UInt64 = 0
        /// Plays the log dropped before they were accepted, ever.
        public var dropped: UInt64 = 0
        public var lastError: String?
    }

    public let url: String
    private let log: PlayLog
    private let device: String
    private let logger: Logger
    private let timeout: Duration
    private let policy: OutboundPolicy
    private let signingKey: SignifySecretKey?
    private let cursorPath: String
    private let queue: Mutex<PlayUploadQueue>
    /// The board's last health reading, sent with each batch.
    private let boardHealth: @Sendable () -> BoardHealthBody?
    /// The update helper's last run, sent with each batch.
    private let softwareStatus: @Sendable () -> SoftwareStatusBody?
    private let published: Mutex<Status>

    /// - Parameter policy: where the receiver may be (the local file's `api.allowAddresses`).
    /// - Parameter signingKey: signs each batch; nil sends them unsigned.
    public init(settings: PlaysConfiguration, log: PlayLog, device: String, logger: Logger, policy: OutboundPolicy,
                signingKey: SignifySecretKey? = nil, timeout: Duration = .seconds(30), start: MonotonicInstant = MonotonicClock.now(),
                backoffBase: Duration = .seconds(10), boardHealth: @escaping @Sendable () -> BoardHealthBody? = { nil },
                softwareStatus: @escaping @Sendable () -> SoftwareStatusBody? = { nil }) {
        self.boardHealth = boardHealth
        self.softwareStatus = softwareStatus
        url = settings.upload ?? ""
        self.policy = policy
        self.signingKey = signingKey
        self.log = log
        self.device = device
        self.logger = logger
        self.timeout = timeout
        cursorPath = log.directory + "/upload.cursor"
        let stored = (try? FileIO.read(cursorPath, limit: 64)).map { String(decoding: $0, as: UTF8.self) }
        let cursor = PlayUploadQueue.resumedCursor(stored, logLast: log.status.lastSequence)
        queue = Mutex(PlayUploadQueue(batch: settings.batch, interval: settings.interval, acknowledged: cursor.acknowledged,
                                      skipped: cursor.skipped, start: start, backoffBase: backoffBase))
        published = Mutex(Status(url: url))
        publish()
    }

    public var status: Status {
        publish()
        return published.withLock { $0 }
    }

    /// Uploads until the task is cancelled.
    public func run() async {
        while !Task.isCancelled {
            let now = MonotonicClock.now()
            let next = queue.withLock { $0.nextAttempt }
            if now >= next {
                await attempt()
                continue
            }
            try? await Task.sleep(for: next - now)
        }
    }

    /// One turn: the next batch after the cursor, sent; or nothing waiting.
    func attempt() async {
        let (after, batch) = queue.withLock { ($0.acknowledged, $0.batch) }
        let log = self.log
        // The log answers on its own queue: wait for it on NIO's blocking pool, not here.
        guard let (records, _) = try? await NIOThreadPool.singleton.runIfActive({
            log.query(PlayQuery(afterSequence: after, limit: batch))
        }) else { return }
        guard let first = records.first, let last = records.last else {
            queue.withLock { $0.idle(at: MonotonicClock.now()) }
            publish()
            return
        }
        do {
            try await send(records)
            let cursor = queue.withLock { queue in
                queue.accepted(first.sequence...last.sequence, full: records.count == batch, at: MonotonicClock.now())
                return queue.cursorText
            }
            let path = cursorPath
            try await NIOThreadPool.singleton.runIfActive { try FileIO.writeAtomically(Array(cursor.utf8), to: path) }
            published.withLock {
                $0.uploaded += records.count
                $0.lastError = nil
            }
            logger.debug("uploaded \(records.count) plays", metadata: ["to": "\(url)", "through": "\(last.sequence)"])
        } catch {
            // The kiosk is stopping: the batch stays queued for the next start.
            if Task.isCancelled { return }
            var random = SystemRandomNumberGenerator()
            let failures = queue.withLock { queue in
                queue.failed(at: MonotonicClock.now(), using: &random)
                return queue.failures
            }
            published.withLock {
                $0.failures += 1
                $0.lastError = "\(error)"
            }
            // Once per outage, not once per retry.
            if failures == 1 { logger.warning("cannot upload plays: \(error); they stay queued and go later") }
        }
        publish()
    }

    private func send(_ records: [PlayRecord]) async throws {
        let dropped = queue.withLock { $0.droppedUnsent(logDropped: log.status.dropped) }
        let batch = PlayUploadBatch(device: device, dropped: dropped, plays: records.map(\.body), board: boardHealth(),
                                    software: softwareStatus())
        let data = try JSONText.encode(batch, [.sortedKeys, .withoutEscapingSlashes])
        var request = HTTPClientRequest(url: url)
        request.method = .POST
        request.headers.add(name: "Content-Type", value: "application/json")
        if let signingKey {
            request.headers.add(name: "Vitrine-Signature", value: try PlaySigningKey.signatureLine(Array(data), key: signingKey))
            request.headers.add(name: "Vitrine-Key", value: "\(signingKey.keyNumber)")
        }
        request.body = .bytes(ByteBuffer(bytes: data))
        let status = try await OutboundRequest.execute(request, policy: policy, timeout: timeout) { response in
            _ = try? await response.body.collect(upTo: 64 * 1024)
            return Int(response.status.code)
        }
        guard (200..<300).contains(status) else {
            // The standard phrase for the code, never the receiver's own words.
            throw UploadRefused(status: status, reason: OutboundRequest.reason(status))
        }
    }

    struct UploadRefused: Error, CustomStringConvertible {
        var status: Int
        var reason: String
        var description: String { "the receiver answered \(status) \(reason)" }
    }

    private func publish() {
        let summary = log.status
        let (pending, dropped) = queue.withLock {
            ($0.pending(logLast: summary.lastSequence, logDropped: summary.dropped), $0.droppedUnsent(logDropped: summary.dropped))
        }
        published.withLock {
            $0.pending = pending
            $0.dropped = dropped
        }
    }
}
