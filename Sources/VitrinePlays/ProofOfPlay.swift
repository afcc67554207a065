import FoundationEssentials
import Glibc
import Logging
import Synchronization
import VitrineChannel
import VitrineConfig
import VitrineCore
import VitrineRuntime
import VitrineSystem
import VitrineAPI

/// Proof of play for one kiosk: the log of slides shown (`PlayLog`, in
/// `STATE_DIRECTORY/plays/`) and its uploader, to the local file's
/// `plays.upload` or else the URL the followed channel names. `vitrine run`
/// hands it every output group's events, each with the group's name;
/// `GET /api/v1/plays` and `/metrics` read it.
public final class ProofOfPlay: Sendable {
    public let log: PlayLog
    /// The local file's `plays` section: its `upload` wins over the channel's.
    private let settings: PlaysConfiguration
    private let device: String
    private let logger: Logger
    private let policy: OutboundPolicy
    private let boardHealth: @Sendable () -> BoardHealthBody?
    private let softwareStatus: @Sendable () -> SoftwareStatusBody?
    /// Signs upload batches (`PlaySigningKey`); nil when it could not be made.
    public let signingKey: SignifySecretKey?
    private struct Uploading {
        var uploader: PlayUploader?
        var task: Task<Void, Never>?
        var running = false
    }
    private let uploading: Mutex<Uploading>

    /// Opens the log in `stateDirectory/plays`, recovering what a crash left.
    /// - Parameters:
    ///   - device: the kiosk's name in upload batches.
    ///   - channelUpload: the URL the followed channel named when last applied, if any.
    /// - Parameter policy: where uploads may go (the local file's `api.allowAddresses`).
    ///   - boardHealth: the board's last health reading, sent with each batch.
    ///   - softwareStatus: the update helper's last run, sent with each batch.
    public init(stateDirectory: String, settings: PlaysConfiguration, device: String, logger: Logger, policy: OutboundPolicy,
                bounds: PlayLogLayout.Bounds = .standard, channelUpload: String? = nil,
                boardHealth: @escaping @Sendable () -> BoardHealthBody? = { nil },
                softwareStatus: @escaping @Sendable () -> SoftwareStatusBody? = { nil }) throws(SystemError) {
        let log = try PlayLog(directory: stateDirectory + "/plays", bounds: bounds, logger: logger,
                              hashFile: { ContentDigest.sha256(file: $0) })
        self.log = log
        self.settings = settings
        self.device = device
        self.logger = logger
        self.policy = policy
        self.boardHealth = boardHealth
        self.softwareStatus = softwareStatus
        let signingKey = PlaySigningKey.loadOrCreate(directory: log.directory, device: device, logger: logger)
        self.signingKey = signingKey
        var effective = settings
        effective.upload = settings.upload ?? channelUpload
        uploading = Mutex(Uploading(uploader: effective.upload.map { _ in
            PlayUploader(settings: effective, log: log, device: device, logger: logger, policy: policy, signingKey: signingKey,
                         boardHealth: boardHealth, softwareStatus: softwareStatus)
        }))
    }

    /// The uploader in use, nil when no URL is set.
    public var uploader: PlayUploader? { uploading.withLock { $0.uploader } }

    /// The followed channel named `url` for proof of play (nil: none). Unless
    /// the local file sets its own, uploads go there from now on: the uploader
    /// for the old URL stops (a batch it was sending may go again, which a
    /// receiver keying plays by device and `seq` ignores), one for the new URL
    /// carries on from the same cursor.
    public func useChannelUpload(_ url: String?) {
        guard settings.upload == nil, url != uploader?.url else { return }
        var effective = settings
        effective.upload = url
        let next = url.map { _ in
            PlayUploader(settings: effective, log: log, device: device, logger: logger, policy: policy, signingKey: signingKey,
                         boardHealth: boardHealth, softwareStatus: softwareStatus)
        }
        uploading.withLock { state in
            state.task?.cancel()
            state.uploader = next
            state.task = state.running ? next.map { uploader in Task { await uploader.run() } } : nil
        }
        logger.notice(url.map { "proof of play: uploading to \($0), the channel's plays.upload" }
                      ?? "proof of play: the channel names no upload URL any more; plays are kept here only")
    }

    /// The kiosk's name when the channel gives none: the host's.
    public static func hostName() -> String {
        var name = [CChar](repeating: 0, count: 256)
        guard gethostname(&name, name.count - 1) == 0 else { return "vitrine" }
        return String(decoding: name.prefix { $0 != 0 }.map { UInt8(bitPattern: $0) }, as: UTF8.self)
    }

    /// A kiosk event, on the display thread of the output group that emitted
    /// it: hands it to the log's queue, never waiting.
    /// - Parameter output: the group's name, which its plays are recorded under
    ///   (nil: the kiosk's only group, unnamed). A mirror group is one loop, so
    ///   its play is one record, under its leading connector's name.
    public func handle(_ event: KioskEvent, output: String? = nil) {
        switch event {
        case .slideShown(let shown):
            log.shown(shown, output: output)
        case .videoPlayed(let slide, let played):
            log.videoPlayed(slide: slide, played: played, output: output)
        case .screenChanged(lit: false, let at):
            log.ended(at: at, output: output)
        default:
            break
        }
    }

    /// The kiosk stopped at `now`: the play on each screen ends then and is written.
    public func stop(at now: MonotonicInstant) {
        log.endedEverywhere(at: now)
        log.flush()
    }

    /// Uploads until cancelled, to whichever URL is in force (see `useChannelUpload`).
    public func run() async {
        uploading.withLock { state in
            state.running = true
            state.task = state.uploader.map { uploader in Task { await uploader.run() } }
        }
        while !Task.isCancelled { try? await Task.sleep(for: .seconds(3600)) }
        uploading.withLock { state in
            state.task?.cancel()
            state.running = false
        }
    }

    /// The body of `GET /api/v1/plays`.
    package func body(_ query: PlayQuery) -> PlaysBody {
        let (records, more) = log.query(query)
        return PlaysBody(plays: records.map(\.body), more: more, dropped: log.status.dropped,
                         upload: uploader.map { PlayUploadBody($0.status) }, signingKey: signingKey.map(PlaySigningKey.publicLine))
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
        metric("vitrine_plays_dropped_for_space_total", "counter", "Old plays deleted since start to make room on a full disk.",
               "\(log.droppedForSpace)")
        if let upload = uploader?.status {
            metric("vitrine_plays_uploaded_total", "counter", "Plays the upload receiver accepted since start.", "\(upload.uploaded)")
            metric("vitrine_play_upload_failures_total", "counter", "Upload batches that did not get through since start.", "\(upload.failures)")
            metric("vitrine_plays_upload_pending", "gauge", "Plays waiting to be uploaded.", "\(upload.pending)")
            metric("vitrine_plays_upload_dropped_total", "counter", "Plays the log dropped before they were uploaded, ever.", "\(upload.dropped)")
        }
        return lines.joined(separator: "\n") + "\n"
    }
}
