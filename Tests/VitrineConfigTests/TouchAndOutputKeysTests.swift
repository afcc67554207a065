import Testing
import VitrineCore
@testable import VitrineConfig

@Suite("ConfigLoader: touch, rotation, DRM output and tap actions")
struct TouchAndOutputKeysTests {
    @Test func touchKeysAreRead() throws {
        let configuration = try ConfigLoader.parse("""
            touch:
              resumeDelay: 1500ms
              include: [Goodix]
              exclude: [Mouse, Tablet]
              calibration: [0, 1, 0, -1, 0, 1]
              tapMaxDuration: 300ms
              tapSlop: 3.5
              swipeFraction: 0.3
              flickVelocity: 200
            """)
        #expect(configuration.touch.resumeDelay == .milliseconds(1500))
        #expect(configuration.touch.include == ["Goodix"])
        #expect(configuration.touch.exclude == ["Mouse", "Tablet"])
        #expect(configuration.touch.calibration == [0, 1, 0, -1, 0, 1])
        #expect(configuration.touch.tapMaxDuration == .milliseconds(300))
        #expect(configuration.touch.tapSlopMillimetres == 3.5)
        #expect(configuration.touch.swipeFraction == 0.3)
        #expect(configuration.touch.flickVelocityMillimetresPerSecond == 200)
        let defaults = try ConfigLoader.parse("{}").touch
        #expect(defaults.calibration == [1, 0, 0, 0, 1, 0] && defaults.tapSlopMillimetres == 5 && defaults.swipeFraction == 0.25)
    }

