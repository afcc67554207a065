import CLinuxCEC
import Glibc
import VitrineCore
import SystemPackage
import VitrineSystem

/// What an adapter is and where it sits, read with `CEC_ADAP_G_CAPS`,
/// `CEC_ADAP_G_PHYS_ADDR` and `CEC_ADAP_G_CONNECTOR_INFO`.
public struct CECAdapterInfo: Hashable, Sendable {
    public var path: String
    /// The kernel driver (vc4_hdmi on a Raspberry Pi, vivid in the tests).
    public var driver: String
    public var name: String
    public var physicalAddress: CECPhysicalAddress
    /// Whether it can claim logical addresses and transmit (not a monitor-only adapter).
    public var canTransmit: Bool
    /// The DRM connector this adapter belongs to, when the driver says (`CEC_CAP_CONNECTOR_INFO`).
    public var drmConnector: DRMConnectorReference?

    /// /dev/dri/card`card`'s connector `connector` (its KMS object id).
    public struct DRMConnectorReference: Hashable, Sendable {
        public var card: UInt32
        public var connector: UInt32

        public init(card: UInt32, connector: UInt32) {
            self.card = card
            self.connector = connector
        }
    }

    public init(path: String, driver: String, name: String, physicalAddress: CECPhysicalAddress, canTransmit: Bool) {
        self.path = path
        self.driver = driver
        self.name = name
        self.physicalAddress = physicalAddress
        self.canTransmit = canTransmit
    }
}

/// A device's logical address on the CEC bus (0 is the TV, 4 the first playback device, 15 broadcast).
public struct CECLogicalAddress: Hashable, Sendable, CustomStringConvertible {
    public let rawValue: UInt8
    public init(rawValue: UInt8) { self.rawValue = rawValue }
    public static let tv = CECLogicalAddress(rawValue: 0)
    public static let broadcast = CECLogicalAddress(rawValue: 15)
    public var description: String { "\(rawValue)" }
}

/// How a transmission went on the bus (`cec_msg.tx_status`, and `rx_status` for a reply).
public enum CECTransmitOutcome: Hashable, Sendable {
    /// The destination acknowledged the message (a broadcast always is).
    case acknowledged
    /// Nobody acknowledged: no device at that logical address, or one that is
    /// deep asleep. Real TVs do this now and then; the caller retries.
    case notAcknowledged
    /// Lost arbitration, a low drive or another bus error after the kernel's own retries.
    case busError(String)
}

/// One open CEC adapter (/dev/cecN): the kernel's CEC API, which `cec-ctl` uses,
/// in the adapter's blocking mode. Each call waits for the bus, so the owner
/// calls it from a thread of its own, never the display thread. The descriptor
/// is closed when the adapter is released.
public final class CECAdapter {
    public let path: String
    private let descriptor: Int32

    /// The adapters the kernel has, in number order (/dev/cec0, /dev/cec1, ...).
    public static func adapterPaths(in directory: String = "/dev") -> [String] {
        guard let handle = opendir(directory) else { return [] }
        defer { closedir(handle) }
        var numbers: [Int] = []
        while let entry = readdir(handle) {
            let name = withUnsafeBytes(of: entry.pointee.d_name) { String(decoding: $0.prefix { $0 != 0 }, as: UTF8.self) }
            if name.hasPrefix("cec"), let number = Int(name.dropFirst(3)) { numbers.append(number) }
        }
        return numbers.sorted().map { "\(directory)/cec\($0)" }
    }

    /// Opens the adapter (`open(2)`, read-write, blocking).
    public init(path: String) throws(CECError) {
        let fd = open(path, O_RDWR | O_CLOEXEC)
        guard fd >= 0 else { throw CECError(path: path, operation: .open, errno: .lastCall) }
        self.path = path
        self.descriptor = fd
    }

    deinit { close(descriptor) }

