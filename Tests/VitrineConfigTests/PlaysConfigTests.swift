import Testing
@testable import VitrineConfig
import VitrineCore

/// The `plays` section (docs/configuration.md, docs/fleet.md#proof-of-play).
@Suite("Configuration: plays")
struct PlaysConfigTests {
    @Test func defaultsUploadNowhere() throws {
        let plays = try ConfigLoader.parse("slides: [a.jpg]").plays
        #expect(plays == PlaysConfiguration())
        #expect(plays.upload == nil && plays.batch == 100 && plays.interval == .seconds(60))
    }

    @Test func everyKeyIsRead() throws {
        let plays = try ConfigLoader.parse("""
            slides: [a.jpg]
            plays: {upload: "https://reports.example/plays", batch: 25, interval: 2m}
            """).plays
        #expect(plays.upload == "https://reports.example/plays" && plays.batch == 25 && plays.interval == .seconds(120))
        #expect(try ConfigLoader.parse("plays: {upload: \"off\"}").plays.upload == nil)
    }

    @Test func badValuesAreNamedByTheirKeyPaths() {
        #expect(issues("plays: {upload: \"ftp://reports.example/plays\", batch: 0, interval: 500ms, batches: 3}") == [
            "plays.upload: must be the http:// or https:// URL to POST plays to, or off, found ftp://reports.example/plays",
            "plays.batch: must be between 1 and 10000, found 0",
            "plays.interval: must be at least 1s, found 500ms",
            "plays.batches: unknown key (did you mean \"batch\"?)",
        ])
        #expect(issue("plays: {upload: \"https://\"}") == "plays.upload: must be the http:// or https:// URL to POST plays to, or off, found https://")
        #expect(issue("plays: [upload]")?.hasPrefix("plays: ") == true)
    }
}
