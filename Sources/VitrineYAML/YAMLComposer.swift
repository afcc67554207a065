import CLibYAML

/// Composes YAML text (or JSON, which libyaml reads as YAML) into one
/// document's node tree, with libyaml's event parser (`yaml_parser_parse`).
///
/// Beyond what libyaml checks, the tree must be one document, name only
/// aliases defined before, have unique keys in each mapping, nest at most
/// `maximumDepth` levels and hold at most `maximumNodes` nodes counting every
/// alias as the nodes it stands for. The last two bound the work a pushed
/// configuration can cause: a "billion laughs" text of a few lines would
/// otherwise expand to more nodes than any reader can walk, and a deep
/// enough nesting would exhaust the stack of whatever walks or frees it.
public enum YAMLComposer {
    /// Far above any real configuration (hundreds of nodes) or playlist (a few per slide).
    public static let defaultMaximumNodes = 1_000_000
    /// A configuration nests about five levels deep.
    public static let defaultMaximumDepth = 128

    /// The document's root node, or nil when the text holds no document at all
    /// (empty, or only comments). A document of only `---` is a plain empty scalar.
    public static func compose(_ text: String, maximumNodes: Int = defaultMaximumNodes,
                               maximumDepth: Int = defaultMaximumDepth) throws(YAMLError) -> YAMLNode? {
        var bytes = Array(text.utf8)
        if bytes.isEmpty { bytes = [0x0A] }  // libyaml wants a buffer; an empty line reads as no document.
        let result = bytes.withUnsafeBufferPointer { buffer in
            Result { () throws(YAMLError) -> YAMLNode? in
                // The parser keeps a pointer to itself (its read handler's data), so it
                // lives at one address from initialisation to deletion.
                let parser = UnsafeMutablePointer<yaml_parser_t>.allocate(capacity: 1)
                defer { parser.deallocate() }
                guard yaml_parser_initialize(parser) == 1 else {
                    throw YAMLError(stage: .memory, problem: "libyaml could not allocate its parser", mark: YAMLMark(line: 1, column: 1))
                }
                defer { yaml_parser_delete(parser) }
                yaml_parser_set_encoding(parser, YAML_UTF8_ENCODING)
                yaml_parser_set_input_string(parser, buffer.baseAddress, buffer.count)
                var composer = TreeBuilder(parser: parser, bytes: buffer, maximumNodes: maximumNodes, maximumDepth: maximumDepth)
                return try composer.document()
            }
        }
        return try result.get()
    }
}

/// Builds the tree from events without recursion: an explicit stack of open
/// collections, so that nesting is limited by `maximumDepth`, not by the stack.
private struct TreeBuilder {
    let parser: UnsafeMutablePointer<yaml_parser_t>
    let bytes: UnsafeBufferPointer<UInt8>
    let maximumNodes: Int
    let maximumDepth: Int

    /// An open sequence or mapping, with the node count of what it holds so far.
    private enum Open {
        case sequence(items: [YAMLNode], anchor: String?, mark: YAMLMark, nodes: Int)
        case mapping(entries: [(key: YAMLNode, value: YAMLNode)], pendingKey: YAMLNode?, anchor: String?, mark: YAMLMark, nodes: Int)
    }

    private var open: [Open] = []
    /// Anchored nodes with their node counts; a later anchor of the same name shadows an earlier one.
    private var anchors: [String: (node: YAMLNode, nodes: Int)] = [:]

    init(parser: UnsafeMutablePointer<yaml_parser_t>, bytes: UnsafeBufferPointer<UInt8>, maximumNodes: Int, maximumDepth: Int) {
        self.parser = parser
        self.bytes = bytes
        self.maximumNodes = maximumNodes
        self.maximumDepth = maximumDepth
    }

