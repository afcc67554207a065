import Foundation
import Testing
import VitrineConfig
import VitrineCore

/// docs/configuration.md's complete example must stay a valid configuration,
/// and its JSON version must say the same thing.
@Suite("docs/configuration.md")
struct DocumentationTests {
    /// The fenced blocks of `language` after the heading `heading`.
    func blocks(_ language: String, after heading: String) throws -> [String] {
        let text = try String(contentsOfFile: repositoryRoot + "/docs/configuration.md", encoding: .utf8)
        let section = try #require(text.range(of: "\n## \(heading)\n"))
        var blocks: [String] = []
        var current: [Substring]?
        for line in text[section.upperBound...].split(separator: "\n", omittingEmptySubsequences: false) {
            if line.hasPrefix("## ") { break }
            if current == nil, line == "```\(language)" {
                current = []
            } else if current != nil, line == "```" {
                blocks.append(current!.joined(separator: "\n"))
                current = nil
            } else {
                current?.append(line)
            }
        }
        return blocks
    }

    @Test func theCompleteExampleIsValidAndItsJSONEqualsIt() throws {
        let yaml = try #require(try blocks("yaml", after: "Complete example").first)
        let json = try #require(try blocks("json", after: "Complete example").first)
        let fromYAML = try ConfigLoader.parse(yaml, baseDirectory: "/etc/vitrine")
        let fromJSON = try ConfigLoader.parse(json, baseDirectory: "/etc/vitrine")
        #expect(fromJSON == fromYAML)
        #expect(fromYAML.slides.count == 4)
        #expect(fromYAML.interval == .seconds(8))
        #expect(fromYAML.slides[3].duration == .seconds(90))
        #expect(fromYAML.background == RGBAColor(red: 0x10, green: 0x14, blue: 0x18))
        #expect(fromYAML.resolve(fromYAML.slides[0].path) == "/etc/vitrine/images/welcome.jpg")
    }

    @Test func theQuotingExampleFailsAsDocumented() throws {
        let yaml = try #require(try blocks("yaml", after: "Colours").first)
        let wrong = try #require(yaml.split(separator: "\n").first)
        #expect(issues(String(wrong)) == [
            "background: must be a colour \"#RRGGBB\" or \"#RRGGBBAA\", found nothing (null) (quote the colour: an unquoted # starts a YAML comment)",
        ])
        #expect(try ConfigLoader.parse(String(yaml.split(separator: "\n")[1])).background
            == RGBAColor(red: 0x10, green: 0x14, blue: 0x18))
    }
}
