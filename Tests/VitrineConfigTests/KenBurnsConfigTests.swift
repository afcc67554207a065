import Foundation
import Testing
@testable import VitrineConfig
import VitrineCore

/// `kenBurns`, top level and per slide: its forms, its errors by key path, the
/// slide's choice over the default, and its canonical JSON.
@Suite("Configuration: kenBurns")
struct KenBurnsConfigTests {
    static let configuration = """
        kenBurns: {seed: 42, zoom: 1.4}
        interval: 8s
        slides:
          - images/a.jpg
          - path: images/b.jpg
            kenBurns: false
          - path: images/c.jpg
            duration: 12s
            kenBurns: {from: [0, 0, 1, 1], to: [0.25, 0.125, 0.625, 0.625], easing: linear}
          - path: images/d.jpg
            kenBurns: true
        """

    @Test func everyFormReadsAndASlideOverridesTheDefault() throws {
        let c = try ConfigLoader.parse(Self.configuration)
        #expect(c.kenBurns == .seeded(seed: 42, zoom: 1.4, easing: .easeInOut))
        #expect(c.kenBurns(of: c.slides[0]) == .seeded(seed: 42, zoom: 1.4, easing: .easeInOut))
        #expect(c.slides[1].kenBurns == .off && c.kenBurns(of: c.slides[1]) == nil)
        #expect(c.kenBurns(of: c.slides[2]) == .rectangles(
            from: .whole, to: FrameRect(x: 0.25, y: 0.125, width: 0.625, height: 0.625), easing: .linear))
        #expect(c.kenBurns(of: c.slides[3]) == .seeded(seed: 0, zoom: 1.25, easing: .easeInOut))
        // Without a default, only the slides that set one move; `false` at the top is no default.
        let plain = try ConfigLoader.parse("kenBurns: false\nslides: [a.jpg, {path: b.jpg, kenBurns: {zoom: 2}}]")
        #expect(plain.kenBurns == nil)
        #expect(plain.kenBurns(of: plain.slides[0]) == nil)
        #expect(plain.kenBurns(of: plain.slides[1]) == .seeded(seed: 0, zoom: 2, easing: .easeInOut))
    }

    @Test func errorsNameTheKeyPath() {
        let cases: [(String, String)] = [
            ("slides: [a.jpg, b.jpg, {path: c.jpg, kenBurns: {from: [0, 0, 0.8, 0.6], to: [0, 0, 1, 1]}}]",
             "slides[2].kenBurns.from: w and h must be equal: fractions of the output-shaped frame, so that the rectangle has the output's shape, found [0, 0, 0.8, 0.6]"),
            ("slides: [{path: a.jpg, kenBurns: {from: [0.5, 0, 0.6, 0.6], to: [0, 0, 1, 1]}}]",
             "slides[0].kenBurns.from: must lie inside the framed picture: x, y >= 0, x + w <= 1 and y + h <= 1 (fractions of its width and height), found [0.5, 0, 0.6, 0.6]"),
            ("slides: [{path: a.jpg, kenBurns: {from: [0, 0, 1, 1], to: [0, 0, 0.4, 0.4]}}]",
             "slides[0].kenBurns.to: w and h must be at least 0.5: a zoom of at most 2x, found [0, 0, 0.4, 0.4]"),
            ("slides: [{path: a.jpg, kenBurns: {from: [0, 1.5, 1, 1], to: [0, 0, 1, 1]}}]",
             "slides[0].kenBurns.from[1]: must be between 0.0 and 1.0, found 1.5"),
            ("slides: [{path: a.jpg, kenBurns: {from: [0, 0, 1], to: [0, 0, 1, 1]}}]",
             "slides[0].kenBurns.from: must be a rectangle [x, y, w, h]: four numbers, fractions of the framed picture's width and height, found a list"),
            ("slides: [{path: a.jpg, kenBurns: {from: [0, 0, 1, 1]}}]",
             "slides[0].kenBurns.to: is required beside from: a rectangle [x, y, w, h] of the framed picture"),
            ("kenBurns: {seed: 1, from: [0, 0, 1, 1], to: [0, 0, 1, 1]}",
             "kenBurns: must have either from and to (two rectangles) or seed and zoom (rectangles the seed chooses), not both"),
            ("kenBurns: {zoom: 1}",
             "kenBurns.zoom: must be greater than 1 (1 shows the whole picture and moves nothing) and at most 2"),
            ("kenBurns: {zoom: 2.5}", "kenBurns.zoom: must be between 1.0 and 2.0, found 2.5"),
            ("kenBurns: {seed: -1}", "kenBurns.seed: must be between 0 and 4294967295, found -1"),
            ("kenBurns: {seed: 3, easing: bounce}", "kenBurns.easing: must be one of linear, ease-in, ease-out, ease-in-out, found bounce"),
            ("kenBurns: {sead: 3}", "kenBurns.sead: unknown key (did you mean \"seed\"?)"),
            ("kenBurns: slow", "kenBurns: must be false, true, {from: [x, y, w, h], to: [x, y, w, h]} or {seed: N, zoom: Z}, found slow"),
            ("schedule: {timezone: UTC, playlists: {day: [{path: a.jpg, kenBurns: {zoom: 0.5}}]}, otherwise: day}",
             "schedule.playlists.day[0].kenBurns.zoom: must be between 1.0 and 2.0, found 0.5"),
        ]
        for (text, expected) in cases {
            #expect(issues(text) == [expected], "\(text)")
        }
    }

    /// The canonical JSON writes the key only where it is set, every key of its
    /// form included, and reads back to the same configuration; JSON reads as YAML does.
    @Test func theCanonicalJSONRoundTrips() throws {
        let c = try ConfigLoader.parse(Self.configuration)
        let json = ConfigDocument.json(c)
        #expect(try ConfigLoader.parse(String(decoding: json, as: UTF8.self)) == c)
        let tree = ConfigDocument.tree(c)
        #expect(tree["kenBurns"] == ["seed": 42, "zoom": 1.4, "easing": "ease-in-out"])
        let slides = try #require(tree["slides"]?.array)
        #expect(slides[0]["kenBurns"] == nil)
        #expect(slides[1]["kenBurns"] == false)
        #expect(slides[2]["kenBurns"] == ["from": [0.0, 0.0, 1.0, 1.0], "to": [0.25, 0.125, 0.625, 0.625], "easing": "linear"])
        #expect(slides[3]["kenBurns"] == ["seed": 0, "zoom": 1.25, "easing": "ease-in-out"])
        #expect(ConfigDocument.tree(try ConfigLoader.parse("slides: [a.jpg]"))["kenBurns"] == nil)
        // A slide's body decodes back to what wrote it (the override's stored slides, the API's answers).
        for slide in c.slides {
            let body = SlideBody(slide)
            #expect(try JSONDecoder().decode(SlideBody.self, from: JSONEncoder().encode(body)) == body)
        }
    }

    @Test func aGroupMaySetIt() throws {
        let group = try GroupPlaylist.parse("kenBurns: {seed: 9}\nslides: [a.jpg]")
        let base = try ConfigLoader.parse("slides: [x.jpg]\nkenBurns: {zoom: 1.5}")
        #expect(group.applied(to: base).kenBurns == .seeded(seed: 9, zoom: 1.25, easing: .easeInOut))
        #expect(group.tree["kenBurns"] == ["seed": 9, "zoom": 1.25, "easing": "ease-in-out"])
    }
}
