import VitrineYAML

/// Reads the `channel` section (docs/configuration.md):
///
///     channel:
///       url: https://origin.example/channels/lobby
///       keys: [lobby-2026.pub, RWQ...]     files, or signify base64 lines
///       root: [lobby-root.pub]             offline root keys that may replace `keys` (root.json)
///       poll: 30s
///       jitter: 0.2                        a fraction of poll, or a duration (5s)
///       timeout: 60s
///       group: lobby
///       device: lobby-left
///       allowLocalPush: false
enum ChannelConfigurationReader {
    static func read(_ node: YAMLNode, at path: String, reader: ConfigNodeReader, in c: KioskConfiguration) -> ChannelConfiguration? {
        guard var section = reader.object(node, at: path) else { return nil }
        defer { section.finish() }
        let url = section.read("url") { reader, node, path -> String? in
            guard let text = reader.string(node, at: path) else { return nil }
            guard case .url = SlideSource(text), SlideSource.problem(with: text) == nil else {
                reader.report(path, "must be the http:// or https:// URL of the channel's directory (where channel.json is), found \(text)")
                return nil
            }
            return text.hasSuffix("/channel.json") ? String(text.dropLast("channel.json".count)) : text
        }
        if url == nil, !section.has("url") {
            reader.report(section.child("url"), "is required: the http:// or https:// URL of the channel's directory")
        }
        let keys = section.read("keys") { keyList($0, $1, $2, in: c) }
        if keys == nil, !section.has("keys") {
            reader.report(section.child("keys"), "is required: the signify public keys whose signatures this kiosk accepts")
        }
        var channel = ChannelConfiguration(url: url ?? "", keys: keys ?? [])
        channel.rootKeys = section.read("root") { keyList($0, $1, $2, in: c) } ?? []
        channel.poll = section.read("poll") { $0.duration($1, at: $2, maximum: .seconds(86_400)) } ?? channel.poll
        if channel.poll < .seconds(1) {
            reader.report(section.child("poll"), "must be at least 1s, found \(DurationSyntax.format(channel.poll))")
        }
        channel.jitter = section.read("jitter") { reader, node, path -> ChannelJitter? in
            // A plain number is a fraction of poll; with a unit it is a duration.
            if case .scalar(let scalar) = node, scalar.style == .plain, let fraction = Double(scalar.string) {
                guard (0...1).contains(fraction) else {
                    reader.report(path, "must be a fraction of poll from 0 to 1, or a duration with a unit (5s), found \(scalar.string)")
                    return nil
                }
                return .fraction(fraction)
            }
            return reader.duration(node, at: path, allowZero: true, maximum: .seconds(86_400)).map(ChannelJitter.duration)
        } ?? channel.jitter
        channel.timeout = section.read("timeout") { $0.duration($1, at: $2, maximum: .seconds(3600)) } ?? channel.timeout
        channel.group = section.read("group") { nonEmpty($0, $1, $2) }
        channel.device = section.read("device") { nonEmpty($0, $1, $2) }
        channel.allowLocalPush = section.read("allowLocalPush") { $0.bool($1, at: $2) } ?? channel.allowLocalPush
        guard url != nil, keys != nil else { return nil }
        return channel
    }

    /// One signify public key (a `.pub` file, or its base64 line), or a list of them.
    private static func keyList(_ reader: ConfigNodeReader, _ node: YAMLNode, _ path: String, in c: KioskConfiguration) -> [ChannelKeySource]? {
        // One key may be written without the list.
        let items: [YAMLNode]
        if case .scalar = node { items = [node] } else { guard let list = reader.sequence(node, at: path) else { return nil }; items = list }
        guard !items.isEmpty else {
            reader.report(path, "must name at least one signify public key (a .pub file, or its base64 line)")
            return nil
        }
        let sources = items.enumerated().compactMap { index, item -> ChannelKeySource? in
            let itemPath = node.isScalar ? path : "\(path)[\(index)]"
            guard let text = reader.string(item, at: itemPath) else { return nil }
            let trimmed = text.trimmingCharacters(in: " ")
            if ChannelKeySource.isInlineKey(trimmed) { return .inline(trimmed) }
            guard !trimmed.isEmpty, !trimmed.contains("\0"), !trimmed.contains("\n") else {
                reader.report(itemPath, "must be a signify public key file or the key's base64 line (56 characters, starting RW), found \(text.debugDescription)")
                return nil
            }
            return .file(c.absolute(trimmed))
        }
        return sources.count == items.count ? sources : nil
    }

    private static func nonEmpty(_ reader: ConfigNodeReader, _ node: YAMLNode, _ path: String) -> String? {
        guard let text = reader.string(node, at: path) else { return nil }
        if let problem = DeviceValues.nameProblem(text) {
            reader.report(path, problem)
            return nil
        }
        return text
    }
}

private extension YAMLNode {
    var isScalar: Bool { if case .scalar = self { true } else { false } }
}
