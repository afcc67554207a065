import VitrineCore

/// What one atomic commit sets on one plane: the framebuffer it shows, the
/// part of it (16.16 fixed point, as `SRC_*` takes it), where on the CRTC
/// (`CRTC_*`), and its `alpha` and `zpos` when the plan gives them. A plane
/// with no framebuffer is switched off (`FB_ID` and `CRTC_ID` 0).
public struct DRMPlaneSetting: Hashable, Sendable {
    public var plane: UInt32
    /// 0: the plane is off.
    public var framebuffer: UInt32
    public var source: (x: UInt32, y: UInt32, width: UInt32, height: UInt32)
    public var destination: PixelRect
    public var alpha: UInt16?
    public var zpos: Int?

    public init(plane: UInt32, framebuffer: UInt32, source: (x: UInt32, y: UInt32, width: UInt32, height: UInt32),
                destination: PixelRect, alpha: UInt16? = nil, zpos: Int? = nil) {
        self.plane = plane
        self.framebuffer = framebuffer
        self.source = source
        self.destination = destination
        self.alpha = alpha
        self.zpos = zpos
    }

    /// A plane switched off.
    public static func off(_ plane: UInt32) -> DRMPlaneSetting {
        DRMPlaneSetting(plane: plane, framebuffer: 0, source: (0, 0, 0, 0), destination: PixelRect(x: 0, y: 0, width: 0, height: 0))
    }

    /// The settings that put `stack` on the planes as `plan` says: the
    /// primary shows its layer's buffer or `composition` (the CPU's buffer,
    /// output-sized), each overlay its layer's buffer, and every other plane
    /// of `planes` (the output's) is switched off. `framebuffer` gives a
    /// layer's framebuffer ID by its index in the stack.
    ///
    /// `alpha` is set on a plane only where the layer is translucent or the
    /// plane has the property (`hasAlpha`), so that a plane without it gets
    /// no property it lacks; `zpos` only where the plan gives one.
    public static func settings(for plan: PlanePlan, of stack: LayerStack, planes: [DisplayPlane], composition: UInt32,
                                framebuffer: (Int) -> UInt32) -> [DRMPlaneSetting] {
        let hasAlpha = Dictionary(planes.map { ($0.id, $0.hasAlpha) }, uniquingKeysWith: { first, _ in first })
        func setting(_ layer: Int, on plane: UInt32, zpos: Int?) -> DRMPlaneSetting {
            let shown = stack.layers[layer]
            let opaque = shown.planeAlpha == 0xFFFF
            return DRMPlaneSetting(plane: plane, framebuffer: framebuffer(layer), source: shown.source.fixed16,
                                   destination: shown.destination,
                                   alpha: opaque && hasAlpha[plane] != true ? nil : shown.planeAlpha, zpos: zpos)
        }
        var result: [DRMPlaneSetting]
        switch plan.primary {
        case .layer(let index):
            result = [setting(index, on: plan.primaryPlane, zpos: plan.primaryZpos)]
        case .composition:
            let whole = SourceRect(stack.output)
            result = [DRMPlaneSetting(plane: plan.primaryPlane, framebuffer: composition, source: whole.fixed16,
                                      destination: PixelRect(x: 0, y: 0, width: stack.output.width, height: stack.output.height),
                                      alpha: hasAlpha[plan.primaryPlane] == true ? 0xFFFF : nil, zpos: plan.primaryZpos)]
        }
        result += plan.overlays.map { setting($0.layer, on: $0.plane, zpos: $0.zpos) }
        let used = Set(result.map(\.plane))
        result += planes.filter { $0.kind != .primary && !used.contains($0.id) }.map { .off($0.id) }
        return result
    }

    public static func == (lhs: Self, rhs: Self) -> Bool {
        lhs.plane == rhs.plane && lhs.framebuffer == rhs.framebuffer && lhs.source == rhs.source
            && lhs.destination == rhs.destination && lhs.alpha == rhs.alpha && lhs.zpos == rhs.zpos
    }

    public func hash(into hasher: inout Hasher) {
        hasher.combine(plane)
        hasher.combine(framebuffer)
    }
}
