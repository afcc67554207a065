import Foundation
import Testing
@testable import VitrineConfig
import VitrineCore

@Suite("ConfigLoader: the api section")
struct APISectionTests {
    @Test func defaultsListenOnEveryInterfaceWithAGeneratedToken() throws {
        let c = try ConfigLoader.parse("{}")
        #expect(c.api.listen == .address(host: "0.0.0.0", port: 8080))
        #expect(c.api.token == nil)
        #expect(c.api.tls == nil)
        #expect(c.api.maxUploadBytes == 50_000_000)
        #expect(c.api.urlRefresh == .seconds(600))
    }

    @Test func everyKeyIsRead() throws {
        let c = try ConfigLoader.parse("""
            api:
              listen: "[::1]:9000"
              token: abcdefghijklmnopqrstuvwxyz
              tls: {certificate: cert.pem, key: /etc/ssl/key.pem}
              maxUploadSize: 2MiB
              urlRefresh: 30s
              urlTimeout: 5s
            """, baseDirectory: "/etc/vitrine")
        #expect(c.api.listen == .address(host: "::1", port: 9000))
        #expect(c.api.listen.description == "[::1]:9000")
        #expect(c.api.token == "abcdefghijklmnopqrstuvwxyz")
        #expect(c.api.tls == TLSFiles(certificate: "/etc/vitrine/cert.pem", key: "/etc/ssl/key.pem"))
        #expect(c.api.maxUploadBytes == 2 << 20)
        #expect(c.api.urlRefresh == .seconds(30))
        #expect(c.api.urlTimeout == .seconds(5))
        #expect(try ConfigLoader.parse("api: {listen: \"off\"}").api.listen == .off)
    }

    @Test func badValuesNameTheirKeyPath() {
        #expect(issue("api: {listen: localhost}") == "api.listen: must be HOST:PORT (0.0.0.0:8080, [::]:8080) or off, found localhost")
        #expect(issue("api: {listen: \"h:70000\"}")?.hasPrefix("api.listen: must be HOST:PORT") == true)
        #expect(issue("api: {token: short}") == "api.token: must be at least 16 printable ASCII characters without spaces")
        #expect(issue("api: {token: \"has a space in it, sixteen+\"}")?.hasPrefix("api.token:") == true)
        #expect(issue("api: {tls: {certificate: c.pem}}") == "api.tls.key: is required (a PEM file)")
        #expect(issue("api: {maxUploadSize: 12 parsecs}") == "api.maxUploadSize: must be a size such as 50MB, 512KiB or a number of bytes, found 12 parsecs")
        #expect(issue("api: {maxUploadSize: 10}") == "api.maxUploadSize: must be between 1024 and 2000000000 bytes, found 10")
        #expect(issue("api: {urlRefresh: -5s}") == "api.urlRefresh: must be greater than 0")
        #expect(issue("api: {lisen: \"0.0.0.0:1\"}") == #"api.lisen: unknown key (did you mean "listen"?)"#)
    }

    /// One composition gives both the sections a push may not set and the values.
    @Test func aDocumentListsItsSectionsAndReadsItsValuesFromOneTree() throws {
        let document = try ConfigLoader.compose("interval: 5s\napi: {listen: \"off\"}")
        #expect(document.sections == ["interval", "api"])
        #expect(try document.configuration().interval == .seconds(5))
        #expect(try ConfigLoader.compose(#"{"slides": []}"#).sections == ["slides"])
        let notAMapping = try ConfigLoader.compose("[not, a, mapping]")
        #expect(notAMapping.sections == [])
        #expect(throws: ConfigError.self) { try notAMapping.configuration() }
        #expect(throws: ConfigError.self) { try ConfigLoader.compose("{unclosed") }
        #expect(throws: ConfigError.self) { try ConfigLoader.compose("") }
    }
}
