import Testing
@testable import VitrineCore

@Suite("Screen power")
struct ScreenPowerTests {
    let t0 = MonotonicInstant.zero

    @Test func onUntilAskedOffAndOnAgain() {
        var power = ScreenPower(wakeOnTouch: .seconds(30))
        #expect(power.state(at: t0) == .on)
        power.request(.off)
        #expect(power.state(at: t0 + .seconds(1)) == .off)
        #expect(power.nextChange(after: t0 + .seconds(1)) == nil)
        power.request(.on)
        #expect(power.state(at: t0 + .seconds(2)) == .on)
    }

    @Test func aTouchOnADarkScreenWakesItForTheConfiguredTimeAndIsConsumed() {
        var power = ScreenPower(wakeOnTouch: .seconds(30))
        power.request(.off)
        let touch = t0 + .seconds(100)
        let wokeTheScreen = power.touched(at: touch)
        #expect(wokeTheScreen)
        #expect(power.state(at: touch) == .wokenByTouch(until: touch + .seconds(30)))
        #expect(power.nextChange(after: touch + .seconds(10)) == touch + .seconds(30))
        // A second touch while lit is an ordinary touch, and keeps it lit longer.
        let secondTouchWoke = power.touched(at: touch + .seconds(20))
        #expect(!secondTouchWoke)
        #expect(power.state(at: touch + .seconds(49)) == .wokenByTouch(until: touch + .seconds(50)))
        #expect(power.state(at: touch + .seconds(50)) == .off)
        #expect(power.nextChange(after: touch + .seconds(50)) == nil)
    }

    @Test func withoutWakeOnTouchATouchLeavesTheScreenDarkButIsStillConsumed() {
        var power = ScreenPower(wakeOnTouch: nil)
        power.request(.off)
        let consumed = power.touched(at: t0 + .seconds(5))
        #expect(consumed)
        #expect(power.state(at: t0 + .seconds(5)) == .off)
    }

    @Test func touchesOnALitScreenChangeNothing() {
        var power = ScreenPower(wakeOnTouch: .seconds(30))
        let consumed = power.touched(at: t0 + .seconds(5))
        #expect(!consumed)
        #expect(power.state(at: t0 + .seconds(5)) == .on)
        #expect(power.nextChange(after: t0) == nil)
    }

    @Test func aNewRequestEndsATouchWake() {
        var power = ScreenPower(wakeOnTouch: .seconds(30))
        power.request(.off)
        _ = power.touched(at: t0 + .seconds(1))
        power.request(.off)
        #expect(power.state(at: t0 + .seconds(2)) == .off)
    }
}
