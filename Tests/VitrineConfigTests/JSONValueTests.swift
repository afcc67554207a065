import Foundation
import Testing
import VitrineConfig
import VitrineCore

@Suite("JSONValue: the kiosk's JSON without full Foundation")
struct JSONValueTests {
    /// The canonical configuration bytes decide its version: they must be what
    /// JSONSerialization wrote before, or every stored configuration would
    /// change version with the upgrade.
    @Test(arguments: [
        """
        slides:
          - a.jpg
          - {path: "https://example.com/b/pic.jpg", fit: cover, duration: 2.5s, action: {post: "http://x/y"}}
        interval: 7s
        background: "#102030"
        transition: {type: crossfade, duration: 0.4}
        """,
        """
        schedule:
          timezone: UTC
          playlists: {night: [n.jpg, {path: m.jpg, fit: stretch}], day: [d.jpg]}
          entries: [{playlist: night, days: weekdays, from: "20:00", until: "06:00"}, {playlist: day, days: daily, from: "08:00", until: "18:00"}]
        """,
    ])
    func theCanonicalConfigurationIsByteForByteWhatJSONSerializationWrote(text: String) throws {
        let configuration = try ConfigLoader.parse(text)
        let tree = JSONValue.object(ConfigDocument.tree(configuration)).foundationObject
        let old = try JSONSerialization.data(withJSONObject: tree, options: [.sortedKeys, .prettyPrinted, .withoutEscapingSlashes])
        #expect(String(decoding: ConfigDocument.json(configuration), as: UTF8.self) == String(decoding: Array(old) + [0x0A], as: UTF8.self))
    }

    @Test func compactOutputMatchesJSONSerialization() throws {
        let value: JSONValue = [
            "b": [1, 2.5, "x/y", true, .null, ["n": -3]], "a": "é \"q\" \n \u{1}", "c": [:],
            "d": [], "e": JSONValue(UInt64.max), "f": 0.1, "g": 1e21, "h": .integer(Int64.min),
        ]
        let ours = value.encoded([.sortedKeys, .withoutEscapingSlashes])
        let theirs = value.foundationObject
        let old = try JSONSerialization.data(withJSONObject: theirs, options: [.sortedKeys, .withoutEscapingSlashes])
        #expect(String(decoding: ours, as: UTF8.self) == String(decoding: old, as: UTF8.self))
    }

    @Test func parsingKeepsIntegersExactAndKindsApart() throws {
        let value = try JSONValue(parsing: Array(#"{"seq": 9007199254740993, "ms": 12, "x": 1.5, "t": true, "n": null, "s": "5", "l": [1, "a"]}"#.utf8))
        #expect(value["seq"]?.int64 == 9_007_199_254_740_993)
        #expect(value["ms"]?.int == 12 && value["ms"]?.double == 12)
        #expect(value["x"]?.double == 1.5 && value["x"]?.int == nil)
        #expect(value["t"]?.bool == true && value["t"]?.int == nil)
        #expect(value["n"]?.isNull == true)
        #expect(value["s"]?.string == "5" && value["s"]?.int == nil)
        #expect(value["l"]?.array?.count == 2)
        #expect(try JSONValue(parsing: Array("18446744073709551615".utf8)).uint64 == .max)
        #expect(value["missing"] == nil)
    }

    @Test(arguments: ["", "{", "{\"a\" 1}", "nul", "[1 2]"])
    func notJSONThrows(text: String) {
        #expect(throws: (any Error).self) { try JSONValue(parsing: Array(text.utf8)) }
    }

    @Test func valuesBuiltByHandAreTheKindsTheyWouldDecodeAs() throws {
        #expect(JSONValue(5) == .integer(5) && JSONValue(5.0) == .double(5) && JSONValue(UInt64(7)) == .integer(7))
        #expect(JSONValue(UInt64.max) == .unsignedInteger(.max), "above Int64.max")
        #expect(JSONValue(["a", "b"]) == .array([.string("a"), .string("b")]))
        #expect(JSONValue([1.5, 0]) == .array([.double(1.5), .double(0)]))
        let literal: JSONValue = ["s": "x", "i": 1, "d": 0.5, "b": false, "n": .null, "a": [1, "two"], "o": ["k": true]]
        let text = #"{"a": [1, "two"], "b": false, "d": 0.5, "i": 1, "n": null, "o": {"k": true}, "s": "x"}"#
        #expect(try JSONValue(parsing: Array(text.utf8)) == literal)
        #expect(literal.encoded([.sortedKeys]) == Array(#"{"a":[1,"two"],"b":false,"d":0.5,"i":1,"n":null,"o":{"k":true},"s":"x"}"#.utf8))
    }
}
