import Foundation
import Glibc
import Logging
import VitrineConfig
import VitrineCore
import VitrineRuntime

/// Proof of play for one kiosk: the log of slides shown (`PlayLog`, in
/// `STATE_DIRECTORY/plays/`) and, with `plays.upload`, its uploader. `vitrine
/// run` hands it the kiosk's events; `GET /api/v1/plays` and `/metrics` read it.
public final class ProofOfPlay: Sendable {
    public let log: PlayLog
    public let uploader: PlayUploader?

    /// Opens the log in `stateDirectory/plays`, recovering what a crash left.
    /// - Parameter device: the kiosk's name in upload batches.
    public init(stateDirectory: String, settings: PlaysConfiguration, device: String, logger: Logger,
                bounds: PlayLogLayout.Bounds = .standard) throws(SystemError) {
        let log = try PlayLog(directory: stateDirectory + "/plays", bounds: bounds, logger: logger,
                              hashFile: { ContentDigest.sha256(file: $0) })
        self.log = log
        uploader = settings.upload.map { _ in PlayUploader(settings: settings, log: log, device: device, logger: logger) }
    }

    /// The kiosk's name when the channel gives none: the host's.
    public static func hostName() -> String {
        var name = [CChar](repeating: 0, count: 256)
        guard gethostname(&name, name.count - 1) == 0 else { return "vitrine" }
        return String(decoding: name.prefix { $0 != 0 }.map { UInt8(bitPattern: $0) }, as: UTF8.self)
    }

    /// A kiosk event, on the display thread: hands it to the log's queue, never waiting.
    public func handle(_ event: KioskEvent) {
        switch event {
        case .slideShown(let shown):
            log.shown(shown)
        case .screenChanged(lit: false):
            log.ended(at: MonotonicClock.now())
        default:
            break
        }
    }

    /// The kiosk stopped: the play on screen ends now and is written.
    public func stop() {
        log.ended(at: MonotonicClock.now())
        log.flush()
    }

    /// Uploads until cancelled; returns at once without `plays.upload`.
    public func run() async {
        await uploader?.run()
    }

    /// The body of `GET /api/v1/plays`.
    func object(_ query: PlayQuery) -> [String: Any] {
        let (records, more) = log.query(query)
        let status = log.status
        return ["plays": records.map(\.object), "more": more, "dropped": status.dropped,
                "upload": uploader.map { Self.uploadObject($0.status) } ?? NSNull()]
    }

    static func uploadObject(_ status: PlayUploader.Status) -> [String: Any] {
        ["url": status.url, "pending": status.pending, "uploaded": status.uploaded, "failures": status.failures,
         "dropped": status.dropped, "lastError": status.lastError ?? NSNull()]
    }

    /// The Prometheus lines (appended to `/metrics`).
    public func metrics() -> String {
        let log = self.log.status
        var lines: [String] = []
        func metric(_ name: String, _ type: String, _ help: String, _ value: String) {
            lines += ["# HELP \(name) \(help)", "# TYPE \(name) \(type)", "\(name) \(value)"]
        }
        metric("vitrine_plays_recorded_total", "counter", "Plays written to the proof-of-play log since start.", "\(log.recorded)")
        metric("vitrine_plays_dropped_total", "counter", "Plays the log's bound deleted, oldest first, ever.", "\(log.dropped)")
        metric("vitrine_plays_kept", "gauge", "Plays the log holds now.", "\(log.kept)")
        metric("vitrine_play_write_failures_total", "counter", "Plays lost because the disk refused them.", "\(log.writeFailures)")
        if let upload = uploader?.status {
            metric("vitrine_plays_uploaded_total", "counter", "Plays the upload receiver accepted since start.", "\(upload.uploaded)")
            metric("vitrine_play_upload_failures_total", "counter", "Upload batches that did not get through since start.", "\(upload.failures)")
            metric("vitrine_plays_upload_pending", "gauge", "Plays waiting to be uploaded.", "\(upload.pending)")
            metric("vitrine_plays_upload_dropped_total", "counter", "Plays the log dropped before they were uploaded, ever.", "\(upload.dropped)")
        }
        return lines.joined(separator: "\n") + "\n"
    }
}
