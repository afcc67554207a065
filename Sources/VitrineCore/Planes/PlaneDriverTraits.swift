/// What a display driver's planes can do beyond what their properties say:
/// whether they scale, whether the primary plane may be placed anywhere, and
/// how many bytes a second the display can fetch before it underruns.
/// Scaling and placement are found by atomic test commits on a real card;
/// these say which plans are worth a test at all.
public struct PlaneDriverTraits: Hashable, Sendable {
    /// The kernel driver's name (`drmVersion`'s).
    public var driver: String
    /// Whether a plane's source may differ in size from its destination.
    public var scales: Bool
    /// Whether the primary plane must cover the whole output, unscaled
    /// (`drm_atomic_helper_check_plane_state` without `can_position`).
    public var primaryCoversOutput: Bool
    /// The bytes a second the planes of one output may read, or nil when the
    /// driver sets no limit that matters (VKMS composes in memory).
    public var fetchBudget: Double?

    public init(driver: String, scales: Bool, primaryCoversOutput: Bool, fetchBudget: Double?) {
        self.driver = driver
        self.scales = scales
        self.primaryCoversOutput = primaryCoversOutput
        self.fetchBudget = fetchBudget
    }

    /// The traits of the driver named `driver`; an unknown one is taken to
    /// neither scale nor place its primary, with no budget: a plan that needs
    /// more is not tried.
    public static func of(driver: String) -> PlaneDriverTraits {
        switch driver {
        case "vc4":
            // The HVS scales and places every plane. It is not checked for
            // bandwidth on bcm2711, and pivid's notes see underruns near
            // 3 GB/s on a Pi 4: plans are kept under 2.5 GB/s per output.
            PlaneDriverTraits(driver: driver, scales: true, primaryCoversOutput: false, fetchBudget: 2.5e9)
        case "vkms":
            // drm_atomic_helper_check_plane_state with DRM_PLANE_NO_SCALING
            // (6.1 and mainline), and can_position false for the primary.
            PlaneDriverTraits(driver: driver, scales: false, primaryCoversOutput: true, fetchBudget: nil)
        default:
            PlaneDriverTraits(driver: driver, scales: false, primaryCoversOutput: true, fetchBudget: nil)
        }
    }
}
