import Foundation
import Synchronization
import Testing
import VitrineConfig
import VitrineCore
@testable import VitrineChannelFollower
@testable import VitrineState
@testable import VitrineURLImages

/// Where a call runs: the calling thread and the address of a local in the caller's
/// frame. On one thread, the same call through the same code is made at the same
/// address, and a call through a chain of thunks that grows is made lower each time.
/// (No file is read: an earlier version read /proc/self/maps, which fails while
/// another suite holds every descriptor, and whose stack mappings can merge.)
struct CallSite: Sendable {
    let thread: UInt
    let address: UInt

    @inline(never)
    static func here() -> CallSite {
        var local = 0
        let address = withUnsafeMutablePointer(to: &local) { UInt(bitPattern: $0) }
        return CallSite(thread: UInt(pthread_self()), address: address)
    }

    /// Each call's depth below the shallowest call made on its own thread, in bytes,
    /// in the order the calls came.
    static func depths(of sites: [CallSite]) -> [Int] {
        var shallowest: [UInt: UInt] = [:]
        for site in sites { shallowest[site.thread] = max(shallowest[site.thread] ?? 0, site.address) }
        return sites.map { Int(bitPattern: shallowest[$0.thread]! &- $0.address) }
    }
}

/// Issue 39, part 6: on a kiosk following a channel, each version applied left two
/// more reabstraction thunks around the follower's `onApply` handler (a bare
/// function value in a `Mutex`, read with `withLock { $0 }`), so that every call
/// ran deeper in the stack than the last: +4 MiB of resident stack and +0.3 MiB of
/// heap per 1,000 versions in `make soak-ops`, without end. Callbacks are kept in a
/// `StoredCallback` now; these check that a handler called again and again runs at
/// the same depth, first in the box alone, then through a follower applying versions.
@Suite("callbacks: no depth grows with each call (issue 39)", .serialized)
struct ChannelCallbackDepthTests {
    /// The address of a local of the caller's frame: on one thread, the same call
    /// through the same code is made at the same address. (Measured against the
    /// test's own frame, not /proc/self/maps: the mapping that holds a stack can
    /// grow or merge with a neighbour while the rest of the suite runs threads.)
    @inline(never)
    static func stackAddressHere() -> UInt {
        var local = 0
        return withUnsafeMutablePointer(to: &local) { UInt(bitPattern: $0) }
    }

    @Test func aStoredCallbackReadAThousandTimesRunsAtOneDepth() {
        let depths = Mutex<[Int]>([])
        let top = Self.stackAddressHere()
        let record: @Sendable () -> Void = { let depth = Int(bitPattern: top &- Self.stackAddressHere()); depths.withLock { $0.append(depth) } }
        let handler = Mutex<StoredCallback<StoredConfiguration>?>(nil)
        handler.withLock { $0 = StoredCallback { _ in record() } }
        let stored = StoredConfiguration(configuration: KioskConfiguration(), json: [], version: "v")
        for _ in 0..<1000 { handler.withLock { $0 }?.call(stored) }
        let void = Mutex<StoredCallback<Void>?>(nil)
        void.withLock { $0 = StoredCallback { _ in record() } }
        for _ in 0..<1000 { void.withLock { $0 }?.call(()) }
        let seen = depths.withLock { $0 }
        #expect(seen.count == 2000)
        #expect(Set(seen[..<1000]).count == 1, "the StoredConfiguration handler's depth changed: \(Set(seen[..<1000]).sorted())")
        #expect(Set(seen[1000...]).count == 1, "the Void handler's depth changed: \(Set(seen[1000...]).sorted())")
    }

    @Test func aFollowerCallsItsHandlersAtOneDepthVersionAfterVersion() async throws {
        let fixture = try await ChannelFixture()
        let (follower, _) = try fixture.follower()
        let applySites = Mutex<[CallSite]>([])
        let uploadSites = Mutex<[CallSite]>([])
        follower.onApply { _ in let site = CallSite.here(); applySites.withLock { $0.append(site) } }
        follower.onPlaysUpload { _ in let site = CallSite.here(); uploadSites.withLock { $0.append(site) } }
        let versions = 120
        for version in 1...versions {
            // Two playlists in turn: each version changes what the kiosk shows, so each is handed over.
            try fixture.publish(version % 2 == 0 ? ["green"] : ["blue", "green"])
            await follower.poll()
            #expect(follower.snapshot.applied?.version == UInt64(version))
        }
        for (name, sites) in [("onApply", applySites.withLock { $0 }), ("onPlaysUpload", uploadSites.withLock { $0 })] {
            let depths = CallSite.depths(of: sites)
            #expect(depths.count == versions, "\(name) was called \(depths.count) times for \(versions) versions")
            guard depths.count == versions else { continue }
            // The calls may come from different threads and a few different paths, so from a
            // few different depths on each thread, but the deepest of the last 20 is no
            // deeper than the deepest of the first 20.
            // With two thunks more per version, it was tens of KiB deeper by the 120th.
            let first = depths.prefix(20).max()!, last = depths.suffix(20).max()!
            #expect(last <= first + 1024, "\(name) runs \(last - first) bytes deeper after \(versions) versions")
        }
        await fixture.close()
    }
}
