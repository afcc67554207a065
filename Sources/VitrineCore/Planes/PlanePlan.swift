/// Which plane shows which layer of a `LayerStack`, and what the CPU draws.
public struct PlanePlan: Hashable, Sendable {
    /// What the primary plane shows.
    public enum Primary: Hashable, Sendable {
        /// The buffer of this layer itself.
        case layer(Int)
        /// A buffer the CPU composes: the background colour and the layers in
        /// `composed` (the bottom ones), drawn again whenever they change. An
        /// empty range is the background alone, drawn once.
        case composition(composed: Range<Int>)
    }

    /// One layer on an overlay plane.
    public struct Placement: Hashable, Sendable {
        public var layer: Int
        public var plane: UInt32
        /// The `zpos` the commit sets, or nil to leave the plane's own order.
        public var zpos: Int?

        public init(layer: Int, plane: UInt32, zpos: Int?) {
            self.layer = layer
            self.plane = plane
            self.zpos = zpos
        }
    }

    public var primaryPlane: UInt32
    public var primary: Primary
    /// The primary's `zpos` (below every overlay), or nil to leave it.
    public var primaryZpos: Int?
    /// Bottom to top.
    public var overlays: [Placement]
    /// What the display reads for one refresh, in bytes.
    public var bytesPerRefresh: Double

    public init(primaryPlane: UInt32, primary: Primary, primaryZpos: Int?, overlays: [Placement], bytesPerRefresh: Double) {
        self.primaryPlane = primaryPlane
        self.primary = primary
        self.primaryZpos = primaryZpos
        self.overlays = overlays
        self.bytesPerRefresh = bytesPerRefresh
    }

    /// The layers the CPU draws into the primary plane's buffer.
    public var composedLayers: Range<Int> {
        switch primary {
        case .layer: 0..<0
        case .composition(let composed): composed
        }
    }

    /// Whether the CPU composes every layer: today's path, the one every display can take.
    public var isCPUComposition: Bool { overlays.isEmpty && primary != .layer(0) }

    /// "planes" when the display carries every layer, "cpu" when the CPU draws them
    /// all, "mixed" otherwise: the path a transition's frames take, as the doctor and logs say.
    public var path: String {
        if composedLayers.isEmpty { return "planes" }
        return overlays.isEmpty ? "cpu" : "mixed"
    }
}
