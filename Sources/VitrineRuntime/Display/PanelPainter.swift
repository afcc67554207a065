import VitrineCore

/// Draws a rectangle of a composite display's upright frame onto one member's
/// panel: copied when the sizes agree, else scaled, and turned as the panel is
/// mounted.
///
/// Scaling is bilinear (`FrameRegionSampler`, the sampler Ken Burns runs at
/// every refresh: SIMD rows written with streaming stores, a small multiple of
/// a memcpy), sampled at each panel pixel's centre as
/// `CanvasPlacement.canvasPixel` maps it, and kept inside the rectangle: its
/// edge pixels are repeated rather than blended with what lies beside it. The
/// ratios are close to 1 here (a canvas has the density of its finest member,
/// so a coarser one shrinks its region by a little; a 1080p picture mirrored to
/// 720p shrinks by 1.5), where bilinear is smooth and pixel-centre sampling
/// would drop or double whole columns, which a moving picture shows as jitter.
/// Shrinking by 2 or more skips pixels and can shimmer on fine detail.
struct PanelPainter {
    /// How the member's panel is mounted: its buffer is the upright picture turned this way.
    let orientation: ExifOrientation
    /// The upright picture at the member's logical size, for a turned member
    /// whose picture is scaled or letterboxed (allocated once per size).
    private var upright: PixelImage?

    init(rotation: DisplayRotation) {
        orientation = ExifOrientation(turningClockwise: rotation)
    }

    /// The member's size upright, for a panel buffer of `panel` size.
    func logicalSize(ofPanel panel: PixelSize) -> PixelSize { orientation.displaySize(forStored: panel) }

    /// Draws `region` of `frame` into `placement` of the member's upright
    /// picture, black around it, turned into `panel`.
    mutating func paint(_ frame: PixelImage, region: PixelRect, at placement: PixelRect, into panel: PixelCanvas) {
        let logical = logicalSize(ofPanel: panel.size)
        let whole = PixelRect(x: 0, y: 0, width: logical.width, height: logical.height)
        let scaled = placement.size != region.size
        if orientation != .up, placement == whole, !scaled {
            // Turned straight from the frame: no upright copy in between.
            orientation.draw(frame.canvas.cropped(to: region), into: panel)
            return
        }
        let target: PixelCanvas
        if orientation == .up {
            target = panel
        } else {
            if upright?.size != logical { upright = PixelImage(size: logical) }
            target = upright!.canvas
        }
        target.fill(around: placement, with: .black)
        let destination = target.cropped(to: placement)
        if scaled {
            let sampler = FrameRegionSampler(frame: frame, pixels: region, output: placement.size)
            for y in 0..<placement.height {
                sampler.draw(row: y, columns: 0..<placement.width, into: destination.row(y))
            }
            PixelRowKernels.finish()
        } else {
            destination.copyPixels(from: frame.canvas.cropped(to: region))
        }
        if orientation != .up { orientation.draw(target, into: panel) }
    }
}
