import VitrineCEC

/// Which CEC adapter `power.cec: auto` uses, from what the kernel says of each.
enum CECAdapterChoice {
    /// The adapter that sits on the DRM connector the kiosk drives, when the
    /// driver says which (`CEC_CAP_CONNECTOR_INFO`, as vc4 on a Raspberry Pi
    /// does); else the first that can transmit and has a source's physical
    /// address. One at 0.0.0.0 is the TV end of a cable (an HDMI input, such
    /// as a capture card's or vivid's), never ours; one at f.f.f.f has no
    /// display connected now, and is taken only when no other can be.
    ///
    /// `onConnectorOnly`: only the adapter on `drmConnector`, never another.
    /// The TVs of a kiosk's other output groups are found so: each HDMI port
    /// of a Raspberry Pi 4 or 5 has its own adapter, and the first usable one
    /// belongs to the first group's TV.
    ///
    /// `othersConnectors`: the connectors of the kiosk's other output groups,
    /// whose adapters are their TVs': never taken here, even as the fallback.
    static func choose(from adapters: [CECAdapterInfo], drmConnector: CECAdapterInfo.DRMConnectorReference?,
                       onConnectorOnly: Bool = false, othersConnectors: [CECAdapterInfo.DRMConnectorReference] = []) -> CECAdapterInfo? {
        let usable = adapters.filter { adapter in
            adapter.canTransmit && adapter.physicalAddress != .tv
                && !(adapter.drmConnector.map(othersConnectors.contains) ?? false)
        }
        if let drmConnector, let match = usable.first(where: { $0.drmConnector == drmConnector }) { return match }
        if onConnectorOnly { return nil }
        return usable.first { $0.physicalAddress.isValid } ?? usable.first
    }
}
