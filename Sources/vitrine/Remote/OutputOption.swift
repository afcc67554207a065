import ArgumentParser
import VitrineClient
import VitrineAPI

/// `--output NAME`: which output group a remote command addresses, by a
/// connector's name as `vitrine remote outputs` lists them. Without it, the
/// kiosk as a whole: the first group's status, screenshot and power, and
/// commands to every group.
struct OutputOption: ParsableArguments {
    @Option(name: .customLong("output"), help: ArgumentHelp(
        "Address one output (a connector such as HDMI-A-1, as `vitrine remote outputs` lists them); default: the whole kiosk.",
        valueName: "name"))
    var name: String?

    /// `path` with `?output=` when an output is named.
    func path(_ path: String) -> String { RemoteClient.path(path, output: name) }
}
