import ArgumentParser
import FoundationEssentials
import VitrineConfig
import VitrineURLImages

struct CheckConfigCommand: ParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "check-config",
        abstract: "Validate a configuration file and the pictures it names.",
        discussion: """
            Every local picture the configuration names is decoded, as the kiosk would \
            (within decode.maxPixels; JPEGs at an eighth of their size, PNGs a strip at a time, WebPs scaled by libwebp, GIFs a strip at a time, HEIFs whole by libheif), \
            so a damaged file or one that is not a picture is found here rather than on the screen. \
            Exit status: 0 when the file is valid and every picture it names exists and decodes; \
            1 when there are problems, one per line on standard error as FILE: KEY.PATH: PROBLEM \
            (or a JSON object on standard output with --json). Warnings (FILE: KEY.PATH: warning: …, \
            or the JSON's warnings) say what this build does not do yet, and leave the status 0.
            """)

    @Argument(help: "The configuration file (YAML or JSON).")
    var file: String

    @Flag(help: "Print the result as one JSON object: {\"valid\": Bool, \"issues\": [{\"path\", \"message\"}]}.")
    var json = false

    func run() throws {
        var issues: [ConfigIssue]
        var warnings: [ConfigIssue] = []
        var summary = ""
        do {
            let configuration = try ConfigLoader.load(file: file)
            issues = ConfigLoader.fileIssues(in: configuration) + ConfiguredPictures.issues(in: configuration, depth: .decode, pictures: DecodingChoice.pictureInspector())
            summary = "\(configuration.slides.count) slides, interval \(DurationSyntax.format(configuration.interval))"
            if let layout = configuration.outputs {
                summary += ", \(layout.outputs.count) output\(layout.outputs.count == 1 ? "" : "s")"
                warnings += layout.touchWarnings.map { ConfigIssue(path: $0.path, message: $0.message) }
            }
        } catch {
            issues = error.issues
        }
        if json {
            let report = ConfigCheckReport(file: file, valid: issues.isEmpty, issues: issues, warnings: warnings.isEmpty ? nil : warnings)
            print(String(decoding: try JSONText.encode(report, [.sortedKeys]), as: UTF8.self))
        } else {
            for warning in warnings { writeToStandardError("\(file): \(warning.path): warning: \(warning.message)\n") }
            if issues.isEmpty {
                print("\(file): OK (\(summary))")
            } else {
                for issue in issues { writeToStandardError("\(file): \(issue)\n") }
            }
        }
        if !issues.isEmpty { throw ExitCode(1) }
    }
}
