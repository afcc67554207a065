import Testing
import VitrineYAML

@Suite("YAML: composing documents with libyaml")
struct YAMLComposerTests {
    func compose(_ text: String, maximumNodes: Int = YAMLComposer.defaultMaximumNodes,
                 maximumDepth: Int = YAMLComposer.defaultMaximumDepth) throws -> YAMLNode? {
        try YAMLComposer.compose(text, maximumNodes: maximumNodes, maximumDepth: maximumDepth)
    }

    func error(_ text: String, maximumNodes: Int = YAMLComposer.defaultMaximumNodes,
               maximumDepth: Int = YAMLComposer.defaultMaximumDepth) -> YAMLError? {
        do {
            _ = try YAMLComposer.compose(text, maximumNodes: maximumNodes, maximumDepth: maximumDepth)
            return nil
        } catch {
            return error
        }
    }

    @Test func scalarsKeepTheirTextStyleAndPlace() throws {
        let root = try #require(try compose("a: 5\nb: \"5\"\nc: 'x'\nd: |\n  line\ne: >\n  folded\n  text\n"))
        guard case .mapping(let mapping) = root else { Issue.record("not a mapping: \(root)"); return }
        #expect(mapping.keys.compactMap(\.scalar?.string) == ["a", "b", "c", "d", "e"])
        #expect(mapping["a"]?.scalar?.string == "5")
        #expect(mapping["a"]?.scalar?.style == .plain)
        #expect(mapping["a"]?.scalar?.mark == YAMLMark(line: 1, column: 4))
        #expect(mapping["b"]?.scalar?.style == .doubleQuoted)
        #expect(mapping["c"]?.scalar?.style == .singleQuoted)
        #expect(mapping["d"]?.scalar?.string == "line\n")
        #expect(mapping["d"]?.scalar?.style == .literal)
        #expect(mapping["e"]?.scalar?.string == "folded text\n")
        #expect(mapping["e"]?.scalar?.style == .folded)
        #expect(mapping.mark == YAMLMark(line: 1, column: 1))
    }

    @Test func jsonIsReadAsYAML() throws {
        let root = try #require(try compose(#"{"slides": ["a.jpg", {"path": "b.jpg"}], "loop": true, "name": "caf\u00e9"}"#))
        guard case .mapping(let mapping) = root, case .sequence(let slides)? = mapping["slides"] else {
            Issue.record("unexpected tree: \(root)"); return
        }
        #expect(slides.count == 2)
        #expect(slides[0].scalar?.string == "a.jpg")
        #expect(mapping["loop"]?.scalar?.string == "true")
        #expect(mapping["name"]?.scalar?.string == "café")
    }

    @Test(arguments: ["", "\n", "# only a comment\n"])
    func noDocumentIsNil(text: String) throws {
        #expect(try compose(text) == nil)
    }

    @Test func aBareDocumentMarkerIsAnEmptyPlainScalar() throws {
        let scalar = try #require(try compose("---\n")?.scalar)
        #expect(scalar.string == "")
        #expect(scalar.style == .plain)
    }

    @Test func aliasesStandForTheirAnchoredNodes() throws {
        let root = try #require(try compose("base: &b {fit: cover}\nother: *b\nlist: [&x one, *x]\n"))
        guard case .mapping(let mapping) = root, case .mapping(let other)? = mapping["other"],
              case .sequence(let list)? = mapping["list"] else { Issue.record("unexpected tree: \(root)"); return }
        #expect(other["fit"]?.scalar?.string == "cover")
        #expect(list.map { $0.scalar?.string } == ["one", "one"])
    }

    @Test func anUndefinedAliasIsRefusedWhereItIs() {
        #expect(error("a: 1\nb: *nowhere\n")?.description == #"2:4: found undefined alias "nowhere""#)
    }

    @Test func duplicateKeysAreRefusedAtTheFirstOccurrence() {
        let found = error(#"{"interval": 5, "fit": "cover", "interval": 6, "fit": "contain"}"#)
        #expect(found?.stage == .composer)
        #expect(found?.duplicateKeys == ["fit", "interval"])
        #expect(found?.description == #"1:17: duplicate key "fit", "interval" in the same mapping"#)
    }

    @Test func libyamlErrorsCarryTheirMarkAndContext() {
        let found = error("slides:\n  - path: a.jpg\n interval: 5\n")
        #expect(found?.stage == .parser)
        #expect(found?.description == "3:2: did not find expected key (while parsing a block mapping at 1:1)")
        #expect(error("background: \"#000\nfit: cover\n")?.stage == .scanner)
    }

    @Test func aSecondDocumentIsRefused() {
        #expect(error("a: 1\n---\nb: 2\n")?.description == "2:1: but found another document (expected a single document in the stream at 1:1)")
    }

    @Test func aControlCharacterIsAReaderErrorAtItsPlace() {
        let found = error("a: 1\nbé: x\u{7}\n")
        #expect(found?.stage == .reader)
        #expect(found?.mark == YAMLMark(line: 2, column: 6))
        #expect(found?.problem == "control characters are not allowed")
    }

    /// The "billion laughs": nine aliases of nine aliases of … A few lines that
    /// stand for 9^9 nodes are refused instead of walked.
    @Test func aliasExpansionIsBounded() {
        var text = "a0: &a0 [x]\n"
        for level in 1...9 {
            text += "a\(level): &a\(level) [" + Array(repeating: "*a\(level - 1)", count: 9).joined(separator: ", ") + "]\n"
        }
        let found = error(text)
        #expect(found?.stage == .composer)
        #expect(found?.problem == "the document holds more than 1000000 nodes, counting what its aliases repeat")
        #expect(error(text, maximumNodes: 1_000_000_000_000) == nil)
    }

    @Test func theNodeLimitCountsEveryNode() throws {
        #expect(try compose("[1, 2, 3]", maximumNodes: 4) != nil)
        #expect(error("[1, 2, 3, 4]", maximumNodes: 4)?.stage == .composer)
    }

    @Test func nestingIsBounded() throws {
        let deep = String(repeating: "[", count: 200) + String(repeating: "]", count: 200)
        #expect(error(deep)?.problem == "nested more than 128 levels deep")
        #expect(error(deep)?.mark == YAMLMark(line: 1, column: 129))
        #expect(try compose(String(repeating: "[", count: 128) + String(repeating: "]", count: 128)) != nil)
        // Far deeper than any stack would survive in a recursive composer.
        let abyss = String(repeating: "[", count: 500_000)
        #expect(error(abyss)?.stage == .composer)
    }
}
