import ArgumentParser
import FoundationEssentials
import Glibc
import Logging
import VitrineConfig
import VitrineCore
import VitrineDoctor
import VitrineRuntime
import VitrineSystem

struct DoctorCommand: ParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "doctor", abstract: "Report on this board: model, kernel, memory and CMA, power, storage, displays and planes, HDMI-CEC, touch, decoding times, video, the package, the network.",
        discussion: """
            Prints the report and saves it as JSON in the state directory (doctor.json), where the kiosk's \
            GET /api/v1/doctor serves the last one. Nothing here needs DRM master, so it runs beside a running \
            kiosk; run it as the kiosk's user (sudo -u vitrine vitrine doctor) or as root to read what the kiosk \
            reads. The decoding section times a 12-megapixel JPEG and a 48-megapixel HEIC the package carries, \
            decoded as the kiosk decodes slides: seconds of CPU on a Raspberry Pi, which --no-decode skips. \
            Attach the JSON to a bug report. Exit status: 0, 1 when a section found a problem.
            """)

    @Option(help: "Where to save doctor.json (default: $STATE_DIRECTORY, else /var/lib/vitrine); `-` saves nothing.")
    var stateDir: String = RunCommand.defaultStateDirectory

    @Option(name: .shortAndLong, help: "A configuration whose touch section to apply to the input devices, and whose api section the network section checks (default: /etc/vitrine/vitrine.yaml when this user can read it).")
    var config: String?

    /// The kiosk's own file, which the kiosk's user and root can read (root:vitrine 0640).
    static let standardConfig = "/etc/vitrine/vitrine.yaml"

    @Flag(help: "Print the JSON rather than the text.") var json = false

    @Flag(help: "Do not time the decoding of the package's test pictures (a 12-megapixel JPEG and a 48-megapixel HEIC): the section says it was not measured.")
    var noDecode = false

    @Option(help: ArgumentHelp("Where the decoding section's test pictures are (default: /usr/share/vitrine/doctor, or /usr/local/share/vitrine/doctor; deploy/doctor in a checkout).", valueName: "directory"))
    var pictures: String?

    @Option(help: ArgumentHelp("Also run the kiosk on each connected output for this many seconds of each kind of frame (slide transition, crossfade, Ken Burns) and report their pacing, paths and CPU time per frame. Needs the display: stop the kiosk first (systemctl stop vitrine).", valueName: "seconds"))
    var pacing: Int?

    @Option(help: "With --pacing: cpu composes every frame on the CPU, as output.planes: cpu does.") var planes: String = "auto"

    func run() throws {
        var touch = TouchConfiguration(), api = APIConfiguration()
        if let config {
            do {
                let loaded = try ConfigLoader.load(file: config)
                (touch, api) = (loaded.touch, loaded.api)
            } catch {
                for issue in error.issues { writeToStandardError("\(config): \(issue)\n") }
                throw ExitCode(1)
            }
        } else if access(Self.standardConfig, R_OK) == 0 {
            // The board's own settings when given none, so that the network section checks the port the kiosk
            // listens on. A broken file does not stop the report: that is when a report is wanted most.
            do {
                let loaded = try ConfigLoader.load(file: Self.standardConfig)
                (touch, api) = (loaded.touch, loaded.api)
            } catch {
                writeToStandardError("\(Self.standardConfig) is not valid (\(error.issues.count) issue(s); vitrine check-config says which): "
                                     + "the report uses the default settings\n")
            }
        }
        guard let planesMode = PlanePlanner.Mode(rawValue: planes) else { throw ValidationError("bad --planes \(planes): auto or cpu") }
        // At least 3 s: each kind's motion starts a second after its first frame, which waits for two pictures' decodes.
        if let pacing, !(3...600).contains(pacing) { throw ValidationError("bad --pacing \(pacing): 3 to 600 seconds") }
        let decoding = noDecode ? DecodingCheck.skipped("not measured (--no-decode)")
            : DecodingCheck(pictures: pictures ?? DoctorPicture.installedDirectory())
        var report = Doctor.report(Doctor.standardChecks(stateDirectory: stateDir == "-" ? "/var/lib/vitrine" : stateDir, touch: touch, api: api,
                                                         decoding: decoding),
                                   version: VitrineVersion.current, now: WallClock.now())
        if let pacing {
            var logger = Logger(label: "vitrine")
            logger.logLevel = .warning
            let run = PacingRun(seconds: pacing, planes: PlaneOptions(mode: planesMode, memoryBytes: 96 << 20), logger: logger)
            report.sections.append(run.section())
        }
        if json {
            print(String(decoding: try Doctor.json(report), as: UTF8.self), terminator: "")
        } else {
            print(report.text, terminator: "")
        }
        if stateDir != "-" {
            do {
                try Doctor.save(report, stateDirectory: stateDir)
                if !json { print("\nsaved to \(stateDir)/\(Doctor.fileName)") }
            } catch {
                writeToStandardError("cannot save the report: \(error) (run as the kiosk's user or root, or pass --state-dir)\n")
            }
        }
        if report.status == .problem { throw ExitCode(1) }
    }
}
