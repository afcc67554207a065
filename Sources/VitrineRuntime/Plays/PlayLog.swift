import Glibc
import Logging
import VitrineCore
import SystemPackage
import VitrineSystem

/// The proof-of-play log on disk (`STATE_DIRECTORY/plays/`): the I/O edge of
/// `PlayTracker` and `PlayLogLayout`, which make every decision.
///
/// Everything happens on the log's own serial worker (`vitrine plays`, a `SerialWorker`): the
/// display thread only hands an event over (`shown`, `ended`) and never waits
/// for a write, an fsync or a picture's hash. Each record is one `write` of a
/// whole line to the newest segment, opened `O_APPEND`, then `fdatasync`, so
/// a record the log has counted survives a power cut. SIGKILL or power loss
/// mid-write leaves at most a torn last line: it has no newline, so reading
/// skips it, and the next start cuts it off before appending (see `open`).
public final class PlayLog: Sendable {
    /// What the log has done, for the API and the metrics.
    public struct Summary: Hashable, Sendable {
        /// Plays recorded since the kiosk started.
        public var recorded = 0
        /// Records deleted by the bound, ever (sequences before the oldest kept).
        public var dropped: UInt64 = 0
        /// Records kept, and the sequences of the oldest and newest.
        public var kept = 0
        public var firstSequence: UInt64?
        public var lastSequence: UInt64?
        public var bytes = 0
        /// Records lost because the disk refused them (read-only, an I/O error).
        public var writeFailures = 0
        /// Records deleted, oldest first, to make room when the disk was full (ENOSPC, EDQUOT).
        public var droppedForSpace = 0
    }

    public let directory: String
    private let queue = SerialWorker(name: "vitrine plays")
    private let logger: Logger
    private let hashFile: @Sendable (String) -> String?
    /// The calls that write the log (the kernel's, or a test's faults in front of them).
    private let system: SystemCalls
    // Touched only on `queue`.
    nonisolated(unsafe) private var layout: PlayLogLayout
    /// The play on each output group's screen, by the group's name (nil: the
    /// kiosk's only, unnamed, one). As many as the kiosk has groups: the names
    /// come from its displays, never from a peer.
    nonisolated(unsafe) private var trackers: [String?: PlayTracker] = [:]
    nonisolated(unsafe) private var hashes: [String: (stamp: FileStamp, sha256: String?)] = [:]
    /// The errno of the failure now going on, so that a read-only disk is logged once, not once a play.
    nonisolated(unsafe) private var failing: Errno?
    private let published = Mutex()
    nonisolated(unsafe) private var summary = Summary()

    /// Opens (creating) the log in `directory` and recovers what a crash left.
    /// - Parameter hashFile: the SHA-256 of a file, for pictures whose name
    ///   does not say it; run on the log's queue.
    /// - Parameter system: the system calls that append and flush records.
    public init(directory: String, bounds: PlayLogLayout.Bounds = .standard, logger: Logger,
                system: SystemCalls = .live, hashFile: @escaping @Sendable (String) -> String?) throws(SystemError) {
        self.directory = directory
        self.logger = logger
        self.hashFile = hashFile
        self.system = system
        if mkdir(directory, 0o750) != 0 && errno != EEXIST { throw SystemError("mkdir", subject: directory) }
        layout = try Self.recover(directory, bounds: bounds, logger: logger)
        publish()
    }

    // MARK: From the display thread (never waits)

    /// A slide reached `output`'s screen: the play before it there ends at that
    /// instant; other outputs' plays go on.
    /// - Parameter output: the output group's name; nil on a kiosk with one unnamed group.
    public func shown(_ shown: SlideShown, output: String? = nil) {
        queue.async { [self] in
            let sha256 = shown.sha256 ?? shown.file.flatMap(hash)
            // Sequences come from the one layout, so they stay unique across outputs.
            if let ended = trackers[output, default: PlayTracker(output: output)].shown(shown, sha256: sha256, sequence: layout.nextSequence) {
                write(ended)
            }
        }
    }

