import Foundation
import Testing
@testable import VitrineConfig
import VitrineCore

@Suite("ConfigLoader: the demo file")
struct DemoConfigTests {
    let demo: KioskConfiguration

    init() throws {
        demo = try ConfigLoader.load(file: demoConfigPath)
    }

    @Test func slidesInOrderWithTheirOverrides() {
        #expect(demo.slides == [
            SlideConfiguration(path: "images/01-welcome.jpg"),
            SlideConfiguration(path: "images/02-portrait.jpg"),
            SlideConfiguration(path: "images/03-exif-rotated.jpg"),
            SlideConfiguration(path: "images/04-wide.jpg", fit: .cover),
            SlideConfiguration(path: "images/05-square.jpg", duration: .seconds(3)),
            SlideConfiguration(path: "images/06-photo-like.jpg"),
        ])
    }

    @Test func topLevelValues() {
        #expect(demo.interval == .seconds(5))
        #expect(demo.autoplay)
        #expect(demo.loop)
        #expect(demo.fit == .contain)
        #expect(demo.background == RGBAColor(red: 0x10, green: 0x14, blue: 0x18))
        #expect(demo.placeholder == "images/placeholder.jpg")
        #expect(demo.onImageError == .placeholder)
    }

    @Test func sections() {
        #expect(demo.transition == TransitionStyle(kind: .slide, duration: .milliseconds(400), easing: .easeOut))
        #expect(demo.indicator == IndicatorStyle(
            visible: true, diameter: 14, spacing: 14,
            color: RGBAColor(red: 255, green: 255, blue: 255, alpha: 0x70),
            currentColor: .white, position: .bottomCenter, margin: 32))
        #expect(demo.output.display == .auto)
        #expect(demo.output.width == 1280)
        #expect(demo.output.height == 720)
        #expect(demo.outputSize == PixelSize(width: 1280, height: 720))
        // Not in the file: defaults.
        #expect(demo.output.preview == "/tmp/vitrine-preview.png")
        #expect(demo.touch == TouchConfiguration())
        #expect(demo.decode == DecodeConfiguration())
    }

    @Test func relativePathsResolveAgainstTheFilesDirectory() {
        #expect(demo.baseDirectory == demoDirectory)
        #expect(demo.resolve("images/01-welcome.jpg") == demoDirectory + "/images/01-welcome.jpg")
        #expect(demo.resolve(demo.placeholder!) == demoDirectory + "/images/placeholder.jpg")
        #expect(demo.resolve("/srv/pictures/a.jpg") == "/srv/pictures/a.jpg")
        for slide in demo.slides {
            #expect(FileManager.default.fileExists(atPath: demo.resolve(slide.path)!), "\(slide.path)")
        }
    }

    @Test func everyPictureItNamesExists() {
        #expect(ConfigLoader.fileIssues(in: demo).isEmpty)
    }

    @Test func carouselSettingsUseTheSlidesOwnDurations() {
        let settings = demo.carouselSettings
        #expect(settings.slideDwells == [.seconds(5), .seconds(5), .seconds(5), .seconds(5), .seconds(3), .seconds(5)])
        #expect(settings.slideCount == 6)
        #expect(settings.loop)
        #expect(settings.rotation == RotationPolicy(autoplay: true, interval: .seconds(5), resumeDelayAfterTouch: .seconds(3)))
        #expect(settings.transition == demo.transition)
    }

    @Test func theSameTextParsedDirectlyIsEqual() throws {
        let text = try String(contentsOfFile: demoConfigPath, encoding: .utf8)
        let parsed = try ConfigLoader.parse(text, baseDirectory: demoDirectory)
        #expect(parsed == demo)
    }
}