    /// `CEC_ADAP_G_CAPS`, `CEC_ADAP_G_PHYS_ADDR`, and `CEC_ADAP_G_CONNECTOR_INFO` where the driver has it.
    public func info() throws(CECError) -> CECAdapterInfo {
        var caps = cec_caps()
        try check(.capabilities, vitrine_cec_get_caps(descriptor, &caps))
        var address: UInt16 = 0
        try check(.physicalAddress, vitrine_cec_get_phys_addr(descriptor, &address))
        let driver = withUnsafeBytes(of: caps.driver) { String(decoding: $0.prefix { $0 != 0 }, as: UTF8.self) }
        let name = withUnsafeBytes(of: caps.name) { String(decoding: $0.prefix { $0 != 0 }, as: UTF8.self) }
        let needed = UInt32(CEC_CAP_LOG_ADDRS | CEC_CAP_TRANSMIT)
        var info = CECAdapterInfo(path: path, driver: driver, name: name, physicalAddress: CECPhysicalAddress(rawValue: address),
                                  canTransmit: caps.capabilities & needed == needed)
        if caps.capabilities & UInt32(CEC_CAP_CONNECTOR_INFO) != 0 {
            var connector = cec_connector_info()
            if vitrine_cec_get_connector_info(descriptor, &connector) == 0, connector.type == UInt32(CEC_CONNECTOR_TYPE_DRM) {
                info.drmConnector = .init(card: connector.drm.card_no, connector: connector.drm.connector_id)
            }
        }
        return info
    }

    /// Claims a playback device's logical address (`CEC_ADAP_S_LOG_ADDRS`),
    /// named `osdName` on the TV's menus. An adapter that already has
    /// addresses (claimed by the firmware, or by `cec-ctl`) is used as it is:
    /// the kernel refuses a second configuration with EBUSY.
    /// Returns the logical address to send from, nil while none is claimed yet
    /// (no physical address: the kernel claims one once the TV is connected).
    @discardableResult
    public func claimPlaybackAddress(osdName: String) throws(CECError) -> CECLogicalAddress? {
        var current = cec_log_addrs()
        try check(.logicalAddresses, vitrine_cec_get_log_addrs(descriptor, &current))
        if current.num_log_addrs == 0 {
            var wanted = cec_log_addrs()
            wanted.cec_version = UInt8(CEC_OP_CEC_VERSION_1_4)
            wanted.vendor_id = CEC_VENDOR_ID_NONE
            wanted.num_log_addrs = 1
            wanted.log_addr_type.0 = UInt8(CEC_LOG_ADDR_TYPE_PLAYBACK)
            wanted.primary_device_type.0 = UInt8(CEC_OP_PRIM_DEVTYPE_PLAYBACK)
            wanted.all_device_types.0 = UInt8(CEC_OP_ALL_DEVTYPE_PLAYBACK)
            withUnsafeMutableBytes(of: &wanted.osd_name) { buffer in
                // At most 14 characters and a terminating zero, as the kernel requires.
                for (index, byte) in osdName.utf8.prefix(buffer.count - 1).enumerated() { buffer[index] = byte }
            }
            // In blocking mode this returns once the bus was polled for a free address.
            if vitrine_cec_set_log_addrs(descriptor, &wanted) != 0 {
                let error = Errno.lastCall
                guard error == .resourceBusy else { throw CECError(path: path, operation: .claim, errno: error) }
            }
            try check(.logicalAddresses, vitrine_cec_get_log_addrs(descriptor, &current))
        }
        let claimed = current.log_addr.0
        return claimed == UInt8(CEC_LOG_ADDR_INVALID) || current.log_addr_mask == 0 ? nil : CECLogicalAddress(rawValue: claimed)
    }

    /// Sends `<Standby>` to the TV (`CEC_TRANSMIT`).
    public func sendStandby(from source: CECLogicalAddress) throws(CECError) -> CECTransmitOutcome {
        var message = cec_msg()
        cec_msg_init(&message, source.rawValue, CECLogicalAddress.tv.rawValue)
        cec_msg_standby(&message)
        return try transmit(&message)
    }

