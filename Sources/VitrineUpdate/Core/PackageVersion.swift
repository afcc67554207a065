import VitrineChannel

/// A Debian package version (`[epoch:]upstream[-revision]`), ordered as dpkg
/// orders them (`dpkg --compare-versions`; deb-version(7)): `1.2~rc1` comes
/// before `1.2`, `1.10` after `1.9`, and `1:0.1` after any version without
/// an epoch. Pure, so that the update helper's decisions are tested without
/// dpkg; `PackageVersionTests` checks the order against dpkg itself.
public struct PackageVersion: Comparable, Sendable, CustomStringConvertible {
    /// As written.
    public let text: String
    let epoch: UInt64
    let upstream: Substring
    let revision: Substring

    /// Nil when `text` is not a Debian version (`ChannelSoftware.versionProblem` says why).
    public init?(_ text: String) {
        guard ChannelSoftware.versionProblem(text) == nil else { return nil }
        self.text = text
        var rest = Substring(text)
        if let colon = rest.firstIndex(of: ":") {
            guard let epoch = UInt64(rest[..<colon]) else { return nil }
            self.epoch = epoch
            rest = rest[rest.index(after: colon)...]
        } else {
            epoch = 0
        }
        // The revision follows the last hyphen; an upstream version may hold hyphens of its own.
        if let hyphen = rest.lastIndex(of: "-") {
            upstream = rest[..<hyphen]
            revision = rest[rest.index(after: hyphen)...]
        } else {
            upstream = rest
            revision = ""
        }
    }

    public var description: String { text }

    public static func == (left: PackageVersion, right: PackageVersion) -> Bool { compare(left, right) == 0 }
    public static func < (left: PackageVersion, right: PackageVersion) -> Bool { compare(left, right) < 0 }

    static func compare(_ left: PackageVersion, _ right: PackageVersion) -> Int {
        if left.epoch != right.epoch { return left.epoch < right.epoch ? -1 : 1 }
        let upstream = compare(part: left.upstream, right.upstream)
        return upstream != 0 ? upstream : compare(part: left.revision, right.revision)
    }

    /// dpkg's `verrevcmp`: alternating runs of non-digits (compared character
    /// by character with `order`) and digits (compared as numbers).
    static func compare(part left: Substring, _ right: Substring) -> Int {
        var a = Array(left.utf8)[...]
        var b = Array(right.utf8)[...]
        func isDigit(_ c: UInt8?) -> Bool { c.map { $0 >= 0x30 && $0 <= 0x39 } ?? false }
        while !a.isEmpty || !b.isEmpty {
            while (!a.isEmpty && !isDigit(a.first)) || (!b.isEmpty && !isDigit(b.first)) {
                let orderA = order(a.first), orderB = order(b.first)
                if orderA != orderB { return orderA - orderB }
                a = a.dropFirst()
                b = b.dropFirst()
            }
            while a.first == 0x30 { a = a.dropFirst() }
            while b.first == 0x30 { b = b.dropFirst() }
            var firstDifference = 0
            while isDigit(a.first) && isDigit(b.first) {
                if firstDifference == 0 { firstDifference = Int(a.first!) - Int(b.first!) }
                a = a.dropFirst()
                b = b.dropFirst()
            }
            if isDigit(a.first) { return 1 }
            if isDigit(b.first) { return -1 }
            if firstDifference != 0 { return firstDifference }
        }
        return 0
    }

    /// A digit or the end sorts as 0, a letter as itself, `~` before
    /// everything (even the end), any other character after all letters.
    private static func order(_ c: UInt8?) -> Int {
        guard let c else { return 0 }
        switch c {
        case 0x30...0x39: return 0
        case 0x41...0x5A, 0x61...0x7A: return Int(c)
        case UInt8(ascii: "~"): return -1
        default: return Int(c) + 256
        }
    }
}
