extension DoctorReport {
    /// The report as a person reads it in a terminal: each section's title,
    /// status and summary, its facts indented under it, then its findings.
    public var text: String {
        var lines = ["vitrine doctor \(version), \(generatedAt): \(status.rawValue)"]
        for section in sections { section.appendText(to: &lines, depth: 0) }
        return lines.joined(separator: "\n") + "\n"
    }
}

extension DoctorSection {
    func appendText(to lines: inout [String], depth: Int) {
        let indent = String(repeating: "  ", count: depth)
        lines.append("")
        lines.append("\(indent)\(title) [\(status.rawValue)]: \(summary)")
        let width = facts.map(\.name.count).max() ?? 0
        for fact in facts {
            lines.append("\(indent)  \(fact.name)\(String(repeating: " ", count: width - fact.name.count))  \(fact.value)")
        }
        for finding in findings { lines.append("\(indent)  ! \(finding)") }
        for subsection in subsections { subsection.appendText(to: &lines, depth: depth + 1) }
    }
}