    /// One Touch Play: `<Image View On>` to the TV, which wakes it, then
    /// `<Active Source>` broadcast with our physical address, which switches it
    /// to our input. The outcome is the TV's answer to the first.
    public func sendOneTouchPlay(from source: CECLogicalAddress, at address: CECPhysicalAddress) throws(CECError) -> CECTransmitOutcome {
        var wake = cec_msg()
        cec_msg_init(&wake, source.rawValue, CECLogicalAddress.tv.rawValue)
        cec_msg_image_view_on(&wake)
        let outcome = try transmit(&wake)
        guard outcome == .acknowledged else { return outcome }
        var active = cec_msg()
        cec_msg_init(&active, source.rawValue, CECLogicalAddress.broadcast.rawValue)
        cec_msg_active_source(&active, address.rawValue)
        _ = try transmit(&active)
        return outcome
    }

    /// `<Give Device Power Status>` to the TV, waiting up to `timeout` for its
    /// `<Report Power Status>` (the kernel matches the reply). nil when the TV
    /// acknowledged but did not answer in time, or refused with `<Feature Abort>`.
    public func requestTVPowerStatus(from source: CECLogicalAddress, timeout: Duration) throws(CECError)
        -> (outcome: CECTransmitOutcome, status: TVPowerStatus?) {
        var message = cec_msg()
        cec_msg_init(&message, source.rawValue, CECLogicalAddress.tv.rawValue)
        cec_msg_give_device_power_status(&message, 1)
        let (seconds, attoseconds) = timeout.components
        message.timeout = UInt32(max(1, min(60_000, seconds * 1000 + attoseconds / 1_000_000_000_000_000)))
        let outcome = try transmit(&message)
        guard outcome == .acknowledged, message.rx_status & UInt8(CEC_RX_STATUS_OK) != 0,
              message.rx_status & UInt8(CEC_RX_STATUS_FEATURE_ABORT) == 0 else { return (outcome, nil) }
        var reported: UInt8 = 0
        cec_ops_report_power_status(&message, &reported)
        return (outcome, TVPowerStatus(cecPowerStatus: reported))
    }

    private func transmit(_ message: inout cec_msg) throws(CECError) -> CECTransmitOutcome {
        try check(.transmit, vitrine_cec_transmit(descriptor, &message))
        let status = message.tx_status
        if status & UInt8(CEC_TX_STATUS_OK) != 0 { return .acknowledged }
        if status & UInt8(CEC_TX_STATUS_NACK) != 0 { return .notAcknowledged }
        var reasons: [String] = []
        if status & UInt8(CEC_TX_STATUS_ARB_LOST) != 0 { reasons.append("arbitration lost") }
        if status & UInt8(CEC_TX_STATUS_LOW_DRIVE) != 0 { reasons.append("low drive") }
        if status & UInt8(CEC_TX_STATUS_ERROR) != 0 { reasons.append("bus error") }
        if status & UInt8(CEC_TX_STATUS_TIMEOUT) != 0 { reasons.append("timeout") }
        if status & UInt8(CEC_TX_STATUS_ABORTED) != 0 { reasons.append("aborted") }
        return .busError(reasons.isEmpty ? "tx_status 0x\(String(status, radix: 16))" : reasons.joined(separator: ", "))
    }

    private func check(_ operation: CECError.Operation, _ result: Int32) throws(CECError) {
        if result != 0 { throw CECError(path: path, operation: operation, errno: .lastCall) }
    }
}

extension TVPowerStatus {
    /// The operand of `<Report Power Status>` (CEC_OP_POWER_STATUS_*).
    init?(cecPowerStatus: UInt8) {
        switch Int32(cecPowerStatus) {
        case CEC_OP_POWER_STATUS_ON: self = .on
        case CEC_OP_POWER_STATUS_STANDBY: self = .standby
        case CEC_OP_POWER_STATUS_TO_ON: self = .turningOn
        case CEC_OP_POWER_STATUS_TO_STANDBY: self = .turningToStandby
        default: return nil
        }
    }
}
