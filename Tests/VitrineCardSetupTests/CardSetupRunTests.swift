import Foundation
import Testing
import VitrineChannel
import VitrineCore
@testable import VitrineCardSetup

/// `vitrine setup` on a made-up system and card: a root tree standing in for `/`, a directory for the FAT partition.
@Suite struct CardSetupRunTests {
    let base: String
    var root: String { base + "/root" }
    var boot: String { base + "/boot" }

    init() throws {
        base = NSTemporaryDirectory() + "vitrine-card-\(UUID().uuidString)"
        for directory in ["/root/usr/share/vitrine", "/root/usr/share/zoneinfo/Europe", "/root/etc/vitrine", "/root/etc/NetworkManager",
                          "/root/var/lib/vitrine/assets", "/boot"] {
            try FileManager.default.createDirectory(atPath: base + directory, withIntermediateDirectories: true)
        }
        write(root + "/usr/share/vitrine/vitrine.yaml", "slides: [https://example.com/starter.jpg]\n")
        write(root + "/usr/share/zoneinfo/Europe/Paris", "TZif")
        write(root + "/etc/vitrine/vitrine.yaml", "slides: [https://example.com/old.jpg]\n")
        write(root + "/var/lib/vitrine/config.json", "{}")
        write(root + "/var/lib/vitrine/assets/picture", "pixels")
    }

    func write(_ path: String, _ text: String) { _ = FileManager.default.createFile(atPath: path, contents: Data(text.utf8)) }
    func read(_ path: String) -> String? { FileManager.default.contents(atPath: path).map { String(decoding: $0, as: UTF8.self) } }
    func exists(_ path: String) -> Bool { FileManager.default.fileExists(atPath: path) }
    func setup() -> [String]? { CardSetupRun(boot: boot, root: root, kioskOwner: nil, runCommands: false, log: { _ in }).run() }

    @Test func aCardSetsUpTheBoardAndIsLeftWithoutItsSecrets() throws {
        defer { try? FileManager.default.removeItem(atPath: base) }
        #expect(setup() == nil, "an empty card: nothing done, nothing written")
        #expect(!exists(boot + "/vitrine-setup-result.txt"))

        write(boot + "/vitrine.yaml", "slides: [https://example.com/new.jpg]\n")
        write(boot + "/vitrine-token.txt", "s3cret-token-for-the-shop-0123\n")
        write(boot + "/vitrine-timezone.txt", "Europe/Paris\n")
        write(boot + "/vitrine-wifi.txt", "ssid: Shop\npassword: correct horse\ncountry: FR\n")
        // Second names for the secrets' files: what the file system held under them is what is overwritten.
        try FileManager.default.linkItem(atPath: boot + "/vitrine-token.txt", toPath: base + "/token-blocks")
        try FileManager.default.linkItem(atPath: boot + "/vitrine-wifi.txt", toPath: base + "/wifi-blocks")
        let lines = try #require(setup())
        #expect(lines.count == 4 && !lines.contains { $0.hasPrefix("failed") || $0.hasPrefix("not taken") }, "\(lines)")
        #expect(read(root + "/etc/vitrine/vitrine.yaml") == "slides: [https://example.com/new.jpg]\n")
        #expect(read(root + "/var/lib/vitrine/api-token") == "s3cret-token-for-the-shop-0123\n")
        #expect(try FileManager.default.destinationOfSymbolicLink(atPath: root + "/etc/localtime") == "/usr/share/zoneinfo/Europe/Paris")
        #expect(read(root + "/etc/timezone") == "Europe/Paris\n")
        let keyfile = try #require(read(root + "/etc/NetworkManager/system-connections/vitrine-wifi.nmconnection"))
        #expect(keyfile.contains("ssid=Shop\n") && keyfile.contains("psk=correct horse\n"))
        let mode = try FileManager.default.attributesOfItem(atPath: root + "/etc/NetworkManager/system-connections/vitrine-wifi.nmconnection")[.posixPermissions] as? Int
        #expect(mode == 0o600)
        #expect(read(root + "/etc/modprobe.d/vitrine-wifi-country.conf")?.contains("ieee80211_regdom=FR") == true)
        // The card: the token gone, the password gone, a result for whoever reads it next.
        #expect(!exists(boot + "/vitrine-token.txt"))
        #expect(read(boot + "/vitrine-wifi.txt")?.contains("correct horse") == false)
        #expect(read(boot + "/vitrine-setup-result.txt")?.contains("took vitrine.yaml") == true)
        // Their bytes were overwritten where they lay, not only unlinked or renamed over.
        #expect(read(base + "/token-blocks") == String(repeating: "\0", count: 31))
        #expect(read(base + "/wifi-blocks") == String(repeating: "\0", count: 47))

        // The next boot: nothing to take, the result file left as it was.
        write(boot + "/vitrine-setup-result.txt", "read by a person")
        #expect(setup() == [])
        #expect(read(boot + "/vitrine-setup-result.txt") == "read by a person")
    }

