import Foundation
import ServerTestSupport
import Testing
import VitrineChannel
import VitrineConfig
import VitrineCore
import VitrineRuntime
@testable import VitrineAPI
@testable import VitrineAssembly
@testable import VitrineHTTP
@testable import VitrineState
@testable import VitrineURLImages

/// The typed API bodies (Sources/VitrineAPI) against docs/api/openapi.yaml:
/// each type's keys are its schema's properties, every required one is always
/// written (null included), and the spec's own examples decode into the type and
/// encode back to the same JSON.
@Suite("API bodies: the types against the spec")
struct APIBodyTests {
    static func schema(_ name: String) throws -> [String: Any] {
        let components = try #require(try SpecAgreementTests.spec()["components"] as? [String: Any])
        let schemas = try #require(components["schemas"] as? [String: Any])
        return try #require(schemas[name] as? [String: Any], "no schema \(name)")
    }

    /// The operation `operationId` in the spec's paths.
    static func operation(_ operationId: String) throws -> [String: Any] {
        let paths = try #require(try SpecAgreementTests.spec()["paths"] as? [String: [String: Any]])
        let operations = paths.values.flatMap { $0.values.compactMap { $0 as? [String: Any] } }
        return try #require(operations.first { $0["operationId"] as? String == operationId }, "no operation \(operationId)")
    }

