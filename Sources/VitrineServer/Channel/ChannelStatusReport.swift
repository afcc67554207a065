import FoundationEssentials
import VitrineChannel
import VitrineConfig
import VitrineCore

/// The channel's part of `GET /api/v1/status` and of `/metrics`.
enum ChannelStatusReport {
    /// `channel` in the status: what is applied, how old it is, when the
    /// origin was last reached, what the follower is doing, and the refusal
    /// that stands.
    static func object(_ follower: ChannelFollower, wall: WallInstant) -> [String: Any] {
        let settings = follower.settings
        let state = follower.snapshot
        func instant(_ value: WallInstant?) -> Any { value.map { RFC3339.format($0) as Any } ?? JSONValue.null }
        var object: [String: Any] = [
            "url": settings.url,
            "group": settings.group.map { $0 as Any } ?? JSONValue.null,
            "device": settings.device.map { $0 as Any } ?? JSONValue.null,
            "state": state.activity.name,
            "version": state.applied.map { $0.version as Any } ?? JSONValue.null,
            "published": instant(state.applied?.published),
            "appliedAt": instant(state.applied?.appliedAt),
            "ageSeconds": state.applied.map { max(0, wall - $0.published) as Any } ?? JSONValue.null,
            "lastReached": instant(state.lastReached),
            "allowLocalPush": settings.allowLocalPush,
            // The root.json version whose keys sign (0: the local file's channel.keys).
            "rootVersion": state.root?.version ?? 0,
        ]
        switch state.activity {
        case .downloading(let version, let remaining):
            object["pending"] = ["version": version, "remainingPictures": remaining]
        case .ready(let version):
            object["pending"] = ["version": version, "remainingPictures": 0]
        case .waiting, .checking, .off:
            object["pending"] = JSONValue.null
        }
        if let refused = state.lastRefusal {
            object["refused"] = [
                "reason": refused.refusal.code, "version": refused.version.map { $0 as Any } ?? JSONValue.null,
                "at": RFC3339.format(refused.at), "message": refused.refusal.description,
            ] as [String: Any]
        } else {
            object["refused"] = JSONValue.null
        }
        if case .off(let reason) = state.activity {
            object["lastError"] = ["message": reason, "at": JSONValue.null] as [String: Any]
        } else if let failure = state.lastFailure {
            object["lastError"] = ["message": failure.message, "at": RFC3339.format(failure.at)]
        } else {
            object["lastError"] = JSONValue.null
        }
        return object
    }

    /// Prometheus lines (text format 0.0.4) for the channel.
    static func metrics(_ follower: ChannelFollower) -> String {
        let state = follower.snapshot
        var out = PrometheusLines()
        func metric(_ name: String, _ type: String, _ help: String, _ samples: [(labels: String, value: String)]) {
            out.metric(name, type, help, samples)
        }
        metric("vitrine_channel_version", "gauge", "The channel version applied (0 before the first).",
               [("", "\(state.applied?.version ?? 0)")])
        metric("vitrine_channel_root_version", "gauge", "The root.json version whose keys sign manifests (0: channel.keys from the local file).",
               [("", "\(state.root?.version ?? 0)")])
        metric("vitrine_channel_refusals_total", "counter", "Manifests and blobs refused, by reason (each refused manifest once).",
               ChannelRefusal.codes.map { ("reason=\"\($0)\"", "\(state.refusalCounts[$0] ?? 0)") })
        metric("vitrine_channel_last_reached_timestamp_seconds", "gauge", "When the origin last answered, in Unix time (0: never since start).",
               [("", "\(state.lastReached?.secondsSinceEpoch ?? 0)")])
        metric("vitrine_channel_consecutive_failures", "gauge", "Polls in a row that got no usable answer.",
               [("", "\(state.consecutiveFailures)")])
        return out.text
    }
}
