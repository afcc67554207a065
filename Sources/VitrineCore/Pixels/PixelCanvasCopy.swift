internal import CPixelRows

extension PixelCanvas {
    /// Copies `source`, which must be this canvas's size, row by row with the
    /// row kernels' streaming stores (`vitrine_rows_copy`), then orders them
    /// (`vitrine_rows_finish`): a frame written once and read by the display
    /// costs one memcpy, not a read-for-ownership on top.
    public func copyPixels(from source: PixelCanvas) {
        precondition(source.size == size, "cannot copy \(source.size) pixels into \(size)")
        guard !size.isEmpty else { return }
        for y in 0..<size.height {
            vitrine_rows_copy(row(y), source.row(y), size.width)
        }
        vitrine_rows_finish()
    }
}
