import Testing
import VitrineChannel
import VitrineConfig
import VitrineCore

@Suite struct ChannelPollPolicyTests {
    let policy = ChannelPollPolicy(interval: .seconds(30), jitter: .seconds(6), backoffBase: .seconds(30), backoffLimit: .seconds(600))

    @Test func aSuccessfulPollWaitsTheIntervalPlusAtMostTheJitter() {
        var random = SplitMix64(seed: 1)
        let waits = (0..<2000).map { _ in policy.delayAfterSuccess(using: &random) }
        #expect(waits.allSatisfy { $0 >= .seconds(30) && $0 <= .seconds(36) })
        // Spread over the whole range, not bunched at one end.
        #expect(waits.min()! < .seconds(31) && waits.max()! > .seconds(35))
    }

    @Test func backoffDoublesFromTheBaseUpToTheLimit() {
        let ceilings = (1...10).map { policy.backoffCeiling(afterFailures: $0) }
        #expect(ceilings == [30, 60, 120, 240, 480, 600, 600, 600, 600, 600].map { Duration.seconds($0) })
        #expect(policy.backoffCeiling(afterFailures: Int.max) == .seconds(600))
    }

    @Test func eachBackoffIsBetweenHalfItsCeilingAndItsCeiling() {
        var random = SplitMix64(seed: 7)
        for failures in 1...12 {
            let ceiling = policy.backoffCeiling(afterFailures: failures)
            let waits = (0..<500).map { _ in policy.delayAfterFailure(failures, using: &random) }
            #expect(waits.allSatisfy { $0 >= ceiling / 2 && $0 <= ceiling }, "after \(failures) failures")
            // Jittered: a fleet that failed together does not come back together.
            #expect(Set(waits).count > 400)
        }
    }

    @Test func theSectionsDefaultsGiveTheDocumentedPolicy() {
        var channel = ChannelConfiguration(url: "https://origin.example/lobby", keys: [])
        var policy = ChannelPollPolicy(channel)
        #expect(policy.interval == .seconds(30))
        #expect(policy.jitter == .seconds(6))
        #expect(policy.backoffBase == .seconds(30))
        #expect(policy.backoffLimit == .seconds(600))
        channel.poll = .seconds(3600)
        channel.jitter = .duration(.seconds(90))
        policy = ChannelPollPolicy(channel)
        #expect(policy.jitter == .seconds(90))
        #expect(policy.backoffBase == .seconds(30))
        #expect(policy.backoffLimit == .seconds(3600))
    }
}

@Suite struct ChannelFollowerStateTests {
    let policy = ChannelPollPolicy(interval: .seconds(30), jitter: .seconds(6), backoffBase: .seconds(10), backoffLimit: .seconds(160))
    let wall = WallInstant(secondsSinceEpoch: 1_774_699_200)

    func applied(_ version: UInt64, expires: WallInstant? = nil) -> AppliedChannelVersion {
        AppliedChannelVersion(version: version, published: wall - 3600, expires: expires, appliedAt: wall - 60, manifestETag: "\"m\"",
                              signatureETag: "\"s\"", configurationVersion: "0123456789abcdef")
    }

    /// A state on virtual time, with a seeded generator.
    struct Driver {
        var state: ChannelFollowerState
        var now = MonotonicInstant.zero
        var wall: WallInstant
        var random = SplitMix64(seed: 42)

        @discardableResult
        mutating func send(_ event: ChannelFollowerEvent) -> Bool {
            state.handle(event, wall: wall, now: now, random: &random)
        }

        /// Moves virtual time to the next poll and starts it.
        mutating func pollWhenDue() {
            guard let next = state.nextPoll else { Issue.record("not waiting: \(state.activity)"); return }
            wall = wall + Int64((next - now).secondsValue.rounded(.up))
            now = next
            #expect(state.isDue(at: now))
            send(.pollStarted)
            #expect(state.activity == .checking)
        }
    }

    func driver(applied: AppliedChannelVersion? = nil, reapply: Bool = false) -> Driver {
        Driver(state: ChannelFollowerState(policy: policy, applied: applied, reapplyAllowed: reapply, now: .zero), wall: wall)
    }

