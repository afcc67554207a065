import VitrineChannel
import VitrineCore

/// What `vitrine setup` does with the files on the card. Pure: it takes the
/// files' bytes, the record of what was taken before, and two questions it
/// cannot answer itself (is this configuration valid, does this time zone
/// exist), and returns the actions, the problems, what to write back to the
/// card and the new record.
///
/// A file is taken when it differs from what was taken last (its SHA-256),
/// so that a file edited on another computer is taken at the next boot, and
/// an unchanged one is left alone. A factory reset comes first, and forgets
/// the record, so that a card with a reset and a new configuration sets up
/// a fresh kiosk with that configuration.
public struct CardSetupPlan: Equatable, Sendable {
    public enum Action: Equatable, Sendable {
        case factoryReset
        /// The card's `vitrine.yaml`, checked, for `/etc/vitrine/vitrine.yaml`.
        case configuration([UInt8])
        case token(String)
        case timeZone(String)
        case wifi(WifiSettings)
        /// Verified by the run against the configuration's `channel.root` keys,
        /// and taken only when newer than the kiosk's.
        case channelRoot(root: [UInt8], signature: [UInt8])
    }

    public var actions: [Action] = []
    public var problems: [CardSetupProblem] = []
    /// What to write back to the card, by file name: new contents, or nil to remove the file.
    public var cardWrites: [String: [UInt8]?] = [:]
    public var record: CardSetupRecord
    /// Files unchanged since they were taken.
    public var unchanged: [String] = []

    /// - Parameters:
    ///   - card: the setup files present on the card, by name.
    ///   - configurationIssues: the problems of a configuration, one line each (`channel.url: ...`); empty when it is valid.
    ///   - zoneExists: whether the system has this time zone.
    public static func decide(card: [String: [UInt8]], taken: CardSetupRecord, configurationIssues: ([UInt8]) -> [String],
                              zoneExists: (String) -> Bool) -> CardSetupPlan {
        var plan = CardSetupPlan(record: taken)
        if card[CardSetupFiles.factoryReset] != nil {
            plan.actions.append(.factoryReset)
            plan.cardWrites[CardSetupFiles.factoryReset] = .some(nil)
            plan.record = CardSetupRecord()
        }
        func changed(_ name: String) -> [UInt8]? {
            guard let bytes = card[name] else { return nil }
            if plan.record.taken[name] == ChannelDigest.sha256(bytes) {
                plan.unchanged.append(name)
                return nil
            }
            return bytes
        }
        func refuse(_ name: String, _ message: String) { plan.problems.append(CardSetupProblem(file: name, message: message)) }
        func took(_ name: String, _ bytes: [UInt8]) { plan.record.taken[name] = ChannelDigest.sha256(bytes) }

        if let bytes = changed(CardSetupFiles.configuration) {
            let issues = configurationIssues(bytes)
            if issues.isEmpty {
                plan.actions.append(.configuration(bytes))
                took(CardSetupFiles.configuration, bytes)
            } else {
                // Not recorded: the file is checked again at each boot until it is fixed.
                for issue in issues { refuse(CardSetupFiles.configuration, issue) }
            }
        }
        if let bytes = changed(CardSetupFiles.token) {
            let token = String(decoding: bytes, as: UTF8.self).split(whereSeparator: \.isNewline).first?.trimmingWhitespace ?? ""
            if token.count < 16 || token.contains(where: \.isWhitespace) || token.hasPrefix("-") {
                refuse(CardSetupFiles.token, "must hold one token of 16 characters or more, without spaces, not starting with '-' (found \(token.count) characters)")
            } else {
                plan.actions.append(.token(token))
                // A secret on a FAT partition anyone can read: taken off the card once read.
                plan.cardWrites[CardSetupFiles.token] = .some(nil)
            }
        }
        if let bytes = changed(CardSetupFiles.timeZone) {
            let name = String(decoding: bytes, as: UTF8.self).trimmingWhitespace
            let allowed = name.allSatisfy { $0.isASCII && ($0.isLetter || $0.isNumber || "/_+-".contains($0)) }
            if name.isEmpty || !allowed || name.contains("..") || name.hasPrefix("/") || !zoneExists(name) {
                refuse(CardSetupFiles.timeZone, "\"\(name)\" is not a time zone this system has (an IANA name such as Europe/Paris or America/New_York)")
            } else {
                plan.actions.append(.timeZone(name))
                took(CardSetupFiles.timeZone, bytes)
            }
        }
        if let bytes = changed(CardSetupFiles.wifi) {
            switch WifiSettings.isScrubbed(String(decoding: bytes, as: UTF8.self)) ? nil : WifiSettings.parse(String(decoding: bytes, as: UTF8.self)) {
            case nil:
                // Taken before a factory reset forgot it: the network stays as it was set, nothing to do.
                plan.unchanged.append(CardSetupFiles.wifi)
                took(CardSetupFiles.wifi, bytes)
            case .success(let settings):
                plan.actions.append(.wifi(settings))
                let scrubbed = Array(settings.scrubbedFile().utf8)
                plan.cardWrites[CardSetupFiles.wifi] = .some(scrubbed)
                // What stays on the card is what was taken: not taken again at the next boot.
                took(CardSetupFiles.wifi, scrubbed)
            case .failure(let problem):
                plan.problems.append(problem)
            }
        }
        if let root = changed(CardSetupFiles.channelRoot) {
            if let signature = card[CardSetupFiles.channelRootSignature] {
                plan.actions.append(.channelRoot(root: root, signature: signature))
                took(CardSetupFiles.channelRoot, root)
            } else {
                refuse(CardSetupFiles.channelRoot, "has no signature beside it (\(CardSetupFiles.channelRootSignature): copy both files of vitrine channel rotate)")
            }
        }
        return plan
    }

    /// The lines of `vitrine-setup-result.txt`.
    public func resultLines(taken results: [String]) -> [String] {
        results + problems.map { "not taken: \($0)" }
    }
}


extension CardSetupPlan.Action {
    /// The card's file the action comes from.
    public var file: String {
        switch self {
        case .factoryReset: CardSetupFiles.factoryReset
        case .configuration: CardSetupFiles.configuration
        case .token: CardSetupFiles.token
        case .timeZone: CardSetupFiles.timeZone
        case .wifi: CardSetupFiles.wifi
        case .channelRoot: CardSetupFiles.channelRoot
        }
    }
}
