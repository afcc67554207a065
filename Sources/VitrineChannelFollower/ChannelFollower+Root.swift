import FoundationEssentials
import Glibc
import Logging
import NIOPosix
import Synchronization
import VitrineChannel
import VitrineConfig
import VitrineCore
import VitrineRuntime
import VitrineSystem
import VitrineState

/// Taking the origin's `root.json` (`channel.root`): the keys manifests are checked with.
extension ChannelFollower {
    /// With `channel.root` set: takes the origin's `root.json` when it is newer
    /// than the one taken, replacing the signing keys. False when the poll
    /// cannot go on (the origin could not be reached). A missing root.json is
    /// fine (none published yet); a refused one is logged and the keys stay.
    func refreshRoot(_ rootVerifier: ChannelRootVerifier, now: WallInstant) async -> Bool {
        let rootURL = settings.url(of: ChannelRoot.fileName)
        let signatureURL = settings.url(of: ChannelRoot.signatureFileName)
        let etags = rootETags.withLock { $0 }
        let rootAnswer: ChannelOrigin.Answer
        let signatureAnswer: ChannelOrigin.Answer
        do {
            rootAnswer = try await origin.get(rootURL, ifNoneMatch: etags.root, limit: Self.rootLimit)
            if case .missing = rootAnswer { return true }
            signatureAnswer = try await origin.get(signatureURL, ifNoneMatch: etags.signature, limit: Self.signatureLimit)
        } catch let error as ChannelOrigin.Failure {
            fail(error.description)
            return false
        } catch {
            fail("\(rootURL): larger than \(Self.rootLimit) bytes (or its signature than \(Self.signatureLimit))")
            return false
        }
        guard case .fetched(let bytes, let rootETag) = rootAnswer, case .fetched(let signature, let signatureETag) = signatureAnswer else {
            // Both unchanged (the root taken, or one refused and logged already),
            // or one changed across a rotation in progress: the next poll sees both.
            if case .notModified = rootAnswer, case .notModified = signatureAnswer { return true }
            rootETags.withLock { $0 = (nil, nil) }
            return true
        }
        // Below the floor never; the floor's own version again if the stored copy was lost.
        let current = max(snapshot.root?.version ?? 0, rootTrust.withLock { $0.lowestAcceptableVersion } - 1)
        let root: ChannelRoot
        do {
            root = try rootVerifier.verify(root: bytes, signature: signature, currentVersion: current, now: now)
        } catch {
            if case .notNewer(let version, _) = error, version == current {
                rootETags.withLock { $0 = (rootETag, signatureETag) }
            } else {
                // Logged once per pair served: its ETags stand until it changes.
                rootETags.withLock { $0 = (rootETag, signatureETag) }
                logger.error("channel \(settings.url): \(error); the signing keys stay as they are")
            }
            return true
        }
        let taken = ChannelRootVersion(version: root.version, published: root.published, expires: root.expires)
        let trust = rootTrust.withLock { trust in
            var after = trust
            after.took(taken, at: now)
            return after
        }
        do {
            try await NIOThreadPool.singleton.runIfActive { [rootPath, rootSignaturePath, rootTrustPath] in
                // The signature first: a root without its signature is ignored at the
                // next start, a signature without its root too, so either order is
                // safe against a crash; this one never pairs a new root with an old signature.
                try FileIO.writeAtomically(signature, to: rootSignaturePath, mode: 0o640)
                try FileIO.writeAtomically(bytes, to: rootPath, mode: 0o640)
                // Then the floor: a crash before it leaves the root stored, which is the floor again at the next start.
                try FileIO.writeAtomically(trust.json, to: rootTrustPath, mode: 0o640)
            }
        } catch {
            // Not taken: a root that would not survive a restart would let the old
            // keys back in after it. Tried again at the next poll.
            fail("cannot store root version \(root.version) in \(store.directory): \(error)")
            return false
        }
        rootTrust.withLock { $0 = trust }
        verifier.withLock { $0 = ChannelVerifier(trustedKeys: root.keys) }
        rootETags.withLock { $0 = (rootETag, signatureETag) }
        // The pair fetched under the old keys is decided again under the new ones.
        lastPair.withLock { $0 = nil }
        record(.rootTaken(taken))
        if root.expires == nil {
            logger.warning("channel \(settings.url): root version \(root.version) has no expiry; trusted until \(RFC3339.format(now + ChannelRoot.defaultLifetimeSeconds)) (a year from now): sign a newer root with vitrine channel rotate")
        }
        return true
    }

    /// With `channel.root` set, before any manifest: whether the clock can be
    /// believed, then the origin's root (a newer one is taken), then whether
    /// the trusted root has expired (`ChannelRootTrust`). False when no update
    /// may be taken now: the reason is a refusal the status reports, and the
    /// screen keeps what it shows. A root.json the origin does not have (404)
    /// is fine only until the trusted root expires.
    func mayUpdate(_ rootVerifier: ChannelRootVerifier) async -> Bool {
        let clock = wallClock()
        let synchronized = clockSynchronized()
        let buildDate = WallInstant(secondsSinceEpoch: VitrineVersion.releaseFloorSecondsSinceEpoch)
        func hold() -> ChannelRefusal? {
            let root = snapshot.root
            return rootTrust.withLock { $0.hold(clock: clock, buildDate: buildDate, clockSynchronized: synchronized, root: root) }
        }
        // The clock first: without it neither the root's expiry nor a fetched root's can be judged.
        if let held = hold(), case .clockUntrusted = held {
            record(.refused(held, version: nil))
            return false
        }
        let (changed, trust) = rootTrust.withLock { trust in (trust.believe(clock, clockSynchronized: synchronized), trust) }
        if changed {
            do {
                try await NIOThreadPool.singleton.runIfActive { [rootTrustPath] in
                    try FileIO.writeAtomically(trust.json, to: rootTrustPath, mode: 0o640)
                }
            } catch {
                // Kept in memory; a lost record costs at most the last trusted time or a root's first day.
                logger.warning("channel \(settings.url): cannot store \(rootTrustPath): \(error)")
            }
        }
        guard await refreshRoot(rootVerifier, now: clock) else { return false }
        if let held = hold() {
            record(.refused(held, version: nil))
            return false
        }
        return true
    }
}
