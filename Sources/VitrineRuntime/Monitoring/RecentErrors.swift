/// The newest errors for the status, oldest first: at most `KioskStatus.errorLimit`,
/// so a picture that keeps failing cannot grow the process.
struct RecentErrors {
    private(set) var messages: [String] = []
    let limit: Int

    init(limit: Int = KioskStatus.errorLimit) {
        self.limit = limit
    }

    mutating func append(_ message: String) {
        messages.append(message)
        if messages.count > limit { messages.removeFirst(messages.count - limit) }
    }
}
