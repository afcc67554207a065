/// Building a `JSONValue` by hand, as the configuration's canonical form and
/// the channel manifest are: literals for constants (`"off"`, `1`, `true`,
/// `["rotation": 90]`), and an initializer for each kind of Swift value they
/// hold. Whole numbers stay integers and fractions doubles, so a document
/// built here writes the same bytes as one decoded from its own JSON.
extension JSONValue: ExpressibleByStringLiteral, ExpressibleByIntegerLiteral, ExpressibleByFloatLiteral,
    ExpressibleByBooleanLiteral, ExpressibleByArrayLiteral, ExpressibleByDictionaryLiteral {
    public init(stringLiteral value: String) { self = .string(value) }
    public init(integerLiteral value: Int64) { self = .integer(value) }
    public init(floatLiteral value: Double) { self = .double(value) }
    public init(booleanLiteral value: Bool) { self = .bool(value) }
    public init(arrayLiteral elements: JSONValue...) { self = .array(elements) }

    /// A later duplicate key replaces an earlier one.
    public init(dictionaryLiteral elements: (String, JSONValue)...) {
        self = .object(Dictionary(elements, uniquingKeysWith: { _, last in last }))
    }

    public init(_ text: String) { self = .string(text) }
    public init(_ flag: Bool) { self = .bool(flag) }
    public init(_ number: Int) { self = .integer(Int64(number)) }
    /// An integer, or `unsignedInteger` above `Int64.max`.
    public init(_ number: UInt64) { self = Int64(exactly: number).map(JSONValue.integer) ?? .unsignedInteger(number) }
    /// Must be finite: JSON has no NaN or infinity (`encoded` would write `null` for the whole value).
    public init(_ number: Double) { self = .double(number) }
    public init(_ texts: [String]) { self = .array(texts.map(JSONValue.string)) }
    public init(_ numbers: [Double]) { self = .array(numbers.map(JSONValue.double)) }
}