    @Test func aNewFollowerPollsAtOnceAndAppliesAfterEveryPictureArrived() {
        var d = driver()
        #expect(d.state.isDue(at: .zero))
        d.pollWhenDue()
        d.send(.accepted(version: 3, missing: 2))
        #expect(d.state.activity == .downloading(version: 3, remaining: 2))
        d.send(.blobStored)
        #expect(d.state.activity == .downloading(version: 3, remaining: 1))
        #expect(d.state.applied == nil)
        d.send(.blobStored)
        #expect(d.state.activity == .ready(version: 3))
        let applyNews = d.send(.applied(applied(3)))
        #expect(applyNews)
        #expect(d.state.applied?.version == 3)
        #expect(d.state.lastReached == d.wall)
        let next = try! #require(d.state.nextPoll)
        #expect(next - d.now >= .seconds(30) && next - d.now <= .seconds(36))
    }

    @Test func anAppliedVersionOfAnotherVersionThanTheReadyOneChangesNothing() {
        var d = driver(applied: applied(2))
        d.pollWhenDue()
        d.send(.accepted(version: 3, missing: 0))
        #expect(d.state.activity == .ready(version: 3))
        let wrongNews = d.send(.applied(applied(4)))
        #expect(!wrongNews)
        #expect(d.state.applied?.version == 2)
        #expect(d.state.activity == .ready(version: 3))
    }

    @Test func theAppliedVersionServedAgainIsNothingNewNotARefusal() {
        var d = driver(applied: applied(5))
        d.pollWhenDue()
        let news = d.send(.refused(.notNewer(version: 5, applied: 5), version: 5))
        #expect(!news)
        #expect(d.state.lastRefusal == nil)
        #expect(d.state.refusalCounts.isEmpty)
        #expect(d.state.applied?.version == 5)
        #expect(d.state.versionToExceed == 5)
    }

    @Test func everyRefusalKeepsTheAppliedVersionAndIsCountedOncePerManifest() {
        var d = driver(applied: applied(5))
        let stranger = SignifySecretKey.generate(comment: "stranger").keyNumber
        let refusals: [(ChannelRefusal, UInt64?)] = [
            (.badSignature("channel.json.sig does not verify"), nil),
            (.unknownKey(stranger), nil),
            (.notNewer(version: 4, applied: 5), 4),
            (.expired(at: wall), 6),
            (.malformed(ChannelManifestError(file: "channel.json", issues: [ConfigIssue(path: "version", message: "x")])), nil),
            (.blobMismatch(.tooLarge(ChannelBlob(sha256: String(repeating: "a", count: 64), size: 3))), 6),
            (.blobUnusable(path: "blobs/aa/aa", reason: "not a JPEG or PNG"), 6),
            (.rootExpired(version: 2, at: wall, assumed: false), nil),
            (.clockUntrusted("the clock is before this build's date"), nil),
        ]
        for (refusal, version) in refusals {
            d.pollWhenDue()
            let first = d.send(.refused(refusal, version: version))
            #expect(first, "\(refusal.code) is news the first time")
            #expect(d.state.lastRefusal?.refusal == refusal)
            #expect(d.state.lastRefusal?.version == version)
            #expect(d.state.applied?.version == 5)
            // The same refusal at the next poll: not news, not counted again.
            d.pollWhenDue()
            let again = d.send(.refused(refusal, version: version))
            #expect(!again)
            // A refusal is an answer: the next poll comes at the normal interval.
            #expect(d.state.consecutiveFailures == 0)
            #expect(d.state.nextPoll! - d.now >= .seconds(30))
        }
        #expect(d.state.refusalCounts == Dictionary(uniqueKeysWithValues: ChannelRefusal.codes.map { ($0, 1) }))
    }

    @Test func aRefusalStandsUntilTheOriginServesAVersionThatIsFine() {
        var d = driver(applied: applied(5))
        d.pollWhenDue()
        d.send(.refused(.notNewer(version: 3, applied: 5), version: 3))
        #expect(d.state.lastRefusal != nil)
        d.pollWhenDue()
        d.send(.unchanged)
        #expect(d.state.lastRefusal == nil)
    }

