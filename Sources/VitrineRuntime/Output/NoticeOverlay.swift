import Logging
import VitrineCore
import VitrineSystem

/// The notice an output shows over its slides (`Scene.notice`), drawn once
/// for its size and kept until the notice, the size or the dots' corner changes.
///
/// Drawing is a few dozen glyphs through FreeType into a small buffer, on the
/// display thread, only at those changes (docs/benchmarks.md, "Notice").
final class NoticeOverlay {
    private let rasterizer: (any TextRasterizer)?
    /// What should show; nil: nothing.
    private(set) var wanted: ScreenNotice?
    private var drawn: (notice: ScreenNotice, size: PixelSize, indicator: IndicatorPosition, image: NoticeImage?)?
    /// A notice that could not be drawn is logged once, not at every frame.
    private var failed: ScreenNotice?

    /// - Parameter rasterizer: the font; nil (no font could be opened): no notice shows.
    init(rasterizer: (any TextRasterizer)?) {
        self.rasterizer = rasterizer
    }

    /// Shows `notice` from the next frame (nil: none). Whether it changed, so
    /// that the frame on screen is drawn again.
    func want(_ notice: ScreenNotice?, logger: Logger) -> Bool {
        guard notice != wanted else { return false }
        wanted = notice
        if let notice {
            if rasterizer == nil {
                logger.warning("the notice cannot be shown: no font could be opened (fonts-dejavu-core): \(notice.lines.joined(separator: " "))")
            } else {
                logger.notice("showing on screen: \(notice.lines.joined(separator: " "))")
            }
        } else {
            logger.info("the on-screen notice is gone")
        }
        return true
    }

    /// The wanted notice drawn for an output of `size` whose dots sit at `indicator`.
    func image(for size: PixelSize, indicator: IndicatorPosition, logger: Logger) -> NoticeImage? {
        guard let notice = wanted, let rasterizer else { return nil }
        if let drawn, drawn.notice == notice, drawn.size == size, drawn.indicator == indicator { return drawn.image }
        var image: NoticeImage?
        do {
            let started = MonotonicClock.now()
            image = try NoticePainter.paint(notice, output: size, indicator: indicator, with: rasterizer)
            logger.debug("notice drawn", metadata: [
                "size": "\(size)", "ms": "\(fixedPoint(Double((MonotonicClock.now() - started).nanoseconds) / 1e6, decimals: 2))",
            ])
        } catch {
            if failed != notice { logger.error("the notice cannot be drawn: \(error)") }
            failed = notice
        }
        drawn = (notice, size, indicator, image)
        return image
    }
}
