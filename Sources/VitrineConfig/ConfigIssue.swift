/// One problem in a configuration, located by key path: `slides[3].duration`.
public struct ConfigIssue: Codable, Hashable, Sendable, CustomStringConvertible {
    /// The key path; empty for the document as a whole.
    public var path: String
    public var message: String

    public init(path: String, message: String) {
        self.path = path
        self.message = message
    }

    public var description: String { path.isEmpty ? message : "\(path): \(message)" }
}

/// A configuration that cannot be used, with every problem found in it.
public struct ConfigError: Error, Hashable, Sendable, CustomStringConvertible {
    /// The file, when the configuration came from one.
    public var source: String?
    public var issues: [ConfigIssue]

    public init(source: String?, issues: [ConfigIssue]) {
        self.source = source
        self.issues = issues
    }

    public var description: String {
        let prefix = source.map { "\($0): " } ?? ""
        return issues.map { prefix + $0.description }.joined(separator: "\n")
    }
}
