import VitrineCore

/// What a channel follower is doing now.
public enum ChannelActivity: Hashable, Sendable {
    /// Nothing until the next poll, at this monotonic instant.
    case waiting(until: MonotonicInstant)
    /// Fetching `channel.json` and its signature, and verifying them.
    case checking
    /// A verified version whose pictures are downloading: `remaining` are not
    /// in the asset store yet. Nothing of it is on screen.
    case downloading(version: UInt64, remaining: Int)
    /// Every picture of `version` is in the asset store: the configuration is
    /// being stored and handed to the display, which switches at its next
    /// slide boundary.
    case ready(version: UInt64)
    /// Not following: the channel cannot be used as configured (no trusted key
    /// could be read). The kiosk keeps showing what it has.
    case off(reason: String)

    /// For status: `waiting`, `checking`, `downloading`, `ready` or `off`.
    public var name: String {
        switch self {
        case .waiting: "waiting"
        case .checking: "checking"
        case .downloading: "downloading"
        case .ready: "ready"
        case .off: "off"
        }
    }
}

/// The channel version a kiosk applied last. Persisted in the state directory,
/// so that a restart neither applies it again nor accepts an older one.
public struct AppliedChannelVersion: Hashable, Sendable {
    public var version: UInt64
    public var published: WallInstant
    public var expires: WallInstant?
    public var appliedAt: WallInstant
    /// The ETags of the manifest and signature it came from, for conditional
    /// GETs after a restart.
    public var manifestETag: String?
    public var signatureETag: String?
    /// The version (`StateStore`'s) of the configuration it became, to tell
    /// whether that configuration is still the one shown.
    public var configurationVersion: String
    /// Where the channel asks its kiosks to POST their plays (the manifest's
    /// `plays.upload`), kept so that a restart uploads there before the next
    /// poll (which, unchanged, gets a 304 and no manifest to read it from).
    public var playsUpload: String?
    /// The `root.json` version whose keys signed it (0: the configured
    /// `channel.keys`). Its `version` is a floor only under that root.
    public var rootVersion: UInt64

    public init(version: UInt64, published: WallInstant, expires: WallInstant?, appliedAt: WallInstant, manifestETag: String?,
                signatureETag: String?, configurationVersion: String, playsUpload: String? = nil, rootVersion: UInt64 = 0) {
        self.rootVersion = rootVersion
        self.version = version
        self.published = published
        self.expires = expires
        self.appliedAt = appliedAt
        self.manifestETag = manifestETag
        self.signatureETag = signatureETag
        self.configurationVersion = configurationVersion
        self.playsUpload = playsUpload
    }
}

/// A refusal as status reports it.
public struct ChannelRefusalRecord: Hashable, Sendable {
    public var refusal: ChannelRefusal
    /// The version refused, when the manifest could be read far enough to say.
    public var version: UInt64?
    public var at: WallInstant
}

/// A poll that got no usable answer, or a version that could not be stored.
public struct ChannelFailure: Hashable, Sendable {
    public var message: String
    public var at: WallInstant
}

/// What happened, as the follower's I/O edge reports it to the state.
public enum ChannelFollowerEvent: Hashable, Sendable {
    /// A poll begins.
    case pollStarted
    /// The origin serves what was applied already (both files answered 304).
    case unchanged
    /// No usable answer: the origin cannot be reached, timed out, or answered
    /// an error; or a blob's download failed.
    case unreachable(String)
    /// A blob's download broke off after it added to the part kept on disk:
    /// the origin answers and the download gets further, so the next attempt
    /// comes as after a first failure, and the failures in a row count from it.
    case interrupted(String)
    /// The manifest or one of its blobs was refused (`version`: the refused
    /// version, when known). `notNewer` with the applied version itself is
    /// not a refusal: it is "nothing new".
    case refused(ChannelRefusal, version: UInt64?)
    /// The manifest verified: a newer version, of which `missing` pictures are
    /// not in the asset store yet.
    case accepted(version: UInt64, missing: Int)
    /// One missing picture is now in the asset store.
    case blobStored
    /// The version is stored and handed to the display.
    case applied(AppliedChannelVersion)
    /// Storing the version failed (the state directory): it is tried again.
    case applyFailed(String)
    /// Following stops for good (no usable key).
    case stopped(reason: String)
    /// A newer `root.json` verified with a root key: its keys sign from now
    /// on, and manifest versions count again from nothing under them.
    case rootTaken(ChannelRootVersion)
}

