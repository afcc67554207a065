/// What a driver's test commit judges of a plan: which layers go on which
/// planes, and which of them are scaled. Positions and opacities within one
/// shape are taken to be judged alike, so a transition is tested once, at its
/// first frame, not at every frame (a `DRM_MODE_ATOMIC_TEST_ONLY` commit costs
/// a round trip through the driver's whole check).
public struct PlanShape: Hashable, Sendable {
    public var primary: PlanePlan.Primary
    public var placements: [PlanePlan.Placement]
    public var scaled: [Bool]

    public init(_ plan: PlanePlan, _ stack: LayerStack) {
        primary = plan.primary
        placements = plan.overlays
        scaled = stack.layers.map(\.isScaled)
    }
}
