import Foundation
import Testing
import VitrineConfig
import VitrineCore

@Suite("ConfigLoader: sync")
struct RotationSyncConfigTests {
    @Test func syncIsOffTrueOrAnEpoch() throws {
        #expect(try ConfigLoader.parse("{}").sync == nil)
        #expect(try ConfigLoader.parse("sync: false").sync == nil)
        #expect(try ConfigLoader.parse("sync: true").sync == RotationSync())
        #expect(try ConfigLoader.parse("sync: true").sync?.effectiveEpoch == .epoch)
        let epoch = try ConfigLoader.parse("sync: {epoch: 2026-01-01T00:00:00Z}").sync?.epoch
        #expect(epoch == WallInstant(secondsSinceEpoch: 1_767_225_600))
        #expect(try ConfigLoader.parse("sync: {}").sync == RotationSync())
    }

    @Test func itRoundTripsThroughTheCanonicalJSON() throws {
        for text in ["sync: true", "sync: {epoch: 2026-03-29T01:30:00Z}", "slides: []"] {
            let configuration = try ConfigLoader.parse(text)
            let json = String(decoding: ConfigDocument.json(configuration), as: UTF8.self)
            #expect(try ConfigLoader.parse(json) == configuration, "\(json)")
        }
    }

    @Test func badValuesNameTheirKeyPath() {
        for (text, issue) in [
            ("sync: maybe", "sync: must be true or false, found maybe"),
            ("sync: {epoch: 2026-01-01}", "sync.epoch: must be a UTC date and time such as 2026-01-01T00:00:00Z, found 2026-01-01"),
            ("sync: {epoch: \"2026-01-01T00:00:00+01:00\"}", "sync.epoch: must be a UTC date and time such as 2026-01-01T00:00:00Z, found 2026-01-01T00:00:00+01:00"),
            ("sync: {epoch: 2026-02-30T00:00:00Z}", "sync.epoch: there is no 2026-02-30: February 2026 has 28 days"),
            ("sync: {epoch: 2026-01-01T24:30:00Z}", nil),
            ("sync: {epok: 2026-01-01T00:00:00Z}", "sync.epok: unknown key (did you mean \"epoch\"?)"),
        ] as [(String, String?)] {
            do {
                _ = try ConfigLoader.parse(text)
                Issue.record("\(text) was accepted")
            } catch {
                #expect(error.issues.count == 1, "\(text): \(error)")
                if let issue { #expect(error.issues.first?.description == issue, "\(text)") } else {
                    #expect(error.issues.first?.path == "sync.epoch", "\(text): \(error)")
                }
            }
        }
    }
}