@Suite("ConfigLoader: defaults")
struct DefaultsTests {
    /// Every default, spelled out rather than taken from `KioskConfiguration()`, so
    /// a changed default shows up here and in docs/configuration.md.
    func expectDocumentedDefaults(_ c: KioskConfiguration, sourceLocation: SourceLocation = #_sourceLocation) {
        #expect(c.slides == [], sourceLocation: sourceLocation)
        #expect(c.interval == .seconds(5), sourceLocation: sourceLocation)
        #expect(c.autoplay == true, sourceLocation: sourceLocation)
        #expect(c.loop == true, sourceLocation: sourceLocation)
        #expect(c.fit == .contain, sourceLocation: sourceLocation)
        #expect(c.background == RGBAColor(red: 0, green: 0, blue: 0, alpha: 255), sourceLocation: sourceLocation)
        #expect(c.placeholder == nil, sourceLocation: sourceLocation)
        #expect(c.onImageError == .placeholder, sourceLocation: sourceLocation)
        #expect(c.transition.kind == .slide, sourceLocation: sourceLocation)
        #expect(c.transition.duration == .milliseconds(400), sourceLocation: sourceLocation)
        #expect(c.transition.easing == .easeOut, sourceLocation: sourceLocation)
        #expect(c.indicator.visible == true, sourceLocation: sourceLocation)
        #expect(c.indicator.diameter == 14, sourceLocation: sourceLocation)
        #expect(c.indicator.spacing == 14, sourceLocation: sourceLocation)
        #expect(c.indicator.color == RGBAColor(red: 255, green: 255, blue: 255, alpha: 110), sourceLocation: sourceLocation)
        #expect(c.indicator.currentColor == RGBAColor(red: 255, green: 255, blue: 255, alpha: 255), sourceLocation: sourceLocation)
        #expect(c.indicator.position == .bottomCenter, sourceLocation: sourceLocation)
        #expect(c.indicator.margin == 32, sourceLocation: sourceLocation)
        #expect(c.touch.resumeDelay == .seconds(3), sourceLocation: sourceLocation)
        #expect(c.output.display == .auto, sourceLocation: sourceLocation)
        #expect(c.output.width == 1920, sourceLocation: sourceLocation)
        #expect(c.output.height == 1080, sourceLocation: sourceLocation)
        #expect(c.output.preview == "/tmp/vitrine-preview.png", sourceLocation: sourceLocation)
        #expect(c.decode.maxPixels == 100_000_000, sourceLocation: sourceLocation)
        #expect(c.decode.cacheSlides == 3, sourceLocation: sourceLocation)
        #expect(c.decode.maxVideoBitrateMbps == 60 && c.decode.maxVideoBitsPerSecond == 60_000_000, sourceLocation: sourceLocation)
        #expect(c.baseDirectory == ".", sourceLocation: sourceLocation)
    }

    @Test func theModelsOwnDefaultsAreTheDocumentedOnes() {
        expectDocumentedDefaults(KioskConfiguration())
    }

    @Test(arguments: ["{}", "slides: []", "slides: []\ntransition: {}\nindicator: {}\ntouch: {}\noutput: {}\ndecode: {}\n",
                      "{\"slides\": [], \"transition\": {}}"])
    func absentKeysTakeTheirDefaults(text: String) throws {
        let configuration = try ConfigLoader.parse(text)
        expectDocumentedDefaults(configuration)
        #expect(configuration == KioskConfiguration())
    }

    @Test func aSectionWithSomeKeysKeepsTheDefaultsOfTheOthers() throws {
        let c = try ConfigLoader.parse("transition:\n  type: crossfade\nindicator:\n  margin: 8\noutput:\n  width: 800\n")
        #expect(c.transition == TransitionStyle(kind: .crossfade, duration: .milliseconds(400), easing: .easeOut))
        var indicator = IndicatorStyle()
        indicator.margin = 8
        #expect(c.indicator == indicator)
        #expect(c.output.width == 800)
        #expect(c.output.height == 1080)
        #expect(c.output.display == .auto)
    }

    @Test func slidesWithoutOverridesHaveNone() throws {
        let c = try ConfigLoader.parse("slides:\n  - path: a.jpg\n")
        #expect(c.slides == [SlideConfiguration(path: "a.jpg", duration: nil, fit: nil)])
    }