    @Test func aBadConfigurationIsReportedOnTheCardAndTheOldOneStays() throws {
        defer { try? FileManager.default.removeItem(atPath: base) }
        write(boot + "/vitrine.yaml", "slides:\n  - {path: https://example.com/a.jpg, duration: soon}\n")
        let lines = try #require(setup())
        #expect(lines.count == 1 && lines[0].hasPrefix("not taken: vitrine.yaml: slides[0].duration"), "\(lines)")
        #expect(read(root + "/etc/vitrine/vitrine.yaml") == "slides: [https://example.com/old.jpg]\n")
        #expect(read(boot + "/vitrine-setup-result.txt")?.contains("not taken: vitrine.yaml: slides[0].duration") == true)
    }

    @Test func aFactoryResetEmptiesTheStateAndPutsTheStarterBack() throws {
        defer { try? FileManager.default.removeItem(atPath: base) }
        write(boot + "/vitrine-factory-reset", "")
        let lines = try #require(setup())
        #expect(lines.first?.hasPrefix("factory reset") == true, "\(lines)")
        #expect(FileManager.default.fileExists(atPath: root + "/var/lib/vitrine"))
        #expect(try FileManager.default.contentsOfDirectory(atPath: root + "/var/lib/vitrine").isEmpty)
        #expect(read(root + "/etc/vitrine/vitrine.yaml") == "slides: [https://example.com/starter.jpg]\n")
        #expect(!exists(boot + "/vitrine-factory-reset"), "the reset is done once")
    }

    @Test func aChannelRootIsTakenOnlyWhenItVerifiesAndIsNewer() throws {
        defer { try? FileManager.default.removeItem(atPath: base) }
        let rootKey = SignifySecretKey.generate(comment: "root")
        let signing = SignifySecretKey.generate(comment: "signing")
        func line(_ key: SignifySecretKey) -> String { String(String(decoding: key.publicKey.fileBytes, as: UTF8.self).split(separator: "\n")[1]) }
        write(root + "/etc/vitrine/vitrine.yaml", """
            slides: [https://example.com/a.jpg]
            channel:
              url: https://origin.example/lobby
              keys: [\(line(signing))]
              root: [\(line(rootKey))]

            """)
        func card(version: UInt64, signedBy key: SignifySecretKey) throws {
            let document = ChannelRoot(version: version, published: WallInstant(secondsSinceEpoch: 1_795_478_400), keyLines: [line(signing)]).json
            _ = FileManager.default.createFile(atPath: boot + "/vitrine-channel-root.json", contents: Data(document))
            _ = FileManager.default.createFile(atPath: boot + "/vitrine-channel-root.json.sig", contents: Data(try key.sign(document, comment: "root").fileBytes))
        }
        try card(version: 3, signedBy: rootKey)
        #expect(try #require(setup()) == ["took vitrine-channel-root.json: channel root version 3 (the kiosk held none)"])
        #expect(exists(root + "/var/lib/vitrine/channel-root.json") && exists(root + "/var/lib/vitrine/channel-root.json.sig"))
        try card(version: 2, signedBy: rootKey)
        #expect(try #require(setup()).first?.hasPrefix("not taken: vitrine-channel-root.json: root: version 2 is older than version 3") == true)
        try card(version: 4, signedBy: signing)
        #expect(try #require(setup()).first?.hasPrefix("not taken: vitrine-channel-root.json:") == true)
        #expect(try ChannelRoot.parse(Array(FileManager.default.contents(atPath: root + "/var/lib/vitrine/channel-root.json")!)).version == 3)
    }

    @Test func wifiWithoutNetworkManagerKeepsThePasswordOnTheCardAndSaysWhy() throws {
        defer { try? FileManager.default.removeItem(atPath: base) }
        try FileManager.default.removeItem(atPath: root + "/etc/NetworkManager")
        write(boot + "/vitrine-wifi.txt", "ssid: Shop\npassword: correct horse\ncountry: FR\n")
        let lines = try #require(setup())
        #expect(lines == ["failed: vitrine-wifi.txt: NetworkManager is not installed (no /etc/NetworkManager): set the network up as this system does, or install network-manager"])
        #expect(read(boot + "/vitrine-wifi.txt") == "ssid: Shop\npassword: correct horse\ncountry: FR\n")
        // Tried again at the next boot, once NetworkManager is there.
        try FileManager.default.createDirectory(atPath: root + "/etc/NetworkManager", withIntermediateDirectories: true)
        #expect(try #require(setup()).first?.hasPrefix("took vitrine-wifi.txt") == true)
    }
}
