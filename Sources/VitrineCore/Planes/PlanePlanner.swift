/// Assigns a frame's layers to an output's planes.
///
/// The primary plane is at the bottom. It either shows the bottom layer's
/// own buffer, or a buffer the CPU composes from the background colour and
/// the bottom `k` layers; the layers above go one each onto overlay planes,
/// in stacking order. A layer the overlays cannot take (it needs plane
/// alpha, scaling or a format they lack, or no overlay is left) is composed
/// with every layer under it, as libliftoff's composition layer is.
///
/// `candidates(for:)` lists the plans the model of the display accepts,
/// cheapest for the CPU first, and the CPU's own plan last; `plan(for:test:)`
/// takes the first one an atomic `TEST_ONLY` commit accepts, since a driver
/// has limits no property states. A plan that would read more than the
/// driver's fetch budget is not offered: the kernel does not check that on
/// bcm2711, and the screen would underrun.
public struct PlanePlanner: Sendable {
    /// Whether planes may carry layers at all.
    public enum Mode: String, Hashable, Sendable, CaseIterable {
        /// Planes where the display takes the layers, the CPU otherwise.
        case auto
        /// The CPU composes every frame (a board whose planes misbehave).
        case cpu
    }

    public var primary: DisplayPlane?
    /// The overlays in stacking order, bottom first.
    public var overlays: [DisplayPlane]
    public var traits: PlaneDriverTraits
    /// The output's refresh rate, in hertz (what the fetch budget is per).
    public var refreshHz: Double
    public var mode: Mode

    /// `planes` are the output's (its lease's): one primary and its share of
    /// the overlays; cursor planes are not used.
    public init(planes: [DisplayPlane], traits: PlaneDriverTraits, refreshHz: Double, mode: Mode = .auto) {
        primary = planes.first { $0.kind == .primary }
        // Stable: planes without a zpos keep the card's order.
        overlays = planes.filter { $0.kind == .overlay }.enumerated()
            .sorted { ($0.element.lowestZpos ?? $0.offset, $0.offset) < ($1.element.lowestZpos ?? $1.offset, $1.offset) }
            .map(\.element)
        self.traits = traits
        self.refreshHz = refreshHz
        self.mode = mode
    }

    /// The plans for `stack` the display's model accepts, those that leave
    /// the CPU least to draw first; the CPU's own plan is always last.
    public func candidates(for stack: LayerStack) -> [PlanePlan] {
        var plans: [PlanePlan] = []
        forEachCandidate(of: stack) { plans.append($0); return false }
        plans.append(cpuPlan(for: stack))
        return plans
    }

    /// The first candidate `test` accepts (an atomic `TEST_ONLY` commit on a
    /// card); the CPU's plan when none is, which is never tested. Candidates
    /// are made one at a time and no further than the one accepted: this
    /// runs for every frame of a transition.
    public func plan(for stack: LayerStack, test: (PlanePlan) -> Bool = { _ in true }) -> PlanePlan {
        var accepted: PlanePlan?
        forEachCandidate(of: stack) { plan in
            guard test(plan) else { return false }
            accepted = plan
            return true
        }
        return accepted ?? cpuPlan(for: stack)
    }

    /// Calls `body` with each plan the model accepts, in order, until it returns true.
    private func forEachCandidate(of stack: LayerStack, _ body: (PlanePlan) -> Bool) {
        guard mode == .auto, let primary else { return }
        if case .success(let plan) = planWithPrimaryLayer(stack, primary: primary), body(plan) { return }
        for composed in 0..<stack.layers.count {
            if case .success(let plan) = planComposing(composed, of: stack, primary: primary), body(plan) { return }
        }
    }

    /// Why the planes cannot carry `stack` with nothing for the CPU to draw
    /// per frame, in words for the log and the doctor; nil when they can.
    public func refusal(for stack: LayerStack) -> PlaneRefusal? {
        guard mode == .auto else { return .forcedCPU }
        guard let primary else { return .noPrimary }
        let onPrimary = planWithPrimaryLayer(stack, primary: primary)
        let overBackground = planComposing(0, of: stack, primary: primary)
        switch (onPrimary, overBackground) {
        case (.success, _), (_, .success):
            return nil
        case (.failure(let first), .failure(let second)):
            // The reason of the plan that was closer: one that only failed for
            // its shape says less than one whose layers a plane refused.
            switch first {
            case .backgroundShows, .primaryMustCoverOutput: return second
            default: return first
            }
        }
    }

    /// Every layer composed into the primary plane's buffer: today's path.
    public func cpuPlan(for stack: LayerStack) -> PlanePlan {
        PlanePlan(primaryPlane: primary?.id ?? 0, primary: .composition(composed: 0..<stack.layers.count),
                  primaryZpos: nil, overlays: [], bytesPerRefresh: fullScreenBytes(stack))
    }