    @Test func parseUsesTheBaseDirectoryItIsGiven() throws {
        #expect(try ConfigLoader.parse("{}").baseDirectory == ".")
        #expect(try ConfigLoader.parse("{}", baseDirectory: "/etc/vitrine").baseDirectory == "/etc/vitrine")
    }
}

@Suite("ConfigLoader: every key")
struct EveryKeyTests {
    static let yaml = """
        slides:
          - first.jpg                 # shorthand for { path: first.jpg }
          - path: /srv/second.jpg
            duration: 12s
            fit: stretch
          - path: third.jpg
            duration: 250ms
            fit: cover
        interval: 2min
        autoplay: false
        loop: false
        fit: cover
        background: "#FFFFFF"
        placeholder: missing.jpg
        onImageError: skip
        transition:
          type: crossfade
          duration: 1.5s
          easing: ease-in-out
        indicator:
          visible: false
          diameter: 20
          spacing: 6
          color: "#11223344"
          currentColor: "#abc"
          position: top-right
          margin: 0
        touch:
          resumeDelay: 0
        output:
          display: headless
          width: 640
          height: 480
          preview: /run/vitrine/preview.png
        decode:
          maxPixels: 50_000_000
          cacheSlides: 3
          maxVideoBitrate: 25
        """

    static let json = """
        {
          "slides": [
            "first.jpg",
            {"path": "/srv/second.jpg", "duration": 12, "fit": "stretch"},
            {"path": "third.jpg", "duration": "250ms", "fit": "cover"}
          ],
          "interval": "2m",
          "autoplay": false,
          "loop": false,
          "fit": "cover",
          "background": "#FFFFFF",
          "placeholder": "missing.jpg",
          "onImageError": "skip",
          "transition": {"type": "crossfade", "duration": 1.5, "easing": "ease-in-out"},
          "indicator": {
            "visible": false, "diameter": 20, "spacing": 6, "color": "#11223344",
            "currentColor": "#AABBCC", "position": "top-right", "margin": 0
          },
          "touch": {"resumeDelay": "0s"},
          "output": {"display": "headless", "width": 640, "height": 480, "preview": "/run/vitrine/preview.png"},
          "decode": {"maxPixels": 50000000, "cacheSlides": 3, "maxVideoBitrate": 25}
        }
        """

