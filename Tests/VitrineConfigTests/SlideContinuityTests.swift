import Testing
@testable import VitrineConfig
import VitrineCore

/// The diff of two configurations for the slide on screen (`continuity`).
@Suite("Configuration: what a change does to the slide on screen")
struct SlideContinuityTests {
    static func configuration(_ yaml: String, base: String = "/srv/kiosk") throws -> KioskConfiguration {
        try ConfigLoader.parse(yaml, baseDirectory: base)
    }

    @Test func aChangeOfDotsOrColoursLeavesTheCarouselAlone() throws {
        let old = try Self.configuration("slides: [a.jpg, b.jpg, c.jpg]\nindicator: {color: \"#FFFFFF\"}")
        let new = try Self.configuration("slides: [a.jpg, b.jpg, c.jpg]\nindicator: {color: \"#FF0000\"}\nbackground: \"#202020\"")
        #expect(new.continuity(from: old, showing: 2) == .unchanged)
    }

    @Test func aChangedDwellOrTransitionKeepsThePicture() throws {
        let old = try Self.configuration("slides: [a.jpg, b.jpg, c.jpg]")
        #expect(try Self.configuration("slides: [a.jpg, b.jpg, c.jpg]\ninterval: 9s").continuity(from: old, showing: 1) == .keeps(slide: 1))
        #expect(try Self.configuration("slides: [a.jpg, b.jpg, c.jpg]\ntransition: {type: crossfade}").continuity(from: old, showing: 1) == .keeps(slide: 1))
    }

    @Test func thePictureIsFollowedToItsNewPlace() throws {
        let old = try Self.configuration("slides: [a.jpg, b.jpg, c.jpg]")
        let inserted = try Self.configuration("slides: [new.jpg, a.jpg, b.jpg, c.jpg]")
        #expect(inserted.continuity(from: old, showing: 1) == .keeps(slide: 2))
        let removedBefore = try Self.configuration("slides: [b.jpg, c.jpg]")
        #expect(removedBefore.continuity(from: old, showing: 2) == .keeps(slide: 1))
        // Twice in the new playlist: the same index when it is one of them, else the first.
        let twice = try Self.configuration("slides: [c.jpg, b.jpg, c.jpg]")
        #expect(twice.continuity(from: old, showing: 2) == .keeps(slide: 2))
        #expect(try Self.configuration("slides: [b.jpg, c.jpg, a.jpg, c.jpg]").continuity(from: old, showing: 2) == .keeps(slide: 1))
    }

    @Test func aPlaylistWithoutThePictureStartsAtItsFirstSlide() throws {
        let old = try Self.configuration("slides: [a.jpg, b.jpg, c.jpg]")
        #expect(try Self.configuration("slides: [a.jpg, c.jpg]").continuity(from: old, showing: 1) == .restarts)
        #expect(try Self.configuration("slides: []").continuity(from: old, showing: 0) == .restarts)
        // Nothing was on screen: an empty playlist before.
        #expect(try Self.configuration("slides: [a.jpg]").continuity(from: try Self.configuration("slides: []"), showing: nil) == .restarts)
    }

    /// The same name in another directory is another file; an asset is its
    /// digest and a URL its address, whatever has been downloaded for it.
    @Test func picturesAreFilesByAbsolutePathAssetsAndURLsByReference() throws {
        let old = try Self.configuration("slides: [a.jpg, b.jpg]", base: "/srv/one")
        #expect(try Self.configuration("slides: [a.jpg, b.jpg]", base: "/srv/two").continuity(from: old, showing: 1) == .restarts)
        #expect(try Self.configuration("slides: [/srv/one/b.jpg]", base: "/srv/two").continuity(from: old, showing: 1) == .keeps(slide: 0))
        let asset = "asset:" + String(repeating: "ab", count: 32)
        var withURL = try Self.configuration("slides: [\"https://example.com/x.jpg\", \"\(asset)\"]")
        var later = withURL
        later.downloads["https://example.com/x.jpg"] = "/var/lib/vitrine/downloads/1"
        later.slides.insert(SlideConfiguration(path: "z.jpg"), at: 0)
        #expect(later.continuity(from: withURL, showing: 0) == .keeps(slide: 1))
        #expect(later.continuity(from: withURL, showing: 1) == .keeps(slide: 2))
        withURL.downloads = later.downloads
        #expect(withURL.continuity(from: later, showing: 0) == .restarts)
    }

    /// With `sync`, a change starts where the group is: whether the picture on
    /// screen was kept or not. A change that leaves the playlist alone, and a
    /// playlist without `sync` (no group slide), are left as they are.
    @Test func aPlaylistInStepStartsAtTheGroupsSlide() {
        #expect(SlideContinuity.restarts.joiningGroup(at: 2) == .joinsGroup(slide: 2))
        #expect(SlideContinuity.keeps(slide: 1).joiningGroup(at: 3) == .joinsGroup(slide: 3))
        #expect(SlideContinuity.keeps(slide: 1).joiningGroup(at: 1) == .joinsGroup(slide: 1))
        #expect(SlideContinuity.unchanged.joiningGroup(at: 2) == .unchanged)
        #expect(SlideContinuity.restarts.joiningGroup(at: nil) == .restarts)
        #expect(SlideContinuity.keeps(slide: 1).joiningGroup(at: nil) == .keeps(slide: 1))
        #expect(SlideContinuity.joinsGroup(slide: 2).firstSlide(current: 0) == 2)
    }

    /// A download arriving touches the slides that show its URL (and the
    /// placeholder, when it is one), whichever way the copy changed.
    @Test func aChangedDownloadTouchesOnlyTheSlidesOfItsURL() throws {
        var configuration = try Self.configuration("slides: [a.jpg, \"https://x.test/1.jpg\", \"https://x.test/2.jpg\", \"https://x.test/1.jpg\"]")
        #expect(configuration.change(toDownloads: ["https://x.test/1.jpg": "/d/1"]) == DownloadedCopiesChange(slides: [1, 3], placeholder: false))
        configuration.downloads = ["https://x.test/1.jpg": "/d/1", "https://x.test/2.jpg": "/d/2"]
        #expect(configuration.change(toDownloads: configuration.downloads).isEmpty)
        #expect(configuration.change(toDownloads: ["https://x.test/1.jpg": "/d/1"]).slides == [2], "a copy gone")
        #expect(configuration.change(toDownloads: ["https://x.test/1.jpg": "/d/1b", "https://x.test/2.jpg": "/d/2"]).slides == [1, 3])
        configuration.placeholder = "https://x.test/2.jpg"
        #expect(configuration.change(toDownloads: ["https://x.test/1.jpg": "/d/1"]) == DownloadedCopiesChange(slides: [2], placeholder: true))
    }
}
