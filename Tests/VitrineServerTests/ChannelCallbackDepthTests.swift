import Foundation
import Synchronization
import Testing
import VitrineConfig
import VitrineCore
@testable import VitrineChannelFollower
@testable import VitrineState
@testable import VitrineURLImages

/// How far below the top of the calling thread's stack this call runs, in bytes:
/// the end of the mapping in /proc/self/maps that holds a local variable (Glibc's
/// module has no `pthread_getattr_np`). A call through the same code from the same
/// kind of thread runs at the same depth; one through a chain of thunks that grows
/// runs deeper each time.
func stackDepthHere() -> Int {
    var local = 0
    let address = withUnsafeMutablePointer(to: &local) { UInt(bitPattern: $0) }
    guard let maps = try? String(contentsOfFile: "/proc/self/maps", encoding: .utf8) else { return 0 }
    for line in maps.split(separator: "\n") {
        let range = line.prefix { $0 != " " }.split(separator: "-")
        guard range.count == 2, let start = UInt(range[0], radix: 16), let end = UInt(range[1], radix: 16) else { continue }
        if start <= address && address < end { return Int(end - address) }
    }
    return 0
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
        let applyDepths = Mutex<[Int]>([])
        let uploadDepths = Mutex<[Int]>([])
        follower.onApply { _ in let depth = stackDepthHere(); applyDepths.withLock { $0.append(depth) } }
        follower.onPlaysUpload { _ in let depth = stackDepthHere(); uploadDepths.withLock { $0.append(depth) } }
        let versions = 120
        for version in 1...versions {
            // Two playlists in turn: each version changes what the kiosk shows, so each is handed over.
            try fixture.publish(version % 2 == 0 ? ["green"] : ["blue", "green"])
            await follower.poll()
            #expect(follower.snapshot.applied?.version == UInt64(version))
        }
        for (name, depths) in [("onApply", applyDepths.withLock { $0 }), ("onPlaysUpload", uploadDepths.withLock { $0 })] {
            #expect(depths.count == versions, "\(name) was called \(depths.count) times for \(versions) versions")
            guard depths.count == versions else { continue }
            // The calls may come from different threads, and so from a few different depths,
            // but the deepest of the last 20 is no deeper than the deepest of the first 20.
            // With two thunks more per version, it was tens of KiB deeper by the 120th.
            let first = depths.prefix(20).max()!, last = depths.suffix(20).max()!
            #expect(last <= first + 1024, "\(name) runs \(last - first) bytes deeper after \(versions) versions")
        }
        await fixture.close()
    }
}
