import VitrineChannel
import VitrineCore

/// When plays are uploaded and which: the pure policy of `PlayUploader`, on
/// the instants and the random generator it is given.
///
/// The queue is the play log itself: everything after `acknowledged` (the
/// newest sequence the receiver accepted) is waiting. So batches waiting
/// while offline are as durable as the log, survive restarts (the cursor is
/// a file of its own), and are bounded by the log's bound: plays the log
/// drops before they were sent are counted (`droppedUnsent`), never sent.
///
/// - After a batch accepted: the next batch at once while full batches
///   wait, else after `interval`.
/// - After a failure: exponential backoff with equal jitter, the channel's
///   policy (`ChannelPollPolicy`): from `backoffBase` doubling to
///   `backoffLimit`, so a receiver that is down is not hammered and a fleet
///   does not come back in step.
public struct PlayUploadQueue: Sendable {
    public var batch: Int
    public let policy: ChannelPollPolicy
    /// Every play up to this sequence was accepted.
    public private(set) var acknowledged: UInt64
    /// Plays skipped because the log dropped them before they were accepted
    /// (counted as a batch after the gap is accepted; `droppedUnsent` adds
    /// the gap still open).
    public private(set) var skipped: UInt64
    /// Failures in a row.
    public private(set) var failures = 0
    public private(set) var nextAttempt: MonotonicInstant

    public init(batch: Int, interval: Duration, acknowledged: UInt64, skipped: UInt64 = 0, start: MonotonicInstant,
                backoffBase: Duration = .seconds(10), backoffLimit: Duration = .seconds(600)) {
        self.batch = max(batch, 1)
        policy = ChannelPollPolicy(interval: interval, jitter: .zero, backoffBase: min(backoffBase, interval),
                                   backoffLimit: max(backoffLimit, interval))
        self.acknowledged = acknowledged
        self.skipped = skipped
        // The first upload after a start goes at once: plays from before it may be waiting.
        nextAttempt = start
    }

    public func isDue(at now: MonotonicInstant) -> Bool { now >= nextAttempt }

    /// The cursor file's text: the sequence accepted last, and `skipped`.
    public var cursorText: String { "\(acknowledged) \(skipped)\n" }

    /// The cursor from before a restart (`cursorText`), checked against the
    /// log: a log that was emptied by hand starts its sequences again, and so
    /// does the cursor.
    public static func resumedCursor(_ text: String?, logLast: UInt64?) -> (acknowledged: UInt64, skipped: UInt64) {
        let numbers = (text ?? "").split(whereSeparator: \.isWhitespace).compactMap { UInt64($0) }
        return (min(numbers.first ?? 0, logLast ?? 0), numbers.count > 1 ? numbers[1] : 0)
    }

    /// Plays the log dropped (sequences up to `logDropped`) before they were accepted, ever.
    public func droppedUnsent(logDropped: UInt64) -> UInt64 {
        skipped + (logDropped > acknowledged ? logDropped - acknowledged : 0)
    }

    /// Plays waiting: the log's newest sequence less the cursor (and less what it dropped).
    public func pending(logLast: UInt64?, logDropped: UInt64) -> UInt64 {
        guard let last = logLast else { return 0 }
        return last - min(last, max(acknowledged, logDropped))
    }

    /// Nothing was waiting at `now`: look again after `interval`.
    public mutating func idle(at now: MonotonicInstant) {
        nextAttempt = now + policy.interval
    }

    /// The receiver accepted the plays `sequences`; `full` when the batch was
    /// full, so more may be waiting. A gap before it is plays the log dropped.
    public mutating func accepted(_ sequences: ClosedRange<UInt64>, full: Bool, at now: MonotonicInstant) {
        if sequences.lowerBound > acknowledged + 1 { skipped += sequences.lowerBound - acknowledged - 1 }
        acknowledged = max(acknowledged, sequences.upperBound)
        failures = 0
        nextAttempt = full ? now : now + policy.interval
    }

    /// The batch did not get through; it is sent again after the backoff.
    public mutating func failed(at now: MonotonicInstant, using random: inout some RandomNumberGenerator) {
        failures += 1
        nextAttempt = now + policy.delayAfterFailure(failures, using: &random)
    }
}
