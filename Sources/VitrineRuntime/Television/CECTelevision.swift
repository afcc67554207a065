import Dispatch
import Glibc
import Logging
import VitrineCEC
import VitrineConfig
import VitrineCore
import VitrineSystem

/// The TV on the other end of the HDMI cable, told over HDMI-CEC when the
/// screen goes dark (`<Standby>`) and comes on (`<Image View On>`, `<Active
/// Source>`), and asked how it is (`<Give Device Power Status>`).
///
/// Every CEC call blocks until the bus answers (a reply may take a second), so
/// they run on a thread of this object's own; the display thread only posts
/// the screen's new state (`screenChanged`), which never waits. The retries
/// and what the TV reported are decided by the pure `TVPowerSync`.
public final class CECTelevision: @unchecked Sendable {
    /// For `/api/v1/status` and the metrics.
    public struct Status: Hashable, Sendable {
        /// The adapter in use (/dev/cecN), nil while none is.
        public var adapter: String?
        public var physicalAddress: String?
        public var logicalAddress: Int?
        /// true: the TV should be on; false: in standby; nil: not yet known.
        public var wanted: Bool?
        /// What the TV last reported, nil when it has not answered.
        public var reported: TVPowerStatus?
        /// The TV reported being where it should be (or on its way there).
        public var confirmed = false
        /// Why it is not confirmed, or why no adapter is in use.
        public var problem: String?
        /// Commands (`<Standby>`, `<Image View On>`) the TV acknowledged.
        public var commandsAcknowledged = 0
        /// Commands and questions that did not reach the TV.
        public var deliveryFailures = 0
    }

    /// How long the TV has to answer `<Give Device Power Status>`: the kernel
    /// waits this long for the `<Report Power Status>` reply.
    static let replyTimeout: Duration = .seconds(2)
    /// Between attempts to find or open an adapter.
    static let adapterRetry: Duration = .seconds(10)
    /// What the TV's menus call the kiosk (at most 14 characters).
    static let osdName = "Vitrine"

    private let setting: CECSetting
    private let drmConnector: CECAdapterInfo.DRMConnectorReference?
    /// With `auto`, only the adapter on `drmConnector` (an output group's other than the first).
    private let onConnectorOnly: Bool
    /// The other output groups' connectors, whose adapters are never this TV's.
    private let othersConnectors: [CECAdapterInfo.DRMConnectorReference]
    private let logger: Logger
    private let policy: TVPowerSync.Policy
    private let adapterDirectory: String
    private let mutex = Mutex()
    /// The screen's newest state, posted by the display thread, taken by ours.
    nonisolated(unsafe) private var posted: Bool?
    nonisolated(unsafe) private var published = Status()
    nonisolated(unsafe) private var stopping = false
    private let wakeup = DispatchSemaphore(value: 0)
    private let stopped = DispatchSemaphore(value: 0)

    /// nil for `power.cec: off`. `drmConnector` is the connector the kiosk
    /// drives, to pick its adapter with `auto`; with `onConnectorOnly`, no
    /// other adapter is taken (`CECAdapterChoice`).
    public init?(setting: CECSetting, drmConnector: (card: UInt32, connector: UInt32)?, logger: Logger,
                 policy: TVPowerSync.Policy = TVPowerSync.Policy(), adapterDirectory: String = "/dev",
                 onConnectorOnly: Bool = false, othersConnectors: [(card: UInt32, connector: UInt32)] = []) {
        if case .off = setting { return nil }
        self.setting = setting
        self.onConnectorOnly = onConnectorOnly
        self.othersConnectors = othersConnectors.map { CECAdapterInfo.DRMConnectorReference(card: $0.card, connector: $0.connector) }
        self.drmConnector = drmConnector.map { CECAdapterInfo.DRMConnectorReference(card: $0.card, connector: $0.connector) }
        self.logger = logger
        self.policy = policy
        self.adapterDirectory = adapterDirectory
    }

