import VitrineConfig

extension ChannelManifest {
    /// The manifest as the kiosk of `group` and `device` (its `channel.group`
    /// and `channel.device`) uses it: `configuration` is the channel's, then
    /// the group's playlist keys in place of the channel's, then the device's
    /// values on top. Pure; called only on a verified manifest. Its
    /// `picturesToShow` are then only this kiosk's pictures, and its
    /// `configurationWithAssets` what this kiosk stores (`configurationJSON`
    /// stays the channel's, as signed).
    ///
    /// - A kiosk without a group, or a manifest without groups: the channel's
    ///   playlist (so kiosks that name a group keep following a channel that
    ///   serves one playlist to all).
    /// - A group the manifest does not have, while it has others: refused as
    ///   `malformed` naming the group, and the kiosk keeps what it shows. A
    ///   misspelt group should be noticed, not silently show another
    ///   group's playlist.
    /// - A device the manifest does not list: no per-device values; the kiosk
    ///   keeps its own.
    public func selecting(group: String?, device: String?) throws(ChannelManifestError) -> ChannelManifest {
        var selected = self
        if let group, !groups.isEmpty {
            guard let playlist = groups[group] else {
                let names = groups.keys.sorted().map { "\"\($0)\"" }.joined(separator: ", ")
                throw ChannelManifestError(file: Self.fileName, issues: [ConfigIssue(
                    path: "groups",
                    message: "has no group \"\(group)\" (this kiosk's channel.group); it has \(names)")])
            }
            selected.configuration = playlist.applied(to: selected.configuration)
        }
        if let device, let values = devices[device] {
            selected.configuration = values.applied(to: selected.configuration)
        }
        return selected
    }
}
