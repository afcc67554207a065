import FoundationEssentials
import Hummingbird
import VitrineConfig
import VitrineCore
import VitrineRuntime

/// `GET`/`PUT /api/v1/power`: the screen switched on or off by an operator.
/// The display thread applies a request at its next turn (atomic `ACTIVE` or
/// the legacy `DPMS` property); a request is not kept over a restart, which
/// starts with the screen on.
struct PowerRoutes {
    let kiosk: RemoteKiosk

    func add(to router: RecordingRouter<APIRequestContext>) {
        router.get("/api/v1/power") { _, _ in
            try JSONResponse.make(.ok, Self.object(kiosk.control.status, now: MonotonicClock.now()))
        }
        router.put("/api/v1/power") { request, _ in
            var request = request
            let body = try await request.collectBody(upTo: 4 * 1024)
            let example = #"{"state": "off"}"#
            guard let object = try? JSONValue(parsing: body.readableBytesView).object else {
                throw APIError(.unprocessableContent, "the body must be a JSON object such as \(example)")
            }
            if let key = Set(object.keys).subtracting(["state"]).sorted().first {
                throw APIError(.unprocessableContent, "unknown key \(key)", issues: [.init(path: key, message: "unknown key (known keys: state)")])
            }
            guard let value = object["state"]?.string, let state = ScreenPower.Request(rawValue: value) else {
                throw APIError(.unprocessableContent, "state must be on or off", issues: [.init(path: "state", message: "must be on or off")])
            }
            kiosk.control.send(.setScreenPower(state))
            return try JSONResponse.make(.accepted, ["requested": state.rawValue])
        }
    }

    /// The API's view of the screen's power: lit or not, what was asked, and
    /// when a touch's wake ends.
    static func object(_ status: KioskStatus, now: MonotonicInstant) -> [String: Any] {
        var object: [String: Any] = ["state": status.screen.isLit ? "on" : "off", "requested": status.screenRequested.rawValue]
        object["heldByOverride"] = false
        switch status.screen {
        case .on, .off:
            object["wokenByTouch"] = false
            object["wakeEndsInSeconds"] = JSONValue.null
        case .heldByOverride:
            object["wokenByTouch"] = false
            object["wakeEndsInSeconds"] = JSONValue.null
            object["heldByOverride"] = true
        case .wokenByTouch(let until):
            object["wokenByTouch"] = true
            object["wakeEndsInSeconds"] = max(0, (until - now).secondsValue)
        }
        return object
    }
}