    /// The video slide on `output`'s screen showed `played` of its video: kept
    /// with its play, which the next slide ends.
    public func videoPlayed(slide: Int, played: Duration, output: String? = nil) {
        queue.async { [self] in trackers[output]?.videoPlayed(slide: slide, played: played) }
    }

    /// Nothing shows on `output`'s screen from `instant` on (it went dark).
    public func ended(at instant: MonotonicInstant, output: String? = nil) {
        queue.async { [self] in
            if let ended = trackers[output]?.end(at: instant, sequence: layout.nextSequence) { write(ended) }
        }
    }

    /// Nothing shows on any screen from `instant` on (the kiosk stops): each
    /// output's play is written, unnamed first, then by name.
    public func endedEverywhere(at instant: MonotonicInstant) {
        queue.async { [self] in
            for output in trackers.keys.sorted(by: { ($0 ?? "") < ($1 ?? "") }) {
                if let ended = trackers[output]?.end(at: instant, sequence: layout.nextSequence) { write(ended) }
            }
        }
    }

    /// Waits until everything handed over so far is written (at shutdown, and in tests).
    public func flush() { queue.sync {} }

    // MARK: From other threads (they wait for the queue: never the display thread)

    /// The records the query asks for, read from the segments.
    public func query(_ query: PlayQuery) -> (records: [PlayRecord], more: Bool) {
        queue.sync { [self] in
            guard query.limit > 0 else { return ([], false) }
            var found: [PlayRecord] = []
            for segment in layout.segments(from: query.afterSequence + 1) {
                guard let bytes = try? FileIO.read(directory + "/" + segment.fileName) else { continue }
                let (records, more) = query.select(PlayLogLayout.parse(bytes).records)
                found += records
                if more || found.count > query.limit { return (Array(found.prefix(query.limit)), true) }
            }
            return (found, false)
        }
    }

    public var status: Summary { published.withLock { summary } }

    // MARK: On the queue

    private func write(_ record: PlayRecord) {
        let line = record.line
        while true {
            let before = layout
            let append = layout.append(bytes: line.count)
            let path = directory + "/" + append.segment
            do throws(SystemError) {
                try Self.append(line, to: path, system: system)
                // A new segment's name must be durable before older ones go, so a
                // power cut never leaves fewer records than the bound promises.
                if append.creates { try FileIO.sync(directory: directory, system: system) }
                for name in append.deletes {
                    do throws(SystemError) {
                        try FileIO.remove(directory + "/" + name, system: system)
                    } catch {
                        logger.warning("cannot delete the old play log segment \(name): \(error)")
                    }
                }
                if !append.deletes.isEmpty {
                    logger.info("play log full: dropped the oldest \(append.droppedRecords) plays", metadata: ["dropped": "\(layout.dropped)"])
                }
                published.withLock { summary.recorded += 1 }
                if failing != nil {
                    logger.notice("recording plays again")
                    failing = nil
                }
            } catch where error.errno == .noSpace || error.errno == .diskQuotaExceeded {
                // The disk is full: older plays make way for newer ones, as the
                // bound does, rather than the newest being lost. The write left
                // nothing behind (`append` cuts a partial line off again).
                layout = before
                guard let oldest = layout.dropOldestSegment() else {
                    logger.error("cannot record a play: \(error); the play log holds nothing more to drop")
                    published.withLock { summary.writeFailures += 1 }
                    break
                }
                do throws(SystemError) {
                    try FileIO.remove(directory + "/" + oldest.fileName, system: system)
                } catch let removal {
                    logger.error("cannot record a play: \(error), and cannot delete \(oldest.fileName) to make room: \(removal)")
                    published.withLock { summary.writeFailures += 1 }
                    break
                }
                logger.warning("the disk is full: dropped the oldest \(oldest.records) plays (\(oldest.fileName)) to record new ones")
                published.withLock { summary.droppedForSpace += oldest.records }
                continue
            } catch {
                // The record is not on disk: the layout must not count it (nor
                // forget segments it meant to delete after it), or the status
                // would claim plays the log does not hold and old segments would
                // stay on disk past the bound. The next play takes its sequence.
                layout = before
                if failing != error.errno {
                    logger.error("cannot record a play: \(error); plays are counted as lost (vitrine_play_write_failures_total) until they can be written")
                    failing = error.errno
                }
                published.withLock { summary.writeFailures += 1 }
            }
            break
        }
        publish()
    }

