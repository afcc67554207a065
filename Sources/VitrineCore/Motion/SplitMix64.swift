/// SplitMix64 (Steele, Lea and Flood, 2014; Vigna's reference splitmix64.c): a
/// 64-bit generator whose sequence depends on its seed alone, on every machine
/// and with every Swift version. Swift's own generator and `Hasher` are seeded
/// anew in each process, and `Double.random(in:using:)` may change how it
/// draws, so neither can make a choice that kiosks showing the same
/// configuration must all make alike.
public struct SplitMix64: RandomNumberGenerator, Sendable {
    private var state: UInt64

    public init(seed: UInt64) {
        state = seed
    }

    public mutating func next() -> UInt64 {
        state &+= 0x9E37_79B9_7F4A_7C15
        var z = state
        z = (z ^ (z >> 30)) &* 0xBF58_476D_1CE4_E5B9
        z = (z ^ (z >> 27)) &* 0x94D0_49BB_1331_11EB
        return z ^ (z >> 31)
    }

    /// A number in 0..<1 from the next value's top 53 bits: every such double
    /// equally likely, and the same on every machine.
    public mutating func unit() -> Double {
        Double(next() >> 11) * 0x1p-53
    }
}
