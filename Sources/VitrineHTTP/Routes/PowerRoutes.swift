import FoundationEssentials
import Hummingbird
import VitrineConfig
import VitrineCore
import VitrineSystem
import VitrineAPI

/// `GET`/`PUT /api/v1/power`: the screen switched on or off by an operator.
/// The display thread applies a request at its next turn (atomic `ACTIVE` or
/// the legacy `DPMS` property); a request is not kept over a restart, which
/// starts with the screen on. `output=` addresses one output group's screen;
/// without it the answer is the first group's and a request goes to all.
struct PowerRoutes {
    let link: any DisplayLoopLink

    func add(to router: RecordingRouter<APIRequestContext>) {
        router.get("/api/v1/power") { request, _ in
            let loop = try OutputAddress(request, link: link).loop(link)
            return try JSONResponse.make(.ok, encoding: PowerStatus(loop.status, now: MonotonicClock.now()))
        }
        router.put("/api/v1/power") { request, _ in
            let loop = try OutputAddress(request, link: link).loop(link)
            let wanted = try await RequestBodyDecoder.decode(PowerRequest.self, from: request)
            loop.send(.setScreenPower(wanted.state.request))
            return try JSONResponse.make(.accepted, encoding: PowerAccepted(requested: wanted.state))
        }
    }
}
