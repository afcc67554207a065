/// The names connectors go by: a type as libdrm spells it
/// (`drmModeGetConnectorTypeName`, which `vitrine displays` and VitrineDRM
/// use), a dash, and the kernel's number for it among its type, from 1:
/// `HDMI-A-1`, `HDMI-A-2`, `DSI-1`, `DP-3`, `Virtual-1`.
///
/// A configuration names outputs this way so that a name can be checked
/// before any card is opened: `HDMI1` (X11's and Qt's spelling) is caught
/// when the file is read, not found missing on the screen.
public enum ConnectorName {
    /// libdrm's type names, in the kernel's `DRM_MODE_CONNECTOR_*` order.
    public static let types = [
        "Unknown", "VGA", "DVI-I", "DVI-D", "DVI-A", "Composite", "SVIDEO", "LVDS", "Component", "DIN", "DP",
        "HDMI-A", "HDMI-B", "TV", "eDP", "Virtual", "DSI", "DPI", "Writeback", "SPI", "USB",
    ]

    /// Whether `name` is a type name, a dash and a number from 1 (no leading zero).
    public static func isValid(_ name: String) -> Bool {
        guard let dash = name.lastIndex(of: "-") else { return false }
        let number = name[name.index(after: dash)...]
        guard let first = number.first, first != "0", number.count <= 4, number.allSatisfy({ ("0"..."9").contains($0) }) else { return false }
        return types.contains(String(name[..<dash]))
    }

    /// The valid name closest to `name` that keeps its number (`HDMI1` is
    /// `HDMI-A-1`, `dsi-1` is `DSI-1`), when one is close enough to be what was meant.
    public static func suggestion(for name: String) -> String? {
        let digits = String(name.reversed().prefix { ("0"..."9").contains($0) }.reversed())
        guard !digits.isEmpty, digits.first != "0", digits.count <= 4 else { return nil }
        let stem = name.dropLast(digits.count).filter { $0 != "-" && $0 != "_" && $0 != " " }.lowercased()
        // The type whose letters the stem is, or begins: "hdmi" is HDMI-A's, "dp" DP's.
        let compact = types.map { (type: $0, letters: $0.filter { $0 != "-" }.lowercased()) }
        let match = compact.first { $0.letters == stem } ?? compact.first { stem.count >= 2 && $0.letters.hasPrefix(stem) }
        return match.map { "\($0.type)-\(digits)" }
    }
}
