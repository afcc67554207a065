import Hummingbird
import HummingbirdCore

/// A request's query with its keys and values percent-decoded, as RFC 3986
/// says both are. Hummingbird decodes the values only, so `?outpu%74=HDMI-A-2`
/// was a key no route knew, and a DELETE meant for one output ended every
/// override. Every route reads its query through this.
///
/// A key or value whose encoding is not valid (a `%` not followed by two hex
/// digits, or bytes that are not UTF-8) is kept as it was sent; a key kept so
/// matches no parameter, and a state-changing route refuses it
/// (`KnownQueryKeysResponder`).
extension Request {
    var decodedQuery: FlatDictionary<Substring, Substring> {
        guard let query = uri.query, !query.isEmpty else { return [:] }
        let pairs = query.split(separator: "&", omittingEmptySubsequences: true).map { pair -> (Substring, Substring) in
            let parts = pair.split(separator: "=", maxSplits: 1, omittingEmptySubsequences: false)
            let key = parts[0]
            let value = parts.count > 1 ? parts[1] : ""
            return (Self.percentDecoded(key), Self.percentDecoded(value))
        }
        return FlatDictionary(pairs.map { (key: $0.0, value: $0.1) })
    }

    /// `text` with each `%XX` replaced by its byte; `text` itself if it is not valid percent-encoded UTF-8.
    static func percentDecoded(_ text: Substring) -> Substring {
        guard text.utf8.contains(UInt8(ascii: "%")) else { return text }
        var bytes: [UInt8] = []
        bytes.reserveCapacity(text.utf8.count)
        var iterator = text.utf8.makeIterator()
        while let byte = iterator.next() {
            guard byte == UInt8(ascii: "%") else {
                bytes.append(byte)
                continue
            }
            guard let high = iterator.next().flatMap(Self.hexValue), let low = iterator.next().flatMap(Self.hexValue) else { return text }
            bytes.append(high << 4 | low)
        }
        guard let decoded = String(validating: bytes, as: UTF8.self) else { return text }
        return decoded[...]
    }

    private static func hexValue(_ byte: UInt8) -> UInt8? {
        switch byte {
        case UInt8(ascii: "0")...UInt8(ascii: "9"): byte - UInt8(ascii: "0")
        case UInt8(ascii: "a")...UInt8(ascii: "f"): byte - UInt8(ascii: "a") + 10
        case UInt8(ascii: "A")...UInt8(ascii: "F"): byte - UInt8(ascii: "A") + 10
        default: nil
        }
    }
}
