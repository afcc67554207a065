internal import CLibAV
import VitrineCore

/// Scales decoded frames to the kiosk's pixels (`sws_scale` to BGRA, which
/// is the kiosk's XRGB8888 in memory) at the rectangle a fit mode gives.
///
/// The colour matrix is the stream's (`AVFrame.colorspace`), or BT.709 for a
/// picture 720 lines or taller that does not say and BT.601 below, as players
/// guess; the range is the stream's (`AVCOL_RANGE_JPEG`: full). Without this
/// swscale would read every stream as BT.601 with limited range, and HD
/// video's reds and greens would be visibly off.
final class VideoFrameScaler {
    private var context: OpaquePointer?
    /// The picture scaled whole, upright: a `cover` picture's middle is copied from it.
    private var uprightScratch: PixelImage?
    /// The picture scaled at its stored orientation, before it is turned.
    private var storedScratch: PixelImage?
    private var configured: (size: PixelSize, format: Int32, target: PixelSize, colorspace: Int32, fullRange: Bool)?

    deinit { sws_freeContext(context) }

    /// Draws `frame` into `canvas`, turned upright by `orientation`: the
    /// background around a picture that does not fill it (`contain`), the
    /// middle of one that overhangs it (`cover`). `shownSize` is the frame's
    /// size as shown before it is turned (its sample aspect ratio applied).
    ///
    /// A turned frame is scaled at its stored orientation into memory of its
    /// own, then turned into place: swscale scales, it does not turn. That
    /// costs one more pass over the scaled picture, in the helper.
    func draw(_ frame: UnsafeMutablePointer<AVFrame>, shownSize: PixelSize, orientation: ExifOrientation,
              into canvas: PixelCanvas, fit: FitMode, background: RGBAColor) throws(VideoError) {
        let placement = SlideLayout.placement(of: orientation.displaySize(forStored: shownSize), in: canvas.size, fit: fit)
        let target = PixelSize(width: placement.width, height: placement.height)
        guard !target.isEmpty else { return canvas.fill(with: background) }
        let storedTarget = orientation.swapsAxes ? target.transposed : target
        try configure(for: frame, target: storedTarget)
        let inside = placement.x >= 0 && placement.y >= 0
            && placement.x + placement.width <= canvas.size.width && placement.y + placement.height <= canvas.size.height
        if inside {
            canvas.fill(around: placement, with: background)
            if orientation == .up {
                scale(frame, into: canvas.cropped(to: placement))
            } else {
                let stored = scratch(&storedScratch, storedTarget)
                scale(frame, into: stored.canvas)
                orientation.draw(stored, into: canvas.cropped(to: placement))
            }
            return
        }
        // Overhanging (cover): scaled whole (and turned) into scratch, then its middle copied.
        let upright = scratch(&uprightScratch, target)
        if orientation == .up {
            scale(frame, into: upright.canvas)
        } else {
            let stored = scratch(&storedScratch, storedTarget)
            scale(frame, into: stored.canvas)
            orientation.draw(stored, into: upright.canvas)
        }
        let visibleX = -min(0, placement.x), visibleY = -min(0, placement.y)
        let width = min(canvas.size.width, target.width - visibleX), height = min(canvas.size.height, target.height - visibleY)
        let left = max(0, placement.x), top = max(0, placement.y)
        for row in 0..<height {
            (canvas.row(top + row) + left).update(from: upright.canvas.row(visibleY + row) + visibleX, count: width)
        }
    }

    /// Memory of `size` kept in `slot` from frame to frame.
    private func scratch(_ slot: inout PixelImage?, _ size: PixelSize) -> PixelImage {
        if slot?.size != size { slot = PixelImage(size: size) }
        return slot!
    }

    private func configure(for frame: UnsafeMutablePointer<AVFrame>, target: PixelSize) throws(VideoError) {
        let size = PixelSize(width: Int(frame.pointee.width), height: Int(frame.pointee.height))
        let format = frame.pointee.format
        let stated = Int32(frame.pointee.colorspace.rawValue)
        let colorspace = stated == Int32(AVCOL_SPC_UNSPECIFIED.rawValue) || stated == Int32(AVCOL_SPC_RGB.rawValue)
            ? (size.height >= 720 ? SWS_CS_ITU709 : SWS_CS_ITU601) : stated
        let fullRange = frame.pointee.color_range == AVCOL_RANGE_JPEG
        if let configured, configured.size == size, configured.format == format, configured.target == target,
           configured.colorspace == colorspace, configured.fullRange == fullRange { return }
        // sws_getCachedContext frees the old context when it makes a new one, and
        // returns NULL when it cannot: nothing is configured until it succeeds.
        configured = nil
        context = sws_getCachedContext(context, Int32(size.width), Int32(size.height), AVPixelFormat(format),
                                       Int32(target.width), Int32(target.height), AV_PIX_FMT_BGRA,
                                       SWS_BILINEAR, nil, nil, nil)
        guard let context else { throw .failed(call: "sws_getCachedContext", code: 0, message: "no conversion from this pixel format") }
        // Pixel formats that are YUV take the matrix; RGB sources ignore it.
        _ = sws_setColorspaceDetails(context, sws_getCoefficients(colorspace), fullRange ? 1 : 0,
                                     sws_getCoefficients(SWS_CS_DEFAULT), 1, 0, 1 << 16, 1 << 16)
        configured = (size, format, target, colorspace, fullRange)
    }

    private func scale(_ frame: UnsafeMutablePointer<AVFrame>, into canvas: PixelCanvas) {
        guard let context else { return }
        var destination: [UnsafeMutablePointer<UInt8>?] = [UnsafeMutableRawPointer(canvas.base).assumingMemoryBound(to: UInt8.self), nil, nil, nil]
        var destinationStride: [Int32] = [Int32(canvas.stride * 4), 0, 0, 0]
        withUnsafeBytes(of: frame.pointee.data) { data in
            withUnsafeBytes(of: frame.pointee.linesize) { lines in
                let planes = data.bindMemory(to: UnsafePointer<UInt8>?.self)
                let strides = lines.bindMemory(to: Int32.self)
                _ = sws_scale(context, planes.baseAddress, strides.baseAddress, 0, frame.pointee.height,
                              &destination, &destinationStride)
            }
        }
    }
}
