/// A notice as drawn for one output: a premultiplied `argb8888` picture (a
/// `PixelImage` holding ARGB, the form a display's overlay planes blend), and
/// where it goes on the output. Two are equal when they are the same drawing
/// at the same place, so a scene that carries one stays a cheap value.
public struct NoticeImage: Hashable, Sendable {
    public let image: PixelImage
    public let destination: PixelRect

    public init(image: PixelImage, destination: PixelRect) {
        precondition(image.size == PixelSize(width: destination.width, height: destination.height),
                     "a \(image.size) notice for \(destination)")
        self.image = image
        self.destination = destination
    }

    public static func == (a: NoticeImage, b: NoticeImage) -> Bool {
        a.image === b.image && a.destination == b.destination
    }

    public func hash(into hasher: inout Hasher) {
        hasher.combine(ObjectIdentifier(image))
        hasher.combine(destination)
    }

    /// Blends the notice over the opaque frame in `canvas` (the output's size),
    /// as a display blends a premultiplied plane.
    public func draw(into canvas: PixelCanvas) {
        let rect = destination
        guard rect.x >= 0, rect.y >= 0, rect.maxX <= canvas.size.width, rect.maxY <= canvas.size.height else { return }
        for y in 0..<rect.height {
            let row = canvas.row(rect.y + y) + rect.x
            let source = image.pixels.baseAddress! + y * rect.width
            for x in 0..<rect.width where source[x] >> 24 != 0 {
                row[x] = PixelBlend.premultipliedOver(source[x], destination: row[x])
            }
        }
    }
}