/// The `root.json` a follower took last, or read back from its state directory.
public struct ChannelRootVersion: Hashable, Sendable {
    public var version: UInt64
    public var published: WallInstant
    /// Nil for a root written before roots expired (`ChannelRootTrust` gives it a lifetime).
    public var expires: WallInstant?

    public init(version: UInt64, published: WallInstant, expires: WallInstant? = nil) {
        self.version = version
        self.published = published
        self.expires = expires
    }
}

/// A follower's state. Pure: every change takes the wall time, the monotonic
/// time and a random generator as arguments, so tests drive it on virtual time.
///
/// Invariants: `applied` only ever moves to a higher version (or, once, to the
/// same version when it was not on screen at start: `reapplyAllowed`), and
/// nothing but `.applied` changes it; a refusal or an error never touches it,
/// so the kiosk keeps the last good version for as long as it is offline.
public struct ChannelFollowerState: Sendable {
    public let policy: ChannelPollPolicy
    public private(set) var activity: ChannelActivity
    public private(set) var applied: AppliedChannelVersion?
    /// Set at start when the configuration on screen is not the one the applied
    /// version became (the local file was edited; a crash came between storing
    /// the configuration and recording the version): then the applied version
    /// itself may be applied again, once. Older ones never are.
    public private(set) var reapplyAllowed: Bool
    /// When the origin last answered with a manifest (or 304).
    public private(set) var lastReached: WallInstant?
    /// The refusal that stands: what the origin serves now is refused. Nil
    /// once it serves the applied version or a newer one that is applied.
    public private(set) var lastRefusal: ChannelRefusalRecord?
    /// The latest error, until the next poll that reaches the origin.
    public private(set) var lastFailure: ChannelFailure?
    public private(set) var consecutiveFailures = 0
    /// Refusals by code, each refused manifest counted once.
    public private(set) var refusalCounts: [String: Int] = [:]
    /// The root whose keys sign, nil while the configured `channel.keys` do.
    public private(set) var root: ChannelRootVersion?

    /// A follower about to poll at `now`.
    public init(policy: ChannelPollPolicy, applied: AppliedChannelVersion?, reapplyAllowed: Bool = false,
                root: ChannelRootVersion? = nil, now: MonotonicInstant) {
        self.policy = policy
        self.applied = applied
        self.root = root
        self.reapplyAllowed = reapplyAllowed && applied != nil
        activity = .waiting(until: now)
    }

    /// The version a manifest must be newer than to be applied (the verifier's
    /// `appliedVersion`).
    public var versionToExceed: UInt64? {
        guard let applied, appliedUnderCurrentRoot else { return nil }
        guard reapplyAllowed else { return applied.version }
        return applied.version == 0 ? nil : applied.version - 1
    }

    /// Whether the applied version was signed by the keys trusted now. After a
    /// root rotation it was not: its version is no floor (a leaked key's
    /// 2⁶⁴−1 must not block the new key), its ETags do not stand for a verified
    /// pair, and its publication time is no floor for the clock.
    public var appliedUnderCurrentRoot: Bool {
        (applied?.rootVersion ?? 0) == (root?.version ?? 0)
    }

    /// Instants the follower knows have passed, below which the wall clock is
    /// not believed (`ChannelClock`): the applied version's publication (under
    /// the current root) and the root's.
    public var clockFloors: [WallInstant] {
        [appliedUnderCurrentRoot ? applied?.published : nil, root?.published].compactMap { $0 }
    }

    /// Whether a poll is due at `now`.
    public func isDue(at now: MonotonicInstant) -> Bool {
        switch activity {
        case .waiting(let until): now >= until
        case .checking, .downloading, .ready, .off: false
        }
    }

    /// The next poll's instant while waiting.
    public var nextPoll: MonotonicInstant? {
        switch activity {
        case .waiting(let until): until
        case .checking, .downloading, .ready, .off: nil
        }
    }