    @Test func offlineBacksOffKeepsTheLastGoodVersionAndResetsOnTheFirstAnswer() {
        var d = driver(applied: applied(5))
        d.pollWhenDue()
        d.send(.unchanged)
        let reached = d.state.lastReached
        var ceilings: [Duration] = []
        for failures in 1...8 {
            d.pollWhenDue()
            let news = d.send(.unreachable("connection refused"))
            #expect(news)
            #expect(d.state.consecutiveFailures == failures)
            let wait = d.state.nextPoll! - d.now
            let ceiling = policy.backoffCeiling(afterFailures: failures)
            #expect(wait >= ceiling / 2 && wait <= ceiling)
            ceilings.append(ceiling)
            #expect(d.state.applied?.version == 5)
            #expect(d.state.lastReached == reached)
            #expect(d.state.lastFailure?.message == "connection refused")
        }
        #expect(ceilings == [10, 20, 40, 80, 160, 160, 160, 160].map { Duration.seconds($0) })
        // Days offline: still version 5.
        d.wall = d.wall + 3 * 86_400
        d.pollWhenDue()
        d.send(.unchanged)
        #expect(d.state.consecutiveFailures == 0)
        #expect(d.state.lastFailure == nil)
        #expect(d.state.lastReached == d.wall)
        #expect(d.state.nextPoll! - d.now >= .seconds(30) && d.state.nextPoll! - d.now <= .seconds(36))
    }

    @Test func aDownloadThatFailsHalfWayAppliesNothingAndRetriesWithBackoff() {
        var d = driver(applied: applied(5))
        d.pollWhenDue()
        d.send(.accepted(version: 6, missing: 3))
        d.send(.blobStored)
        d.send(.unreachable("blobs/ab/ab…: cannot be reached"))
        #expect(d.state.applied?.version == 5)
        #expect(d.state.consecutiveFailures == 1)
        guard case .waiting = d.state.activity else { Issue.record("\(d.state.activity)"); return }
    }

    /// A download that broke off after getting further is retried as after a
    /// first failure, however many came before, and says why.
    @Test func aDownloadThatGetsFurtherIsRetriedSoon() {
        var d = driver(applied: applied(5))
        for attempt in 1...4 {
            d.pollWhenDue()
            d.send(.unreachable("channel.json: cannot be reached"))
            #expect(d.state.consecutiveFailures == attempt)
        }
        d.pollWhenDue()
        d.send(.accepted(version: 6, missing: 1))
        let news = d.send(.interrupted("blobs/ab/ab…: the download broke off after 262144 of 900000 bytes"))
        #expect(news)
        #expect(d.state.consecutiveFailures == 1)
        #expect(d.state.lastFailure?.message.contains("broke off") == true)
        #expect(d.state.lastReached == d.wall)
        let ceiling = policy.backoffCeiling(afterFailures: 1)
        #expect(d.state.nextPoll! - d.now >= ceiling / 2 && d.state.nextPoll! - d.now <= ceiling)
        // Only a download breaks off.
        d.pollWhenDue()
        let outOfPlace = d.send(.interrupted("x"))
        #expect(!outOfPlace)
        #expect(d.state.activity == .checking)
    }

    @Test func anAppliedManifestThatExpiresWhileServedIsReportedOnceAndKept() {
        var d = driver(applied: applied(5, expires: wall + 100))
        d.pollWhenDue()
        d.send(.unchanged)
        #expect(d.state.lastRefusal == nil)
        d.wall = wall + 100
        d.pollWhenDue()
        let expiredNews = d.send(.unchanged)
        #expect(expiredNews)
        #expect(d.state.lastRefusal?.refusal == .expired(at: wall + 100))
        #expect(d.state.lastRefusal?.version == 5)
        d.pollWhenDue()
        let repeatNews = d.send(.unchanged)
        #expect(!repeatNews)
        #expect(d.state.refusalCounts == ["expired": 1])
        #expect(d.state.applied?.version == 5)
    }

    @Test func reapplyingAllowsTheSameVersionOnceAndNeverAnOlderOne() {
        var d = driver(applied: applied(5), reapply: true)
        #expect(d.state.versionToExceed == 4)
        d.pollWhenDue()
        d.send(.accepted(version: 5, missing: 0))
        d.send(.applied(applied(5)))
        #expect(!d.state.reapplyAllowed)
        #expect(d.state.versionToExceed == 5)
        #expect(driver(applied: applied(0), reapply: true).state.versionToExceed == nil)
        #expect(driver(reapply: true).state.reapplyAllowed == false)
    }

