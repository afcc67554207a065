import VitrineCore

/// Where each pixel of the shown picture lies in the picture as decoded
/// without its transforms: `irot` and `imir` composed in the file's order, as
/// libheif 1.15 applies them one after the other (`HeifPixelImage::rotate_ccw`,
/// `mirror_inplace`), but as one affine map of pixel indices instead of a copy
/// of the picture for each.
///
/// The shown pixel (x, y) is the decoded pixel (column, row) with
/// `column = column0 + columnPerX * x + columnPerY * y` and
/// `row = row0 + rowPerX * x + rowPerY * y`; each factor is -1, 0 or 1.
struct HEIFPixelMap: Equatable {
    private(set) var column0 = 0, columnPerX = 1, columnPerY = 0
    private(set) var row0 = 0, rowPerX = 0, rowPerY = 1
    /// The shown size: the decoded size, with width and height swapped by each odd quarter turn.
    private(set) var shownSize: PixelSize

    /// The map for a picture decoded at `decodedSize` that `transforms` turn and mirror, in order.
    init(decodedSize: PixelSize, transforms: [HEIFTransform]) {
        shownSize = decodedSize
        for transform in transforms { apply(transform) }
    }

    /// Applies one more step: the pixel (x, y) of its result is the pixel
    /// (column, row) of its input (of size `shownSize` so far), as libheif
    /// fills its output: a quarter turn anticlockwise takes column w-1-y of
    /// row x; three quarters, column y of row h-1-x.
    private mutating func apply(_ transform: HEIFTransform) {
        let (w, h) = (shownSize.width, shownSize.height)
        switch transform {
        case .rotation(let quarterTurns):
            switch quarterTurns & 3 {
            case 1:
                compose(column: (w - 1, 0, -1), row: (0, 1, 0))
                shownSize = PixelSize(width: h, height: w)
            case 2:
                compose(column: (w - 1, -1, 0), row: (h - 1, 0, -1))
            case 3:
                compose(column: (0, 0, 1), row: (h - 1, -1, 0))
                shownSize = PixelSize(width: h, height: w)
            default:
                break
            }
        case .mirror(let reversingColumns):
            if reversingColumns {
                compose(column: (w - 1, -1, 0), row: (0, 0, 1))
            } else {
                compose(column: (0, 1, 0), row: (h - 1, 0, -1))
            }
        }
    }

    /// self := self ∘ step, where step maps (x, y) to
    /// (column.0 + column.1 x + column.2 y, row.0 + row.1 x + row.2 y).
    private mutating func compose(column: (Int, Int, Int), row: (Int, Int, Int)) {
        let (c0, cx, cy) = (column0, columnPerX, columnPerY)
        let (r0, rx, ry) = (row0, rowPerX, rowPerY)
        column0 = c0 + cx * column.0 + cy * row.0
        columnPerX = cx * column.1 + cy * row.1
        columnPerY = cx * column.2 + cy * row.2
        row0 = r0 + rx * column.0 + ry * row.0
        rowPerX = rx * column.1 + ry * row.1
        rowPerY = rx * column.2 + ry * row.2
    }

    /// The decoded (column, row) of the shown pixel (x, y).
    func source(x: Int, y: Int) -> (column: Int, row: Int) {
        (column0 + columnPerX * x + columnPerY * y, row0 + rowPerX * x + rowPerY * y)
    }

    /// For a plane `stride` bytes a row, one byte a sample: the offset of the
    /// shown row `y`'s first pixel, and the step from one pixel to the next.
    func rowOffsets(y: Int, stride: Int) -> (first: Int, step: Int) {
        let (column, row) = source(x: 0, y: y)
        return (row * stride + column, rowPerX * stride + columnPerX)
    }
}
