import Glibc
import SystemPackage

/// Why the kernel's CEC interface refused: every failing `open` or `ioctl` of
/// this module becomes one of these, with the device and the call named.
public struct CECError: Error, Hashable, Sendable, CustomStringConvertible {
    public enum Operation: String, Hashable, Sendable {
        case open
        case capabilities = "CEC_ADAP_G_CAPS"
        case physicalAddress = "CEC_ADAP_G_PHYS_ADDR"
        case logicalAddresses = "CEC_ADAP_G_LOG_ADDRS"
        case claim = "CEC_ADAP_S_LOG_ADDRS"
        case connector = "CEC_ADAP_G_CONNECTOR_INFO"
        case transmit = "CEC_TRANSMIT"
    }

    public let path: String
    public let operation: Operation
    public let errno: Errno

    public init(path: String, operation: Operation, errno: Errno) {
        self.path = path
        self.operation = operation
        self.errno = errno
    }

    /// The adapter went away (an unplugged USB-CEC dongle, a driver unbound): reopen it.
    public var adapterRemoved: Bool { errno == .operationNotSupportedByDevice }

    /// ENONET, which swift-system's `Errno` does not name (it is Linux's alone).
    public static let noNetwork = Errno(rawValue: ENONET)

    public var description: String {
        let reason: String
        switch (operation, errno) {
        case (.open, .permissionDenied): reason = "permission denied; add the kiosk's user to the 'video' group"
        case (.open, .noSuchFileOrDirectory): reason = "no such CEC adapter"
        case (_, .operationNotSupportedByDevice): reason = "the adapter was removed"
        // ENONET: no logical address is claimed, which the kernel does only
        // while the adapter has a physical address, that is while the HDMI
        // sink (the TV) is connected and its EDID read.
        case (.transmit, Self.noNetwork): reason = "no logical address claimed (is an HDMI display connected?)"
        case (.claim, .resourceBusy): reason = "another process configured this adapter"
        case (.transmit, .resourceBusy): reason = "the adapter is busy"
        default: reason = errno.description
        }
        return operation == .open ? "\(path): \(reason)" : "\(path): \(operation.rawValue): \(reason)"
    }
}
