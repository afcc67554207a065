import FoundationEssentials
import VitrineConfig
import VitrineCore
import VitrineSystem

/// Runs the checks and keeps the report where the API serves it from.
public enum Doctor {
    /// The report's file in the state directory: `GET /api/v1/doctor` serves the last one saved.
    public static let fileName = "doctor.json"

    /// The checks every board gets, in the report's order. The planes and
    /// video work add theirs here. `decoding` measures only when asked
    /// (`vitrine doctor`): the kiosk's report at start keeps the last figures
    /// saved in `stateDirectory`, or says there are none.
    public static func standardChecks(stateDirectory: String, touch: TouchConfiguration = TouchConfiguration(),
                                      api: APIConfiguration = APIConfiguration(),
                                      decoding: DecodingCheck? = nil) -> [any DoctorCheck] {
        [BoardCheck(), PowerCheck(), StorageCheck(stateDirectory: stateDirectory), DisplaysCheck(), CECCheck(), TouchCheck(touch: touch),
         decoding ?? .carriedOver(stateDirectory: stateDirectory), VideoCheck(), SoftwareCheck(), NetworkCheck(api: api)]
    }

    /// Every check's section, in order, stamped with `now` (passed in, so a test can say when).
    public static func report(_ checks: [any DoctorCheck], on system: DoctorSystem = DoctorSystem(), version: String,
                              now: WallInstant) -> DoctorReport {
        DoctorReport(version: version, generatedAt: now.description, sections: checks.map { $0.run(on: system) })
    }

    /// The report as JSON: keys in a fixed order, so that two reports compare line by line.
    public static func json(_ report: DoctorReport) throws -> [UInt8] {
        let encoder = JSONEncoder()
        encoder.outputFormatting = [.prettyPrinted, .sortedKeys]
        return Array(try encoder.encode(report)) + [UInt8(ascii: "\n")]
    }

    /// Saves `report` as the state directory's `doctor.json`, replacing the last one whole.
    public static func save(_ report: DoctorReport, stateDirectory: String) throws {
        // Readable by the kiosk's user when root wrote it: it holds no secret.
        try FileIO.writeAtomically(try json(report), to: stateDirectory + "/" + fileName, mode: 0o644)
    }
}
