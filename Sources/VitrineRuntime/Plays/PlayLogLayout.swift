/// The proof-of-play log's shape on disk, and every decision about it, with
/// no I/O: which segment a record goes to, when a new one starts, which old
/// ones go, what a segment's bytes hold, and which records a query wants.
/// `PlayLog` carries the decisions out. Pure.
///
/// The log is a directory of segments, `plays-<first sequence>.jsonl`, each a
/// run of `PlayRecord.line`s. Records go to the newest segment while they fit
/// in `segmentBytes`; one that does not starts a new segment, and once there
/// are more than `maxSegments` the oldest is deleted whole. So the log never
/// holds more than `maxSegments × segmentBytes`, and it always keeps the
/// newest `maxSegments − 1` full segments. The records gone
/// are counted without a counter of their own: sequences have no gaps, so
/// everything before the oldest segment's first sequence was dropped.
public struct PlayLogLayout: Hashable, Sendable {
    public struct Bounds: Hashable, Sendable {
        public var segmentBytes: Int
        public var maxSegments: Int

        public init(segmentBytes: Int, maxSegments: Int) {
            self.segmentBytes = max(segmentBytes, 1)
            self.maxSegments = max(maxSegments, 2)
        }

        /// 8 segments of 256 KiB: at most 2 MiB, about 10,000 plays (a line is
        /// about 200 bytes), 14 hours of 5-second slides; at least 1.75 MiB kept.
        public static let standard = Bounds(segmentBytes: 256 << 10, maxSegments: 8)
    }

    public struct Segment: Hashable, Sendable {
        /// The sequence of its first record, which names its file.
        public var firstSequence: UInt64
        public var records: Int
        public var bytes: Int

        public var fileName: String { PlayLogLayout.fileName(firstSequence: firstSequence) }
    }

    /// What to do to add one record.
    public struct Append: Hashable, Sendable {
        /// The segment it goes to; a new file when `creates`.
        public var segment: String
        public var creates: Bool
        /// Segments to delete afterwards, oldest first, and how many records they held.
        public var deletes: [String]
        public var droppedRecords: Int
    }

    public let bounds: Bounds
    /// Oldest first.
    public private(set) var segments: [Segment]
    public private(set) var nextSequence: UInt64

    public init(bounds: Bounds = .standard, segments: [Segment] = [], nextSequence: UInt64 = 1) {
        self.bounds = bounds
        self.segments = segments.sorted { $0.firstSequence < $1.firstSequence }
        self.nextSequence = max(nextSequence, 1, (self.segments.last.map { $0.firstSequence + UInt64($0.records) }) ?? 1)
    }

    /// Records deleted by the bound since the log began: every sequence
    /// before the oldest one kept.
    public var dropped: UInt64 { (segments.first?.firstSequence ?? nextSequence) - 1 }
    /// The oldest sequence still kept, if any.
    public var firstSequence: UInt64? { segments.first(where: { $0.records > 0 })?.firstSequence }
    public var lastSequence: UInt64? { nextSequence > 1 && !segments.isEmpty ? nextSequence - 1 : nil }
    public var recordCount: Int { segments.reduce(0) { $0 + $1.records } }
    public var byteCount: Int { segments.reduce(0) { $0 + $1.bytes } }

    /// Where a record of `bytes` bytes goes, and what goes to keep the bound;
    /// the layout counts it as written.
    public mutating func append(bytes: Int) -> Append {
        var creates = false
        // A record that would take the segment past its size starts the next
        // (a segment still empty takes any record, however long).
        if segments.isEmpty || (segments[segments.count - 1].bytes > 0
                                && segments[segments.count - 1].bytes + bytes > bounds.segmentBytes) {
            segments.append(Segment(firstSequence: nextSequence, records: 0, bytes: 0))
            creates = true
        }
        segments[segments.count - 1].records += 1
        segments[segments.count - 1].bytes += bytes
        nextSequence += 1
        var deletes: [String] = [], dropped = 0
        while segments.count > bounds.maxSegments {
            let oldest = segments.removeFirst()
            deletes.append(oldest.fileName)
            dropped += oldest.records
        }
        return Append(segment: segments[segments.count - 1].fileName, creates: creates, deletes: deletes, droppedRecords: dropped)
    }

    /// Gives up the oldest segment, the newest included when it is the only
    /// one: what the log does when the disk is full, so that new plays can be
    /// written. Its records count as dropped, as the bound's deletions do.
    public mutating func dropOldestSegment() -> Segment? {
        segments.isEmpty ? nil : segments.removeFirst()
    }

