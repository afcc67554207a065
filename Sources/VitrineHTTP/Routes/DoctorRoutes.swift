import FoundationEssentials
import Hummingbird
import VitrineDoctor
import VitrineSystem

/// `GET /api/v1/doctor`: the last `vitrine doctor` report saved in the state
/// directory, the kiosk's own from its start or a fresher one run on the
/// board, so that an operator can have a board's report without SSH.
struct DoctorRoutes {
    let stateDirectory: String
    /// Far above any report (a board with four cards of 40 planes each is about 100 KiB).
    static let sizeLimit = 4 << 20

    func add(to router: RecordingRouter<APIRequestContext>) {
        router.get("/api/v1/doctor") { _, _ in
            let path = stateDirectory + "/" + Doctor.fileName
            let bytes: [UInt8]
            do {
                bytes = try FileIO.read(path, limit: Self.sizeLimit)
            } catch let error as SystemError where error.errno == .noSuchFileOrDirectory {
                throw APIError(.notFound, "no doctor report yet: the kiosk saves one at start, and `vitrine doctor` on the board saves a fresh one")
            } catch {
                throw APIError(.internalServerError, "the doctor report cannot be read: \(error)")
            }
            let report: DoctorReport
            do {
                report = try JSONDecoder().decode(DoctorReport.self, from: Data(bytes))
            } catch {
                throw APIError(.internalServerError, "\(path) cannot be read as a doctor report: \(error); run `vitrine doctor` again")
            }
            return try JSONResponse.make(.ok, encoding: report)
        }
    }
}
