import FoundationEssentials

/// What `vitrine setup` took from the card before (`/var/lib/vitrine-setup/record.json`):
/// each file's SHA-256 as it was taken, so that a file is taken again only once it changed.
public struct CardSetupRecord: Equatable, Sendable {
    public static let fileName = "record.json"

    /// By file name.
    public var taken: [String: String]

    public init(taken: [String: String] = [:]) {
        self.taken = taken
    }

    public var json: [UInt8] {
        let encoder = JSONEncoder()
        encoder.outputFormatting = [.sortedKeys, .prettyPrinted]
        return Array((try? encoder.encode(taken)) ?? Data()) + [0x0A]
    }

    /// A record that cannot be read is an empty one: every file on the card is taken again, which is safe.
    public static func parse(_ bytes: [UInt8]) -> CardSetupRecord {
        CardSetupRecord(taken: (try? JSONDecoder().decode([String: String].self, from: Data(bytes))) ?? [:])
    }
}
