/// The files someone copies onto the SD card's boot partition (`/boot/firmware`
/// on Raspberry Pi OS and Debian's Raspberry Pi images) from any computer,
/// which `vitrine setup` takes at each boot (docs/card-setup.md).
public enum CardSetupFiles {
    /// The kiosk's configuration: replaces `/etc/vitrine/vitrine.yaml` when it changed.
    public static let configuration = "vitrine.yaml"
    /// The API token (one line, 16 characters or more); taken off the card once read.
    public static let token = "vitrine-token.txt"
    /// The time zone, an IANA name such as `Europe/Paris`.
    public static let timeZone = "vitrine-timezone.txt"
    /// Wi-Fi: `ssid`, `password`, `country`, and `hidden` if need be; the password is taken off the card once read.
    public static let wifi = "vitrine-wifi.txt"
    /// A channel's root (`vitrine channel rotate`'s root.json and its signature), taken when newer than the kiosk's.
    public static let channelRoot = "vitrine-channel-root.json"
    public static let channelRootSignature = "vitrine-channel-root.json.sig"
    /// Present (whatever it holds): the kiosk goes back to its factory state; the file is removed.
    public static let factoryReset = "vitrine-factory-reset"
    /// Written back to the card when something was taken or refused, for whoever reads the card next.
    public static let result = "vitrine-setup-result.txt"

    /// The files that hold a secret: overwritten in place before they leave the card or are scrubbed.
    public static let secrets: Set<String> = [token, wifi]

    /// Every file `vitrine setup` reads, in the order it acts on them.
    public static let all = [factoryReset, configuration, token, timeZone, wifi, channelRoot, channelRootSignature]
}
