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
    let kiosk: RemoteKiosk

    func add(to router: RecordingRouter<APIRequestContext>) {
        router.get("/api/v1/power") { request, _ in
            let loop = try OutputAddress(request, link: kiosk.control).loop(kiosk.control)
            return try JSONResponse.make(.ok, encoding: PowerStatus(loop.status, now: MonotonicClock.now()))
        }
        router.put("/api/v1/power") { request, _ in
            let loop = try OutputAddress(request, link: kiosk.control).loop(kiosk.control)
            var request = request
            let body = try await request.collectBody(upTo: 4 * 1024)
            let example = #"{"state": "off"}"#
            guard let object = try? JSONValue(parsing: body.readableBytesView).object else {
                throw APIError(.unprocessableContent, "the body must be a JSON object such as \(example)")
            }
            if let key = Set(object.keys).subtracting(["state"]).sorted().first {
                throw APIError(.unprocessableContent, "unknown key \(key)", issues: [.init(path: key, message: "unknown key (known keys: state)")])
            }
            guard let value = object["state"]?.string, let state = PowerState(rawValue: value) else {
                throw APIError(.unprocessableContent, "state must be on or off", issues: [.init(path: "state", message: "must be on or off")])
            }
            let wanted = PowerRequest(state: state)
            loop.send(.setScreenPower(wanted.state.request))
            return try JSONResponse.make(.accepted, encoding: PowerAccepted(requested: wanted.state))
        }
    }
}
