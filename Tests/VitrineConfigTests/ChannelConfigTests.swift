import Testing
import VitrineConfig
import VitrineCore

/// The `channel` section and `blob:` references (docs/configuration.md, docs/fleet.md).
@Suite("channel section")
struct ChannelConfigTests {
    /// A signify public key's base64 line ("Ed", keynum, 32 bytes of key).
    static let inlineKey = "RWRRugANGhPOOFTHQ0ZsOcH8SsvlKlt8zqaqGfuDI0vU0AVtvi86SK6Y"

    @Test func theDefaultsAreTheDocumentedOnes() throws {
        let configuration = try ConfigLoader.parse("""
            channel: {url: "https://origin.example/channels/lobby", keys: [keys/lobby.pub]}
            """, baseDirectory: "/etc/vitrine")
        let channel = try #require(configuration.channel)
        #expect(channel.url == "https://origin.example/channels/lobby")
        #expect(channel.keys == [.file("/etc/vitrine/keys/lobby.pub")])
        #expect(channel.poll == .seconds(30))
        #expect(channel.jitter == .fraction(0.2))
        #expect(channel.timeout == .seconds(60))
        #expect(channel.group == nil && channel.device == nil)
        #expect(channel.allowLocalPush == false)
        #expect(channel.url(of: "channel.json") == "https://origin.example/channels/lobby/channel.json")
        #expect(try ConfigLoader.parse("slides: []").channel == nil)
    }

    @Test func everyKeyReads() throws {
        let configuration = try ConfigLoader.parse("""
            channel:
              url: "http://10.0.0.1:8000/lobby/channel.json"
              keys: [/etc/vitrine/a.pub, \(Self.inlineKey)]
              poll: 5m
              jitter: 20s
              timeout: 2m
              group: lobby
              device: lobby-left
              allowLocalPush: true
              root: [keys/root.pub]
            """, baseDirectory: "/etc/vitrine")
        let channel = try #require(configuration.channel)
        // The manifest's own URL is taken to mean its directory.
        #expect(channel.url == "http://10.0.0.1:8000/lobby/")
        #expect(channel.keys == [.file("/etc/vitrine/a.pub"), .inline(Self.inlineKey)])
        #expect(channel.poll == .seconds(300))
        #expect(channel.jitter == .duration(.seconds(20)))
        #expect(channel.timeout == .seconds(120))
        #expect(channel.group == "lobby" && channel.device == "lobby-left")
        #expect(channel.allowLocalPush)
        #expect(channel.rootKeys == [.file("/etc/vitrine/keys/root.pub")])
        #expect(try ConfigLoader.parse("channel: {url: \"https://o.example/c\", keys: k.pub, jitter: 0.5}").channel?.jitter == .fraction(0.5))
        #expect(try ConfigLoader.parse("channel: {url: \"https://o.example/c\", keys: k.pub}").channel?.rootKeys == [])
    }

    @Test func mistakesNameTheirKey() {
        #expect(issues("channel: {keys: [a.pub]}") == ["channel.url: is required: the http:// or https:// URL of the channel's directory"])
        #expect(issues("channel: {url: \"https://o.example/c\"}") == ["channel.keys: is required: the signify public keys whose signatures this kiosk accepts"])
        #expect(issue("channel: {url: \"ftp://o.example/c\", keys: [a.pub]}")?.hasPrefix("channel.url: must be the http:// or https:// URL") == true)
        #expect(issue("channel: {url: \"https://o.example/c\", keys: []}")?.hasPrefix("channel.keys: must name at least one") == true)
        #expect(issue("channel: {url: \"https://o.example/c\", keys: [a.pub], root: []}")?.hasPrefix("channel.root: must name at least one") == true)
        #expect(issue("channel: {url: \"https://o.example/c\", keys: [a.pub], jitter: 1.5}")?.hasPrefix("channel.jitter: must be a fraction of poll from 0 to 1") == true)
        #expect(issue("channel: {url: \"https://o.example/c\", keys: [a.pub], poll: 200ms}") == "channel.poll: must be at least 1s, found 200ms")
        #expect(issue("channel: {url: \"https://o.example/c\", keys: [a.pub], pol: 5s}") == "channel.pol: unknown key (did you mean \"poll\"?)")
        #expect(issue("channel: {url: \"https://o.example/c\", keys: [a.pub], allowLocalPush: yes}")?.hasPrefix("channel.allowLocalPush: must be true or false") == true)
    }

    @Test func theChannelSectionIsNeverWrittenBack() throws {
        let configuration = try ConfigLoader.parse("slides: [a.jpg]\nchannel: {url: \"https://o.example/c\", keys: [a.pub]}")
        let json = String(decoding: ConfigDocument.json(configuration), as: UTF8.self)
        #expect(!json.contains("channel"))
        #expect(!json.contains("o.example"))
    }

    @Test func blobReferencesAreOnlyForAChannelsManifest() throws {
        let sha = String(repeating: "ab", count: 32)
        #expect(issue("slides: [\"blob:\(sha)\"]")?.hasPrefix("slides[0]: a blob: reference names a picture in a channel's manifest") == true)
        #expect(issue("placeholder: \"blob:\(sha)\"")?.hasPrefix("placeholder: a blob: reference") == true)
        #expect(try ConfigLoader.parse("slides: [\"blob:\(sha)\"]", blobReferences: true).slides[0].path == "blob:" + sha)
    }
}
