import ArgumentParser
import Glibc
import VitrineConfig
import VitrineCore
import VitrineUpdate

/// `vitrine update`: the root helper that installs the package version the
/// fleet channel names (docs/updates.md). Started by `vitrine-update.path`
/// when the kiosk leaves a request; never run by the kiosk itself.
struct UpdateCommand: ParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "update",
        abstract: "Install the vitrine version the fleet channel names, and roll it back if it does not run healthy (root).",
        discussion: """
            Reads the kiosk's request (the channel manifest it applied, with its signature), verifies it again with \
            the channel keys of the local configuration file, and installs the version the manifest's software names \
            for this board's group from the signed apt repository: never one under the floor, nor one rolled back \
            here before. The kiosk's state directory is copied aside first; if the new version is not active on one \
            process for --steady within --deadline, the copy and the previous version are put back. The outcome goes \
            to STATE-DIR/report.json, which the kiosk reports. Run by vitrine-update.service, as root.
            """)

    @Option(help: ArgumentHelp("The kiosk's request.", valueName: "DIR"))
    var request = "/run/vitrine/" + UpdateRequest.directoryName

    @Option(name: .shortAndLong, help: "The local configuration file, whose channel section is trusted.")
    var config = "/etc/vitrine/vitrine.yaml"

    @Option(help: ArgumentHelp("The helper's own state: floor, report, snapshot.", valueName: "DIR"))
    var stateDir = SoftwareUpdateReport.standardDirectory

    @Option(help: ArgumentHelp("The kiosk's state directory, copied before an update.", valueName: "DIR"))
    var kioskState = "/var/lib/vitrine"

    @Option(help: ArgumentHelp("Vitrine's apt source, the only one fetched again.", valueName: "FILE"))
    var aptSource = "/etc/apt/sources.list.d/vitrine.sources"

    @Option(help: ArgumentHelp("How long the new version must stay active on one process (5s, 2m).", valueName: "DURATION"))
    var steady = "30s"

    @Option(help: ArgumentHelp("How long it has to get there.", valueName: "DURATION"))
    var deadline = "3m"

    func validate() throws {
        guard let steady = DurationSyntax.parse(steady), steady > .zero else { throw ValidationError("--steady must be a duration such as 30s, found \(steady)") }
        guard let deadline = DurationSyntax.parse(deadline), deadline > steady else {
            throw ValidationError("--deadline must be a duration longer than --steady, found \(deadline)")
        }
    }

    func run() throws {
        guard geteuid() == 0 else { throw CommandFailure("vitrine update installs packages: run it as root (vitrine-update.service does)") }
        let system = DebianUpdateSystem(aptSource: aptSource, kioskState: kioskState, helperState: stateDir)
        let helper = UpdateHelperRun(requestDirectory: request, configurationFile: config, system: system,
                                     steady: DurationSyntax.parse(steady)!, deadline: DurationSyntax.parse(deadline)!,
                                     log: { line in
                                         var text = "vitrine update: " + line + "\n"
                                         text.withUTF8 { _ = write(2, $0.baseAddress, $0.count) }
                                     })
        guard let report = helper.run(now: WallInstant(secondsSinceEpoch: Int64(time(nil)))) else {
            print("no request in \(request): nothing to do")
            return
        }
        print("\(report.outcome.rawValue): \(report.detail)")
        if report.outcome == .failed { throw ExitCode(1) }
    }
}
