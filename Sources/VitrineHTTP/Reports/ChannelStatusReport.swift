import FoundationEssentials
import VitrineChannel
import VitrineConfig
import VitrineCore
import VitrineChannelFollower

/// The channel's part of `/metrics`; its part of the status is `ChannelStatusBody`.
enum ChannelStatusReport {
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
