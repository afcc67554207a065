import Testing
import VitrineConfig

/// Reproducers found by `make fuzz` (Fuzz/FuzzConfig, docs/fuzzing.md).
@Suite("Configuration: fuzz reproducers")
struct ConfigFuzzRegressionTests {
    /// Fuzz/Regressions/config/c1-control-in-a-string.yaml: a touch pattern
    /// holding U+0080 (written `\u0080` in YAML) loaded, but its canonical JSON
    /// carried the character raw, which JSON allows and libyaml's reader
    /// refuses: a stored configuration that would not load after a restart.
    @Test(arguments: ["\\u0080", "\\u009f", "\\x7f", "\\uffff", "\\ufffe", "\\u0085", "é\\u0090x"])
    func aControlCharacterInAStringSurvivesTheCanonicalJSON(escape: String) throws {
        let configuration = try ConfigLoader.parse("slides: [a.jpg]\ntouch: {include: [\"Goodix \(escape)\"]}\n")
        let json = ConfigDocument.json(configuration)
        let back = try ConfigLoader.parse(String(decoding: json, as: UTF8.self))
        #expect(ConfigDocument.json(back) == json)
        #expect(back.touch.include == configuration.touch.include)
    }

    @Test func theReproducerLoadsAndRoundTrips() throws {
        let configuration = try ConfigLoader.parse("""
            touch:
              include: ["0eef:615\\u00801", Goodix]
              devices:
                - {match: "0ee00:f01ms", calibration: [-0, 0, 1, 0, 1, 0]}
                - {match: ft5406, calibration: [0, 1, 0, 1, 0, 0]}
            """)
        let json = ConfigDocument.json(configuration)
        #expect(String(decoding: json, as: UTF8.self).contains("\\u0080"))
        #expect(ConfigDocument.json(try ConfigLoader.parse(String(decoding: json, as: UTF8.self))) == json)
    }
}
