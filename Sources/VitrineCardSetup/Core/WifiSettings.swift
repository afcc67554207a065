import VitrineYAML

/// `vitrine-wifi.txt`: one Wi-Fi network, in `key: value` lines (YAML):
///
///     ssid: Shop Wi-Fi
///     password: correct horse battery staple
///     country: FR
///     hidden: false          optional
///
/// Written as a NetworkManager connection; the password is then taken off the card.
public struct WifiSettings: Equatable, Sendable {
    public var ssid: String
    /// Nil: an open network.
    public var password: String?
    /// ISO 3166 alpha-2, upper case: the radio's regulatory domain.
    public var country: String
    public var hidden: Bool

    public init(ssid: String, password: String?, country: String, hidden: Bool = false) {
        self.ssid = ssid
        self.password = password
        self.country = country
        self.hidden = hidden
    }

    /// What the password line says once the password is taken off the card.
    public static let takenMarker = "(taken by vitrine: set a new one here to change it)"

    /// Whether `text` is a file this kiosk took already and scrubbed
    /// (`scrubbedFile`): its password line is `takenMarker`. Such a file on
    /// the card after a factory reset, which forgets what was taken, is left
    /// alone: the network it set is kept, and there is nothing to take.
    public static func isScrubbed(_ text: String) -> Bool {
        guard case .mapping(let mapping)? = try? YAMLComposer.compose(text, maximumNodes: 100, maximumDepth: 4) else { return false }
        return mapping.contains { key, value in key.scalar?.string == "password" && value.scalar?.string == takenMarker }
    }

    /// Each problem names the key.
    public static func parse(_ text: String) -> Result<WifiSettings, CardSetupProblem> {
        func fail(_ message: String) -> Result<WifiSettings, CardSetupProblem> {
            .failure(CardSetupProblem(file: CardSetupFiles.wifi, message: message))
        }
        let root: YAMLNode?
        do {
            root = try YAMLComposer.compose(text, maximumNodes: 100, maximumDepth: 4)
        } catch {
            return fail("\(error)")
        }
        guard case .mapping(let mapping) = root else { return fail("must be lines of key: value (ssid, password, country, hidden)") }
        var values: [String: String] = [:]
        for (key, value) in mapping {
            guard let name = key.scalar?.string else { return fail("a key must be a plain name") }
            guard ["ssid", "password", "country", "hidden"].contains(name) else {
                return fail("\(name): unknown key (the file has ssid, password, country and hidden)")
            }
            guard let scalar = value.scalar else { return fail("\(name): must be one value on its line") }
            values[name] = scalar.string
        }
        guard let ssid = values["ssid"], !ssid.isEmpty else { return fail("ssid: is required (the network's name)") }
        guard ssid.utf8.count <= 32 else { return fail("ssid: is longer than 32 bytes, which no Wi-Fi network name can be") }
        guard let country = values["country"]?.uppercased(), country.count == 2, country.allSatisfy({ $0 >= "A" && $0 <= "Z" }) else {
            return fail("country: is required, as two letters (ISO 3166, such as FR or GB): the radio may only use the channels that country allows")
        }
        var password = values["password"]
        if password == takenMarker { return fail("password: was taken off the card already; write the password again to change the network") }
        if password?.isEmpty == true { password = nil }
        if let password, password.utf8.count < 8 || password.utf8.count > 63 {
            return fail("password: a WPA password has 8 to 63 characters, found \(password.utf8.count)")
        }
        var hidden = false
        if let text = values["hidden"] {
            guard let flag = ["true": true, "false": false, "yes": true, "no": false][text.lowercased()] else {
                return fail("hidden: must be true or false, found \(text)")
            }
            hidden = flag
        }
        return .success(WifiSettings(ssid: ssid, password: password, country: country, hidden: hidden))
    }

    /// The card's file once read: the same settings, the password replaced by
    /// `takenMarker`, so that whoever reads the card next sees what is set
    /// but not the secret.
    public func scrubbedFile() -> String {
        var lines = ["# Taken by vitrine setup. Write a password again (and change what you need) to set the network anew.",
                     "ssid: \(Self.quoted(ssid))"]
        if password != nil { lines.append("password: \(Self.quoted(Self.takenMarker))") }
        lines.append("country: \(country)")
        if hidden { lines.append("hidden: true") }
        return lines.joined(separator: "\n") + "\n"
    }

    /// A NetworkManager keyfile (`/etc/NetworkManager/system-connections/vitrine-wifi.nmconnection`, mode 0600).
    public func keyfile(uuid: String) -> String {
        var lines = ["[connection]", "id=vitrine-wifi", "uuid=\(uuid)", "type=wifi", "autoconnect=true", "",
                     "[wifi]", "mode=infrastructure", "ssid=\(Self.keyfileEscaped(ssid))", "hidden=\(hidden)", ""]
        if let password {
            lines += ["[wifi-security]", "key-mgmt=wpa-psk", "psk=\(Self.keyfileEscaped(password))", ""]
        }
        lines += ["[ipv4]", "method=auto", "", "[ipv6]", "method=auto", "addr-gen-mode=default", ""]
        return lines.joined(separator: "\n")
    }

    /// A keyfile value: GLib's key file escapes backslashes, line breaks and
    /// leading spaces (g_key_file_set_string).
    static func keyfileEscaped(_ value: String) -> String {
        var escaped = ""
        for (index, character) in value.enumerated() {
            switch character {
            case "\\": escaped += "\\\\"
            case "\n": escaped += "\\n"
            case "\r": escaped += "\\r"
            case "\t": escaped += "\\t"
            case " " where index == 0: escaped += "\\s"
            default: escaped.append(character)
            }
        }
        return escaped
    }

    static func quoted(_ value: String) -> String {
        "\"" + value.replacing("\\", with: "\\\\").replacing("\"", with: "\\\"") + "\""
    }
}

/// A file on the card that was not taken, and why.
public struct CardSetupProblem: Error, Equatable, Sendable, CustomStringConvertible {
    public var file: String
    public var message: String

    public init(file: String, message: String) {
        self.file = file
        self.message = message
    }

    public var description: String { "\(file): \(message)" }
}
