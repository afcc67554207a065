import CLibEvdev
import Glibc
import VitrineCore
import SystemPackage
import VitrineSystem

/// Why an input device cannot be used.
public enum EvdevError: Error, Hashable, Sendable, CustomStringConvertible {
    case open(path: String, errno: Errno)
    case notEvdev(path: String, errno: Errno)
    /// The device was unplugged (ENODEV on read).
    case removed(path: String)
    case read(path: String, errno: Errno)

    public var description: String {
        switch self {
        case .open(let path, let errno):
            let hint = errno == .permissionDenied ? " (add the kiosk's user to the 'input' group)" : ""
            return "\(path): cannot open: \(errno)\(hint)"
        case .notEvdev(let path, let errno): return "\(path): not an evdev device: \(errno)"
        case .removed(let path): return "\(path): device removed"
        case .read(let path, let errno): return "\(path): read failed: \(errno)"
        }
    }
}

/// One open /dev/input/event* device through libevdev (`libevdev_new_from_fd`),
/// freed with `libevdev_free` when the device goes away.
public final class EvdevDevice {
    public let path: String
    public let descriptor: Int32
    public let description: InputDeviceDescription
    private let device: OpaquePointer
    /// Whether the kernel stamps events on CLOCK_MONOTONIC (EVIOCSCLOCKID worked).
    public let hasMonotonicTimestamps: Bool

    /// The event devices in `directory`, in number order.
    public static func devicePaths(in directory: String = "/dev/input") -> [String] {
        guard let handle = opendir(directory) else { return [] }
        defer { closedir(handle) }
        var names: [String] = []
        while let entry = readdir(handle) {
            let name = withUnsafeBytes(of: entry.pointee.d_name) { String(decoding: $0.prefix { $0 != 0 }, as: UTF8.self) }
            if name.hasPrefix("event"), Int(name.dropFirst(5)) != nil { names.append(name) }
        }
        return names.sorted { Int($0.dropFirst(5))! < Int($1.dropFirst(5))! }.map { directory + "/" + $0 }
    }

    public init(path: String) throws(EvdevError) {
        let fd = open(path, O_RDONLY | O_NONBLOCK | O_CLOEXEC)
        guard fd >= 0 else { throw .open(path: path, errno: .lastCall) }
        var device: OpaquePointer?
        let status = libevdev_new_from_fd(fd, &device)
        guard status == 0, let device else {
            close(fd)
            throw .notEvdev(path: path, errno: Errno(rawValue: -status))
        }
        // Event times on the monotonic clock, the one the kiosk schedules by
        // (the kernel's default is the wall clock, which can jump).
        hasMonotonicTimestamps = libevdev_set_clock_id(device, CLOCK_MONOTONIC) == 0
        self.path = path
        self.descriptor = fd
        self.device = device
        self.description = Self.describe(device)
    }

    deinit {
        libevdev_free(device)
        close(descriptor)
    }

    /// Every event waiting on the device (`libevdev_next_event`).
    ///
    /// After the kernel drops events, libevdev reports SYN_DROPPED and then, in
    /// sync mode, the events that bring a reader from its last state to the
    /// device's current one (a lifted finger's tracking ID -1, say). Both are
    /// passed on as they come, SYN_DROPPED first, so `TouchDeviceModel` can
    /// cancel the touch that was in progress and rebuild from the sync.
    public func readEvents() throws(EvdevError) -> [RawInputEvent] {
        var events: [RawInputEvent] = []
        var flags = UInt32(LIBEVDEV_READ_FLAG_NORMAL.rawValue)
        var event = input_event()
        while true {
            let status = libevdev_next_event(device, flags, &event)
            if status == -EAGAIN {
                if flags == UInt32(LIBEVDEV_READ_FLAG_SYNC.rawValue) {
                    flags = UInt32(LIBEVDEV_READ_FLAG_NORMAL.rawValue)
                    continue
                }
                return events
            }
            if status == -ENODEV { throw .removed(path: path) }
            if status < 0 { throw .read(path: path, errno: Errno(rawValue: -status)) }
            if status == Int32(LIBEVDEV_READ_STATUS_SYNC.rawValue) {
                flags = UInt32(LIBEVDEV_READ_FLAG_SYNC.rawValue)
            }
            // Without monotonic kernel stamps, the moment of reading is the best
            // monotonic time there is (wall-clock stamps would jump with NTP).
            let time = hasMonotonicTimestamps
                ? MonotonicInstant(nanoseconds: Int64(event.time.tv_sec) * 1_000_000_000 + Int64(event.time.tv_usec) * 1000)
                : Self.monotonicNow()
            events.append(RawInputEvent(type: event.type, code: event.code, value: event.value, time: time))
        }
    }

    private static func monotonicNow() -> MonotonicInstant {
        var spec = timespec()
        clock_gettime(CLOCK_MONOTONIC, &spec)
        return MonotonicInstant(nanoseconds: Int64(spec.tv_sec) * 1_000_000_000 + Int64(spec.tv_nsec))
    }

    private static func describe(_ device: OpaquePointer) -> InputDeviceDescription {
        let name = libevdev_get_name(device).map { String(cString: $0) } ?? "unnamed"
        var properties = Set<UInt16>()
        for property in 0..<UInt32(INPUT_PROP_CNT) where libevdev_has_property(device, property) == 1 {
            properties.insert(UInt16(property))
        }
        var codes: [UInt16: Set<UInt16>] = [:]
        var axes: [UInt16: AxisRange] = [:]
        for (type, count) in [(UInt32(EV_KEY), UInt32(KEY_CNT)), (UInt32(EV_ABS), UInt32(ABS_CNT))] {
            guard libevdev_has_event_type(device, type) == 1 else { continue }
            for code in 0..<count where libevdev_has_event_code(device, type, code) == 1 {
                codes[UInt16(type), default: []].insert(UInt16(code))
                if type == UInt32(EV_ABS), let info = libevdev_get_abs_info(device, code) {
                    axes[UInt16(code)] = AxisRange(minimum: info.pointee.minimum, maximum: info.pointee.maximum,
                                                   resolution: info.pointee.resolution)
                }
            }
        }
        let identity = InputDeviceIdentity(
            bus: UInt16(truncatingIfNeeded: libevdev_get_id_bustype(device)), vendor: UInt16(truncatingIfNeeded: libevdev_get_id_vendor(device)),
            product: UInt16(truncatingIfNeeded: libevdev_get_id_product(device)), version: UInt16(truncatingIfNeeded: libevdev_get_id_version(device)))
        // libevdev_get_phys: EVIOCGPHYS, NULL when the driver sets no physical path.
        let phys = libevdev_get_phys(device).map { String(cString: $0) }
        return InputDeviceDescription(name: name, identity: identity, physicalPath: phys, properties: properties, codes: codes, axes: axes)
    }
}
