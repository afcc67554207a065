import Testing
import VitrineUpdate

@Suite struct UpdatePlanTests {
    func v(_ text: String) -> PackageVersion { PackageVersion(text)! }
    let offered = ["0.9.0", "1.0.0", "1.1.0", "1.2.0"].map { PackageVersion($0)! }

    @Test func installsAnOfferedVersionAboveTheFloor() {
        #expect(UpdatePlan.decide(wanted: v("1.2.0"), installed: v("1.1.0"), floor: v("1.0.0"), failedBefore: [:], offered: offered)
            == .install(v("1.2.0"), replacing: v("1.1.0")))
        // A channel may take a fleet back, as far as the floor.
        #expect(UpdatePlan.decide(wanted: v("1.0.0"), installed: v("1.1.0"), floor: v("1.0.0"), failedBefore: [:], offered: offered)
            == .install(v("1.0.0"), replacing: v("1.1.0")))
    }

    @Test func neverGoesUnderTheFloorEvenWhenTheRepositoryOffersIt() {
        let plan = UpdatePlan.decide(wanted: v("0.9.0"), installed: v("1.1.0"), floor: v("1.0.0"), failedBefore: [:], offered: offered)
        #expect(plan == .refused(.belowFloor(wanted: "0.9.0", floor: "1.0.0")))
    }

    @Test func theInstalledVersionIsLeftAloneAndTheFloorComesBeforeTheRest() {
        #expect(UpdatePlan.decide(wanted: v("1.1.0"), installed: v("1.1.0"), floor: v("1.2.0"), failedBefore: [:], offered: []) == .alreadyInstalled)
        // Below the floor and failed before and not offered: the floor is what it says.
        #expect(UpdatePlan.decide(wanted: v("0.5"), installed: v("1.1.0"), floor: v("1.0.0"), failedBefore: ["0.5": "crashed"], offered: [])
            == .refused(.belowFloor(wanted: "0.5", floor: "1.0.0")))
    }

    @Test func aVersionRolledBackBeforeIsNotRetried() {
        let plan = UpdatePlan.decide(wanted: v("1.2.0"), installed: v("1.1.0"), floor: nil, failedBefore: ["1.2.0": "restarted 2 times"], offered: offered)
        #expect(plan == .refused(.failedBefore(version: "1.2.0", reason: "restarted 2 times")))
    }

    @Test func onlyWhatTheSignedRepositoryOffers() {
        let plan = UpdatePlan.decide(wanted: v("1.3.0"), installed: v("1.1.0"), floor: nil, failedBefore: [:], offered: offered)
        #expect(plan == .refused(.notOffered(version: "1.3.0", offered: ["0.9.0", "1.0.0", "1.1.0", "1.2.0"])))
        #expect(UpdatePlan.decide(wanted: v("1.2.0"), installed: nil, floor: nil, failedBefore: [:], offered: offered) == .refused(.notInstalledAsPackage))
    }
}