    /// Starts the CEC thread.
    public func start() {
        var thread = pthread_t()
        let context = Unmanaged.passRetained(self).toOpaque()
        let created = pthread_create(&thread, nil, { context in
            let television = Unmanaged<CECTelevision>.fromOpaque(context!).takeRetainedValue()
            television.run()
            return nil
        }, context)
        if created == 0 {
            pthread_detach(thread)
        } else {
            Unmanaged<CECTelevision>.fromOpaque(context).release()
            logger.error("HDMI-CEC: cannot start its thread: \(String(cString: strerror(created)))")
        }
    }

    /// Ends the thread after its current call, waiting up to `timeout` for it.
    public func stop(timeout: Duration = .seconds(3)) {
        mutex.withLock { stopping = true }
        wakeup.signal()
        _ = stopped.wait(timeout: .now() + .milliseconds(Int(timeout.components.seconds * 1000)))
    }

    /// The screen came on or went dark; from any thread, without waiting.
    public func screenChanged(lit: Bool) {
        mutex.withLock { posted = lit }
        wakeup.signal()
    }

    public var status: Status { mutex.withLock { published } }

    // MARK: The CEC thread

    private struct Link {
        let adapter: CECAdapter
        let info: CECAdapterInfo
        let source: CECLogicalAddress
    }

    private func run() {
        defer { stopped.signal() }
        var sync = TVPowerSync(policy: policy)
        var link: Link?
        var nextAdapterAttempt = MonotonicClock.now()
        var connectProblem: String?
        var counters = (acknowledged: 0, failures: 0)
        var lastLogged: String?
        while true {
            let (want, stop) = mutex.withLock { () -> (Bool?, Bool) in
                defer { posted = nil }
                return (posted, stopping)
            }
            if stop { return }
            var now = MonotonicClock.now()
            if let want {
                sync.want(want, at: now)
                logger.info("HDMI-CEC: the screen is \(want ? "on" : "off"); the TV follows")
            }
            if link == nil, now >= nextAdapterAttempt {
                switch connect() {
                case .success(let connected):
                    link = connected
                    connectProblem = nil
                    logger.notice("HDMI-CEC: using \(connected.info.path) (\(connected.info.driver) \(connected.info.name)), physical address \(connected.info.physicalAddress), logical address \(connected.source)")
                case .failure(let problem):
                    if problem.description != connectProblem {
                        // Most PCs have no CEC adapter at all: worth a line, not a warning.
                        if case .noAdapter = problem { logger.info("HDMI-CEC: \(problem)") } else { logger.warning("HDMI-CEC: \(problem)") }
                    }
                    connectProblem = problem.description
                    nextAdapterAttempt = now + Self.adapterRetry
                }
            }
            if let current = link, let action = sync.due(at: now) {
                do {
                    try perform(action, on: current, sync: &sync, counters: &counters)
                } catch {
                    counters.failures += 1
                    let reason = error.description
                    now = MonotonicClock.now()
                    switch action {
                    case .turnOn, .standby: sync.commandSent(.failed(reason), at: now)
                    case .askPowerStatus: sync.statusAnswered(nil, reason: reason, at: now)
                    }
                    if error.adapterRemoved {
                        link = nil
                        nextAdapterAttempt = now
                    }
                }
            }
            let snapshot = Status(
                adapter: link?.info.path, physicalAddress: link.map { "\($0.info.physicalAddress)" },
                logicalAddress: link.map { Int($0.source.rawValue) }, wanted: sync.wanted, reported: sync.reported,
                confirmed: sync.isConfirmed, problem: link == nil ? connectProblem : sync.problem,
                commandsAcknowledged: counters.acknowledged, deliveryFailures: counters.failures)
            mutex.withLock { published = snapshot }
            if let problem = snapshot.problem, link != nil, problem != lastLogged { logger.warning("HDMI-CEC: \(problem)") }
            lastLogged = snapshot.problem
            // Something else due now: go round again at once.
            if link != nil, sync.due(at: MonotonicClock.now()) != nil { continue }
            let deadlines = [link == nil ? nextAdapterAttempt : nil, link == nil ? nil : sync.nextDeadline].compactMap { $0 }
            if let deadline = deadlines.min() {
                let wait = max(.zero, deadline - MonotonicClock.now())
                _ = wakeup.wait(timeout: .now() + .nanoseconds(Int(wait.nanoseconds)))
            } else {
                wakeup.wait()
            }
        }
    }

