import VitrineAPI
import VitrineChannel
import VitrineCore

extension ChannelStatusBody {
    /// The follower's state at `wall`, as the status reports it.
    package init(_ follower: ChannelFollower, wall: WallInstant) {
        let settings = follower.settings
        let state = follower.snapshot
        let pending: Pending? = switch state.activity {
        case .downloading(let version, let remaining): Pending(version: version, remainingPictures: remaining)
        case .ready(let version): Pending(version: version, remainingPictures: 0)
        case .waiting, .checking, .off: nil
        }
        let lastError: LastError? = if case .off(let reason) = state.activity {
            LastError(message: reason, at: nil)
        } else {
            state.lastFailure.map { LastError(message: $0.message, at: RFC3339.format($0.at)) }
        }
        self.init(url: settings.url, group: settings.group, device: settings.device, state: state.activity.name,
                  version: state.applied?.version, published: state.applied.map { RFC3339.format($0.published) },
                  appliedAt: state.applied.map { RFC3339.format($0.appliedAt) },
                  ageSeconds: state.applied.map { max(0, wall - $0.published) }, lastReached: state.lastReached.map(RFC3339.format),
                  allowLocalPush: settings.allowLocalPush, rootVersion: state.root?.version ?? 0,
                  rootExpires: follower.rootExpiry.map(RFC3339.format), pending: pending,
                  refused: state.lastRefusal.map {
                      Refused(reason: $0.refusal.code, version: $0.version, at: RFC3339.format($0.at), message: $0.refusal.description)
                  },
                  lastError: lastError)
    }
}