    /// The examples of a media type's `content` (`examples`, or one `example`), as JSON values.
    static func examples(in content: [String: Any]) throws -> [JSONValue] {
        if let examples = content["examples"] as? [String: Any] {
            // An example may be a reference to one of components/examples.
            let named = (try SpecAgreementTests.spec()["components"] as? [String: Any])?["examples"] as? [String: Any] ?? [:]
            return try examples.values.map { example in
                let object = example as? [String: Any]
                let resolved = (object?["$ref"] as? String).map { named[String($0.split(separator: "/").last ?? "")] as? [String: Any] } ?? object
                return try value(try #require(resolved?["value"]))
            }
        }
        return [try value(try #require(content["example"]))]
    }

    /// The operation `operationId`'s examples for `status`, as JSON values.
    static func examples(operation operationId: String, status: String) throws -> [JSONValue] {
        let responses = try #require(try operation(operationId)["responses"] as? [String: Any])
        return try examples(in: try #require(((responses[status] as? [String: Any])?["content"] as? [String: Any])?["application/json"] as? [String: Any]))
    }

    /// The operation `operationId`'s request body examples, as JSON values.
    static func requestExamples(operation operationId: String) throws -> [JSONValue] {
        let body = try #require(try operation(operationId)["requestBody"] as? [String: Any])
        return try examples(in: try #require((body["content"] as? [String: Any])?["application/json"] as? [String: Any]))
    }

    /// A plain value from the YAML reader (NSNull for null) as JSON.
    static func value(_ plain: Any) throws -> JSONValue {
        try JSONValue(parsing: Array(JSONSerialization.data(withJSONObject: plain, options: [.fragmentsAllowed])))
    }

    static func json<T: Encodable>(_ value: T) throws -> JSONValue {
        try JSONValue(parsing: Array(JSONEncoder().encode(value)))
    }

    /// `value` encodes to exactly the schema's properties, and has every one it requires.
    static func expectMatches<T: Encodable>(_ value: T, schema name: String) throws {
        let schema = try Self.schema(name)
        let properties = Set(try #require(schema["properties"] as? [String: Any]).keys)
        let required = Set(schema["required"] as? [String] ?? [])
        let keys = Set(try #require(try json(value).object).keys)
        #expect(keys.isSubset(of: properties), "\(T.self) writes \(keys.subtracting(properties).sorted()), which \(name) does not have")
        #expect(required.isSubset(of: keys), "\(T.self) leaves out \(required.subtracting(keys).sorted()), which \(name) requires")
    }

    @Test func powerStatusIsTheSchemaPowerAndRoundTripsTheSpecsExamples() throws {
        let awake = PowerStatus(state: .on, requested: .off, wokenByTouch: true, wakeEndsInSeconds: 21.4, heldByOverride: false)
        let plain = PowerStatus(state: .on, requested: .on, wokenByTouch: false, wakeEndsInSeconds: nil, heldByOverride: false)
        try Self.expectMatches(awake, schema: "Power")
        try Self.expectMatches(plain, schema: "Power")
        #expect(try Self.json(plain)["wakeEndsInSeconds"] == .null, "no wake is written as null, as the schema requires the key")

        let examples = try Self.examples(operation: "getPower", status: "200")
        #expect(examples.count == 2)
        for example in examples {
            let decoded = try JSONDecoder().decode(PowerStatus.self, from: Data(example.encoded()))
            #expect(try Self.json(decoded) == example)
        }
    }

    @Test func controlCommandsAreTheSchemaAndRoundTripTheSpecsExamples() throws {
        let requests = try Self.requestExamples(operation: "control")
        #expect(requests.count == 3)
        for example in requests {
            let decoded = try JSONDecoder().decode(ControlCommand.self, from: Data(example.encoded()))
            #expect(try Self.json(decoded) == example)
        }
        #expect(try Self.json(ControlCommand.goTo(slide: 3)) == (try Self.value(["command": "goto", "slide": 3])))
        #expect(try Self.json(ControlCommand.pause) == (try Self.value(["command": "pause"])), "no slide but for goto")
        // The names the schema lists, and no others.
        let schema = try Self.schema("ControlCommand")
        let variants = try #require(schema["oneOf"] as? [[String: Any]])
        let names = variants.flatMap { (($0["properties"] as? [String: Any])?["command"] as? [String: Any])?["enum"] as? [String] ?? [] }
        #expect(Set(names) == Set(ControlCommandName.allCases.map(\.rawValue)))
        let accepted = try Self.examples(operation: "control", status: "202")
        for example in accepted {
            #expect(try Self.json(JSONDecoder().decode(ControlAccepted.self, from: Data(example.encoded()))) == example)
        }
        try Self.expectMatches(ControlAccepted(accepted: .goto), schema: "ControlAccepted")
        #expect(throws: DecodingError.self) { try JSONDecoder().decode(ControlCommand.self, from: Data(#"{"command": "goto"}"#.utf8)) }
        #expect(throws: DecodingError.self) { try JSONDecoder().decode(ControlCommand.self, from: Data(#"{"command": "skip"}"#.utf8)) }
    }

    /// `type`'s decoding of the schema's own example, encoded again, is the example.
    static func expectRoundTrip<T: Codable>(_ type: T.Type, schemaExample name: String) throws {
        let example = try value(try #require(try schema(name)["example"], "\(name) has no example"))
        #expect(try json(JSONDecoder().decode(type, from: Data(example.encoded()))) == example, "\(name)")
    }

    @Test func theEventStreamsDataAreTheirSchemas() throws {
        try Self.expectMatches(SlideChangedEvent(from: 1, to: 2, cause: .rotation), schema: "SlideChangedEvent")
        try Self.expectMatches(TappedEvent(slide: 2, x: 100, y: 200), schema: "TappedEvent")
        try Self.expectMatches(SwipedEvent(from: 2, direction: .left), schema: "SwipedEvent")
        try Self.expectMatches(ConfigAppliedEvent(version: "f4f67ca270692602"), schema: "ConfigAppliedEvent")
        try Self.expectMatches(ErrorEvent(message: "slides[4]: not a JPEG file"), schema: "ErrorEvent")
        try Self.expectRoundTrip(SlideChangedEvent.self, schemaExample: "SlideChangedEvent")
        try Self.expectRoundTrip(TappedEvent.self, schemaExample: "TappedEvent")
        try Self.expectRoundTrip(SwipedEvent.self, schemaExample: "SwipedEvent")
        try Self.expectRoundTrip(ErrorEvent.self, schemaExample: "ErrorEvent")
        // The causes and directions the schemas list are the types' cases.
        let cause = try #require((try Self.schema("SlideChangedEvent")["properties"] as? [String: Any])?["cause"] as? [String: Any])
        #expect(Set(cause["enum"] as? [String] ?? []) == ["rotation", "swipe", "command"])
        for engineCause in [PageChangeCause.automatic, .swipe, .command] {
            #expect((cause["enum"] as? [String] ?? []).contains(SlideChangedEvent.Cause(engineCause).rawValue))
        }
        // Every kiosk event the stream sends is one line of JSON under a name the spec lists.
        let names = ["slideChanged", "tapped", "swiped", "configApplied", "overrideCleared", "error", "attract", "attract"]
        let events: [KioskEvent] = [
            .carousel(.pageChanged(from: 0, to: 1, cause: .automatic)), .carousel(.tapped(slide: 1, x: 10.4, y: 20.6)),
            .carousel(.swiped(from: 1, direction: .next)), .configurationApplied(version: "v"), .overrideEnded(id: "e1"),
            .error("a message"), .attract(.engaged(slide: nil)), .attract(.returned(slide: 0)),
        ]
        for (event, name) in zip(events, names) {
            let sent = try #require(ServerEvent(event), "\(event)")
            #expect(sent.name == name && !sent.data.contains("\n"))
            #expect(try JSONValue(parsing: Array(sent.data.utf8)).object != nil)
        }
        #expect(ServerEvent(.carousel(.tapped(slide: 1, x: 10.4, y: 20.6)))?.data == #"{"slide":1,"x":10,"y":21}"#)
        #expect(ServerEvent(.carousel(.swiped(from: 3, direction: .previous)))?.data == #"{"direction":"right","from":3}"#)
        #expect(ServerEvent("broken", encoding: ["value": Double.nan]) == nil, "an event that cannot be encoded is dropped, not sent as {}")
    }

    @Test("an output group's events carry its name, in their schemas; without one the key is left out")
    func eventsNameTheirOutput() throws {
        try Self.expectMatches(OverrideClearedEvent(id: "e1"), schema: "OverrideClearedEvent")
        try Self.expectRoundTrip(OverrideClearedEvent.self, schemaExample: "OverrideClearedEvent")
        let schemas = ["slideChanged": "SlideChangedEvent", "tapped": "TappedEvent", "swiped": "SwipedEvent",
                       "configApplied": "ConfigAppliedEvent", "overrideCleared": "OverrideClearedEvent", "error": "ErrorEvent",
                       "attract": "AttractEvent"]
        let events: [KioskEvent] = [
            .carousel(.pageChanged(from: 0, to: 1, cause: .swipe)), .carousel(.tapped(slide: 1, x: 10, y: 20)),
            .carousel(.swiped(from: 1, direction: .next)), .configurationApplied(version: "v"), .overrideEnded(id: "e1"),
            .error("a message"), .attract(.returned(slide: 0)),
        ]
        for event in events {
            let named = try #require(ServerEvent(event, output: "DSI-1"), "\(event)")
            let unnamed = try #require(ServerEvent(event), "\(event)")
            let data = try #require(try JSONValue(parsing: Array(named.data.utf8)).object)
            #expect(data["output"] == .string("DSI-1"), "\(named.name)")
            #expect(try JSONValue(parsing: Array(unnamed.data.utf8)).object?["output"] == nil, "\(unnamed.name): no key without a name")
            // Each schema has output, optional.
            let schema = try Self.schema(try #require(schemas[named.name]))
            #expect((schema["properties"] as? [String: Any])?["output"] != nil, "\(named.name)")
            #expect(!(schema["required"] as? [String] ?? []).contains("output"), "\(named.name)")
            #expect(Set(data.keys).isSubset(of: Set((schema["properties"] as? [String: Any] ?? [:]).keys)), "\(named.name)")
        }
        #expect(ServerEvent(.carousel(.pageChanged(from: 0, to: 1, cause: .swipe)), output: "HDMI-A-1")?.data
                == #"{"cause":"swipe","from":0,"output":"HDMI-A-1","to":1}"#)
        #expect(ServerEvent(.attract(.engaged(slide: nil)), output: "DSI-1")?.data == #"{"output":"DSI-1","slide":null,"state":"engaged"}"#)
    }

    @Test("attract mode's event and status are their schemas, null slide and countdown included")
    func attractBodies() throws {
        try Self.expectMatches(AttractEventBody(.engaged(slide: nil)), schema: "AttractEvent")
        try Self.expectMatches(AttractEventBody(.returned(slide: 2)), schema: "AttractEvent")
        try Self.expectRoundTrip(AttractEventBody.self, schemaExample: "AttractEvent")
        #expect(ServerEvent(.attract(.engaged(slide: nil)))?.data == #"{"slide":null,"state":"engaged"}"#)
        #expect(ServerEvent(.attract(.returned(slide: 0)))?.data == #"{"slide":0,"state":"returned"}"#)
        let now = MonotonicInstant.seconds(100)
        let attracting = AttractStatusBody(AttractStatus(state: .attracting, idle: .seconds(60), home: 1), now: now)
        try Self.expectMatches(attracting, schema: "AttractStatus")
        #expect(attracting.returnsInSeconds == nil)
        let idle = AttractStatusBody(AttractStatus(state: .idle(since: .seconds(80)), idle: .seconds(60), home: 1), now: now)
        try Self.expectMatches(idle, schema: "AttractStatus")
        #expect(idle.state == .idle && idle.returnsInSeconds == 40 && idle.afterSeconds == 60)
        try Self.expectRoundTrip(AttractStatusBody.self, schemaExample: "AttractStatus")
        // The status names every pause reason the engine has.
        let paused = try #require((try Self.schema("Status")["properties"] as? [String: Any])?["pausedBecause"] as? [String: Any])
        #expect(Set((paused["items"] as? [String: Any])?["enum"] as? [String] ?? []) == Set(PauseReason.allCases.map(\.rawValue)))
    }

    @Test func assetBodyIsTheSchemaAssetAndRoundTripsTheSpecsExample() throws {
        let components = try #require(try SpecAgreementTests.spec()["components"] as? [String: Any])
        let examples = try #require(components["examples"] as? [String: Any])
        let example = try Self.value(try #require((examples["Asset"] as? [String: Any])?["value"]))
        let decoded = try JSONDecoder().decode(AssetBody.self, from: Data(example.encoded()))
        #expect(try Self.json(decoded) == example)
        try Self.expectMatches(decoded, schema: "Asset")
        let kinds = try #require(((try Self.schema("Asset")["properties"] as? [String: Any])?["type"] as? [String: Any])?["enum"] as? [String])
        #expect(Set(kinds) == ["jpeg", "png", "webp", "gif", "heif", "mp4", "webm", "matroska"])
        // A stored asset's description: `added` in whole seconds, UTC.
        let asset = Asset(id: decoded.id, name: "beach.jpg", kind: .jpeg, size: 12345, width: 1920, height: 1080, added: 1_795_338_000.7)
        #expect(asset.body(inUse: true) == decoded)
    }

    @Test func powerRequestAndItsAnswerAreTheSchemas() throws {
        try Self.expectMatches(PowerRequest(state: .off), schema: "PowerRequest")
        let accepted = try Self.examples(operation: "setPower", status: "202")
        #expect(accepted.count == 1)
        for example in accepted {
            #expect(try Self.json(JSONDecoder().decode(PowerAccepted.self, from: Data(example.encoded()))) == example)
        }
        #expect(throws: DecodingError.self) { try JSONDecoder().decode(PowerRequest.self, from: Data(#"{"state": "dim"}"#.utf8)) }
    }

    /// `json` without the keys `schema` does not require whose value is null:
    /// what an example that leaves optional keys out should equal.
    static func withoutOptionalNulls(_ json: JSONValue, schema name: String) throws -> JSONValue {
        let required = Set(try schema(name)["required"] as? [String] ?? [])
        let members = try #require(json.object)
        return .object(members.filter { required.contains($0.key) || $0.value != .null })
    }

    static let sampleOverride = OverrideBody(
        id: "3f9a2c71", since: "2026-11-23T09:12:40Z", until: "2026-11-23T09:42:40Z", interval: "30s",
        slides: [SlideBody(path: "asset:" + String(repeating: "a", count: 64)),
                 SlideBody(path: "/srv/notice.jpg", duration: "1.5m", fit: .cover, action: .goTo(slide: 0)),
                 SlideBody(path: "/srv/menu.jpg", action: .post(url: "http://127.0.0.1:8080/tapped", timeout: "1s"))])

    static let sampleSchedule = ScheduleStatusBody(showing: "playlist day (slides 0, 1)", playlist: "day", since: "2026-11-23T08:00:00Z",
                                                   until: nil, next: nil, timezone: "Europe/Berlin")

    static let sampleTelevision = TelevisionStatusBody(adapter: "/dev/cec0", physicalAddress: "1.0.0.0", logicalAddress: 4, wanted: .on,
                                                       reported: TVPowerStatus.turningOn.rawValue, confirmed: true, problem: nil,
                                                       commandsAcknowledged: 3, deliveryFailures: 0)

    static let sampleChannel = #"""
        {"url": "https://origin.example/channels/lobby", "group": "lobby", "device": null, "state": "downloading",
         "version": 7, "published": "2026-11-23T08:00:00Z", "appliedAt": "2026-11-23T08:00:05Z", "ageSeconds": 3600,
         "lastReached": "2026-11-23T09:00:00Z", "allowLocalPush": false, "rootVersion": 0, "rootExpires": null,
         "pending": {"version": 8, "remainingPictures": 2},
         "refused": {"reason": "expired", "version": null, "at": "2026-11-23T09:00:00Z", "message": "the manifest expired"},
         "lastError": {"message": "the channel is off: no trusted key", "at": null}}
        """#

    @Test func statusBodyIsTheSchemaStatusAndRoundTripsTheSpecsExample() throws {
        let channel = try JSONDecoder().decode(ChannelStatusBody.self, from: Data(Self.sampleChannel.utf8))
        let full = StatusBody(slide: 2, slideCount: 6, playing: false, pausedBecause: ["remote"], output: "headless 1280x720",
                              inputDevices: ["Goodix"], configVersion: "3f9a2c71d04be815", uptimeSeconds: 12.5, recentErrors: [],
                              vitrineVersion: "0.1.0", screen: .on, schedule: Self.sampleSchedule, override: Self.sampleOverride,
                              channel: channel, tv: Self.sampleTelevision)
        try Self.expectMatches(full, schema: "Status")
        var bare = full
        (bare.slide, bare.schedule, bare.override, bare.channel, bare.tv) = (nil, nil, nil, nil, nil)
        try Self.expectMatches(bare, schema: "Status")
        for key in ["slide", "schedule", "override", "channel", "tv"] {
            #expect(try Self.json(bare)[key] == .null, "\(key) without a value is written as null, as the status always has")
        }
        // The spec's example leaves out the optional sections the kiosk writes as null.
        for example in try Self.examples(operation: "getStatus", status: "200") {
            let decoded = try JSONDecoder().decode(StatusBody.self, from: Data(example.encoded()))
            #expect(try Self.withoutOptionalNulls(Self.json(decoded), schema: "Status") == example)
        }
        #expect(throws: DecodingError.self) { try JSONDecoder().decode(StatusBody.self, from: Data(#"{"screen": "dim"}"#.utf8)) }
    }

    @Test func theStatusVideoIsItsSchema() throws {
        let info = VideoInfo(container: "matroska,webm", codec: "av1", size: PixelSize(width: 1280, height: 720), frameRate: 29.97,
                             duration: .seconds(12), hasAudio: false, decoder: "libdav1d")
        var pacing = VideoPacingSummary()
        (pacing.shown, pacing.late, pacing.droppedLate, pacing.droppedByDesign) = (120, 2, 1, 0)
        let playing = VideoStatusBody(VideoStatus(file: "videos/promo.webm", info: info, played: .milliseconds(4004), pacing: pacing, failure: nil))
        try Self.expectMatches(playing, schema: "VideoStatus")
        #expect(try Self.json(playing)["stopped"] == .null && playing.decoding == "software" && playing.playedMs == 4004)
        let stopped = VideoStatusBody(VideoStatus(file: "videos/promo.webm", info: VideoInfo(container: "mov", codec: "h264",
            size: PixelSize(width: 1920, height: 1080), orientation: .right, frameRate: nil, duration: nil, hasAudio: false,
            decoder: "h264_v4l2m2m"),
            played: .zero, pacing: VideoPacingSummary(), failure: "decoding stopped: killed by signal 9"))
        try Self.expectMatches(stopped, schema: "VideoStatus")
        #expect(try stopped.decoding == "hardware" && Self.json(stopped)["frameRate"] == .null)
        #expect(try Self.json(playing)["turned"] == .null && stopped.turned == "turned 90° clockwise")
    }

    @Test func theStatusSectionsAreTheirSchemas() throws {
        try Self.expectMatches(Self.sampleSchedule, schema: "ScheduleStatus")
        #expect(try Self.json(Self.sampleSchedule)["until"] == .null && (try Self.json(Self.sampleSchedule)["next"]) == .null)
        try Self.expectMatches(Self.sampleTelevision, schema: "TVStatus")
        let unknown = TelevisionStatusBody(adapter: nil, physicalAddress: nil, logicalAddress: nil, wanted: nil, reported: nil,
                                           confirmed: false, problem: "no CEC adapter", commandsAcknowledged: 0, deliveryFailures: 2)
        try Self.expectMatches(unknown, schema: "TVStatus")
        let properties = try #require(try Self.schema("TVStatus")["properties"] as? [String: Any])
        let wanted = try #require((properties["wanted"] as? [String: Any])?["enum"] as? [Any])
        let reported = try #require((properties["reported"] as? [String: Any])?["enum"] as? [Any])
        #expect(Set(wanted.compactMap { $0 as? String }) == ["on", "standby"])
        #expect(Set(reported.compactMap { $0 as? String }) == Set(TVPowerStatus.allCases.map(\.rawValue)))

        let channel = try JSONDecoder().decode(ChannelStatusBody.self, from: Data(Self.sampleChannel.utf8))
        try Self.expectMatches(channel, schema: "ChannelStatus")
        #expect(try Self.json(channel) == (try JSONValue(parsing: Array(Self.sampleChannel.utf8))))
        let channelProperties = try #require(try Self.schema("ChannelStatus")["properties"] as? [String: Any])
        for (key, value) in [("pending", try Self.json(channel)["pending"]), ("refused", try Self.json(channel)["refused"]),
                             ("lastError", try Self.json(channel)["lastError"])] {
            let section = try #require(channelProperties[key] as? [String: Any])
            let keys = Set(try #require(value?.object).keys)
            #expect(keys == Set(try #require(section["properties"] as? [String: Any]).keys), "\(key)")
            #expect(Set(section["required"] as? [String] ?? []).isSubset(of: keys), "\(key)")
        }
        let reasons = try #require(((channelProperties["refused"] as? [String: Any])?["properties"] as? [String: Any])?["reason"] as? [String: Any])
        #expect(Set(reasons["enum"] as? [String] ?? []) == Set(ChannelRefusal.codes))
    }

    @Test func overrideBodyIsTheSchemaOverrideAndTheStoredOverride() throws {
        try Self.expectMatches(Self.sampleOverride, schema: "Override")
        for slide in Self.sampleOverride.slides { try Self.expectMatches(slide, schema: "OverrideSlideObject") }
        let components = try #require(try SpecAgreementTests.spec()["components"] as? [String: Any])
        let example = try Self.value(try #require(((components["examples"] as? [String: Any])?["Override"] as? [String: Any])?["value"]))
        let decoded = try JSONDecoder().decode(OverrideBody.self, from: Data(example.encoded()))
        #expect(try Self.json(decoded) == example)
        #expect(try decoded.interval == nil && Self.json(decoded)["interval"] == .null, "no interval of its own is written as null")
        // The answer is the stored override's JSON, slides in the configuration's object form.
        let override = KioskOverride(
            id: "3f9a2c71",
            slides: [SlideConfiguration(path: "/srv/a\u{80}\u{7F}.jpg"),
                     SlideConfiguration(path: "/srv/b.jpg", duration: .milliseconds(1500), fit: .stretch, action: .goTo(0)),
                     SlideConfiguration(path: "/srv/c.jpg", action: .post(url: "https://example.com/t", timeout: .seconds(2)))],
            interval: .seconds(30), since: WallInstant(secondsSinceEpoch: 1_795_338_000), until: WallInstant(secondsSinceEpoch: 1_795_339_800))
        #expect(try APIJSON.encode(OverrideBody(override)) + [0x0A] == OverrideDocument.json(override))
        #expect(try String(decoding: APIJSON.encode(OverrideBody(override)), as: UTF8.self).contains(#"/srv/a\u0080\u007f.jpg"#),
                "what YAML refuses is escaped, so the answer posts back as it is")
        #expect(try JSONDecoder().decode(TapActionBody.self, from: Data(#"{"post": "http://a.example/"}"#.utf8))
                == .post(url: "http://a.example/", timeout: nil))
        // What `vitrine remote override set` sends.
        let request = OverrideRequestBody(slides: ["asset:" + String(repeating: "a", count: 64)], duration: "30m", interval: "10s")
        try Self.expectMatches(request, schema: "OverrideRequest")
        #expect(try Self.json(request) == (try Self.value(["slides": ["asset:" + String(repeating: "a", count: 64)], "duration": "30m",
                                                          "interval": "10s"])), "no until: the key is left out")
    }

    @Test func overrideAnswersAreTheSchemaOverrideAnswerAndRoundTripTheSpecsExamples() throws {
        try Self.expectMatches(OverrideAnswerBody(Self.sampleOverride), schema: "OverrideAnswer")
        try Self.expectMatches(OverrideAnswerBody(Self.sampleOverride, output: "DSI-1"), schema: "OverrideAnswer")
        try Self.expectMatches(OverrideAnswerBody(nil, outputs: ["DSI-1": Self.sampleOverride]), schema: "OverrideAnswer")
        #expect(try Self.json(OverrideAnswerBody(nil, outputs: [:])) == (try Self.value(["outputs": [String: Any]()])),
                "only outputs' own: no override fields, no scope")
        let every = try Self.json(OverrideAnswerBody(Self.sampleOverride))
        #expect(every["scope"] == .string("all") && every["output"] == nil)
        let one = try Self.json(OverrideAnswerBody(Self.sampleOverride, output: "DSI-1"))
        #expect(one["scope"] == .string("output") && one["output"] == .string("DSI-1"))
        // Every example of the answers, those the operations refer to as well.
        let examples = try Self.examples(operation: "getOverride", status: "200") + Self.examples(operation: "setOverride", status: "201")
        #expect(examples.count == 5)
        for example in examples {
            #expect(try Self.json(JSONDecoder().decode(OverrideAnswerBody.self, from: Data(example.encoded()))) == example)
        }
        try Self.expectMatches(OverrideClearedEvent(id: "3f9a2c71", output: "DSI-1"), schema: "OverrideClearedEvent")
        #expect(try Self.json(OverrideClearedEvent(id: "3f9a2c71")) == (try Self.value(["id": "3f9a2c71"])), "no output: the key is left out")
    }

    @Test func playsBodiesAreTheirSchemasAndRoundTripTheSpecsExample() throws {
        let play = PlayBody(seq: 41, slide: 0, path: "/srv/a.jpg", sha256: nil, start: "2026-11-23T08:00:00.016683Z", durationMs: 8000)
        try Self.expectMatches(play, schema: "Play")
        var named = play
        named.output = "DSI-1"
        try Self.expectMatches(named, schema: "Play")
        #expect(try Self.json(play)["output"] == nil, "a play without an output leaves the key out")
        #expect(try Self.json(named)["output"] == .string("DSI-1"))
        #expect(try Self.json(play)["sha256"] == .null, "an unread picture's sha256 is written as null")
        let upload = PlayUploadBody(url: "https://reports.example/plays", pending: 3, uploaded: 10, failures: 1, dropped: 0, lastError: nil)
        try Self.expectMatches(upload, schema: "PlayUpload")
        #expect(try Self.json(upload)["lastError"] == .null)
        try Self.expectMatches(PlaysBody(plays: [play], more: true, dropped: 2, upload: upload, signingKey: nil), schema: "Plays")
        try Self.expectMatches(PlaysBody.nothingRecorded, schema: "Plays")
        #expect(try Self.json(PlaysBody.nothingRecorded) == (try Self.value(
            ["plays": [Any](), "more": false, "dropped": 0, "upload": NSNull(), "signingKey": NSNull()] as [String: Any])))
        for example in try Self.examples(operation: "getPlays", status: "200") {
            let decoded = try JSONDecoder().decode(PlaysBody.self, from: Data(example.encoded()))
            #expect(try Self.json(decoded) == example)
        }
        // A record's log line is its body.
        let record = PlayRecord(sequence: 41, slide: 0, path: "/srv/a.jpg", sha256: nil, startNanoseconds: 1_795_420_800_016_683_000,
                                duration: .milliseconds(8000))
        #expect(try JSONValue(parsing: record.line.dropLast()) == (try Self.json(record.body)))
    }

    @Test func outputBodiesAreTheirSchemasAndRoundTripTheSpecsExample() throws {
        let status = StatusBody(slide: nil, slideCount: 0, playing: false, pausedBecause: [], output: "headless 64x48", inputDevices: [],
                                configVersion: "3f9a2c71d04be815", uptimeSeconds: 1, recentErrors: [], vitrineVersion: "0.1.0",
                                screen: .on, schedule: nil, override: nil, channel: nil, tv: nil)
        let named = OutputGroupBody(name: "HDMI-A-1", connectors: ["HDMI-A-1", "HDMI-A-2"], status: status)
        let headless = OutputGroupBody(name: nil, connectors: [], status: status)
        try Self.expectMatches(named, schema: "OutputGroup")
        try Self.expectMatches(headless, schema: "OutputGroup")
        #expect(try Self.json(headless)["name"] == .null, "no name is written as null, as the schema requires the key")
        try Self.expectMatches(OutputsBody(outputs: [named, headless]), schema: "OutputGroups")
        let examples = try Self.examples(operation: "getOutputs", status: "200")
        #expect(examples.count == 1)
        for example in examples {
            let decoded = try JSONDecoder().decode(OutputsBody.self, from: Data(example.encoded()))
            #expect(decoded.outputs.count == 2)
            #expect(try Self.json(decoded) == example)
        }
    }

    @Test func anUnknownOutputsErrorIsTheSchemaUnknownOutput() throws {
        let error = OutputAddress.unknown(["DP-3"], groups: [])
        #expect(error.status == .notFound)
        #expect(try Self.json(error.body)["outputs"] == .array([]), "no names is an empty list, never left out")
        // Error's keys and the one UnknownOutput adds, which it requires.
        let added = try #require((try Self.schema("UnknownOutput")["allOf"] as? [[String: Any]])?.last)
        #expect(Set(added["required"] as? [String] ?? []) == ["outputs"])
        let properties = Set(try #require(try Self.schema("Error")["properties"] as? [String: Any]).keys)
            .union(try #require(added["properties"] as? [String: Any]).keys)
        #expect(Set(try #require(try Self.json(error.body).object).keys) == ["error", "issues", "outputs"])
        #expect(Set(["error", "issues", "outputs"]).isSubset(of: properties))
        let components = try #require(try SpecAgreementTests.spec()["components"] as? [String: Any])
        let response = try #require((components["responses"] as? [String: Any])?["UnknownOutput"] as? [String: Any])
        let example = try Self.examples(in: try #require((response["content"] as? [String: Any])?["application/json"] as? [String: Any]))
        for value in example {
            #expect(try Self.json(JSONDecoder().decode(ErrorBody.self, from: Data(value.encoded()))) == value)
        }
        // The example is what the kiosk answers for it.
        let groups = ["HDMI-A-1", "DSI-1"].map { OutputGroupLink(connectors: [$0], loop: FakeDisplayLoop()) }
        #expect(example == [try Self.json(OutputAddress.unknown(["DP-3"], groups: groups).body)])
    }

    @Test func errorBodiesAreTheSchemas() throws {
        try Self.expectMatches(ErrorBody(error: "no override is active"), schema: "Error")
        #expect(try Self.json(ErrorBody(error: "x")) == (try Self.value(["error": "x"])), "no issues: the key is left out")
        let invalid = APIError(.unprocessableContent, "the configuration is not valid: 1 problem",
                               issues: [ConfigIssue(path: "slides[2].duration", message: "must be greater than 0")])
        try Self.expectMatches(invalid.body, schema: "Error")
        try Self.expectMatches(try #require(invalid.body.issues?.first), schema: "ConfigIssue")
        try Self.expectRoundTrip(ErrorBody.self, schemaExample: "Error")
        try Self.expectRoundTrip(ConfigIssue.self, schemaExample: "ConfigIssue")
        for example in try Self.examples(operation: "getPlays", status: "400") + Self.examples(operation: "getOverride", status: "404") {
            #expect(try Self.json(JSONDecoder().decode(ErrorBody.self, from: Data(example.encoded()))) == example)
        }
        // A 412's currentVersion and a 409's channel, as their schemas add them.
        let conflict = try #require((try Self.schema("VersionConflict")["allOf"] as? [[String: Any]])?.last)
        #expect(Set(conflict["required"] as? [String] ?? []) == ["currentVersion"])
        let stale = try Self.json(APIError(.preconditionFailed, "stale", currentVersion: "3f9a2c71d04be815").body)
        #expect(stale["currentVersion"] == .string("3f9a2c71d04be815") && stale["channel"] == nil)
        let responses = try #require(try SpecAgreementTests.spec()["components"] as? [String: Any])["responses"] as? [String: Any]
        let following = try #require((((responses?["FollowingAChannel"] as? [String: Any])?["content"] as? [String: Any])?["application/json"]
            as? [String: Any]))
        let followingBody = APIError(.conflict, "this kiosk follows a channel", channel: "https://origin.example/channels/lobby").body
        let followingKeys = Set(try #require(try Self.json(followingBody).object).keys)
        #expect((following["schema"] as? [String: Any])?["$ref"] as? String == "#/components/schemas/ChannelConflict")
        #expect(followingKeys == Set(try #require(try Self.schema("ChannelConflict")["required"] as? [String])))
        let followingExample = try Self.value(try #require(following["example"]))
        #expect(try Self.json(JSONDecoder().decode(ErrorBody.self, from: Data(followingExample.encoded()))) == followingExample)
    }

    /// A push to an output that shows the programme: 409 with the others
    /// sharing it in `outputs`, the spec's example being what the kiosk answers.
    @Test func anOutputFollowingTheProgrammeIsTheSchemaOutputFollowsProgramme() throws {
        let error = ConfigRoutes.followsTheProgramme("HDMI-A-1", sharing: ["DP-1"])
        #expect(error.status == .conflict)
        let added = try #require((try Self.schema("OutputFollowsProgramme")["allOf"] as? [[String: Any]])?.last)
        #expect(Set(added["required"] as? [String] ?? []) == ["outputs"])
        #expect(Set(try #require(try Self.json(error.body).object).keys) == ["error", "issues", "outputs"])
        #expect(try Self.json(ConfigRoutes.followsTheProgramme("HDMI-A-1", sharing: []).body)["outputs"] == .array([]),
                "none sharing is an empty list, never left out")
        let examples = try Self.examples(operation: "putConfiguration", status: "409")
        #expect(examples.count == 2)
        #expect(examples.contains(try Self.json(error.body)), "the spec's example is the kiosk's answer")
        for example in examples {
            #expect(try Self.json(JSONDecoder().decode(ErrorBody.self, from: Data(example.encoded()))) == example)
        }
    }

    /// Not API bodies, but kept in the same form: `downloads.json` of the URL images.
    @Test func theURLDownloadIndexKeepsItsKeys() throws {
        let downloads = ["https://cdn.example.com/a.jpg": URLImageFetcher.Download(assetID: "ab12", etag: #""v1""#, lastModified: nil, checked: 1.5)]
        let json = String(decoding: try JSONText.encode(downloads, [.sortedKeys, .withoutEscapingSlashes]), as: UTF8.self)
        #expect(json == #"{"https://cdn.example.com/a.jpg":{"asset":"ab12","checked":1.5,"etag":"\"v1\""}}"#, "no lastModified: the key is left out")
        #expect(try JSONDecoder().decode([String: URLImageFetcher.Download].self, from: Data(json.utf8)) == downloads)
    }

    /// One damaged entry costs its own cached copy, not every URL's: an offline kiosk keeps showing the others.
    @Test func aDamagedEntryInTheDownloadIndexCostsOnlyItself() throws {
        let path = NSTemporaryDirectory() + "downloads-\(UUID().uuidString).json"
        defer { try? FileManager.default.removeItem(atPath: path) }
        try Data(#"{"https://a.example/1.jpg":{"asset":"aa","checked":2},"https://a.example/2.jpg":{"asset":7,"checked":"x"},"https://a.example/3.jpg":{"asset":"cc","checked":3.5,"etag":"\"e\""}}"#.utf8)
            .write(to: URL(fileURLWithPath: path))
        let loaded = URLImageFetcher.loadIndex(path)
        #expect(loaded.keys.sorted() == ["https://a.example/1.jpg", "https://a.example/3.jpg"])
        #expect(loaded["https://a.example/1.jpg"] == URLImageFetcher.Download(assetID: "aa", etag: nil, lastModified: nil, checked: 2))
        #expect(loaded["https://a.example/3.jpg"]?.etag == #""e""#)
        try Data("not json".utf8).write(to: URL(fileURLWithPath: path))
        #expect(URLImageFetcher.loadIndex(path).isEmpty)
    }

    @Test func configVersionAndHealthAreTheirSchemas() throws {
        try Self.expectMatches(ConfigVersionBody(version: "3f9a2c71d04be815", previousVersion: "0123456789abcdef", changed: true),
                               schema: "ConfigVersion")
        try Self.expectMatches(HealthBody(status: .ok, displayAnswerMs: 1), schema: "Health")
        try Self.expectMatches(HealthBody(status: .stalled, displayAnswerMs: 3000, message: "late"), schema: "Health")
        #expect(try Self.json(HealthBody(status: .ok, displayAnswerMs: 1))["message"] == nil, "message only when stalled")
        #expect(try Self.json(HealthBody(status: .ok, displayAnswerMs: 1))["outputs"] == nil, "outputs only with several groups")
        let outputs = [OutputHealthBody(output: "HDMI-A-1", status: .ok, displayAnswerMs: 2),
                       OutputHealthBody(output: "DSI-1", status: .stalled, displayAnswerMs: 3001)]
        try Self.expectMatches(HealthBody(status: .stalled, displayAnswerMs: 3001, outputs: outputs,
                                          message: "the display thread of DSI-1 did not answer within 3.0 seconds"), schema: "Health")
        try Self.expectMatches(outputs[1], schema: "OutputHealth")
        for status in ["200", "503"] {
            for example in try Self.examples(operation: "getHealth", status: status) {
                #expect(try Self.json(JSONDecoder().decode(HealthBody.self, from: Data(example.encoded()))) == example)
            }
        }
    }
}