    // MARK: Files

    public static let filePrefix = "plays-"
    public static let fileSuffix = ".jsonl"

    /// `plays-000000000042.jsonl`: zero-padded, so name order is sequence order.
    public static func fileName(firstSequence: UInt64) -> String {
        let digits = String(firstSequence)
        return filePrefix + String(repeating: "0", count: max(0, 12 - digits.count)) + digits + fileSuffix
    }

    /// The first sequence a segment's name gives, or nil if it is not a segment's name.
    public static func firstSequence(ofFile name: String) -> UInt64? {
        guard name.hasPrefix(filePrefix), name.hasSuffix(fileSuffix) else { return nil }
        return UInt64(name.dropFirst(filePrefix.count).dropLast(fileSuffix.count)).flatMap { $0 > 0 ? $0 : nil }
    }

    /// What a segment file's bytes hold.
    public struct Contents: Hashable, Sendable {
        public var records: [PlayRecord]
        /// The length up to the end of the last complete line. Bytes after it
        /// are a torn write (the process died mid-`write`): not a record, and
        /// cut off before anything is appended, so they never run into the
        /// next line.
        public var completeBytes: Int
        /// Complete lines that are not records (damage on the medium); skipped.
        public var unreadableLines: Int
    }

    /// Splits a segment's bytes into records. Only a line ended by `\n` counts:
    /// a write cut short by a crash has none, so it is skipped, never read as
    /// a record, and one damaged line never hides the lines after it.
    public static func parse(_ bytes: [UInt8]) -> Contents {
        var records: [PlayRecord] = [], unreadable = 0, lineStart = 0
        for index in bytes.indices where bytes[index] == UInt8(ascii: "\n") {
            let line = bytes[lineStart..<index]
            if !line.isEmpty {
                if let record = PlayRecord(line: line) { records.append(record) } else { unreadable += 1 }
            }
            lineStart = index + 1
        }
        return Contents(records: records, completeBytes: lineStart, unreadableLines: unreadable)
    }

    /// The layout recovered from the segments found at start (name, contents),
    /// in any order. A segment's record count is its complete lines' records;
    /// the next sequence follows the newest record kept.
    public static func recovered(_ files: [(name: String, contents: Contents)], bounds: Bounds = .standard) -> PlayLogLayout {
        var next: UInt64 = 1
        let segments = files.compactMap { file -> Segment? in
            guard let first = firstSequence(ofFile: file.name) else { return nil }
            next = max(next, first, (file.contents.records.map(\.sequence).max() ?? 0) + 1)
            return Segment(firstSequence: first, records: file.contents.records.count, bytes: file.contents.completeBytes)
        }
        return PlayLogLayout(bounds: bounds, segments: segments, nextSequence: next)
    }

    /// The segments that can hold records from `sequence` on (the last one
    /// starting at or before it, and every later one).
    public func segments(from sequence: UInt64) -> [Segment] {
        let start = segments.lastIndex(where: { $0.firstSequence <= sequence }) ?? 0
        return Array(segments[start...])
    }
}

/// A question to the log: plays that started at or after `since` (on one
/// output, if it names one), oldest first, at most `limit`. Pure.
public struct PlayQuery: Hashable, Sendable {
    public var sinceNanoseconds: Int64?
    /// Only plays after this sequence (the uploader's cursor).
    public var afterSequence: UInt64
    public var limit: Int
    /// Only plays recorded under this output group's name; nil: every play,
    /// named or not. A play recorded without a name matches no name.
    public var output: String?

    public static let defaultLimit = 1000
    public static let maximumLimit = 10_000

    public init(sinceNanoseconds: Int64? = nil, afterSequence: UInt64 = 0, limit: Int = PlayQuery.defaultLimit, output: String? = nil) {
        self.sinceNanoseconds = sinceNanoseconds
        self.afterSequence = afterSequence
        self.limit = max(0, limit)
        self.output = output
    }

    public func matches(_ record: PlayRecord) -> Bool {
        record.sequence > afterSequence && sinceNanoseconds.map { record.startNanoseconds >= $0 } ?? true
            && output.map { record.output == $0 } ?? true
    }

    /// The answer from records in sequence order: the first `limit` that
    /// match, and whether more matched.
    public func select(_ records: some Sequence<PlayRecord>) -> (records: [PlayRecord], more: Bool) {
        var selected: [PlayRecord] = []
        for record in records where matches(record) {
            if selected.count == limit { return (selected, true) }
            selected.append(record)
        }
        return (selected, false)
    }
}
