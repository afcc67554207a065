/// A place in a YAML text, as people count: line and column from 1. Columns
/// count Unicode scalars, as libyaml does.
public struct YAMLMark: Hashable, Sendable, CustomStringConvertible {
    public var line: Int
    public var column: Int

    public init(line: Int, column: Int) {
        self.line = line
        self.column = column
    }

    /// `3:7`
    public var description: String { "\(line):\(column)" }
}

/// One node of a composed YAML document, aliases already replaced by what
/// they name.
///
/// Scalars are kept as text with their style: what a plain `5` or `true`
/// means is the reader's decision (VitrineConfig reads by key and expected
/// type), not the composer's. That is why there is no tag resolution here.
public enum YAMLNode: Sendable {
    case scalar(YAMLScalar)
    case sequence([YAMLNode])
    case mapping(YAMLMapping)

    /// The scalar, if this node is one.
    public var scalar: YAMLScalar? {
        if case .scalar(let scalar) = self { scalar } else { nil }
    }

    /// Where the node starts.
    public var mark: YAMLMark {
        switch self {
        case .scalar(let scalar): scalar.mark
        case .sequence(let items): items.first?.mark ?? YAMLMark(line: 1, column: 1)
        case .mapping(let mapping): mapping.mark
        }
    }
}

/// A scalar's text and how it was written.
public struct YAMLScalar: Sendable {
    /// How a scalar was written: only a plain one can mean null, a number or a
    /// boolean; a quoted `"5"` is always text.
    public enum Style: Sendable, Hashable {
        case plain, singleQuoted, doubleQuoted, literal, folded
    }

    public var string: String
    public var style: Style
    public var mark: YAMLMark

    public init(_ string: String, style: Style = .plain, mark: YAMLMark = YAMLMark(line: 1, column: 1)) {
        self.string = string
        self.style = style
        self.mark = mark
    }
}

/// A mapping's entries in document order (keys are unique: the composer
/// refuses duplicates).
public struct YAMLMapping: Sendable, RandomAccessCollection {
    public typealias Element = (key: YAMLNode, value: YAMLNode)
    public let entries: [Element]
    /// Where the mapping starts.
    public let mark: YAMLMark

    public init(_ entries: [Element], mark: YAMLMark = YAMLMark(line: 1, column: 1)) {
        self.entries = entries
        self.mark = mark
    }

    public var startIndex: Int { entries.startIndex }
    public var endIndex: Int { entries.endIndex }
    public subscript(position: Int) -> Element { entries[position] }

    public var keys: [YAMLNode] { entries.map(\.key) }

    /// The value of the scalar key `key`.
    public subscript(key: String) -> YAMLNode? {
        entries.first { $0.key.scalar?.string == key }?.value
    }
}
