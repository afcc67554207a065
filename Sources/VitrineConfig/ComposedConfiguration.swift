import VitrineYAML

/// A configuration document composed once (`ConfigLoader.compose`): its
/// top-level keys, and its values read as a configuration, from the same tree.
/// The remote API refuses pushes that set what only the local file may, and a
/// channel or group refuses keys it may not set, by `sections`; both then read
/// the values without composing the text again.
public struct ComposedConfiguration {
    let root: YAMLNode
    let source: String?

    /// The top-level keys (none when the document is not a mapping).
    public var sections: Set<String> {
        guard case .mapping(let mapping) = root else { return [] }
        return Set(mapping.keys.compactMap { if case .scalar(let scalar) = $0 { return scalar.string } else { return nil } })
    }

    /// The values, read and checked as a configuration file is.
    /// - Parameter blobReferences: whether pictures may be `blob:<sha256>`, as
    ///   only a channel manifest's configuration may name them.
    public func configuration(baseDirectory: String = ".", blobReferences: Bool = false) throws(ConfigError) -> KioskConfiguration {
        try ConfigLoader.parse(root, baseDirectory: baseDirectory, source: source, blobReferences: blobReferences)
    }
}
