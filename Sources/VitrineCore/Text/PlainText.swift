// Small text operations the kiosk needs without full Foundation, whose
// NSString and String(format:) come with ICU's 34 MB of data.

extension String {
    /// Without leading and trailing spaces, tabs and line breaks.
    public var trimmingWhitespace: String {
        let isSpace: (Character) -> Bool = { $0 == " " || $0 == "\t" || $0.isNewline }
        guard let first = firstIndex(where: { !isSpace($0) }), let last = lastIndex(where: { !isSpace($0) }) else { return "" }
        return String(self[first...last])
    }
}

extension Substring {
    /// Without leading and trailing spaces, tabs and line breaks.
    public var trimmingWhitespace: String { String(self).trimmingWhitespace }
}

/// The directory part of a file path, as `dirname` gives it but with "" for a
/// bare name: `/srv/a/b.jpg` → `/srv/a`, `b.jpg` → "", `/b.jpg` → `/`.
public func directoryOfPath(_ path: String) -> String {
    var trimmed = Substring(path)
    while trimmed.count > 1, trimmed.hasSuffix("/") { trimmed = trimmed.dropLast() }
    guard let slash = trimmed.lastIndex(of: "/") else { return "" }
    if slash == trimmed.startIndex { return "/" }
    var directory = trimmed[..<slash]
    while directory.count > 1, directory.hasSuffix("/") { directory = directory.dropLast() }
    return String(directory)
}

/// The last component of a file path: `/srv/a/b.jpg` → `b.jpg`, `/srv/a/` → `a`.
public func lastComponentOfPath(_ path: String) -> String {
    var trimmed = Substring(path)
    while trimmed.count > 1, trimmed.hasSuffix("/") { trimmed = trimmed.dropLast() }
    guard let slash = trimmed.lastIndex(of: "/"), trimmed.count > 1 else { return String(trimmed) }
    return String(trimmed[trimmed.index(after: slash)...])
}

/// `value` with exactly `decimals` digits after the point, rounded half away
/// from zero, as `String(format: "%.2f")` writes it for the values the kiosk
/// shows (durations, milliseconds, ratios).
public func fixedPoint(_ value: Double, decimals: Int) -> String {
    guard value.isFinite else { return value.isNaN ? "nan" : (value < 0 ? "-inf" : "inf") }
    let decimals = max(0, min(decimals, 9))
    var scale: Double = 1
    for _ in 0..<decimals { scale *= 10 }
    let scaled = (abs(value) * scale).rounded(.toNearestOrAwayFromZero)
    guard scaled < 9e18 else { return "\(value)" }  // Beyond Int64: nothing the kiosk formats.
    let units = Int64(scaled)
    let whole = units / Int64(scale), fraction = units % Int64(scale)
    let sign = value < 0 && units != 0 ? "-" : ""
    guard decimals > 0 else { return "\(sign)\(whole)" }
    let digits = String(fraction)
    return "\(sign)\(whole)." + String(repeating: "0", count: decimals - digits.count) + digits
}

extension String {
    /// Every byte outside `A-Z a-z 0-9` as `%XX`: safe as one query value or path segment.
    public var percentEncodingAllButAlphanumerics: String {
        var result = ""
        for byte in utf8 {
            switch byte {
            case UInt8(ascii: "A")...UInt8(ascii: "Z"), UInt8(ascii: "a")...UInt8(ascii: "z"), UInt8(ascii: "0")...UInt8(ascii: "9"):
                result.unicodeScalars.append(Unicode.Scalar(byte))
            default:
                let hex = String(byte, radix: 16, uppercase: true)
                result += "%" + (byte < 16 ? "0" : "") + hex
            }
        }
        return result
    }
}

/// Whether `a` sorts before `b` as people sort file and key names: letters
/// without regard to case, and runs of digits by their value, so `slides[2]`
/// comes before `slides[10]` and `b.jpg` before `C.jpg`. Ties fall back to the
/// plain order, so the order is total and stable.
public func naturallyPrecedes(_ a: String, _ b: String) -> Bool {
    var left = Array(a.unicodeScalars)[...], right = Array(b.unicodeScalars)[...]
    func isDigit(_ scalar: Unicode.Scalar) -> Bool { ("0"..."9").contains(scalar) }
    while let x = left.first, let y = right.first {
        if isDigit(x), isDigit(y) {
            let xs = left.prefix(while: isDigit), ys = right.prefix(while: isDigit)
            left = left.dropFirst(xs.count)
            right = right.dropFirst(ys.count)
            // Compare by value: strip leading zeros, then length, then digits.
            let xv = xs.drop { $0 == "0" }, yv = ys.drop { $0 == "0" }
            if xv.count != yv.count { return xv.count < yv.count }
            if !xv.elementsEqual(yv) { return String(String.UnicodeScalarView(xv)) < String(String.UnicodeScalarView(yv)) }
            continue
        }
        let xl = x.properties.lowercaseMapping, yl = y.properties.lowercaseMapping
        if xl != yl { return xl < yl }
        left = left.dropFirst()
        right = right.dropFirst()
    }
    if left.isEmpty != right.isEmpty { return left.isEmpty }
    return a < b
}
