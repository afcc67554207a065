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

    @Test func topLevelKeysAreListedForPushChecks() {
        #expect(ConfigLoader.topLevelKeys("interval: 5s\napi: {listen: \"off\"}") == ["interval", "api"])
        #expect(ConfigLoader.topLevelKeys(#"{"slides": []}"#) == ["slides"])
        #expect(ConfigLoader.topLevelKeys("[not, a, mapping]") == [])
        #expect(ConfigLoader.topLevelKeys("{unclosed") == [])
    }
}

@Suite("Slide sources: files, assets and URLs")
struct SlideSourceTests {
    let id = String(repeating: "ab", count: 32)

    @Test func pathsAreSortedIntoTheirKinds() {
        #expect(SlideSource("images/a.jpg") == .file("images/a.jpg"))
        #expect(SlideSource("asset:\(id)") == .asset(id: id))
        #expect(SlideSource("https://example.com/a.jpg") == .url("https://example.com/a.jpg"))
    }

    @Test func resolvingUsesTheStateAndTheDownloads() throws {
        var c = try ConfigLoader.parse("slides: [a.jpg, \"asset:\(id)\", \"http://h/x.jpg\"]", baseDirectory: "/etc/vitrine")
        #expect(c.resolve(c.slides[0].path) == "/etc/vitrine/a.jpg")
        #expect(c.resolve(c.slides[1].path) == nil)
        #expect(c.resolve(c.slides[2].path) == nil)
        c.assetDirectory = "/var/lib/vitrine/assets"
        c.downloads = ["http://h/x.jpg": "/var/lib/vitrine/assets/\(id)"]
        #expect(c.resolve(c.slides[1].path) == "/var/lib/vitrine/assets/\(id)")
        #expect(c.resolve(c.slides[2].path) == "/var/lib/vitrine/assets/\(id)")
    }

    @Test func malformedReferencesAreRefused() {
        #expect(issue("slides: [\"asset:1234\"]") == "slides[0]: an asset reference must be asset: followed by 64 lowercase hex digits (its SHA-256), found asset:1234")
        #expect(issue("slides: [\"asset:\(id.uppercased())\"]")?.contains("64 lowercase hex digits") == true)
        #expect(issue("slides: [{path: \"ftp://h/a.jpg\"}]") == "slides[0].path: only http:// and https:// URLs can be fetched, found ftp://h/a.jpg")
        #expect(issue("slides: [\"file:///etc/passwd\"]") == "slides[0]: only http:// and https:// URLs can be fetched, found file:///etc/passwd")
        #expect(issue("slides: [\"http:///a.jpg\"]") == "slides[0]: the URL has no host: http:///a.jpg")
    }

    @Test func anAssetOutsideAStateDirectoryIsAFileIssue() throws {
        var c = try ConfigLoader.parse("slides: [\"asset:\(id)\", \"http://h/x.jpg\"]")
        #expect(ConfigLoader.fileIssues(in: c).map(\.description) == ["slides[0].path: asset \(id) cannot be found here: only a kiosk's state directory holds assets"])
        c.assetDirectory = "/nonexistent"
        #expect(ConfigLoader.fileIssues(in: c).map(\.description) == ["slides[0].path: asset \(id) has not been uploaded"])
    }
}

@Suite("ConfigDocument: canonical JSON")
struct ConfigDocumentTests {
    @Test func theDemoRoundTripsExactly() throws {
        let demo = try ConfigLoader.load(file: demoConfigPath)
        let json = ConfigDocument.json(demo)
        let back = try ConfigLoader.parse(String(decoding: json, as: UTF8.self), baseDirectory: demo.baseDirectory)
        #expect(back == demo)
        #expect(ConfigDocument.json(back) == json, "the same configuration gives the same bytes")
    }