    private func perform(_ action: TVPowerSync.Action, on link: Link, sync: inout TVPowerSync,
                         counters: inout (acknowledged: Int, failures: Int)) throws(CECError) {
        switch action {
        case .turnOn, .standby:
            let outcome: CECTransmitOutcome
            if action == .turnOn {
                // Read again: the physical address changes when the cable moves to another input.
                let address = try link.adapter.info().physicalAddress
                outcome = try link.adapter.sendOneTouchPlay(from: link.source, at: address)
            } else {
                outcome = try link.adapter.sendStandby(from: link.source)
            }
            let name = action == .turnOn ? "Image View On and Active Source" : "Standby"
            if outcome == .acknowledged {
                counters.acknowledged += 1
                logger.info("HDMI-CEC: \(name) sent to the TV, acknowledged")
                sync.commandSent(.delivered, at: MonotonicClock.now())
            } else {
                counters.failures += 1
                sync.commandSent(.failed("\(name) not delivered: \(Self.describe(outcome))"), at: MonotonicClock.now())
            }
        case .askPowerStatus:
            let before = sync.reported
            let (outcome, status) = try link.adapter.requestTVPowerStatus(from: link.source, timeout: Self.replyTimeout)
            if status == nil { counters.failures += 1 }
            let reason = outcome == .acknowledged ? "the TV did not report its power status" : "Give Device Power Status not delivered: \(Self.describe(outcome))"
            sync.statusAnswered(status, reason: reason, at: MonotonicClock.now())
            if let status, status != before { logger.notice("HDMI-CEC: the TV reports \(status.rawValue)") }
        }
    }

    private static func describe(_ outcome: CECTransmitOutcome) -> String {
        switch outcome {
        case .acknowledged: return "acknowledged"
        case .notAcknowledged: return "nobody acknowledged it (no TV at logical address 0?)"
        case .busError(let reason): return reason
        }
    }

    private enum ConnectProblem: Error, CustomStringConvertible {
        case noAdapter
        case cannotTransmit(String)
        case kernel(CECError)
        case noLogicalAddress(String)

        var description: String {
            switch self {
            case .noAdapter: return "no CEC adapter that can reach a TV (/dev/cec*): the TV is not told of screen changes"
            case .cannotTransmit(let path): return "\(path) cannot transmit (a monitor-only adapter)"
            case .kernel(let error): return "\(error)"
            case .noLogicalAddress(let path): return "\(path) has no logical address yet (no HDMI display connected?)"
            }
        }
    }

    /// Opens the configured adapter, or the one `auto` chooses, and claims a
    /// playback device's logical address on it.
    private func connect() -> Result<Link, ConnectProblem> {
        let path: String
        switch setting {
        case .off:
            return .failure(.noAdapter)
        case .adapter(let configured):
            path = configured
        case .auto:
            let infos = CECAdapter.adapterPaths(in: adapterDirectory).compactMap { path -> CECAdapterInfo? in
                guard let adapter = try? CECAdapter(path: path) else { return nil }
                return try? adapter.info()
            }
            guard let chosen = CECAdapterChoice.choose(from: infos, drmConnector: drmConnector, onConnectorOnly: onConnectorOnly,
                                                        othersConnectors: othersConnectors) else { return .failure(.noAdapter) }
            path = chosen.path
        }
        do throws(CECError) {
            let adapter = try CECAdapter(path: path)
            let info = try adapter.info()
            guard info.canTransmit else { return .failure(.cannotTransmit(path)) }
            guard let source = try adapter.claimPlaybackAddress(osdName: Self.osdName) else { return .failure(.noLogicalAddress(path)) }
            return .success(Link(adapter: adapter, info: info, source: source))
        } catch {
            return .failure(.kernel(error))
        }
    }
}
