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

/// Every outcome handed to the pure state, and what is news logged.
extension ChannelFollower {
    func fail(_ message: String) {
        record(.unreachable(message))
    }

    /// Hands `event` to the state, logs what is news, and returns the state after.
    @discardableResult
    func record(_ event: ChannelFollowerEvent) -> ChannelFollowerState {
        let wall = wallClock()
        let now = MonotonicClock.now()
        var random = SystemRandomNumberGenerator()
        let (isNews, after) = state.withLock { state -> (Bool, ChannelFollowerState) in
            let isNews = state.handle(event, wall: wall, now: now, random: &random)
            return (isNews, state)
        }
        guard isNews else { return after }
        let keeping = after.applied.map { "keeping version \($0.version)" } ?? "keeping the configuration on screen"
        let next = after.nextPoll.map { " next attempt in \(Self.seconds($0 - now))" } ?? ""
        switch event {
        case .refused:
            if let refused = after.lastRefusal {
                let version = refused.version.map { " version \($0)" } ?? ""
                logger.error("channel \(settings.url): refused\(version): \(refused.refusal) [\(refused.refusal.code)]; \(keeping)")
            }
        case .unchanged:
            if let refused = after.lastRefusal {
                logger.error("channel \(settings.url): version \(refused.version ?? 0) on screen: \(refused.refusal) [\(refused.refusal.code)]; \(keeping)")
            }
        case .unreachable(let message), .interrupted(let message), .applyFailed(let message):
            logger.warning("channel \(settings.url): \(message); \(keeping);\(next)")
        case .applied(let version):
            logger.notice("channel \(settings.url): applied version \(version.version) (published \(RFC3339.format(version.published))); the display switches at its next slide boundary")
        case .stopped(let reason):
            logger.error("channel \(settings.url): stopped following: \(reason)")
        case .rootTaken(let root):
            logger.notice("channel \(settings.url): took root version \(root.version) (published \(RFC3339.format(root.published))): manifests are checked with its keys from now on, and versions count again from there")
        case .pollStarted, .accepted, .blobStored:
            break
        }
        return after
    }

    static func seconds(_ duration: Duration) -> String {
        fixedPoint(duration.secondsValue, decimals: 1) + "s"
    }
}