    @Test func everyOptionalAndEveryKindRoundTrips() throws {
        let text = """
            slides:
              - {path: a.jpg, duration: 1.5s, fit: cover, action: {goto: 1}}
              - {path: "http://h/b.jpg", action: {post: "http://h/tap", timeout: 250ms}}
            interval: 2m
            autoplay: false
            loop: false
            background: "#10141880"
            placeholder: p.jpg
            onImageError: skip
            transition: {type: crossfade, duration: 1s, easing: linear}
            indicator: {visible: false, diameter: 9, spacing: 3, color: "#FF000080", currentColor: "#00FF00", position: top-left, margin: 0}
            touch: {resumeDelay: 0s, include: [Goodix], exclude: [Mouse], calibration: [0, 1, 0, -1, 0, 1], tapMaxDuration: 300ms,
                    tapSlop: 2.5, swipeFraction: 0.3, flickVelocity: 99.5}
            output: {display: headless, card: /dev/dri/card1, connector: HDMI-A-1, mode: 1280x720@59.94, modesetting: legacy,
                     rotation: 270, width: 800, height: 480, preview: /run/p.png}
            decode: {maxPixels: 1000, cacheSlides: 3}
            power: {wakeOnTouch: off, cec: /dev/cec1}
            """
        let c = try ConfigLoader.parse(text, baseDirectory: "/k")
        #expect(c.power.wakeOnTouch == nil)
        #expect(c.power.cec == .adapter("/dev/cec1"))
        let json = String(decoding: ConfigDocument.json(c), as: UTF8.self)
        #expect(try ConfigLoader.parse(json, baseDirectory: "/k") == c)
        #expect(!json.contains("\"api\""), "the api section never leaves the local file")
        #expect(json.contains("\"post\" : \"http://h/tap\""), "URLs are written without escaped slashes")
    }

    @Test func powerWakeOnTouchIsADurationOrOff() throws {
        #expect(try ConfigLoader.parse("{}").power.wakeOnTouch == .seconds(30))
        #expect(try ConfigLoader.parse("power: {wakeOnTouch: 2m}").power.wakeOnTouch == .seconds(120))
        #expect(try ConfigLoader.parse("power: {wakeOnTouch: off}").power.wakeOnTouch == nil)
        let json = String(decoding: ConfigDocument.json(try ConfigLoader.parse("power: {wakeOnTouch: 90s}")), as: UTF8.self)
        #expect(json.contains("\"wakeOnTouch\" : \"1m30s\"") || json.contains("\"wakeOnTouch\" : \"90s\""), "\(json)")
        for (text, issue) in [
            ("power: {wakeOnTouch: 0}", "power.wakeOnTouch: must be greater than 0"),
            ("power: {wakeOnTouch: never}", "power.wakeOnTouch: must be a duration: seconds as a number (5, 0.4) or with a unit (400ms, 5s, 2m), found never"),
            ("power: {wake: 5s}", "power.wake: unknown key (known keys: cec, wakeOnTouch)"),
        ] {
            #expect(throws: ConfigError.self) { try ConfigLoader.parse(text) }
            do { _ = try ConfigLoader.parse(text) } catch { #expect(error.issues.map(\.description) == [issue]) }
        }
    }

    @Test func powerCecIsAutoOffOrAnAdapterPath() throws {
        #expect(try ConfigLoader.parse("{}").power.cec == .auto)
        #expect(try ConfigLoader.parse("power: {cec: off}").power.cec == .off)
        #expect(try ConfigLoader.parse("power: {cec: auto}").power.cec == .auto)
        #expect(try ConfigLoader.parse("power: {cec: /dev/cec2}").power.cec == .adapter("/dev/cec2"))
        let json = String(decoding: ConfigDocument.json(try ConfigLoader.parse("power: {cec: off}")), as: UTF8.self)
        #expect(json.contains("\"cec\" : \"off\""), "\(json)")
        #expect(try ConfigLoader.parse("power: {cec: /dev/cec10}").power.cec == .adapter("/dev/cec10"))
        // Only CEC device nodes: not any file, nor another device the kiosk's ioctls would then be aimed at.
        for text in ["power: {cec: cec0}", "power: {cec: /}", "power: {cec: true}", "power: {cec: \"\"}", "power: {cec: /etc/passwd}",
                     "power: {cec: /dev/dri/card0}", "power: {cec: /dev/cec}", "power: {cec: /dev/cec0/../sda}", "power: {cec: /dev/cec-1}"] {
            do {
                _ = try ConfigLoader.parse(text)
                Issue.record("\(text) was accepted")
            } catch {
                #expect(error.issues.count == 1 && error.issues[0].path == "power.cec", "\(text): \(error)")
                #expect(error.description.contains("must be auto, off or a CEC adapter's device node, /dev/cecN (such as /dev/cec0)"), "\(error)")
            }
        }
    }

    @Test func theApiSectionIsNeverWritten() throws {
        let c = try ConfigLoader.parse("api: {token: abcdefghijklmnopqrstu}")
        #expect(!String(decoding: ConfigDocument.json(c), as: UTF8.self).contains("abcdefghijklmnopqrstu"))
    }
}
