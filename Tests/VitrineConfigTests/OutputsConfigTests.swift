import Foundation
import Testing
import VitrineConfig
import VitrineCore

@Suite("ConfigLoader: outputs")
struct OutputsConfigTests {
    /// A Raspberry Pi 4: the lobby playlist on both HDMI televisions spanned as one
    /// picture, the menu on the DSI panel, and a mirror of the panel.
    static let pi4 = """
        schedule:
          playlists:
            lobby: [lobby.jpg]
            menu: [menu.jpg]
          otherwise: lobby
        output: {rotation: 180}
        outputs:
          - name: HDMI-A-1
            mode: 1920x1080@60
            playlist: lobby
            canvas: {name: wall, x: 0, y: 0}
          - name: HDMI-A-2
            playlist: lobby
            canvas: {name: wall, x: 1230, y: 0, width: 1210, height: 680.5}
            whenMissing: skip
          - name: DSI-1
            playlist: menu
            rotation: 90
            fit: cover
          - {name: DP-1, mirror: DSI-1, rotation: 0}
        """

    @Test func everyKeyIsRead() throws {
        let c = try ConfigLoader.parse(Self.pi4)
        let layout = try #require(c.outputs)
        #expect(layout.outputs == [
            ConfiguredOutput(name: "HDMI-A-1", mode: DisplayModeSpec(width: 1920, height: 1080, refreshHertz: 60), content: .playlist("lobby"),
                             role: .canvas(CanvasMembership(name: "wall", x: 0, y: 0))),
            ConfiguredOutput(name: "HDMI-A-2", content: .playlist("lobby"),
                             role: .canvas(CanvasMembership(name: "wall", x: 1230, y: 0, width: 1210, height: 680.5)), whenMissing: .skip),
            ConfiguredOutput(name: "DSI-1", rotation: .quarter, fit: .cover, content: .playlist("menu")),
            ConfiguredOutput(name: "DP-1", rotation: DisplayRotation.none, role: .mirror(of: "DSI-1")),
        ])
        #expect(try ConfigLoader.parse("{}").outputs == nil)
        // The plan's other input: output.rotation, every output's default.
        #expect(c.singleOutput == OutputPlan.SingleOutput(rotation: .half))
    }

    @Test func itRoundTripsThroughTheCanonicalJSONAndWritesTheseBytes() throws {
        let c = try ConfigLoader.parse(Self.pi4)
        let json = String(decoding: ConfigDocument.json(c), as: UTF8.self)
        #expect(try ConfigLoader.parse(json) == c)
        // Each entry's name and whenMissing, and only the keys it sets; whole millimetres as integers.
        let start = try #require(json.range(of: "  \"outputs\" : ["))
        let end = try #require(json.range(of: "\n  ],\n", range: start.upperBound..<json.endIndex))
        #expect(String(json[start.lowerBound..<end.upperBound]) == #"""
          "outputs" : [
            {
              "canvas" : {
                "name" : "wall",
                "x" : 0,
                "y" : 0
              },
              "mode" : "1920x1080@60",
              "name" : "HDMI-A-1",
              "playlist" : "lobby",
              "whenMissing" : "wait"
            },
            {
              "canvas" : {
                "height" : 680.5,
                "name" : "wall",
                "width" : 1210,
                "x" : 1230,
                "y" : 0
              },
              "name" : "HDMI-A-2",
              "playlist" : "lobby",
              "whenMissing" : "skip"
            },
            {
              "fit" : "cover",
              "name" : "DSI-1",
              "playlist" : "menu",
              "rotation" : 90,
              "whenMissing" : "wait"
            },
            {
              "mirror" : "DSI-1",
              "name" : "DP-1",
              "rotation" : 0,
              "whenMissing" : "wait"
            }
          ],

        """#)
        // A configuration without outputs writes no such key: its bytes, and so its version, stay.
        #expect(!String(decoding: ConfigDocument.json(try ConfigLoader.parse("slides: [a.jpg]")), as: UTF8.self).contains("outputs"))
        // JSON says the same as YAML.
        #expect(try ConfigLoader.parse(#"{"outputs": [{"name": "DSI-1", "rotation": 270}, {"name": "DP-1", "mirror": "DSI-1"}]}"#).outputs
            == OutputLayout([ConfiguredOutput(name: "DSI-1", rotation: .threeQuarters), ConfiguredOutput(name: "DP-1", role: .mirror(of: "DSI-1"))]))
    }

    @Test func badValuesNameTheirKeyPath() {
        for (text, expected) in [
            ("outputs: HDMI-A-1", ["outputs: must be a list, found HDMI-A-1"]),
            ("outputs: []", ["outputs: must list at least one output; leave outputs out to drive output.connector or the first connected one"]),
            ("outputs: [{mode: 1280x720}]", ["outputs[0].name: is required: the connector's kernel name, such as HDMI-A-1 (`vitrine displays` lists them)"]),
            ("outputs: [{name: DSI-1, mode: 1280}]", ["outputs[0].mode: must be WIDTHxHEIGHT or WIDTHxHEIGHT@HZ, for example 1920x1080@60, found 1280"]),
            ("outputs: [{name: DSI-1, rotation: 45}]", ["outputs[0].rotation: must be 0, 90, 180 or 270, found 45"]),
            ("outputs: [{name: DSI-1, fit: fill}]", ["outputs[0].fit: must be one of contain, cover, stretch, found fill"]),
            ("outputs: [{name: DSI-1, whenMissing: later}]", ["outputs[0].whenMissing: must be one of wait, skip, found later"]),
            ("outputs: [{name: DSI-1, mirorr: DP-1}]", [#"outputs[0].mirorr: unknown key (did you mean "mirror"?)"#]),
            ("outputs: [{name: DSI-1, playlist: lobby}]", ["outputs[0].playlist: unknown playlist lobby: schedule.playlists defines none"]),
            ("schedule: {playlists: {lobby: [a.jpg]}}\noutputs: [{name: DSI-1, playlist: lobyy}]",
             [#"outputs[0].playlist: unknown playlist lobyy (did you mean "lobby"?)"#]),
            ("outputs: [{name: HDMI1}]",
             ["outputs[0].name: HDMI1 is not a connector name (did you mean HDMI-A-1?): the kernel names them TYPE-N, such as HDMI-A-1, DSI-1 or DP-1, and `vitrine displays` lists this board's"]),
            ("outputs: [{name: DP-1}, {name: DP-2, mirror: DP-1, canvas: {name: w, x: 0, y: 0}}]",
             ["outputs[1]: has both mirror and canvas: a mirror shows what its source shows; give one of them"]),
            ("outputs: [{name: DP-1, canvas: {name: w, x: 0}}, {name: DP-2, canvas: {name: w, x: 1, y: 0}}]",
             ["outputs[0].canvas.y: is required: millimetres from the canvas's top edge to this output's picture area"]),
            ("outputs: [{name: DP-1, canvas: {name: w, x: 0, y: 0, width: 500}}, {name: DP-2, canvas: {name: w, x: 600, y: 0}}]",
             ["outputs[0].canvas: gives width alone: give both width and height (millimetres), or neither to use the size the display reports"]),
            ("outputs: [{name: DP-1, canvas: {name: w, x: 0, y: 0, width: 0, height: 5}}, {name: DP-2, canvas: {name: w, x: 600, y: 0}}]",
             ["outputs[0].canvas.width: must be between 1.0 and 100000.0, found 0"]),
            ("outputs: [{name: DP-1, canvas: {name: \"a wall\", x: 0, y: 0}}, {name: DP-2, canvas: {name: w, x: 600, y: 0}}]",
             [#"outputs[0].canvas.name: a canvas's name must be letters, digits, - and _, found "a wall""#]),
            ("outputs: [{name: DP-1, canvas: {name: w, x: 0, y: 0}}, {name: DP-2, canvas: {name: w, x: 600, y: 0, depth: 1}}]",
             ["outputs[1].canvas.depth: unknown key (known keys: height, name, width, x, y)"]),
            // How entries relate: VitrineCore's OutputLayout, at the reader's key paths.
            ("outputs: [{name: DP-1}, {name: DP-1}]", ["outputs[1].name: DP-1 is outputs[0] already: list each connector once"]),
            ("outputs: [{name: DP-1, mirror: DP-1}]", ["outputs[0].mirror: an output cannot mirror itself"]),
            ("outputs: [{name: DP-1, mirror: DP-2}]", ["outputs[0].mirror: DP-2 is not one of the outputs (DP-1): a mirror shows what another of them shows"]),
            ("outputs: [{name: DP-1}, {name: DP-2, mirror: DP-1}, {name: DP-3, mirror: DP-2}]",
             ["outputs[2].mirror: DP-2 is a mirror itself (of DP-1): mirror DP-1; mirrors do not chain"]),
            ("outputs: [{name: DP-1, canvas: {name: w, x: 0, y: 0, width: 500, height: 300}}, {name: DP-2, canvas: {name: w, x: 400, y: 100, width: 500, height: 300}}]",
             ["outputs[1].canvas: overlaps outputs[0] (DP-1) by 100x200 mm in canvas w: the picture areas of a canvas's outputs must not overlap (x and y place each one's top left corner, in millimetres)"]),
            // output.connector and output.mode choose the one output outputs replaces.
            ("output: {connector: DP-1, mode: 1280x720}\noutputs: [{name: DP-1}]", [
                "output.connector: cannot be given with outputs, which names the connectors: list DP-1 in outputs instead",
                "output.mode: cannot be given with outputs, which gives each connector its mode: give 1280x720 as the mode of an output in outputs instead",
            ]),
        ] as [(String, [String])] {
            #expect(issues(text) == expected, "\(text)")
        }
        // A bound on what a file can ask for.
        let many = "outputs:\n" + (1...33).map { "  - {name: DP-\($0)}" }.joined(separator: "\n")
        #expect(issues(many) == ["outputs: lists 33 outputs: at most 32"])
    }

    @Test func theConfigurationAsTheOneDrivenOutputShowsIt() throws {
        let c = try ConfigLoader.parse(Self.pi4)
        // DSI-1: its playlist, as the schedule's only one, all the time; its fit and rotation.
        let panel = c.shown(onOutput: "DSI-1")
        #expect(panel.schedule?.playlists.map(\.name) == ["menu"] && panel.schedule?.entries == [] && panel.schedule?.otherwise == .playlist("menu"))
        #expect(panel.fit == .cover && panel.output.rotation == 90)
        // The schedule's zone and the playlist's own slides stay.
        #expect(panel.schedule?.playlists == c.schedule?.playlists.filter { $0.name == "menu" })
        #expect(panel.schedule?.timezone == c.schedule?.timezone)
        // A mirror shows its source's pictures and fit, turned its own way.
        let mirror = c.shown(onOutput: "DP-1")
        #expect(mirror.schedule == panel.schedule && mirror.fit == .cover && mirror.output.rotation == 0)
        // A canvas output shows its canvas's pictures, whole; without a rotation of its own, output.rotation.
        let wall = c.shown(onOutput: "HDMI-A-2")
        #expect(wall.schedule?.otherwise == .playlist("lobby") && wall.fit == c.fit && wall.output.rotation == 180)
        // An output outputs does not list, or no outputs section: as it is.
        #expect(c.shown(onOutput: "HDMI-A-3") == c)
        let plain = try ConfigLoader.parse("slides: [a.jpg]")
        #expect(plain.shown(onOutput: "HDMI-A-1") == plain)
        // An output that shows the programme keeps the schedule whole.
        let programme = try ConfigLoader.parse("schedule: {playlists: {a: [a.jpg]}, otherwise: a}\noutputs: [{name: DP-1, rotation: 270}]")
        #expect(programme.shown(onOutput: "DP-1").schedule == programme.schedule)
        #expect(programme.shown(onOutput: "DP-1").output.rotation == 270)
    }

    @Test func referencesAreCheckedAgainstAnyConfiguration() throws {
        // What a kiosk's store asks when a pushed configuration meets the local outputs.
        let local = try #require(try ConfigLoader.parse(Self.pi4).outputs)
        let pushed = try ConfigLoader.parse("schedule: {playlists: {lobby: [a.jpg]}, otherwise: lobby}")
        #expect(ConfigLoader.outputReferenceIssues(local, in: pushed).map(\.description)
            == ["outputs[2].playlist: unknown playlist menu (playlists: lobby)"])
        #expect(ConfigLoader.outputReferenceIssues(local, in: try ConfigLoader.parse(Self.pi4)).isEmpty)
    }

    /// Two HDMI touch monitors and the Pi's panel, each output naming its touch.
    static let touchScreens = """
        outputs:
          - name: HDMI-A-1
            touch: ["0eef:0001", eGalax]
          - name: HDMI-A-2
            touch:
              - phys: usb-0000:01:00.0-1.2
              - {phys: "usb-0000:01:00.0-1.4/input0"}
          - name: DSI-1
            touch: []
        """

    @Test func touchListsAreReadAndWrittenBack() throws {
        let c = try ConfigLoader.parse(Self.touchScreens)
        let layout = try #require(c.outputs)
        #expect(layout.outputs.map(\.touch) == [
            [InputDevicePattern("0eef:0001"), InputDevicePattern("eGalax")],
            [InputDevicePattern(physicalPathPrefix: "usb-0000:01:00.0-1.2"), InputDevicePattern(physicalPathPrefix: "usb-0000:01:00.0-1.4/input0")],
            [],
        ])
        #expect(layout.outputs[0].touch?[0].isIdentity == true && layout.outputs[0].touch?[1].isIdentity == false)
        // Without the key: nil (automatic or default), not an empty list (no touch at all).
        #expect(try ConfigLoader.parse("outputs: [{name: DP-1}]").outputs?.outputs[0].touch == nil)
        let json = String(decoding: ConfigDocument.json(c), as: UTF8.self)
        #expect(try ConfigLoader.parse(json) == c)
        #expect(json.contains(#"""
              "name" : "HDMI-A-1",
              "touch" : [
                "0eef:0001",
                "eGalax"
              ],
        """#))
        #expect(json.contains(#"""
              "touch" : [
                {
                  "phys" : "usb-0000:01:00.0-1.2"
                },
                {
                  "phys" : "usb-0000:01:00.0-1.4/input0"
                }
              ],
        """#))
        // `touch: []` stays an empty list (no touch at all), not the absent key.
        #expect(json.contains("      \"name\" : \"DSI-1\",\n      \"touch\" : [\n\n      ],\n"))
        // The kiosk's own field is never written: the top-level touch section has no outputContext.
        #expect(!json.contains("outputContext") && !json.contains("taken"))
    }

    @Test func badTouchListsNameTheirKeyPath() {
        let forms = #"a part of the device's name, vendor:product such as "0eef:0001", or {phys: PREFIX} (a prefix of its physical path); `vitrine touch list` prints each"#
        for (text, expected) in [
            ("outputs: [{name: DP-1, touch: Goodix}]", ["outputs[0].touch: must be a list of touch devices, each \(forms); found Goodix"]),
            ("outputs: [{name: DP-1}, {name: DP-2, touch: [\"\"]}]", ["outputs[1].touch[0]: must name a device: \(forms)"]),
            ("outputs: [{name: DP-1, touch: [Goodix, [a]]}]", ["outputs[0].touch[1]: must be \(forms); found a list"]),
            ("outputs: [{name: DP-1, touch: [~]}]", ["outputs[0].touch[0]: must be a string, found nothing (null)"]),
            ("outputs: [{name: DP-1, touch: [{phys: \"\"}]}]",
             ["outputs[0].touch[0].phys: must be the start of a physical path, such as usb-0000:01:00.0-1.3 (`vitrine touch list` prints each device's)"]),
            ("outputs: [{name: DP-1, touch: [{path: usb-1}]}]", [
                #"outputs[0].touch[0]: a mapping names a device by its physical path: {phys: PREFIX}, such as {phys: "usb-0000:01:00.0-1.3"}"#,
                "outputs[0].touch[0].path: unknown key (known keys: )",
            ]),
            ("outputs: [{name: DP-1, touch: [{phys: usb-1, name: a}]}]", [#"outputs[0].touch[0].name: unknown key (known keys: phys)"#]),
            ("outputs: [{name: DP-1, tuoch: [a]}]", [#"outputs[0].tuoch: unknown key (did you mean "touch"?)"#]),
        ] as [(String, [String])] {
            #expect(issues(text) == expected, "\(text)")
        }
        let many = "outputs: [{name: DP-1, touch: [" + (1...33).map { "d\($0)" }.joined(separator: ", ") + "]}]"
        #expect(issues(many) == ["outputs[0].touch: lists 33 devices: at most 32"])
    }

    @Test func eachOutputsKioskTakesTheTouchOfItsGroup() throws {
        let c = try ConfigLoader.parse(Self.pi4)
        // No outputs section, or an output not listed: no context, every touch device as before.
        #expect(try ConfigLoader.parse("slides: [a.jpg]").shown(onOutput: "HDMI-A-1").touch.outputContext == nil)
        #expect(c.shown(onOutput: "HDMI-A-3").touch.outputContext == nil)
        // The canvas: both televisions, one picture.
        let wall = try #require(c.shown(onOutput: "HDMI-A-1").touch.outputContext)
        #expect(wall.taken == ["HDMI-A-1", "HDMI-A-2"])
        #expect(wall.outputs.map(\.name) == ["HDMI-A-1", "HDMI-A-2", "DSI-1", "DP-1"] && !wall.isPlanned)
        #expect(wall.outputs.allSatisfy { $0.touch == nil && $0.size == nil && $0.isDriven })
        #expect(c.shown(onOutput: "HDMI-A-2").touch.outputContext?.taken == ["HDMI-A-1", "HDMI-A-2"])
        // The panel and its mirror, each turned its own way.
        let panel = try #require(c.shown(onOutput: "DSI-1").touch.outputContext)
        #expect(panel.taken == ["DSI-1", "DP-1"])
        #expect(panel.rotations == ["HDMI-A-1": .half, "HDMI-A-2": .half, "DSI-1": .quarter, "DP-1": DisplayRotation.none])
        // A mirror standing in for its source: the source's group.
        #expect(c.shown(onOutput: "DP-1").touch.outputContext?.taken == ["DSI-1", "DP-1"])
        // The touch lists go along.
        let parsed = try ConfigLoader.parse(Self.touchScreens)
        let screens = parsed.shown(onOutput: "HDMI-A-2").touch.outputContext
        #expect(screens?.taken == ["HDMI-A-2"] && screens?.outputs.map(\.touch) == parsed.outputs?.outputs.map(\.touch))
    }
}
