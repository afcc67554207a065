import Foundation
import Testing
import VitrineConfig
import VitrineCore

@Suite("A slide's and an override's stored bytes")
struct SlideBytesPinTests {
    static let configuration = """
        schedule:
          timezone: UTC
          playlists:
            night:
              - /srv/a.jpg
              - {path: "/srv/b é\\u0080.jpg", duration: 1.5m, fit: cover, action: {goto: 0}}
              - {path: "https://example.com/c.jpg", action: {post: "http://127.0.0.1:8080/tapped?x=1", timeout: 1s}}
              - {path: m.jpg, fit: stretch, duration: 2s, until: 2026-12-26}
          entries: [{playlist: night, days: daily, from: "20:00", until: "06:00"}]
        """

    /// A slide's JSON decides its configuration's version and is what
    /// override.json holds on disk: these are the bytes 4557495 wrote, so that no
    /// stored configuration changes version and every stored override reads back.
    @Test func aSlideAndAnOverrideWriteTheBytesTheyAlwaysWrote() throws {
        let configuration = try ConfigLoader.parse(Self.configuration)
        #expect(String(decoding: ConfigDocument.json(configuration), as: UTF8.self) == Self.configurationBytes)
        let slides = try #require(configuration.schedule).playlists[0].slides.map(\.slide)
        let since = WallInstant(secondsSinceEpoch: 1_795_000_000), until = WallInstant(secondsSinceEpoch: 1_795_003_600)
        let override = KioskOverride(id: "storm", slides: slides, interval: .milliseconds(1500), since: since, until: until)
        #expect(String(decoding: OverrideDocument.json(override), as: UTF8.self) == Self.overrideBytes)
        let plain = KioskOverride(id: "x", slides: [slides[0]], since: since, until: until)
        #expect(String(decoding: OverrideDocument.json(plain), as: UTF8.self) == Self.plainOverrideBytes)
        // And each reads back to what wrote it.
        for (text, value) in [(Self.overrideBytes, override), (Self.plainOverrideBytes, plain)] {
            #expect(try OverrideDocument.stored(text, source: "override.json", parseTimestamp: Self.parseUTC) == value)
        }
        #expect(try ConfigLoader.parse(Self.configurationBytes) == configuration)
    }

    /// `2026-11-18T11:06:40Z`, the only form these documents write.
    static func parseUTC(_ text: String) -> WallInstant? {
        [("2026-11-18T11:06:40Z", 1_795_000_000), ("2026-11-18T12:06:40Z", 1_795_003_600)]
            .first { $0.0 == text }.map { WallInstant(secondsSinceEpoch: Int64($0.1)) }
    }

    static let overrideBytes = #"""
{"id":"storm","interval":"1.5s","since":"2026-11-18T11:06:40Z","slides":[{"path":"/srv/a.jpg"},{"action":{"goto":0},"duration":"90s","fit":"cover","path":"/srv/b é\u0080.jpg"},{"action":{"post":"http://127.0.0.1:8080/tapped?x=1","timeout":"1s"},"path":"https://example.com/c.jpg"},{"duration":"2s","fit":"stretch","path":"m.jpg"}],"until":"2026-11-18T12:06:40Z"}

"""#

    static let plainOverrideBytes = #"""
{"id":"x","interval":null,"since":"2026-11-18T11:06:40Z","slides":[{"path":"/srv/a.jpg"}],"until":"2026-11-18T12:06:40Z"}

"""#

    static let configurationBytes = #"""
{
  "autoplay" : true,
  "background" : "#000000",
  "decode" : {
    "cacheSlides" : 3,
    "maxPixels" : 100000000
  },
  "fit" : "contain",
  "indicator" : {
    "color" : "#FFFFFF6E",
    "currentColor" : "#FFFFFF",
    "diameter" : 14,
    "margin" : 32,
    "position" : "bottom-center",
    "spacing" : 14,
    "visible" : true
  },
  "interval" : "5s",
  "loop" : true,
  "onImageError" : "placeholder",
  "output" : {
    "display" : "auto",
    "height" : 1080,
    "modesetting" : "auto",
    "preview" : "/tmp/vitrine-preview.png",
    "rotation" : 0,
    "width" : 1920
  },
  "power" : {
    "cec" : "auto",
    "wakeOnTouch" : "30s"
  },
  "schedule" : {
    "entries" : [
      {
        "days" : [
          "mon",
          "tue",
          "wed",
          "thu",
          "fri",
          "sat",
          "sun"
        ],
        "from" : "20:00",
        "playlist" : "night",
        "priority" : 0,
        "until" : "06:00"
      }
    ],
    "otherwise" : "off",
    "playlists" : {
      "night" : [
        {
          "path" : "/srv/a.jpg"
        },
        {
          "action" : {
            "goto" : 0
          },
          "duration" : "90s",
          "fit" : "cover",
          "path" : "/srv/b é\u0080.jpg"
        },
        {
          "action" : {
            "post" : "http://127.0.0.1:8080/tapped?x=1",
            "timeout" : "1s"
          },
          "path" : "https://example.com/c.jpg"
        },
        {
          "duration" : "2s",
          "fit" : "stretch",
          "path" : "m.jpg",
          "until" : "2026-12-26"
        }
      ]
    },
    "timezone" : "UTC"
  },
  "slides" : [

  ],
  "touch" : {
    "calibration" : [
      1,
      0,
      0,
      0,
      1,
      0
    ],
    "devices" : [

    ],
    "exclude" : [

    ],
    "flickVelocity" : 150,
    "include" : [

    ],
    "resumeDelay" : "3s",
    "swipeFraction" : 0.25,
    "tapMaxDuration" : "250ms",
    "tapSlop" : 5
  },
  "transition" : {
    "duration" : "400ms",
    "easing" : "ease-out",
    "type" : "slide"
  }
}

"""#
}
