/// Why a frame's layers do not all go on planes.
public enum PlaneRefusal: Error, Hashable, Sendable, CustomStringConvertible {
    case forcedCPU
    case noPrimary
    case backgroundShows
    case primaryMustCoverOutput
    case noBuffer(layer: Int)
    case unsupportedFormat(layer: Int, ScanoutFormat)
    case needsPlaneAlpha(layer: Int)
    case needsScaling(layer: Int, driver: String)
    case tooFewOverlays(needed: Int, available: Int)
    case overFetchBudget(bytesPerSecond: Double, budget: Double, driver: String)

    public var description: String {
        switch self {
        case .forcedCPU: "the configuration composes on the CPU (output.planes: cpu)"
        case .noPrimary: "the output has no primary plane listed"
        case .backgroundShows: "the background shows, so the bottom layer cannot be the primary plane"
        case .primaryMustCoverOutput: "the driver's primary plane must cover the whole output"
        case .noBuffer(let layer): "layer \(layer) is a slide whose picture is not ready"
        case .unsupportedFormat(let layer, let format): "no plane left scans out layer \(layer)'s format \(format.rawValue)"
        case .needsPlaneAlpha(let layer): "layer \(layer) is translucent and no plane left has an alpha property"
        case .needsScaling(let layer, let driver): "layer \(layer) is scaled and \(driver)'s planes do not scale"
        case .tooFewOverlays(let needed, let available): "\(needed) layers need overlays and the output has \(available)"
        case .overFetchBudget(let rate, let budget, let driver):
            "the planes would read \(Self.gigabytes(rate)) GB/s, over \(driver)'s budget of \(Self.gigabytes(budget)) GB/s"
        }
    }

    private static func gigabytes(_ bytes: Double) -> String {
        let tenths = Int((bytes / 1e8).rounded())
        return "\(tenths / 10).\(tenths % 10)"
    }
}