    mutating func document() throws(YAMLError) -> YAMLNode? {
        var root: YAMLNode?
        var documents = 0
        while true {
            let event = try next()
            defer { event.release() }
            switch event.type {
            case YAML_STREAM_START_EVENT, YAML_DOCUMENT_END_EVENT, YAML_NO_EVENT:
                continue
            case YAML_STREAM_END_EVENT:
                return root
            case YAML_DOCUMENT_START_EVENT:
                documents += 1
                if documents > 1 {
                    throw YAMLError(stage: .composer, problem: "but found another document", mark: event.mark,
                                    context: .init(text: "expected a single document in the stream", mark: YAMLMark(line: 1, column: 1)))
                }
            case YAML_ALIAS_EVENT:
                let name = event.string(event.raw.data.alias.anchor) ?? ""
                guard let anchored = anchors[name] else {
                    throw YAMLError(stage: .composer, problem: "found undefined alias \"\(name)\"", mark: event.mark)
                }
                try finished(anchored.node, nodes: anchored.nodes, anchor: nil, into: &root)
            case YAML_SCALAR_EVENT:
                let scalar = event.raw.data.scalar
                let text = String(decoding: UnsafeBufferPointer(start: scalar.value, count: scalar.length), as: UTF8.self)
                let node = YAMLNode.scalar(YAMLScalar(text, style: Self.style(scalar.style), mark: event.mark))
                try finished(node, nodes: 1, anchor: event.string(scalar.anchor), into: &root)
            case YAML_SEQUENCE_START_EVENT:
                try opening(event)
                open.append(.sequence(items: [], anchor: event.string(event.raw.data.sequence_start.anchor), mark: event.mark, nodes: 1))
            case YAML_MAPPING_START_EVENT:
                try opening(event)
                open.append(.mapping(entries: [], pendingKey: nil, anchor: event.string(event.raw.data.mapping_start.anchor),
                                     mark: event.mark, nodes: 1))
            case YAML_SEQUENCE_END_EVENT, YAML_MAPPING_END_EVENT:
                switch open.removeLast() {
                case .sequence(let items, let anchor, _, let nodes):
                    try finished(.sequence(items), nodes: nodes, anchor: anchor, into: &root)
                case .mapping(let entries, _, let anchor, let mark, let nodes):
                    try Self.refuseDuplicateKeys(entries)
                    try finished(.mapping(YAMLMapping(entries, mark: mark)), nodes: nodes, anchor: anchor, into: &root)
                }
            default:
                continue
            }
        }
    }

    private func opening(_ event: Event) throws(YAMLError) {
        guard open.count < maximumDepth else {
            throw YAMLError(stage: .composer, problem: "nested more than \(maximumDepth) levels deep", mark: event.mark)
        }
    }

    /// Adds a complete node to the collection it belongs to, or makes it the root.
    ///
    /// Every open collection's count stays within `maximumNodes`: a collection's
    /// count is checked as each child arrives, and an anchored node was checked
    /// when it closed, so the sums never overflow and the root's count bounds
    /// the whole document however its aliases nest.
    private mutating func finished(_ node: YAMLNode, nodes: Int, anchor: String?, into root: inout YAMLNode?) throws(YAMLError) {
        if let anchor { anchors[anchor] = (node, nodes) }
        guard let top = open.popLast() else {
            root = node
            return
        }
        switch top {
        case .sequence(var items, let anchor, let mark, let count):
            items.append(node)
            open.append(.sequence(items: items, anchor: anchor, mark: mark, nodes: try total(count, nodes, at: node)))
        case .mapping(var entries, let pendingKey, let anchor, let mark, let count):
            let total = try total(count, nodes, at: node)
            if let key = pendingKey {
                entries.append((key, node))
                open.append(.mapping(entries: entries, pendingKey: nil, anchor: anchor, mark: mark, nodes: total))
            } else {
                open.append(.mapping(entries: entries, pendingKey: node, anchor: anchor, mark: mark, nodes: total))
            }
        }
    }

    private func total(_ count: Int, _ nodes: Int, at node: YAMLNode) throws(YAMLError) -> Int {
        guard count + nodes <= maximumNodes else {
            throw YAMLError(stage: .composer, problem: "the document holds more than \(maximumNodes) nodes, counting what its aliases repeat",
                            mark: node.mark)
        }
        return count + nodes
    }

