import Testing
@testable import VitrineCardSetup

@Suite struct WifiSettingsTests {
    @Test func readsQuotedValuesAndAnOpenNetwork() throws {
        let settings = try WifiSettings.parse("ssid: \" Café: 2.4 GHz\"\ncountry: GB\nhidden: yes\n").get()
        #expect(settings == WifiSettings(ssid: " Café: 2.4 GHz", password: nil, country: "GB", hidden: true))
        let keyfile = settings.keyfile(uuid: "u")
        // A leading space is GLib's "\s"; the rest stands as it is.
        #expect(keyfile.contains("ssid=\\sCafé: 2.4 GHz\n"))
        #expect(keyfile.contains("hidden=true"))
        #expect(!keyfile.contains("[wifi-security]"))
    }

    @Test func aPasswordGoesIntoTheKeyfileEscaped() throws {
        let settings = try WifiSettings.parse("ssid: Shop\npassword: 'back\\slash pass'\ncountry: DE\n").get()
        #expect(settings.keyfile(uuid: "u").contains("key-mgmt=wpa-psk\npsk=back\\\\slash pass\n"))
    }

    @Test func aScrubbedFileReadsBackWithoutThePasswordAndSaysSo() throws {
        let settings = WifiSettings(ssid: "Shop \"Main\"", password: "correct horse", country: "FR")
        let scrubbed = settings.scrubbedFile()
        #expect(!scrubbed.contains("correct horse"))
        // Read back as it stands, it is refused with a clear reason rather than taken with no password.
        guard case .failure(let problem) = WifiSettings.parse(scrubbed) else { Issue.record("a scrubbed file was taken"); return }
        #expect(problem.message.hasPrefix("password: was taken off the card already"))
    }

    @Test func eachProblemNamesItsKey() {
        func problem(_ text: String) -> String? {
            if case .failure(let problem) = WifiSettings.parse(text) { return problem.message }
            return nil
        }
        #expect(problem("country: FR\n") == "ssid: is required (the network's name)")
        #expect(problem("ssid: a\ncountry: FRA\n")?.hasPrefix("country: is required, as two letters") == true)
        #expect(problem("ssid: a\ncountry: FR\npassword: short\n") == "password: a WPA password has 8 to 63 characters, found 5")
        #expect(problem("ssid: a\ncountry: FR\nchannel: 6\n") == "channel: unknown key (the file has ssid, password, country and hidden)")
        #expect(problem("ssid: a\ncountry: FR\nhidden: maybe\n") == "hidden: must be true or false, found maybe")
        #expect(problem("[not, a, mapping]") == "must be lines of key: value (ssid, password, country, hidden)")
        #expect(problem("ssid: \(String(repeating: "x", count: 33))\ncountry: FR\n")?.hasPrefix("ssid: is longer than 32 bytes") == true)
    }
}
