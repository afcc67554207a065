/// The release this build is.
public enum VitrineVersion {
    public static let current = "0.1.0"
    /// When this release was made (2026-11-24T00:00:00Z): a clock behind it is
    /// known to be wrong, so a channel's expiry is judged by this instead.
    /// Move it forward with each release.
    public static let releaseFloorSecondsSinceEpoch: Int64 = 1_795_478_400
}
