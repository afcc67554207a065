import Foundation
import Testing
import VitrineConfig
import VitrineCore
import VitrineRuntime
@testable import VitrineServer

/// The typed API bodies (Sources/VitrineServer/API) against docs/api/openapi.yaml:
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
            return try examples.values.map { try value(try #require(($0 as? [String: Any])?["value"])) }
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
        let names = ["slideChanged", "tapped", "swiped", "configApplied", "overrideCleared", "error"]
        let events: [KioskEvent] = [
            .carousel(.pageChanged(from: 0, to: 1, cause: .automatic)), .carousel(.tapped(slide: 1, x: 10.4, y: 20.6)),
            .carousel(.swiped(from: 1, direction: .next)), .configurationApplied(version: "v"), .overrideEnded(id: "e1"),
            .error("a message"),
        ]
        for (event, name) in zip(events, names) {
            let sent = try #require(ServerEvent(event), "\(event)")
            #expect(sent.name == name && !sent.data.contains("\n"))
            #expect(try JSONValue(parsing: Array(sent.data.utf8)).object != nil)
        }
        #expect(ServerEvent(.carousel(.tapped(slide: 1, x: 10.4, y: 20.6)))?.data == #"{"slide":1,"x":10,"y":21}"#)
        #expect(ServerEvent(.carousel(.swiped(from: 3, direction: .previous)))?.data == #"{"direction":"right","from":3}"#)
        #expect(ServerEvent("broken", ["value": Double.nan]) == nil, "an event that cannot be encoded is dropped, not sent as {}")
    }

    @Test func assetBodyIsTheSchemaAssetAndRoundTripsTheSpecsExample() throws {
        let components = try #require(try SpecAgreementTests.spec()["components"] as? [String: Any])
        let examples = try #require(components["examples"] as? [String: Any])
        let example = try Self.value(try #require((examples["Asset"] as? [String: Any])?["value"]))
        let decoded = try JSONDecoder().decode(AssetBody.self, from: Data(example.encoded()))
        #expect(try Self.json(decoded) == example)
        try Self.expectMatches(decoded, schema: "Asset")
        let kinds = try #require(((try Self.schema("Asset")["properties"] as? [String: Any])?["type"] as? [String: Any])?["enum"] as? [String])
        #expect(Set(kinds) == ["jpeg", "png"])
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
}
