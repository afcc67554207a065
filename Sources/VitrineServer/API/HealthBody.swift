/// `GET /healthz`'s answer: `components/schemas/Health` in docs/api/openapi.yaml.
public struct HealthBody: Codable, Hashable, Sendable {
    public enum State: String, Codable, Hashable, Sendable { case ok, stalled }

    /// Whether the display thread answered.
    public var status: State
    /// Milliseconds the display thread took to answer; when stalled, how long the server waited.
    public var displayAnswerMs: Int
    /// Why the kiosk is not healthy; only when stalled (left out otherwise).
    public var message: String?

    public init(status: State, displayAnswerMs: Int, message: String? = nil) {
        self.status = status
        self.displayAnswerMs = displayAnswerMs
        self.message = message
    }
}