    @Test func badTouchValuesNameTheirKeys() {
        #expect(issues("touch: {calibration: [1, 0, 0]}")
            == ["touch.calibration: must be six numbers [a, b, c, d, e, f] (libinput's calibration matrix), found 3"])
        #expect(issues("touch: {calibration: [1, 0, x, 0, 1, 0]}") == ["touch.calibration[2]: must be a number, found x"])
        #expect(issues("touch: {swipeFraction: 2}") == ["touch.swipeFraction: must be between 0.01 and 1.0, found 2"])
        #expect(issues("touch: {include: Goodix}") == ["touch.include: must be a list, found Goodix"])
        #expect(issues("touch: {tapSlop: -1}") == ["touch.tapSlop: must be between 0.1 and 100.0, found -1"])
    }

    @Test("touch.attract: read, written back in the canonical document only when set, and checked")
    func attractMode() throws {
        let configuration = try ConfigLoader.parse("slides: [a.jpg, b.jpg, c.jpg]\ntouch: {attract: {after: 90s, home: 2}}")
        #expect(configuration.touch.attract == AttractMode.Settings(idle: .seconds(90), home: 2))
        let json = ConfigDocument.json(configuration)
        let written = try JSONValue(parsing: json).object?["touch"]?.object?["attract"]
        #expect(written == .object(["after": .string("90s"), "home": .integer(2)]))
        #expect(ConfigDocument.json(try ConfigLoader.parse(String(decoding: json, as: UTF8.self))) == json)
        #expect(try ConfigLoader.parse("touch: {attract: {after: 1m}}").touch.attract == AttractMode.Settings(idle: .seconds(60), home: 0))
        // Off by default, and then absent from the document: every configuration keeps its version.
        let plain = try ConfigLoader.parse("slides: [a.jpg]")
        #expect(plain.touch.attract == nil)
        #expect(!String(decoding: ConfigDocument.json(plain), as: UTF8.self).contains("attract"))

        #expect(issues("touch: {attract: {home: 1}}")
            == ["touch.attract.after: is required: how long after the last touch the kiosk goes back home, such as 60s"])
        #expect(issues("touch: {attract: {after: 0s}}") == ["touch.attract.after: must be greater than 0"])
        #expect(issues("slides: [a.jpg, b.jpg]\ntouch: {attract: {after: 30s, home: 2}}")
            == ["touch.attract.home: is slide 2, but the playlist has 2 slides (counted from 0)"])
        #expect(issues("touch: {attract: {after: 30s, homme: 1}}").first?.hasPrefix("touch.attract.homme: unknown key") == true)
        // With a schedule, playlists differ in length: home is clamped to the one on screen instead.
        #expect(issues("schedule: {playlists: {day: [a.jpg]}, entries: [{playlist: day, days: mon}]}\ntouch: {attract: {after: 30s, home: 5}}").isEmpty)
    }

    @Test("a slide's attractOnly: read, written back only when true, and checked against attract mode and the playlist")
    func attractOnlySlides() throws {
        let text = "slides: [{path: promo.jpg, attractOnly: true}, {path: menu.jpg, attractOnly: false}]\ntouch: {attract: {after: 30s}}"
        let configuration = try ConfigLoader.parse(text)
        #expect(configuration.slides.map(\.attractOnly) == [true, false])
        let slides = try JSONValue(parsing: ConfigDocument.json(configuration)).object?["slides"]
        #expect(slides == [["path": "promo.jpg", "attractOnly": true], ["path": "menu.jpg"]])
        #expect(try ConfigLoader.parse(String(decoding: ConfigDocument.json(configuration), as: UTF8.self)) == configuration)
        #expect(issues("slides: [{path: a.jpg, attractOnly: true}, b.jpg]")
            == ["slides[0].attractOnly: needs attract mode: set touch.attract (such as after: 60s), which decides when nobody is using the kiosk"])
        #expect(issues("slides: [{path: a.jpg, attractOnly: true}]\ntouch: {attract: {after: 30s}}")
            == ["slides: has only attractOnly slides: a visitor would have nothing to see; leave at least one slide without attractOnly"])
        #expect(issues("slides: [{path: a.jpg, attractOnly: yes please}, b.jpg]\ntouch: {attract: {after: 30s}}").first?.hasPrefix("slides[0].attractOnly:") == true)
        #expect(issues("schedule: {playlists: {day: [{path: a.jpg, attractOnly: true}, b.jpg]}, entries: [{playlist: day, days: mon}]}")
            == ["schedule.playlists.day[0].attractOnly: needs attract mode: set touch.attract (such as after: 60s), which decides when nobody is using the kiosk"])
    }

    @Test func perDeviceOverridesAreRead() throws {
        let configuration = try ConfigLoader.parse("""
            touch:
              include: ["0eef:0001", Goodix]
              devices:
                - {match: "0eef:0001", calibration: [-1, 0, 1, 0, 1, 0]}
                - {match: ft5406, calibration: [0, 1, 0, 1, 0, 0]}
            """)
        #expect(configuration.touch.devices == [
            TouchDeviceCalibration(pattern: InputDevicePattern("0eef:0001"), matrix: [-1, 0, 1, 0, 1, 0]),
            TouchDeviceCalibration(pattern: InputDevicePattern("ft5406"), matrix: [0, 1, 0, 1, 0, 0]),
        ])
        let selection = configuration.touch.deviceSelection
        #expect(selection.include.map(\.text) == ["0eef:0001", "Goodix"])
        #expect(selection.include[0].isIdentity)
        #expect(selection.calibrations.count == 2)
        // The canonical JSON carries them, and reads back the same.
        let json = String(decoding: ConfigDocument.json(configuration), as: UTF8.self)
        #expect(try ConfigLoader.parse(json).touch.devices == configuration.touch.devices)
    }

    @Test func badDeviceOverridesNameTheirKeys() {
        #expect(issues("touch: {devices: [{calibration: [1, 0, 0, 0, 1, 0]}]}")
            == ["touch.devices[0].match: is required: a part of the device's name, or vendor:product such as 0eef:0001"])
        #expect(issues("touch: {devices: [{match: '', calibration: [1, 0, 0, 0, 1, 0]}]}")
            == ["touch.devices[0].match: must name a device: a part of its name, or vendor:product such as 0eef:0001"])
        #expect(issues("touch: {devices: [{match: eGalax}]}") == ["touch.devices[0].calibration: is required: six numbers [a, b, c, d, e, f]"])
        #expect(issues("touch: {devices: [{match: eGalax, calibration: [1, 2]}]}")
            == ["touch.devices[0].calibration: must be six numbers [a, b, c, d, e, f] (libinput's calibration matrix), found 2"])
        #expect(issues("touch: {devices: [{match: eGalax, calibration: [1, 0, 0, 0, 1, 0], swap: true}]}")
            == ["touch.devices[0].swap: unknown key (known keys: calibration, match)"])
        #expect(issues("touch: {devices: eGalax}") == ["touch.devices: must be a list, found eGalax"])
    }

    @Test func outputKeysAreReadAndChecked() throws {
        let configuration = try ConfigLoader.parse("output: {card: /dev/dri/card1, connector: HDMI-A-1, mode: 1280x720@50, modesetting: legacy, rotation: 270}")
        #expect(configuration.output.card == "/dev/dri/card1")
        #expect(configuration.output.connector == "HDMI-A-1")
        #expect(configuration.output.mode?.description == "1280x720@50")
        #expect(configuration.output.modesetting == .legacy)
        #expect(configuration.output.rotation == 270)
        #expect(issues("output: {rotation: 45}") == ["output.rotation: must be 0, 90, 180 or 270, found 45"])
        #expect(issues("output: {mode: big}") == ["output.mode: must be WIDTHxHEIGHT or WIDTHxHEIGHT@HZ, for example 1920x1080@60, found big"])
        #expect(issues("output: {modesetting: fast}") == ["output.modesetting: must be one of auto, atomic, legacy, found fast"])
    }

    @Test func planesKeysAreReadCheckedAndWrittenOnlyWhenSet() throws {
        let defaults = try ConfigLoader.parse("slides: [a.jpg]")
        #expect(defaults.output.planes == .auto && defaults.output.planeMemoryMiB == 96)
        // Left out of the stored document at their defaults, so that no stored configuration changes version.
        #expect(ConfigDocument.tree(defaults)["output"]?["planes"] == nil)
        #expect(ConfigDocument.tree(defaults)["output"]?["planeMemory"] == nil)
        let set = try ConfigLoader.parse("slides: [a.jpg]\noutput: {planes: cpu, planeMemory: 256}")
        #expect(set.output.planes == .cpu && set.output.planeMemoryMiB == 256)
        #expect(try ConfigLoader.parse(String(decoding: ConfigDocument.json(set), as: UTF8.self)) == set)
        #expect(issues("output: {planes: gpu}") == ["output.planes: must be one of auto, cpu, found gpu"])
        #expect(issues("output: {planeMemory: 8}") == ["output.planeMemory: must be between 16 and 4096, found 8"])
    }

    @Test func tapActions() throws {
        let configuration = try ConfigLoader.parse("""
            slides:
              - {path: a.jpg, action: {goto: 1}}
              - {path: b.jpg, action: {post: "http://127.0.0.1:8080/tap", timeout: 500ms}}
              - {path: c.jpg, action: {post: "http://shop.local/tap"}}
            """)
        #expect(configuration.slides[0].action == .goTo(1))
        #expect(configuration.slides[1].action == .post(url: "http://127.0.0.1:8080/tap", timeout: .milliseconds(500)))
        #expect(configuration.slides[2].action == .post(url: "http://shop.local/tap", timeout: .seconds(2)))
        #expect(issues("slides: [{path: a.jpg, action: {goto: 3}}]")
            == ["slides[0].action.goto: there is no slide 3: the playlist has 1 slides (counting from 0)"])
        #expect(issues("slides: [{path: a.jpg, action: {post: \"ftp://x\"}}]") == ["slides[0].action.post: must be an http:// or https:// URL, found ftp://x"])
        #expect(issues("slides: [{path: a.jpg, action: {post: \"https://shop.example/tap\"}}]") == [])
        #expect(issues("slides: [{path: a.jpg, action: {goto: 0, post: \"http://x\"}}]") == ["slides[0].action: must have either goto or post, not both"])
        #expect(issues("slides: [{path: a.jpg, action: {}}]") == ["slides[0].action: must have goto (a slide index) or post (an http:// or https:// URL)"])
    }
}
