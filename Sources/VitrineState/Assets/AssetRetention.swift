/// Which stored pictures may go: the assets (uploads, URL downloads, channel
/// pictures) that no current, previous or held configuration names. Pure:
/// the assets, what is in use and the time are parameters.
///
/// - An asset in use is never removed.
/// - An unused asset younger than `grace` is kept: `vitrine push` uploads the
///   pictures before the configuration that names them.
/// - An unused asset older than `maximumAge` goes.
/// - While the unused assets past their grace take more than `byteCap`, the
///   oldest of them go first.
public struct AssetRetention: Hashable, Sendable {
    public var grace: Double = 3600
    public var maximumAge: Double = 30 * 86_400
    public var byteCap = 256 << 20

    public init(grace: Double = 3600, maximumAge: Double = 30 * 86_400, byteCap: Int = 256 << 20) {
        self.grace = grace
        self.maximumAge = maximumAge
        self.byteCap = byteCap
    }

    /// The assets to remove, oldest first.
    /// - Parameters:
    ///   - assets: every stored asset: its id, size in bytes, and when it was added (seconds since 1970).
    ///   - now: seconds since 1970.
    public func victims(_ assets: [(id: String, size: Int, added: Double)], inUse: Set<String>, now: Double) -> [String] {
        let candidates = assets.filter { !inUse.contains($0.id) && now - $0.added >= grace }
            .sorted { ($0.added, $0.id) < ($1.added, $1.id) }
        var unusedBytes = assets.filter { !inUse.contains($0.id) }.reduce(0) { $0 + $1.size }
        var victims: [String] = []
        for asset in candidates where now - asset.added >= maximumAge || unusedBytes > byteCap {
            victims.append(asset.id)
            unusedBytes -= asset.size
        }
        return victims
    }
}

/// The state directory's free-space floor: an upload or a download that would
/// leave less than `minimumFreeBytes` free is refused (507), so that the play
/// log, the state's own files and the system keep room. What is on screen stays.
public struct DiskFloor: Hashable, Sendable {
    public var minimumFreeBytes: Int

    public init(minimumFreeBytes: Int = 64 << 20) { self.minimumFreeBytes = minimumFreeBytes }

    /// Why storing `incoming` bytes with `free` bytes free must be refused; nil when it may go ahead.
    public func refusal(storing incoming: Int, free: Int) -> String? {
        guard free - incoming < minimumFreeBytes else { return nil }
        return "the kiosk's disk has \(Self.mebibytes(free)) free; storing \(Self.mebibytes(incoming)) more would leave less than its floor of \(Self.mebibytes(minimumFreeBytes)) (api.minimumFreeSpace)"
    }

    static func mebibytes(_ bytes: Int) -> String {
        let tenths = (max(0, bytes) * 10 + (1 << 19)) >> 20
        return "\(tenths / 10).\(tenths % 10) MiB"
    }
}
