/// `POST /api/v1/reboot`'s answer: the board is to reboot, after this many
/// seconds (`vitrine-reboot.service` waits so that this answer reaches the caller).
public struct RebootAccepted: Codable, Hashable, Sendable {
    public var rebooting: Bool
    public var afterSeconds: Int

    public init(afterSeconds: Int) {
        rebooting = true
        self.afterSeconds = afterSeconds
    }
}