    @Test func eventsThatDoNotFitTheActivityChangeNothing() {
        var d = driver(applied: applied(5))
        let before = d.state.activity
        for event: ChannelFollowerEvent in [.unchanged, .unreachable("x"), .interrupted("x"), .refused(.badSignature("x"), version: nil),
                                            .accepted(version: 9, missing: 0), .blobStored, .applied(applied(9)), .applyFailed("x")] {
            let news = d.send(event)
            #expect(!news)
            #expect(d.state.activity == before)
            #expect(d.state.applied?.version == 5)
        }
        d.send(.stopped(reason: "channel.keys[0]: no such file"))
        #expect(d.state.activity == .off(reason: "channel.keys[0]: no such file"))
        #expect(d.state.nextPoll == nil)
        #expect(!d.state.isDue(at: .zero + .seconds(1_000_000)))
        d.send(.pollStarted)
        #expect(d.state.activity.name == "off")
    }
}

/// A root rotation (root.json) after a signing key leaked.
@Suite struct ChannelRootRotationStateTests {
    let policy = ChannelPollPolicy(interval: .seconds(30), jitter: .zero, backoffBase: .seconds(10), backoffLimit: .seconds(160))
    let wall = WallInstant(secondsSinceEpoch: 1_774_699_200)

    /// The leaked key published the largest version there is, dated far ahead.
    var leaked: AppliedChannelVersion {
        AppliedChannelVersion(version: .max, published: WallInstant(secondsSinceEpoch: 253_402_300_799), expires: nil, appliedAt: wall,
                              manifestETag: "\"m\"", signatureETag: "\"s\"", configurationVersion: "0123456789abcdef")
    }

    @Test func aNewerRootResetsTheVersionFloorAndTheClockFloorOfTheReplacedKeys() {
        var state = ChannelFollowerState(policy: policy, applied: leaked, now: .zero)
        var random = SplitMix64(seed: 1)
        #expect(state.versionToExceed == .max)
        #expect(state.clockFloors == [leaked.published])
        #expect(state.handle(.pollStarted, wall: wall, now: .zero, random: &random) == false)
        state.handle(.refused(.unknownKey(KeyNumber(Array(repeating: 1, count: 8))!), version: nil), wall: wall, now: .zero, random: &random)
        // Taken only while checking, as a poll does.
        state.handle(.pollStarted, wall: wall, now: .seconds(31), random: &random)
        let root = ChannelRootVersion(version: 2, published: wall - 60)
        #expect(state.handle(.rootTaken(root), wall: wall, now: .seconds(31), random: &random))
        #expect(state.root == root)
        #expect(state.lastRefusal == nil)
        #expect(!state.appliedUnderCurrentRoot)
        #expect(state.versionToExceed == nil)
        // The year 9999 the leaked key wrote is no floor for the clock any more; the root's time is.
        #expect(state.clockFloors == [root.published])
        // An older or equal root changes nothing.
        #expect(!state.handle(.rootTaken(ChannelRootVersion(version: 1, published: wall)), wall: wall, now: .seconds(31), random: &random))
        #expect(state.root == root)
        // The new key's version 1 is applied, under root 2: it is the floor from then on.
        state.handle(.accepted(version: 1, missing: 0), wall: wall, now: .seconds(31), random: &random)
        var first = leaked
        (first.version, first.published, first.rootVersion) = (1, wall, 2)
        #expect(state.handle(.applied(first), wall: wall, now: .seconds(31), random: &random))
        #expect(state.appliedUnderCurrentRoot)
        #expect(state.versionToExceed == 1)
        #expect(state.clockFloors == [wall, root.published])
    }

    @Test func aRootIsNotTakenOutsideAPoll() {
        var state = ChannelFollowerState(policy: policy, applied: nil, now: .seconds(100))
        var random = SplitMix64(seed: 1)
        #expect(!state.handle(.rootTaken(ChannelRootVersion(version: 1, published: wall)), wall: wall, now: .zero, random: &random))
        #expect(state.root == nil)
    }