    /// Takes `event` in; returns whether it is news worth a log line: a
    /// refusal other than the one that stands, an error, an applied version.
    /// An event that does not fit the activity (a blob while waiting) changes
    /// nothing and returns false.
    @discardableResult
    public mutating func handle(_ event: ChannelFollowerEvent, wall: WallInstant, now: MonotonicInstant,
                                random: inout some RandomNumberGenerator) -> Bool {
        switch event {
        case .pollStarted:
            guard case .waiting = activity else { return false }
            activity = .checking
            return false

        case .unchanged:
            guard case .checking = activity else { return false }
            reached(at: wall)
            // The applied manifest itself can expire while the origin keeps
            // serving it: that is a freeze, which an operator must hear about,
            // not "nothing new". The screen keeps it either way.
            if let applied, let expires = applied.expires, wall >= expires {
                return refuse(.expired(at: expires), version: applied.version, wall: wall, now: now, random: &random)
            }
            lastRefusal = nil
            wait(afterSuccessAt: now, random: &random)
            return false

        case .unreachable(let message):
            switch activity {
            case .checking, .downloading, .ready:
                consecutiveFailures += 1
                lastFailure = ChannelFailure(message: message, at: wall)
                activity = .waiting(until: now + policy.delayAfterFailure(consecutiveFailures, using: &random))
                return true
            case .waiting, .off:
                return false
            }

        case .interrupted(let message):
            guard case .downloading = activity else { return false }
            reached(at: wall)
            consecutiveFailures = 1
            lastFailure = ChannelFailure(message: message, at: wall)
            activity = .waiting(until: now + policy.delayAfterFailure(consecutiveFailures, using: &random))
            return true

        case .refused(let refusal, let version):
            switch activity {
            case .checking, .downloading:
                reached(at: wall)
                if case .notNewer(let served, _) = refusal, served == applied?.version {
                    // The applied version itself: nothing new.
                    lastRefusal = nil
                    wait(afterSuccessAt: now, random: &random)
                    return false
                }
                return refuse(refusal, version: version, wall: wall, now: now, random: &random)
            case .waiting, .ready, .off:
                return false
            }

        case .accepted(let version, let missing):
            guard case .checking = activity else { return false }
            reached(at: wall)
            activity = missing > 0 ? .downloading(version: version, remaining: missing) : .ready(version: version)
            return false

        case .blobStored:
            guard case .downloading(let version, let remaining) = activity else { return false }
            activity = remaining > 1 ? .downloading(version: version, remaining: remaining - 1) : .ready(version: version)
            return false

        case .applied(let version):
            guard case .ready(let ready) = activity, ready == version.version else { return false }
            applied = version
            reapplyAllowed = false
            lastRefusal = nil
            wait(afterSuccessAt: now, random: &random)
            return true

        case .applyFailed(let message):
            guard case .ready = activity else { return false }
            consecutiveFailures += 1
            lastFailure = ChannelFailure(message: message, at: wall)
            activity = .waiting(until: now + policy.delayAfterFailure(consecutiveFailures, using: &random))
            return true

        case .stopped(let reason):
            activity = .off(reason: reason)
            return true

        case .rootTaken(let taken):
            guard case .checking = activity, taken.version > root?.version ?? 0 else { return false }
            root = taken
            // What was refused under the old keys may be fine under the new ones.
            lastRefusal = nil
            return true
        }
    }

    private mutating func reached(at wall: WallInstant) {
        lastReached = wall
        lastFailure = nil
        consecutiveFailures = 0
    }

    private mutating func wait(afterSuccessAt now: MonotonicInstant, random: inout some RandomNumberGenerator) {
        activity = .waiting(until: now + policy.delayAfterSuccess(using: &random))
    }

    /// Records a refusal. The origin answered, so the next poll comes at the
    /// normal interval (a manifest fetched across a publish is fine next time).
    /// The same refusal of the same version again is not news: it is logged
    /// and counted once, however many polls see it.
    private mutating func refuse(_ refusal: ChannelRefusal, version: UInt64?, wall: WallInstant, now: MonotonicInstant,
                                 random: inout some RandomNumberGenerator) -> Bool {
        let isNews = lastRefusal.map { $0.refusal != refusal || $0.version != version } ?? true
        if isNews {
            lastRefusal = ChannelRefusalRecord(refusal: refusal, version: version, at: wall)
            refusalCounts[refusal.code, default: 0] += 1
        }
        wait(afterSuccessAt: now, random: &random)
        return isNews
    }
}