    @Test func everyKeyIsRead() throws {
        let c = try ConfigLoader.parse(Self.yaml, baseDirectory: "/etc/vitrine")
        #expect(c.slides == [
            SlideConfiguration(path: "first.jpg"),
            SlideConfiguration(path: "/srv/second.jpg", duration: .seconds(12), fit: .stretch),
            SlideConfiguration(path: "third.jpg", duration: .milliseconds(250), fit: .cover),
        ])
        #expect(c.interval == .seconds(120))
        #expect(c.autoplay == false)
        #expect(c.loop == false)
        #expect(c.fit == .cover)
        #expect(c.background == .white)
        #expect(c.placeholder == "missing.jpg")
        #expect(c.onImageError == .skip)
        #expect(c.transition == TransitionStyle(kind: .crossfade, duration: .milliseconds(1500), easing: .easeInOut))
        #expect(c.indicator == IndicatorStyle(
            visible: false, diameter: 20, spacing: 6,
            color: RGBAColor(red: 0x11, green: 0x22, blue: 0x33, alpha: 0x44),
            currentColor: RGBAColor(red: 0xAA, green: 0xBB, blue: 0xCC), position: .topRight, margin: 0))
        #expect(c.touch.resumeDelay == .zero)
        #expect(c.output.display == .headless)
        #expect(c.output.width == 640)
        #expect(c.output.height == 480)
        #expect(c.output.preview == "/run/vitrine/preview.png")
        #expect(c.decode.maxPixels == 50_000_000)
        #expect(c.decode.cacheSlides == 3)
        #expect(c.decode.maxVideoBitsPerSecond == 25_000_000)
        // Written back when set, left out at its default (the document's bytes are the version).
        let document = String(decoding: ConfigDocument.json(c), as: UTF8.self)
        let back = try ConfigLoader.parse(document, baseDirectory: "/etc/vitrine")
        #expect(document.contains("\"maxVideoBitrate\" : 25") && back == c)
        #expect(!String(decoding: ConfigDocument.json(try ConfigLoader.parse("slides: [a.jpg]")), as: UTF8.self).contains("maxVideoBitrate"))
        #expect(c.baseDirectory == "/etc/vitrine")
        #expect(c.resolve("first.jpg") == "/etc/vitrine/first.jpg")
        #expect(c.resolve("/srv/second.jpg") == "/srv/second.jpg")
    }

    @Test func jsonIsAcceptedAndEqualsTheEquivalentYAML() throws {
        let fromYAML = try ConfigLoader.parse(Self.yaml, baseDirectory: "/etc/vitrine")
        let fromJSON = try ConfigLoader.parse(Self.json, baseDirectory: "/etc/vitrine")
        #expect(fromJSON == fromYAML)
        #expect(fromJSON != KioskConfiguration())
    }

    @Test func theDemoFileInJSONEqualsTheYAML() throws {
        let json = """
            {"slides": [
               {"path": "images/01-welcome.jpg"}, {"path": "images/02-portrait.jpg"},
               {"path": "images/03-exif-rotated.jpg"}, {"path": "images/04-wide.jpg", "fit": "cover"},
               {"path": "images/05-square.jpg", "duration": "3s"}, {"path": "images/06-photo-like.jpg"}],
             "interval": "5s", "autoplay": true, "loop": true, "fit": "contain",
             "background": "#101418", "placeholder": "images/placeholder.jpg",
             "transition": {"type": "slide", "duration": "400ms", "easing": "ease-out"},
             "indicator": {"diameter": 14, "spacing": 14, "color": "#FFFFFF70", "currentColor": "#FFFFFF",
                           "position": "bottom-center", "margin": 32},
             "output": {"display": "auto", "width": 1280, "height": 720}}
            """
        try withTemporaryDirectory { directory in
            try write(json, to: directory + "/vitrine.json")
            var fromJSON = try ConfigLoader.load(file: directory + "/vitrine.json")
            #expect(fromJSON.baseDirectory == directory)
            fromJSON.baseDirectory = demoDirectory
            #expect(fromJSON == (try ConfigLoader.load(file: demoConfigPath)))
        }
    }

    @Test func jsonErrorsNameTheirKeyPaths() {
        #expect(issues(#"{"slides": [{"path": "a.jpg"}, {"path": "b.jpg", "duration": -1}]}"#)
            == ["slides[1].duration: must be greater than 0"])
        #expect(issues(#"{"indicator": {"diameter": "14"}}"#)
            == [#"indicator.diameter: must be a whole number, found "14""#])
        #expect(issues(#"{"autoplay": "true"}"#) == [#"autoplay: must be true or false, found "true""#])
        #expect(issues(#"{"output": {"widht": 800}}"#) == [#"output.widht: unknown key (did you mean "width"?)"#])
    }

    @Test func carouselSettingsMapDurationsIntervalAndResumeDelay() throws {
        let c = try ConfigLoader.parse(Self.yaml)
        let settings = c.carouselSettings
        #expect(settings.slideDwells == [.seconds(120), .seconds(12), .milliseconds(250)])
        #expect(settings.loop == false)
        #expect(settings.rotation == RotationPolicy(autoplay: false, interval: .seconds(120), resumeDelayAfterTouch: .zero))
        #expect(settings.transition == c.transition)
        #expect(c.outputSize == PixelSize(width: 640, height: 480))
    }

    @Test func carouselSettingsFollowTheIntervalAndResumeDelay() throws {
        let c = try ConfigLoader.parse("""
            slides: [a.jpg, {path: b.jpg, duration: 0.5}, c.jpg]
            interval: 7
            touch: {resumeDelay: 1500ms}
            """)
        #expect(c.carouselSettings == CarouselSettings(
            slideDwells: [.seconds(7), .milliseconds(500), .seconds(7)], loop: true,
            rotation: RotationPolicy(autoplay: true, interval: .seconds(7), resumeDelayAfterTouch: .milliseconds(1500)),
            transition: TransitionStyle()))
        #expect(try ConfigLoader.parse("{}").carouselSettings.slideDwells == [])
    }

    @Test func booleansAcceptTheirCapitalisedForms() throws {
        #expect(try ConfigLoader.parse("autoplay: False\nloop: TRUE").autoplay == false)
        #expect(try ConfigLoader.parse("autoplay: False\nloop: TRUE").loop == true)
    }

    @Test func coloursMayBeShortAndNeedNoHash() throws {
        #expect(try ConfigLoader.parse("background: \"#0f8\"").background == RGBAColor(red: 0, green: 0xFF, blue: 0x88))
        #expect(try ConfigLoader.parse(#"background: "102030""#).background == RGBAColor(red: 0x10, green: 0x20, blue: 0x30))
        #expect(try ConfigLoader.parse("background: '#FFFFFF00'").background
            == RGBAColor(red: 255, green: 255, blue: 255, alpha: 0))
    }

    @Test func integersAtTheEndsOfTheirRangesAreAccepted() throws {
        let low = try ConfigLoader.parse("""
            indicator: {diameter: 1, spacing: 0, margin: 0}
            output: {width: 16, height: 16}
            decode: {maxPixels: 1, cacheSlides: 3}
            """)
        #expect(low.indicator.diameter == 1 && low.indicator.spacing == 0 && low.indicator.margin == 0)
        #expect(low.outputSize == PixelSize(width: 16, height: 16))
        #expect(low.decode.maxPixels == 1 && low.decode.cacheSlides == 3)
        let high = try ConfigLoader.parse("""
            indicator: {diameter: 512, spacing: 1024, margin: 4096}
            output: {width: 16384, height: 16384}
            decode: {maxPixels: 1_000_000_000, cacheSlides: 64}
            """)
        #expect(high.indicator.diameter == 512 && high.indicator.spacing == 1024 && high.indicator.margin == 4096)
        #expect(high.outputSize == PixelSize(width: 16384, height: 16384))
        #expect(high.decode.maxPixels == 1_000_000_000 && high.decode.cacheSlides == 64)
    }

    @Test func durationsAtTheEndsOfTheirRangesAreAccepted() throws {
        let c = try ConfigLoader.parse("""
            interval: 86400
            transition: {duration: 10s}
            touch: {resumeDelay: 60m}
            """)
        #expect(c.interval == .seconds(86_400))
        #expect(c.transition.duration == .seconds(10))
        #expect(c.touch.resumeDelay == .seconds(3600))
        #expect(try ConfigLoader.parse("interval: 1ms").interval == .milliseconds(1))
        #expect(try ConfigLoader.parse("touch: {resumeDelay: 0}").touch.resumeDelay == .zero)
    }

    @Test func aSlideShorthandIsAPlainString() throws {
        let c = try ConfigLoader.parse("slides:\n  - a.jpg\n  - \"b c.jpg\"\n  - path: d.jpg\n    fit: cover\n")
        #expect(c.slides == [
            SlideConfiguration(path: "a.jpg"), SlideConfiguration(path: "b c.jpg"),
            SlideConfiguration(path: "d.jpg", fit: .cover),
        ])
    }
}

