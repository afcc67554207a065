import Hummingbird
import VitrineAPI

/// `GET /api/v1/outputs`: each output group (one display loop) with the
/// connectors it drives and its own status, the kiosk's own group first.
/// The names listed are what the `output` query parameter of the status,
/// screenshot, control and power routes takes (`OutputAddress`).
struct OutputRoutes {
    let link: any DisplayLoopLink
    /// Whose status body each group's entry carries.
    let status: StatusRoutes

    func add(to router: RecordingRouter<APIRequestContext>) {
        router.get("/api/v1/outputs") { _, _ in
            let groups = link.outputGroups.map { group in
                OutputGroupBody(name: group.name, connectors: group.connectors, status: status.body(group.loop.status))
            }
            return try JSONResponse.make(.ok, encoding: OutputsBody(outputs: groups))
        }
    }
}