    /// The picture's SHA-256, hashed once per file version (path, size, mtime).
    private func hash(_ file: String) -> String? {
        guard let stamp = FileStamp(file) else { return nil }
        if let known = hashes[file], known.stamp == stamp { return known.sha256 }
        if hashes.count >= 4096 { hashes.removeAll() }
        let sha256 = hashFile(file)
        hashes[file] = (stamp, sha256)
        return sha256
    }

    private func publish() {
        let layout = self.layout
        published.withLock {
            summary.dropped = layout.dropped
            summary.kept = layout.recordCount
            summary.firstSequence = layout.firstSequence
            summary.lastSequence = layout.lastSequence
            summary.bytes = layout.byteCount
        }
    }

    // MARK: Files

    /// Reads every segment, and cuts a torn tail off any that has one: bytes
    /// after the last newline are a write a crash interrupted. Left there, the
    /// next record would be appended to them and both would be lost.
    private static func recover(_ directory: String, bounds: PlayLogLayout.Bounds, logger: Logger) throws(SystemError) -> PlayLogLayout {
        guard let dir = opendir(directory) else { throw SystemError("opendir", subject: directory) }
        var names: [String] = []
        while let entry = readdir(dir) {
            let name = withUnsafeBytes(of: entry.pointee.d_name) { String(decoding: $0.prefix { $0 != 0 }, as: UTF8.self) }
            if PlayLogLayout.firstSequence(ofFile: name) != nil { names.append(name) }
        }
        closedir(dir)
        var files: [(name: String, contents: PlayLogLayout.Contents)] = []
        for name in names {
            let path = directory + "/" + name
            let bytes = try FileIO.read(path)
            let contents = PlayLogLayout.parse(bytes)
            if contents.completeBytes < bytes.count {
                logger.warning("play log: skipping a torn last line in \(name) (\(bytes.count - contents.completeBytes) bytes)")
                guard truncate(path, off_t(contents.completeBytes)) == 0 else { throw SystemError("truncate", subject: path) }
                let fd = open(path, O_WRONLY | O_CLOEXEC)
                if fd >= 0 { fsync(fd); close(fd) }
            }
            if contents.unreadableLines > 0 {
                logger.warning("play log: \(contents.unreadableLines) unreadable lines in \(name) are skipped")
            }
            files.append((name, contents))
        }
        return PlayLogLayout.recovered(files, bounds: bounds)
    }

    private static func append(_ bytes: [UInt8], to path: String, system: SystemCalls) throws(SystemError) {
        let file = try OpenFile(path, O_WRONLY | O_APPEND | O_CREAT | O_CLOEXEC, mode: 0o640, system: system)
        let sizeBefore = try file.status().st_size
        // One write for the whole line: with O_APPEND it lands at the end in
        // one piece, and only a crash can cut it short (a torn tail, above).
        // A full disk can also cut it short, and a flush can fail after the
        // line landed: what did land is cut off again, so that the next line
        // does not run into half of this one, and a failed play is not counted
        // twice once the disk recovers.
        do throws(SystemError) {
            try file.write(bytes)
            try file.syncData()
        } catch {
            try? file.truncate(to: sizeBefore)
            throw error
        }
    }
}

/// A file's version as `stat` tells it: a picture replaced in place gets hashed again.
struct FileStamp: Hashable {
    var size: Int64
    var modified: Int64
    var inode: UInt64

    init?(_ path: String) {
        var info = stat()
        guard stat(path, &info) == 0 else { return nil }
        size = Int64(info.st_size)
        modified = Int64(info.st_mtim.tv_sec) * 1_000_000_000 + Int64(info.st_mtim.tv_nsec)
        inode = UInt64(info.st_ino)
    }
}
