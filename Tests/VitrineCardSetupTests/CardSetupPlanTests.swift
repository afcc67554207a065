import Foundation
import Testing
import VitrineChannel
@testable import VitrineCardSetup

/// The plan on made-up cards: what is taken, what is refused and why, and what goes back on the card.
@Suite struct CardSetupPlanTests {
    func bytes(_ text: String) -> [UInt8] { Array(text.utf8) }
    let valid: ([UInt8]) -> [String] = { _ in [] }
    let zones: (String) -> Bool = { ["Europe/Paris", "America/New_York", "UTC"].contains($0) }

    func decide(_ card: [String: String], taken: CardSetupRecord = CardSetupRecord(),
                issues: @escaping ([UInt8]) -> [String] = { _ in [] }) -> CardSetupPlan {
        CardSetupPlan.decide(card: card.mapValues { Array($0.utf8) }, taken: taken, configurationIssues: issues, zoneExists: zones)
    }

    @Test func aFreshCardIsTakenWholeAndItsSecretsComeOff() throws {
        let plan = decide([
            "vitrine.yaml": "slides: [https://example.com/a.jpg]\n",
            "vitrine-token.txt": "  s3cret-token-for-the-shop-0123\n",
            "vitrine-timezone.txt": "Europe/Paris\n",
            "vitrine-wifi.txt": "ssid: Shop Wi-Fi\npassword: correct horse\ncountry: fr\n",
        ])
        #expect(plan.problems.isEmpty)
        #expect(plan.actions == [
            .configuration(bytes("slides: [https://example.com/a.jpg]\n")), .token("s3cret-token-for-the-shop-0123"), .timeZone("Europe/Paris"),
            .wifi(WifiSettings(ssid: "Shop Wi-Fi", password: "correct horse", country: "FR")),
        ])
        // The token is removed from the card; the Wi-Fi file loses its password.
        #expect(plan.cardWrites["vitrine-token.txt"] == .some(nil))
        let scrubbed = try #require(plan.cardWrites["vitrine-wifi.txt"] ?? nil)
        #expect(!String(decoding: scrubbed, as: UTF8.self).contains("correct horse"))
        #expect(String(decoding: scrubbed, as: UTF8.self).contains("ssid: \"Shop Wi-Fi\""))

        // The next boot with the card as it was left: nothing is taken again.
        var card: [String: String] = ["vitrine.yaml": "slides: [https://example.com/a.jpg]\n", "vitrine-timezone.txt": "Europe/Paris\n",
                                      "vitrine-wifi.txt": String(decoding: scrubbed, as: UTF8.self)]
        let next = decide(card, taken: plan.record)
        #expect(next.actions.isEmpty && next.problems.isEmpty)
        #expect(Set(next.unchanged) == ["vitrine.yaml", "vitrine-timezone.txt", "vitrine-wifi.txt"])
        // An edit on another computer is taken at the boot after.
        card["vitrine.yaml"] = "slides: [https://example.com/b.jpg]\n"
        #expect(decide(card, taken: plan.record).actions == [.configuration(bytes("slides: [https://example.com/b.jpg]\n"))])
    }

    @Test func aConfigurationThatDoesNotCheckIsRefusedWithItsKeyPathsAndCheckedAgainNextBoot() {
        let plan = decide(["vitrine.yaml": "slides: 3\n"], issues: { _ in ["slides: must be a list of pictures, found a number"] })
        #expect(plan.actions.isEmpty)
        #expect(plan.problems == [CardSetupProblem(file: "vitrine.yaml", message: "slides: must be a list of pictures, found a number")])
        #expect(plan.record.taken["vitrine.yaml"] == nil)
    }

    @Test func badTokensZonesAndWifiAreRefusedSayingWhy() {
        let plan = decide([
            "vitrine-token.txt": "short\n",
            "vitrine-timezone.txt": "../../etc/shadow\n",
            "vitrine-wifi.txt": "ssid: Shop\npassword: 1234\n",
        ])
        #expect(plan.actions.isEmpty)
        #expect(plan.problems.map(\.description) == [
            "vitrine-token.txt: must hold one token of 16 characters or more, without spaces, not starting with '-' (found 5 characters)",
            "vitrine-timezone.txt: \"../../etc/shadow\" is not a time zone this system has (an IANA name such as Europe/Paris or America/New_York)",
            "vitrine-wifi.txt: country: is required, as two letters (ISO 3166, such as FR or GB): the radio may only use the channels that country allows",
        ])
        // A refused secret stays on the card, for its owner to correct.
        #expect(plan.cardWrites.isEmpty)
    }

    @Test func aFactoryResetComesFirstAndForgetsWhatWasTaken() {
        let before = decide(["vitrine.yaml": "slides: [https://example.com/a.jpg]\n"])
        let plan = decide(["vitrine-factory-reset": "", "vitrine.yaml": "slides: [https://example.com/a.jpg]\n"], taken: before.record)
        #expect(plan.actions == [.factoryReset, .configuration(bytes("slides: [https://example.com/a.jpg]\n"))])
        #expect(plan.cardWrites["vitrine-factory-reset"] == .some(nil))
    }

    @Test func aScrubbedWifiFileAfterAFactoryResetIsLeftAloneNotRefused() throws {
        let first = decide(["vitrine-wifi.txt": "ssid: Shop\npassword: correct horse\ncountry: FR\n"])
        let scrubbed = try #require(first.cardWrites["vitrine-wifi.txt"] ?? nil)
        // The reset forgets what was taken; the scrubbed file is still on the card.
        let plan = decide(["vitrine-factory-reset": "", "vitrine-wifi.txt": String(decoding: scrubbed, as: UTF8.self)], taken: first.record)
        #expect(plan.actions == [.factoryReset])
        #expect(plan.problems.isEmpty)
        #expect(plan.unchanged == ["vitrine-wifi.txt"])
        #expect(plan.cardWrites["vitrine-wifi.txt"] == nil)
        // A scrubbed file with a new password written over the marker is taken again.
        let edited = String(decoding: scrubbed, as: UTF8.self).replacingOccurrences(of: WifiSettings.takenMarker, with: "a new password")
        #expect(decide(["vitrine-wifi.txt": edited], taken: plan.record).actions.count == 1)
    }

    @Test func aChannelRootNeedsItsSignature() {
        let alone = decide(["vitrine-channel-root.json": "{}"])
        #expect(alone.problems.first?.message.hasPrefix("has no signature beside it") == true)
        let both = decide(["vitrine-channel-root.json": "{}", "vitrine-channel-root.json.sig": "sig"])
        #expect(both.actions == [.channelRoot(root: bytes("{}"), signature: bytes("sig"))])
    }
}
