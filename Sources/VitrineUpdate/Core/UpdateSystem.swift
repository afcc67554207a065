/// What the update helper does to the board, one step a method, so that the
/// procedure (`UpdateProcedure`) is tested against a fake board and run
/// against a real one (`DebianUpdateSystem`).
public protocol UpdateSystem {
    /// The installed `vitrine` version (`dpkg-query`), nil when none is.
    func installedVersion() throws(UpdateStepError) -> String?
    /// The package lists of Vitrine's apt source alone, fetched again.
    func refreshIndex() throws(UpdateStepError)
    /// Every `vitrine` version the signed repository offers.
    func offeredVersions() throws(UpdateStepError) -> [String]
    /// The apt pin that holds `vitrine` at `version`; nil removes it.
    func pin(_ version: String?) throws(UpdateStepError)
    func stopKiosk() throws(UpdateStepError)
    /// The kiosk started again on what is installed, after a step failed with it stopped.
    func startKiosk() throws(UpdateStepError)
    /// The kiosk's state directory copied aside, the one copy replacing any earlier one.
    func snapshotState() throws(UpdateStepError)
    /// The copy put back in place of the state directory.
    func restoreState() throws(UpdateStepError)
    func dropSnapshot()
    /// `apt-get install vitrine=VERSION`, a downgrade allowed.
    func install(_ version: String) throws(UpdateStepError)
    /// `vitrine.service` as systemd sees it now.
    func sample() -> ServiceHealthWatch.Sample
    /// Monotonic time, for the health watch.
    func now() -> Duration
    func sleep(_ duration: Duration)
}

/// A step of an update that failed, and what the tool said.
public struct UpdateStepError: Error, Equatable, Sendable, CustomStringConvertible {
    public var step: String
    public var message: String

    public init(step: String, message: String) {
        self.step = step
        self.message = message
    }

    public var description: String { "\(step): \(message)" }
}
