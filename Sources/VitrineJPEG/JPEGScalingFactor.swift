import CTurboJPEG
import VitrineCore

/// A DCT scaling factor `numerator/denominator` that libjpeg-turbo applies while
/// decoding: shrinking in the inverse DCT costs less than decoding at full size,
/// and never allocates the full-size picture.
public struct JPEGScalingFactor: Hashable, Sendable, CustomStringConvertible {
    public var numerator: Int
    public var denominator: Int

    public static let one = JPEGScalingFactor(numerator: 1, denominator: 1)

    /// The factors this libjpeg-turbo supports that shrink or keep the size
    /// (`tjGetScalingFactors`), smallest first.
    public static let shrinking: [JPEGScalingFactor] = {
        var count: Int32 = 0
        guard let factors = tjGetScalingFactors(&count), count > 0 else { return [.one] }
        return (0..<Int(count))
            .map { JPEGScalingFactor(numerator: Int(factors[$0].num), denominator: Int(factors[$0].denom)) }
            .filter { $0.numerator <= $0.denominator }
            .sorted { $0.numerator * $1.denominator < $1.numerator * $0.denominator }
    }()

    /// `TJSCALED`: the decoded length of a side of `length` pixels.
    public func scaled(_ length: Int) -> Int { (length * numerator + denominator - 1) / denominator }

    public func scaled(_ size: PixelSize) -> PixelSize {
        PixelSize(width: scaled(size.width), height: scaled(size.height))
    }

    /// The smallest factor whose result still covers `target` in both directions,
    /// so the following resample only ever shrinks; 1/1 when the picture is
    /// smaller than the target.
    public static func smallest(decoding source: PixelSize, covering target: PixelSize) -> JPEGScalingFactor {
        shrinking.first { factor in
            factor.scaled(source.width) >= target.width && factor.scaled(source.height) >= target.height
        } ?? .one
    }

    public var description: String { "\(numerator)/\(denominator)" }
}
