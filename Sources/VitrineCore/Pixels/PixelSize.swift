/// A size in whole pixels.
public struct PixelSize: Hashable, Sendable, CustomStringConvertible {
    public var width: Int
    public var height: Int

    public init(width: Int, height: Int) {
        self.width = width
        self.height = height
    }

    public var pixelCount: Int { width * height }
    public var isEmpty: Bool { width <= 0 || height <= 0 }
    /// The same size with width and height exchanged (a quarter turn).
    public var transposed: PixelSize { PixelSize(width: height, height: width) }

    public var description: String { "\(width)x\(height)" }

    /// The smallest size of this shape that still covers `target` in both
    /// directions, so that framing what is scaled to it only ever shrinks;
    /// this size itself when the target is not smaller, or nil.
    public func scaledDown(covering target: PixelSize?) -> PixelSize {
        guard let target, target.width < width, target.height < height else { return self }
        let targetWidth = Swift.max(target.width, 1), targetHeight = Swift.max(target.height, 1)
        // The side that needs the larger share of the picture sets the scale.
        if targetWidth * height >= targetHeight * width {
            return PixelSize(width: targetWidth, height: Swift.min(height, (height * targetWidth + width - 1) / width))
        }
        return PixelSize(width: Swift.min(width, (width * targetHeight + height - 1) / height), height: targetHeight)
    }

    /// Parses `WIDTHxHEIGHT`, for example `1920x1080`.
    public init?(parsing text: String) {
        let parts = text.lowercased().split(separator: "x", omittingEmptySubsequences: false)
        guard parts.count == 2, let width = Int(parts[0]), let height = Int(parts[1]),
              width > 0, height > 0 else { return nil }
        self.init(width: width, height: height)
    }
}

/// A rectangle in pixels; the origin may be negative (content that hangs off the output).
public struct PixelRect: Hashable, Sendable, CustomStringConvertible {
    public var x: Int
    public var y: Int
    public var width: Int
    public var height: Int

    public init(x: Int, y: Int, width: Int, height: Int) {
        self.x = x
        self.y = y
        self.width = width
        self.height = height
    }

    public var size: PixelSize { PixelSize(width: width, height: height) }
    public var maxX: Int { x + width }
    public var maxY: Int { y + height }

    public func intersection(_ other: PixelRect) -> PixelRect? {
        let left = max(x, other.x), top = max(y, other.y)
        let right = min(maxX, other.maxX), bottom = min(maxY, other.maxY)
        guard right > left, bottom > top else { return nil }
        return PixelRect(x: left, y: top, width: right - left, height: bottom - top)
    }

    public var description: String { "\(width)x\(height)+\(x)+\(y)" }
}
