import Testing
@testable import VitrineCore

@Suite("RGBAColor and PixelBlend")
struct ColorTests {
    @Test(arguments: [
        ("#FFF", RGBAColor(red: 255, green: 255, blue: 255)),
        ("#000", RGBAColor(red: 0, green: 0, blue: 0)),
        ("#abc", RGBAColor(red: 0xAA, green: 0xBB, blue: 0xCC)),
        ("#1A2B3C", RGBAColor(red: 0x1A, green: 0x2B, blue: 0x3C)),
        ("#1a2b3c", RGBAColor(red: 0x1A, green: 0x2B, blue: 0x3C)),
        ("1A2B3C", RGBAColor(red: 0x1A, green: 0x2B, blue: 0x3C)),
        ("f80", RGBAColor(red: 0xFF, green: 0x88, blue: 0x00)),
        ("#1A2B3C80", RGBAColor(red: 0x1A, green: 0x2B, blue: 0x3C, alpha: 0x80)),
        ("#FFFFFF00", RGBAColor(red: 255, green: 255, blue: 255, alpha: 0)),
        ("#000000FF", RGBAColor(red: 0, green: 0, blue: 0, alpha: 255)),
    ])
    func parsesHex(text: String, expected: RGBAColor) {
        #expect(RGBAColor(hex: text) == expected)
    }

    @Test(arguments: [
        "", "#", "#F", "#FF", "#FFFF", "#FFFFF", "#FFFFFFF", "#FFFFFFFFF", "#GGG", "#12345G", "##FFF",
        " #FFF", "#FFF ", "0xFFFFFF", "red", "#-12345", "#+12345", "#12 456",
    ])
    func rejectsBadHex(text: String) {
        #expect(RGBAColor(hex: text) == nil)
    }

    @Test func hexString() {
        #expect(RGBAColor(red: 255, green: 136, blue: 0).hexString == "#FF8800")
        #expect(RGBAColor(red: 0, green: 0, blue: 0).hexString == "#000000")
        #expect(RGBAColor(red: 1, green: 2, blue: 3, alpha: 4).hexString == "#01020304")
        #expect(RGBAColor(red: 0xAB, green: 0xCD, blue: 0xEF, alpha: 0x80).hexString == "#ABCDEF80")
        #expect(RGBAColor(hex: "#ff8800ff")?.hexString == "#FF8800")
        #expect(RGBAColor(hex: "#abc")?.hexString == "#AABBCC")
        #expect(RGBAColor.white.description == "#FFFFFF")
    }

    @Test func hexStringRoundTrips() {
        var rng = SplitMix64(seed: 3)
        for _ in 0..<2000 {
            let v = rng.next()
            let colour = RGBAColor(red: UInt8(v & 0xFF), green: UInt8(v >> 8 & 0xFF),
                                   blue: UInt8(v >> 16 & 0xFF), alpha: v >> 40 & 1 == 0 ? 255 : UInt8(v >> 24 & 0xFF))
            #expect(RGBAColor(hex: colour.hexString) == colour, "\(colour.hexString)")
        }
        for alpha in [UInt8(0), 1, 15, 16, 254, 255] {
            let colour = RGBAColor(red: 15, green: 16, blue: 0, alpha: alpha)
            #expect(RGBAColor(hex: colour.hexString) == colour)
        }
    }

    @Test func xrgbDropsAlpha() {
        #expect(RGBAColor(red: 0x11, green: 0x22, blue: 0x33).xrgb == 0xFF11_2233)
        #expect(RGBAColor(red: 0x11, green: 0x22, blue: 0x33, alpha: 0).xrgb == 0xFF11_2233)
        #expect(RGBAColor.black.xrgb == 0xFF00_0000)
        #expect(RGBAColor.white.xrgb == 0xFFFF_FFFF)
    }

    @Test func mixing() {
        let a = RGBAColor(red: 0, green: 100, blue: 255, alpha: 0)
        let b = RGBAColor(red: 255, green: 200, blue: 0, alpha: 255)
        #expect(a.mixed(with: b, fraction: 0) == a)
        #expect(a.mixed(with: b, fraction: 1) == b)
        #expect(a.mixed(with: b, fraction: 0.5) == RGBAColor(red: 128, green: 150, blue: 128, alpha: 128))
        #expect(a.mixed(with: b, fraction: 0.25) == RGBAColor(red: 64, green: 125, blue: 191, alpha: 64))
        #expect(a.mixed(with: b, fraction: -3) == a)
        #expect(a.mixed(with: b, fraction: 7) == b)
    }

    @Test func blendWeights() {
        let top: UInt32 = 0xFF20_4080, bottom: UInt32 = 0xFFA0_C0E0
        #expect(PixelBlend.blend(top, over: bottom, alpha256: 256) == top)
        #expect(PixelBlend.blend(top, over: bottom, alpha256: 0) == bottom)
        #expect(PixelBlend.blend(top, over: bottom, alpha256: 128) == 0xFF60_80B0)
        #expect(PixelBlend.blend(0xFFFF_FFFF, over: 0xFF00_0000, alpha256: 64) == 0xFF3F_3F3F)
        // The X byte of either input does not leak into the result.
        #expect(PixelBlend.blend(0x0020_4080, over: 0x12A0_C0E0, alpha256: 128) == 0xFF60_80B0)
        // Channels do not carry into each other at their extremes.
        #expect(PixelBlend.blend(0xFFFF_00FF, over: 0xFF00_FF00, alpha256: 255) == 0xFFFE_00FE)
    }

    @Test func blendRowInPlace() {
        var bottom: [UInt32] = [0xFF00_0000, 0xFF10_1010, 0xFFFF_FFFF]
        let top: [UInt32] = [0xFFFF_FFFF, 0xFF30_3030, 0xFF00_0000]
        bottom.withUnsafeMutableBufferPointer { b in
            top.withUnsafeBufferPointer { t in
                PixelBlend.blendRow(top: t.baseAddress!, bottom: b.baseAddress!, output: b.baseAddress!, count: 3, alpha256: 128)
            }
        }
        #expect(bottom == [0xFF7F_7F7F, 0xFF20_2020, 0xFF7F_7F7F])
    }
}