    // MARK: Plans

    /// The bottom layer on the primary plane itself, the rest on overlays:
    /// possible where opaque layers hide the background everywhere.
    private func planWithPrimaryLayer(_ stack: LayerStack, primary: DisplayPlane) -> Result<PlanePlan, PlaneRefusal> {
        guard let bottom = stack.layers.first, stack.isCoveredOpaquely else { return .failure(.backgroundShows) }
        if let refusal = refusal(of: bottom, index: 0, on: primary) { return .failure(refusal) }
        if traits.primaryCoversOutput,
           bottom.destination != PixelRect(x: 0, y: 0, width: stack.output.width, height: stack.output.height) {
            return .failure(.primaryMustCoverOutput)
        }
        return placeAbove(primary: primary, firstOverlaid: 1, stack: stack, primaryUse: .layer(0),
                          primaryBytes: bottom.bytesPerRefresh)
    }

    /// The background and the bottom `composed` layers in a buffer the CPU
    /// draws, on the primary plane; the rest on overlays.
    private func planComposing(_ composed: Int, of stack: LayerStack, primary: DisplayPlane) -> Result<PlanePlan, PlaneRefusal> {
        guard primary.formats.contains(.xrgb8888) else { return .failure(.unsupportedFormat(layer: 0, .xrgb8888)) }
        return placeAbove(primary: primary, firstOverlaid: composed, stack: stack,
                          primaryUse: .composition(composed: 0..<composed), primaryBytes: fullScreenBytes(stack))
    }

    /// Layers `firstOverlaid...` one to an overlay each, in stacking order above the primary.
    private func placeAbove(primary: DisplayPlane, firstOverlaid: Int, stack: LayerStack, primaryUse: PlanePlan.Primary,
                            primaryBytes: Double) -> Result<PlanePlan, PlaneRefusal> {
        let primaryZpos = primary.lowestZpos
        var below = primaryZpos ?? Int.min
        var next = 0
        var placements: [PlanePlan.Placement] = []
        var bytes = primaryBytes
        for index in firstOverlaid..<stack.layers.count {
            let layer = stack.layers[index]
            if layer.isComposedOnly { return .failure(.noBuffer(layer: index)) }
            var firstRefusal: PlaneRefusal?
            var placed = false
            while next < overlays.count, !placed {
                let plane = overlays[next]
                next += 1
                if let refusal = refusal(of: layer, index: index, on: plane) {
                    firstRefusal = firstRefusal ?? refusal
                    continue
                }
                var zpos: Int?
                switch plane.stacking {
                case .implicit:
                    zpos = nil
                case .fixed(let value):
                    guard value > below else { continue }
                    below = value
                case .adjustable(let range):
                    let value = max(below == Int.min ? range.lowerBound : below + 1, range.lowerBound)
                    guard value <= range.upperBound else { continue }
                    zpos = value
                    below = value
                }
                placements.append(PlanePlan.Placement(layer: index, plane: plane.id, zpos: zpos))
                bytes += layer.bytesPerRefresh
                placed = true
            }
            if !placed { return .failure(firstRefusal ?? .tooFewOverlays(needed: stack.layers.count - firstOverlaid, available: overlays.count)) }
        }
        if let budget = traits.fetchBudget, bytes * refreshHz > budget {
            return .failure(.overFetchBudget(bytesPerSecond: bytes * refreshHz, budget: budget, driver: traits.driver))
        }
        // Only a primary that can take a zpos gets one: its own stays below the overlays.
        let primaryZ: Int? = if case .adjustable = primary.stacking { primaryZpos } else { nil }
        return .success(PlanePlan(primaryPlane: primary.id, primary: primaryUse, primaryZpos: primaryZ,
                                  overlays: placements, bytesPerRefresh: bytes))
    }

    /// Why `plane` cannot show `layer`, or nil when it can.
    private func refusal(of layer: DisplayLayer, index: Int, on plane: DisplayPlane) -> PlaneRefusal? {
        if layer.isComposedOnly { return .noBuffer(layer: index) }
        if !plane.formats.contains(layer.format) { return .unsupportedFormat(layer: index, layer.format) }
        if layer.opacity < 1, !plane.hasAlpha { return .needsPlaneAlpha(layer: index) }
        if layer.isScaled, !traits.scales { return .needsScaling(layer: index, driver: traits.driver) }
        return nil
    }

    private func fullScreenBytes(_ stack: LayerStack) -> Double {
        Double(stack.output.width * stack.output.height) * ScanoutFormat.xrgb8888.bytesPerPixel
    }
}
