import Testing
@testable import VitrineCore

@Suite("Easing and transition style")
struct EasingTests {
    @Test(arguments: Easing.allCases)
    func endpoints(easing: Easing) {
        #expect(easing(0) == 0)
        #expect(easing(1) == 1)
        // Clamped outside 0...1.
        #expect(easing(-0.5) == 0)
        #expect(easing(-1e9) == 0)
        #expect(easing(1.5) == 1)
        #expect(easing(1e9) == 1)
    }

    @Test(arguments: Easing.allCases)
    func strictlyIncreasing(easing: Easing) {
        var previous = easing(0)
        for step in 1...1000 {
            let value = easing(Double(step) / 1000)
            #expect(value > previous, "\(easing) at \(step)/1000")
            #expect(value >= 0 && value <= 1)
            previous = value
        }
    }

    @Test func valuesAtHalfTime() {
        #expect(Easing.linear(0.5) == 0.5)
        #expect(Easing.easeOut(0.5) == 0.875)
        #expect(Easing.easeIn(0.5) == 0.125)
        #expect(Easing.easeInOut(0.5) == 0.5)
        #expect(Easing.linear(0.3) == 0.3)
        #expect(Easing.easeOut(0.25) == 1 - 0.75 * 0.75 * 0.75)
        #expect(Easing.easeIn(0.25) == 0.25 * 0.25 * 0.25)
        #expect(Easing.easeInOut(0.25) == 0.0625)
        #expect(Easing.easeInOut(0.75) == 0.9375)
    }

    @Test func easeOutStartsFastEaseInStartsSlow() {
        for t in stride(from: 0.05, to: 1, by: 0.05) {
            #expect(Easing.easeOut(t) > t)
            #expect(Easing.easeIn(t) < t)
            #expect(abs(Easing.easeIn(t) + Easing.easeOut(1 - t) - 1) < 1e-12)
            #expect(abs(Easing.easeInOut(t) + Easing.easeInOut(1 - t) - 1) < 1e-12)
        }
    }

    @Test func rawValuesMatchConfigurationNames() {
        #expect(Easing(rawValue: "ease-in") == .easeIn)
        #expect(Easing(rawValue: "ease-out") == .easeOut)
        #expect(Easing(rawValue: "ease-in-out") == .easeInOut)
        #expect(Easing(rawValue: "linear") == .linear)
        #expect(Easing(rawValue: "easeOut") == nil)
    }

    @Test func transitionStyleDefaultsAndEffectiveDuration() {
        let style = TransitionStyle()
        #expect(style.kind == .slide)
        #expect(style.duration == .milliseconds(400))
        #expect(style.easing == .easeOut)
        #expect(style.effectiveDuration == .milliseconds(400))
        #expect(TransitionStyle(kind: .crossfade, duration: .seconds(1)).effectiveDuration == .seconds(1))
        #expect(TransitionStyle(kind: .cut, duration: .seconds(1)).effectiveDuration == .zero)
    }
}
