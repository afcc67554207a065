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
            // No test for transparent pixels: a premultiplied one leaves the destination as it
            // is anyway, and a loop without branches is one the compiler vectorises.
            for x in 0..<rect.width {
                let pixel = source[x]
                row[x] = Self.over(pixel, alpha: pixel >> 24, destination: row[x])
            }
        }
    }

    /// `PixelBlend.premultipliedOver`, to the same values, without its divisions:
    /// `(v + 127) / 255` is `round(v / 255)`, which for v up to 65535 is
    /// `(w + (w >> 8)) >> 8` with `w = v + 128`. Every pixel of the box is blended
    /// at every frame it shows on.
    @inline(__always)
    static func over(_ source: UInt32, alpha: UInt32, destination: UInt32) -> UInt32 {
        let inverse = 255 - alpha
        @inline(__always) func channel(_ shift: UInt32) -> UInt32 {
            let w = ((destination >> shift) & 0xFF) * inverse + 128
            return min(255, ((source >> shift) & 0xFF) + ((w + (w >> 8)) >> 8)) << shift
        }
        return 0xFF00_0000 | channel(16) | channel(8) | channel(0)
    }
}
