/// `GET /healthz`'s answer: `components/schemas/Health` in docs/api/openapi.yaml.
public struct HealthBody: Codable, Hashable, Sendable {
    public enum State: String, Codable, Hashable, Sendable { case ok, stalled }

    /// Whether every display thread answered.
    public var status: State
    /// Milliseconds the slowest display thread took to answer; when stalled, how long the server waited.
    public var displayAnswerMs: Int
    /// Each output group's display thread, with several (left out with one).
    public var outputs: [OutputHealthBody]?
    /// Why the kiosk is not healthy; only when stalled (left out otherwise).
    public var message: String?

    public init(status: State, displayAnswerMs: Int, outputs: [OutputHealthBody]? = nil, message: String? = nil) {
        self.status = status
        self.displayAnswerMs = displayAnswerMs
        self.outputs = outputs
        self.message = message
    }
}

/// One output group's display thread in `HealthBody`: `components/schemas/OutputHealth`.
public struct OutputHealthBody: Codable, Hashable, Sendable {
    /// The group's name, its leading output's connector, for a caller with the
    /// token; its number in group order (from 1) for anyone else.
    public var output: String
    public var status: HealthBody.State
    /// Milliseconds its display thread took to answer; when stalled, how long the server waited.
    public var displayAnswerMs: Int

    public init(output: String, status: HealthBody.State, displayAnswerMs: Int) {
        self.output = output
        self.status = status
        self.displayAnswerMs = displayAnswerMs
    }
}
