/// Why a YAML text could not be composed into one document.
///
/// libyaml reports errors in fields of its parser (`yaml_parser_t.error`,
/// `problem`, `problem_mark`, `context`, `context_mark`) instead of a return
/// value; they become this once, here.
public struct YAMLError: Error, Hashable, Sendable, CustomStringConvertible {
    /// The stage that refused the text.
    public enum Stage: String, Sendable, Hashable {
        /// Bytes that are not YAML text: control characters, bad UTF-8 (`YAML_READER_ERROR`).
        case reader
        /// Tokens: an unterminated quote, a tab where indentation goes (`YAML_SCANNER_ERROR`).
        case scanner
        /// Structure: a missing key, an unclosed bracket (`YAML_PARSER_ERROR`).
        case parser
        /// Our own checks on the tree: one document, known aliases, unique keys, its size.
        case composer
        /// libyaml ran out of memory (`YAML_MEMORY_ERROR`).
        case memory
    }

    /// What a problem arose within, and where that started: "while parsing a block mapping" at 1:1.
    public struct Context: Hashable, Sendable {
        public var text: String
        public var mark: YAMLMark
    }

    public var stage: Stage
    public var problem: String
    public var mark: YAMLMark
    public var context: Context?
    /// For duplicate keys: each key that occurs more than once, sorted.
    public var duplicateKeys: [String]

    public init(stage: Stage, problem: String, mark: YAMLMark, context: Context? = nil, duplicateKeys: [String] = []) {
        self.stage = stage
        self.problem = problem
        self.mark = mark
        self.context = context
        self.duplicateKeys = duplicateKeys
    }

    /// One line: `3:2: did not find expected key (while parsing a block mapping at 1:1)`.
    public var description: String {
        let within = context.map { " (\($0.text) at \($0.mark))" } ?? ""
        return "\(mark): \(problem)\(within)"
    }
}
