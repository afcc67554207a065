import Testing
import VitrineChannel
import VitrineCore

/// `ChannelRootTrust` on fixed wall times: the build date, a clock that steps
/// back, a root's own expiry and the default lifetime of one without, and the version floor.
@Suite struct ChannelRootTrustTests {
    static let build = WallInstant(secondsSinceEpoch: 1_795_478_400)  // 2026-11-24
    static let day: Int64 = 86_400

    func hold(_ trust: ChannelRootTrust, at clock: WallInstant, synchronized: Bool = false,
              root: ChannelRootVersion? = nil) -> ChannelRefusal? {
        trust.hold(clock: clock, buildDate: Self.build, clockSynchronized: synchronized, root: root)
    }

    @Test func aClockBeforeTheBuildDateIsNotBelievedEvenSynchronised() {
        let trust = ChannelRootTrust()
        #expect(hold(trust, at: .epoch)?.code == "clock-untrusted")
        #expect(hold(trust, at: Self.build - 1, synchronized: true)?.code == "clock-untrusted")
        #expect(hold(trust, at: Self.build) == nil)
    }

    @Test func aClockThatStepsBackWithoutSynchronisationIsNotBelieved() {
        var trust = ChannelRootTrust()
        let noon = Self.build + 3 * Self.day
        let first = trust.believe(noon, clockSynchronized: false)
        #expect(first, "the first believed time is stored")
        let minuteOn = trust.believe(noon + 60, clockSynchronized: false)
        #expect(!minuteOn, "less than an hour on: not worth a write")
        let hourOn = trust.believe(noon + 3600, clockSynchronized: false)
        #expect(hourOn)
        // A restart without a real-time clock or network time: the clock is two hours behind.
        let stepped = noon + 3600 - 7200
        #expect(hold(trust, at: stepped) == .clockUntrusted(
            "the clock is before 2026-11-27T01:00:00Z, which the kiosk has already seen, and it is not synchronised: it stepped back"))
        #expect(hold(trust, at: stepped, synchronized: true) == nil, "a synchronised clock is believed")
        let synchronised = trust.believe(stepped, clockSynchronized: true)
        #expect(synchronised)
        #expect(trust.lastTrustedTime == stepped, "and the time that was wrong is forgotten")
        #expect(hold(trust, at: stepped + 1) == nil)
    }

    @Test func aRootExpiresAtItsOwnExpiryOrAYearAfterItWasFirstTrusted() {
        var trust = ChannelRootTrust()
        let start = Self.build + Self.day
        _ = trust.believe(start, clockSynchronized: true)
        // channel.keys (no root yet) and a root without expires: a year from when first trusted.
        #expect(trust.expiry(of: nil) == start + 365 * Self.day)
        #expect(hold(trust, at: start + 365 * Self.day - 1) == nil)
        #expect(hold(trust, at: start + 365 * Self.day) == .rootExpired(version: 0, at: start + 365 * Self.day, assumed: true))
        let old = ChannelRootVersion(version: 1, published: Self.build - 400 * Self.day)
        #expect(hold(trust, at: start + 365 * Self.day, root: old) == .rootExpired(version: 1, at: start + 365 * Self.day, assumed: true))
        // A root with expires: that, whenever it was taken.
        let rotated = ChannelRootVersion(version: 2, published: start, expires: start + 30 * Self.day)
        trust.took(rotated, at: start + 10 * Self.day)
        #expect(trust.expiry(of: rotated) == start + 30 * Self.day)
        #expect(hold(trust, at: start + 30 * Self.day - 1, root: rotated) == nil)
        #expect(hold(trust, at: start + 30 * Self.day, root: rotated) == .rootExpired(version: 2, at: start + 30 * Self.day, assumed: false))
    }

    @Test func theFloorRisesWithEachRootTakenAndSurvivesInTheFile() throws {
        var trust = ChannelRootTrust()
        #expect(trust.lowestAcceptableVersion == 1)
        trust.took(ChannelRootVersion(version: 3, published: Self.build), at: Self.build + 5)
        #expect(trust.versionFloor == 3 && trust.lowestAcceptableVersion == 3 && trust.trustedSince == Self.build + 5)
        _ = trust.believe(Self.build + 7200, clockSynchronized: false)
        let read = try #require(ChannelRootTrust.parse(trust.json))
        #expect(read == trust)
        #expect(ChannelRootTrust.parse(Array("{\"versionFloor\": 1, \"trustedSince\": \"yesterday\"}".utf8)) == nil)
    }

    /// A root.json written before roots expired still reads, without an expiry;
    /// one that expires before it was published does not; the verifier refuses one already expired.
    @Test func aRootWithoutExpiresStillReadsAndAnExpiredOneIsRefused() throws {
        let old = Array("""
            {"type": "vitrine-channel-root", "format": 1, "version": 2, "published": "2026-01-01T00:00:00Z",
             "keys": ["RWQf6LRCGA9i53mlYecO4IzT51TGPpvWucNSCh1CBM0QTaLn73Y7GFO3"]}
            """.utf8)
        #expect(try ChannelRoot.parse(old).expires == nil)
        let backwards = Array(String(decoding: old, as: UTF8.self)
            .replacing("\"version\": 2,", with: "\"version\": 2, \"expires\": \"2025-01-01T00:00:00Z\",").utf8)
        #expect(throws: ChannelRootRefusal.self) { try ChannelRoot.parse(backwards) }
        let root = ChannelRoot(version: 4, published: Self.build, expires: Self.build + Self.day, keyLines: ["RWQf6LRCGA9i53mlYecO4IzT51TGPpvWucNSCh1CBM0QTaLn73Y7GFO3"])
        #expect(try ChannelRoot.parse(root.json) == root)
    }
}