    /// Keys that occur more than once: YAML forbids them, and taking either
    /// silently would hide a mistake. The mark is the first occurrence of the
    /// first such key in sorted order, so the message is always the same.
    private static func refuseDuplicateKeys(_ entries: [(key: YAMLNode, value: YAMLNode)]) throws(YAMLError) {
        var firstMark: [String: YAMLMark] = [:]
        var repeated = Set<String>()
        for entry in entries {
            guard let key = entry.key.scalar else { continue }
            if firstMark[key.string] == nil { firstMark[key.string] = key.mark } else { repeated.insert(key.string) }
        }
        guard let first = repeated.min() else { return }
        let keys = repeated.sorted()
        throw YAMLError(stage: .composer,
                        problem: "duplicate key \(keys.map { "\"\($0)\"" }.joined(separator: ", ")) in the same mapping",
                        mark: firstMark[first]!, duplicateKeys: keys)
    }

    private static func style(_ style: yaml_scalar_style_t) -> YAMLScalar.Style {
        switch style {
        case YAML_SINGLE_QUOTED_SCALAR_STYLE: .singleQuoted
        case YAML_DOUBLE_QUOTED_SCALAR_STYLE: .doubleQuoted
        case YAML_LITERAL_SCALAR_STYLE: .literal
        case YAML_FOLDED_SCALAR_STYLE: .folded
        default: .plain
        }
    }

    /// The next event; libyaml's error fields become a `YAMLError`.
    private func next() throws(YAMLError) -> Event {
        let event = Event()
        guard yaml_parser_parse(parser, event.pointer) == 1 else {
            event.pointer.deallocate()
            throw error()
        }
        return event
    }

    private func error() -> YAMLError {
        let p = parser.pointee
        let problem = p.problem.map { String(cString: $0) } ?? "unknown problem"
        let context = p.context.map { YAMLError.Context(text: String(cString: $0), mark: Self.mark(p.context_mark)) }
        switch p.error {
        case YAML_MEMORY_ERROR:
            return YAMLError(stage: .memory, problem: "libyaml ran out of memory", mark: Self.mark(p.problem_mark))
        case YAML_READER_ERROR:
            // The reader reports a byte offset, not a mark.
            return YAMLError(stage: .reader, problem: problem, mark: mark(atByte: p.problem_offset))
        case YAML_SCANNER_ERROR:
            return YAMLError(stage: .scanner, problem: problem, mark: Self.mark(p.problem_mark), context: context)
        default:
            return YAMLError(stage: .parser, problem: problem, mark: Self.mark(p.problem_mark), context: context)
        }
    }

    private static func mark(_ mark: yaml_mark_t) -> YAMLMark {
        YAMLMark(line: Int(mark.line) + 1, column: Int(mark.column) + 1)
    }

    /// Line and column (in Unicode scalars, as libyaml counts) of a byte offset.
    private func mark(atByte offset: Int) -> YAMLMark {
        var line = 1, column = 1
        for byte in bytes.prefix(min(max(offset, 0), bytes.count)) {
            if byte == 0x0A {
                line += 1
                column = 1
            } else if byte & 0xC0 != 0x80 {
                column += 1
            }
        }
        return YAMLMark(line: line, column: column)
    }
}

/// One `yaml_event_t`, which owns strings libyaml allocated until `yaml_event_delete`.
private final class Event {
    let pointer = UnsafeMutablePointer<yaml_event_t>.allocate(capacity: 1)
    private var released = false

    var raw: yaml_event_t { pointer.pointee }
    var type: yaml_event_type_t { pointer.pointee.type }
    var mark: YAMLMark { YAMLMark(line: Int(pointer.pointee.start_mark.line) + 1, column: Int(pointer.pointee.start_mark.column) + 1) }

    func string(_ text: UnsafeMutablePointer<yaml_char_t>?) -> String? {
        text.map { String(cString: $0) }
    }

    func release() {
        guard !released else { return }
        released = true
        yaml_event_delete(pointer)
        pointer.deallocate()
    }
}