    @Test func theRootVersionIsRecordedAndOlderRecordsReadAsZero() throws {
        var applied = leaked
        applied.rootVersion = 3
        let record = ChannelFollowRecord(url: "https://origin.example/lobby/", applied: applied)
        #expect(try ChannelFollowRecord.parse(record.json).get() == record)
        let older = #"{"appliedAt":"2026-03-28T12:00:00Z","configurationVersion":"0123456789abcdef","published":"2026-03-28T12:00:00Z","url":"u","version":4}"#
        #expect(try ChannelFollowRecord.parse(Array(older.utf8)).get().applied.rootVersion == 0)
    }
}

@Suite struct ChannelFollowRecordTests {
    @Test func aRecordReadsBackExactlyWithAVersionBeyondDoublePrecision() throws {
        let record = ChannelFollowRecord(url: "https://origin.example/lobby/", applied: AppliedChannelVersion(
            version: UInt64.max - 1, published: publishedAt, expires: publishedAt + 86_400, appliedAt: publishedAt + 5,
            manifestETag: "\"abc\"", signatureETag: nil, configurationVersion: "0123456789abcdef"))
        #expect(try ChannelFollowRecord.parse(record.json).get() == record)
    }

    @Test func aDamagedRecordIsAnErrorNotACrash() {
        for text in ["", "{", "{\"url\": 1}", "[]"] {
            guard case .failure = ChannelFollowRecord.parse(Array(text.utf8)) else { Issue.record("\(text) parsed"); continue }
        }
    }
}

@Suite struct ChannelPicturesTests {
    /// Rotation in step counts from the channel's epoch when the configuration names none, and the
    /// stored configuration keeps it; an epoch of the configuration's own stands.
    @Test func syncTakesTheChannelsEpoch() throws {
        let sha = ChannelDigest.sha256(Array("picture".utf8))
        let blob = try #require(ChannelManifest.parse(manifestBytes()).blobs.first?.value)
        let epoch = WallInstant(secondsSinceEpoch: 1_767_225_600)
        var configuration = KioskConfiguration()
        configuration.slides = [SlideConfiguration(path: "blob:" + sha)]
        configuration.sync = RotationSync()
        func stored(_ configuration: KioskConfiguration, epoch: WallInstant?) throws -> KioskConfiguration {
            try ChannelManifest.parse(ChannelManifest.document(
                version: 3, published: WallInstant(secondsSinceEpoch: 1_800_000_000), expires: WallInstant(secondsSinceEpoch: 1_800_604_800), epoch: epoch,
                configuration: configuration, blobs: [blob])).configurationWithAssets
        }
        #expect(try stored(configuration, epoch: epoch).sync == RotationSync(epoch: epoch))
        #expect(try stored(configuration, epoch: nil).sync == RotationSync(epoch: nil))
        configuration.sync = RotationSync(epoch: WallInstant(secondsSinceEpoch: 86_400))
        #expect(try stored(configuration, epoch: epoch).sync?.epoch == WallInstant(secondsSinceEpoch: 86_400))
        configuration.sync = nil
        #expect(try stored(configuration, epoch: epoch).sync == nil)
    }

    @Test func blobReferencesBecomeAssetsEverywhereAndURLsStay() throws {
        let picture: [UInt8] = Array("picture".utf8)
        let sha = ChannelDigest.sha256(picture)
        let manifest = try ChannelManifest.parse(manifestBytes(picture: picture))
        #expect(manifest.picturesToShow.map(\.sha256) == [sha])
        #expect(manifest.configurationWithAssets.slides.map(\.path) == ["asset:" + sha])
        var configuration = KioskConfiguration()
        configuration.slides = [SlideConfiguration(path: "blob:" + sha), SlideConfiguration(path: "https://example.com/a.jpg")]
        configuration.placeholder = "blob:" + sha
        let mapped = configuration.replacingPicturePaths { $0.replacingOccurrences(of: "blob:", with: "asset:") }
        #expect(mapped.slides.map(\.path) == ["asset:" + sha, "https://example.com/a.jpg"])
        #expect(mapped.placeholder == "asset:" + sha)
    }
}