@Suite("ConfigLoader: files")
struct ConfigFileTests {
    @Test func relativePathsResolveAgainstTheConfigFilesDirectory() throws {
        try withTemporaryDirectory { directory in
            try FileManager.default.createDirectory(atPath: directory + "/etc", withIntermediateDirectories: true)
            try write("slides: [pic.jpg, /abs/pic.jpg, ../up.jpg, sub/deep.jpg]\nplaceholder: ph.jpg\n",
                      to: directory + "/etc/kiosk.yaml")
            let c = try ConfigLoader.load(file: directory + "/etc/kiosk.yaml")
            #expect(c.baseDirectory == directory + "/etc")
            #expect(c.slides.map { c.resolve($0.path) } == [
                directory + "/etc/pic.jpg", "/abs/pic.jpg", directory + "/etc/../up.jpg", directory + "/etc/sub/deep.jpg",
            ])
            #expect(c.resolve(c.placeholder!) == directory + "/etc/ph.jpg")
            // The paths themselves are kept as written.
            #expect(c.slides.map(\.path) == ["pic.jpg", "/abs/pic.jpg", "../up.jpg", "sub/deep.jpg"])
        }
    }

    @Test func withTheDefaultBaseDirectoryRelativePathsStayRelative() throws {
        let c = try ConfigLoader.parse("slides: [a/b.jpg]")
        #expect(c.resolve("a/b.jpg") == "a/b.jpg")
        #expect(c.resolve("/x.jpg") == "/x.jpg")
    }

    @Test func aMissingFileIsReportedWithoutAKeyPath() throws {
        try withTemporaryDirectory { directory in
            let path = directory + "/nope.yaml"
            #expect(throws: ConfigError(source: path, issues: [ConfigIssue(path: "", message: "cannot read the file: no such file")])) {
                try ConfigLoader.load(file: path)
            }
            do throws(ConfigError) {
                _ = try ConfigLoader.load(file: path)
            } catch {
                #expect(error.description == "\(path): cannot read the file: no such file")
            }
        }
    }

    @Test func aDirectoryIsNotAConfigurationFile() throws {
        _ = try withTemporaryDirectory { directory in
            #expect(throws: ConfigError(source: directory, issues: [ConfigIssue(path: "", message: "cannot read the file: is a directory")])) {
                try ConfigLoader.load(file: directory)
            }
        }
    }

    @Test func aPipeIsNamedAsOne() throws {
        try withTemporaryDirectory { directory in
            let path = directory + "/fifo.yaml"
            #expect(mkfifo(path, 0o600) == 0)
            let message = "cannot read the file: not a regular file (a pipe or a device); write the configuration to a file"
            #expect(throws: ConfigError(source: path, issues: [ConfigIssue(path: "", message: message)])) {
                try ConfigLoader.load(file: path)
            }
        }
    }

    @Test func textThatIsNotUTF8IsRefused() throws {
        try withTemporaryDirectory { directory in
            let path = directory + "/latin1.yaml"
            try Data([0x69, 0x6E, 0x74, 0x3A, 0x20, 0xE9, 0xFF, 0x0A]).write(to: URL(fileURLWithPath: path))
            #expect(throws: ConfigError(source: path, issues: [ConfigIssue(path: "", message: "cannot read the file: not valid UTF-8 text")])) {
                try ConfigLoader.load(file: path)
            }
        }
    }

    @Test func errorsFromAFileNameTheFileThenTheKeyPath() throws {
        try withTemporaryDirectory { directory in
            let path = directory + "/bad.yaml"
            try write("slides:\n  - a.jpg\n  - b.jpg\n  - c.jpg\n  - path: d.jpg\n    duration: 0\ninterval: -1\n", to: path)
            do throws(ConfigError) {
                _ = try ConfigLoader.load(file: path)
                Issue.record("expected an error")
            } catch {
                #expect(error.source == path)
                #expect(error.issues == [
                    ConfigIssue(path: "slides[3].duration", message: "must be greater than 0"),
                    ConfigIssue(path: "interval", message: "must be greater than 0"),
                ])
                #expect(error.description == """
                    \(path): slides[3].duration: must be greater than 0
                    \(path): interval: must be greater than 0
                    """)
            }
        }
    }
}

@Suite("ConfigLoader.fileIssues")
struct FileIssuesTests {
    @Test func missingFilesAndDirectoriesAreReportedWithTheirKeyPaths() throws {
        try withTemporaryDirectory { directory in
            try write("not really a JPEG", to: directory + "/present.jpg")
            try FileManager.default.createDirectory(atPath: directory + "/folder.jpg", withIntermediateDirectories: true)
            try write("""
                slides:
                  - present.jpg
                  - path: absent.jpg
                  - folder.jpg
                  - \(directory)/present.jpg
                  - \(directory)/gone.jpg
                placeholder: placeholder.jpg
                """, to: directory + "/vitrine.yaml")
            let c = try ConfigLoader.load(file: directory + "/vitrine.yaml")
            #expect(ConfigLoader.fileIssues(in: c) == [
                ConfigIssue(path: "slides[1].path", message: "file not found: \(directory)/absent.jpg"),
                ConfigIssue(path: "slides[2].path", message: "is a directory, not a picture: \(directory)/folder.jpg"),
                ConfigIssue(path: "slides[4].path", message: "file not found: \(directory)/gone.jpg"),
                ConfigIssue(path: "placeholder", message: "file not found: \(directory)/placeholder.jpg"),
            ])
            #expect(ConfigLoader.fileIssues(in: c).map(\.description).first
                == "slides[1].path: file not found: \(directory)/absent.jpg")
        }
    }

    @Test func aPlaceholderThatIsADirectoryIsReported() throws {
        try withTemporaryDirectory { directory in
            var c = try ConfigLoader.parse("placeholder: pictures", baseDirectory: directory)
            try FileManager.default.createDirectory(atPath: directory + "/pictures", withIntermediateDirectories: true)
            #expect(ConfigLoader.fileIssues(in: c) == [
                ConfigIssue(path: "placeholder", message: "is a directory, not a picture: \(directory)/pictures"),
            ])
            c.placeholder = nil
            #expect(ConfigLoader.fileIssues(in: c) == [])
        }
    }

    @Test(.enabled(if: geteuid() != 0, "root can read any file"))
    func anUnreadableFileIsReported() throws {
        try withTemporaryDirectory { directory in
            let path = directory + "/locked.jpg"
            try write("x", to: path)
            try FileManager.default.setAttributes([.posixPermissions: 0o000], ofItemAtPath: path)
            defer { try? FileManager.default.setAttributes([.posixPermissions: 0o600], ofItemAtPath: path) }
            let c = try ConfigLoader.parse("slides: [locked.jpg]", baseDirectory: directory)
            #expect(ConfigLoader.fileIssues(in: c) == [
                ConfigIssue(path: "slides[0].path", message: "file is not readable: \(path)"),
            ])
        }
    }

    @Test func anEmptyPlaylistWithoutAPlaceholderHasNoFileIssues() throws {
        #expect(ConfigLoader.fileIssues(in: try ConfigLoader.parse("{}")) == [])
    }
}

/// `showAddress`: read, refused when not a boolean, written back only when set.
@Suite("showAddress")
struct ShowAddressConfigTests {
    @Test func itIsReadAndWrittenBackOnlyWhenSet() throws {
        let shown = try ConfigLoader.parse("slides: []\nshowAddress: true")
        #expect(shown.showAddress)
        #expect(ConfigDocument.tree(shown)["showAddress"] == .bool(true))
        let plain = try ConfigLoader.parse("slides: []")
        #expect(!plain.showAddress)
        #expect(ConfigDocument.tree(plain)["showAddress"] == nil)
    }

    @Test func aValueThatIsNotABooleanIsRefusedByItsKeyPath() {
        #expect {
            _ = try ConfigLoader.parse("slides: []\nshowAddress: sometimes")
        } throws: { error in
            (error as? ConfigError)?.issues.map(\.path) == ["showAddress"]
        }
    }
}
