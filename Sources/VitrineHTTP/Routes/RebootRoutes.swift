import Hummingbird
import Logging
import VitrineAPI
import VitrineConfig

/// `POST /api/v1/reboot`: the board rebooted, for one that needs it (a wedged
/// driver, a kernel update), through the package's privileged path unit
/// (`BoardReboot`). 202 once the request is left for it; 409 where this kiosk
/// has no such path (not installed by the package, or not run by systemd),
/// saying why. The kiosk stops as at any shutdown: the screen is given back,
/// the play log is flushed.
struct RebootRoutes {
    let reboot: BoardReboot
    let logger: Logger

    func add(to router: RecordingRouter<APIRequestContext>) {
        router.post("/api/v1/reboot") { _, _ in
            if let reason = reboot.unavailableReason { throw APIError(.conflict, reason) }
            let outcome: BoardReboot.Outcome
            do {
                outcome = try await reboot.request()
            } catch {
                throw APIError(.internalServerError, "cannot ask for a reboot: \(error)")
            }
            guard outcome == .taken else {
                throw APIError(.conflict, "this kiosk cannot reboot its board: nothing took the request within "
                    + "\(DurationSyntax.format(reboot.takeTimeout)); vitrine-reboot.path is installed but not running "
                    + "(systemctl enable --now vitrine-reboot.path)")
            }
            logger.notice("the board reboots in \(BoardReboot.delaySeconds) s, as asked through the API (POST /api/v1/reboot)")
            return try JSONResponse.make(.accepted, encoding: RebootAccepted(afterSeconds: BoardReboot.delaySeconds))
        }
    }
}
