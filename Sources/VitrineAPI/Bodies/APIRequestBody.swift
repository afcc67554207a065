/// A JSON request body the API takes, decoded as a `Decodable` value.
///
/// The API refuses a body with a key it does not know (a misspelt key would
/// otherwise be ignored silently), so each body lists its keys. A body type
/// that checks a value itself (a range, a non-empty string) throws
/// `DecodingError.dataCorrupted` with a `debugDescription` that says what
/// the value must be ("must be on or off"): the API answers 422 with that
/// sentence at the value's key path (`RequestBodyDecoder` in VitrineHTTP).
public protocol APIRequestBody: Decodable, Sendable {
    /// The keys the body may have, in the order an error lists them.
    static var keys: [String] { get }
    /// A body as an error message shows it: `{"state": "off"}`.
    static var example: String { get }
    /// What an empty body means; nil when a body is required.
    static var empty: Self? { get }
}

extension APIRequestBody {
    public static var empty: Self? { nil }
}

extension DecodingError {
    /// The error a body type throws for a value it refuses: `description` says
    /// what the value at `key` must be.
    public static func refused<Key: CodingKey>(_ key: Key, in container: KeyedDecodingContainer<Key>, _ description: String) -> DecodingError {
        .dataCorruptedError(forKey: key, in: container, debugDescription: description)
    }
}
