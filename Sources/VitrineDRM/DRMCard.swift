import CLibDRM
import VitrineCore
import Glibc
import SystemPackage
import VitrineSystem

/// One open DRM card (`/dev/dri/cardN`): the file descriptor, an `OpenFile`
/// closed exactly once when the card goes away, and the queries that need no
/// modeset.
public final class DRMCard {
    public let path: String
    private let file: OpenFile
    /// For a lease's card, the card it was leased from, kept open while this one is.
    private let lessor: DRMCard?
    /// The card's descriptor, for libdrm's calls; it stays open as long as the card.
    public var descriptor: Int32 { file.descriptor }
    /// The kernel driver: `bochs-drm`, `virtio_gpu`, `vc4`.
    public let driver: String

    /// The card devices in `directory`, in number order.
    public static func cardPaths(in directory: String = "/dev/dri") -> [String] {
        guard let handle = opendir(directory) else { return [] }
        defer { closedir(handle) }
        var names: [String] = []
        while let entry = readdir(handle) {
            let name = withUnsafeBytes(of: entry.pointee.d_name) { String(decoding: $0.prefix { $0 != 0 }, as: UTF8.self) }
            if name.hasPrefix("card"), Int(name.dropFirst(4)) != nil { names.append(name) }
        }
        return names.sorted { Int($0.dropFirst(4))! < Int($1.dropFirst(4))! }.map { directory + "/" + $0 }
    }

    /// Opens the card read-write (`open`, then `drmGetVersion` for the driver name).
    public init(path: String) throws(DRMError) {
        let file: OpenFile
        do {
            file = try OpenFile(path, O_RDWR | O_CLOEXEC)
        } catch {
            if error.errno == .permissionDenied || error.errno == .notPermitted {
                throw .permissionDenied(path: path, group: Self.groupName(of: path))
            }
            throw .call("open", errno: error.errno, subject: path)
        }
        if let version = drmGetVersion(file.descriptor) {
            driver = version.pointee.name.map { String(cString: $0) } ?? "unknown"
            drmFreeVersion(version)
        } else {
            driver = "unknown"
        }
        self.path = path
        self.file = file
        lessor = nil
    }

    /// A card over a descriptor this process already holds: a DRM lease's
    /// (`DRMOutputLease`), whose objects are all it sees, holding the card it
    /// was leased from open (the lease is revoked when that closes).
    init(adopting file: consuming OpenFile, driver: String, lessor: DRMCard) {
        path = file.path
        self.driver = driver
        self.file = file
        self.lessor = lessor
    }

    /// The device number of the open card (`fstat`), as the kernel's uevents
    /// name it in `MAJOR` and `MINOR`; nil if `fstat` fails.
    public var deviceNumber: (major: UInt32, minor: UInt32)? {
        var info = stat()
        guard fstat(descriptor, &info) == 0 else { return nil }
        // glibc's major()/minor() are macros Swift cannot import; this is their encoding.
        let device = UInt64(info.st_rdev)
        let major = ((device >> 8) & 0xFFF) | ((device >> 32) & ~UInt64(0xFFF))
        let minor = (device & 0xFF) | ((device >> 12) & ~UInt64(0xFF))
        return (UInt32(truncatingIfNeeded: major), UInt32(truncatingIfNeeded: minor))
    }

    /// Whether the driver can allocate CPU-mapped scanout buffers (`DRM_CAP_DUMB_BUFFER`).
    public var supportsDumbBuffers: Bool { capability(UInt64(DRM_CAP_DUMB_BUFFER)) != 0 }

    /// Whether flip events carry CLOCK_MONOTONIC timestamps (`DRM_CAP_TIMESTAMP_MONOTONIC`).
    public var hasMonotonicTimestamps: Bool { capability(UInt64(DRM_CAP_TIMESTAMP_MONOTONIC)) != 0 }

    private func capability(_ capability: UInt64) -> UInt64 {
        var value: UInt64 = 0
        return drmGetCap(descriptor, capability, &value) == 0 ? value : 0
    }

    /// Asks for universal planes and atomic modesetting (`drmSetClientCap`);
    /// false when the driver has no atomic support.
    public func enableAtomic() -> Bool {
        enableUniversalPlanes() && drmSetClientCap(descriptor, UInt64(DRM_CLIENT_CAP_ATOMIC), 1) == 0
    }

    /// Becomes DRM master if nobody else is (`drmIsMaster`, `drmSetMaster`).
    public func acquireMaster() throws(DRMError) {
        if drmIsMaster(descriptor) != 0 { return }
        guard drmSetMaster(descriptor) == 0 else { throw .masterHeld(path: path) }
    }

    /// Every connector, probed (`drmModeGetResources`, `drmModeGetConnector`);
    /// with `probing: false`, as the kernel last saw it
    /// (`drmModeGetConnectorCurrent`: no EDID read, no DDC traffic).
    public func connectors(probing: Bool = true) throws(DRMError) -> [DRMConnector] {
        try withResources { resources in
            (0..<Int(resources.count_connectors)).compactMap { index in
                let id = resources.connectors[index]
                guard let connector = probing ? drmModeGetConnector(descriptor, id) : drmModeGetConnectorCurrent(descriptor, id)
                else { return nil }
                defer { drmModeFreeConnector(connector) }
                return DRMConnector(connector.pointee)
            }
        }
    }

    /// The smallest framebuffer the card takes (`drmModeGetResources`'s
    /// `min_width` and `min_height`: VKMS refuses one under 20x20): a small
    /// layer, the page dots, gets a buffer at least this large and shows part of it.
    public func minimumFramebufferSize() throws(DRMError) -> PixelSize {
        try withResources { resources in PixelSize(width: Int(resources.min_width), height: Int(resources.min_height)) }
    }

    func withResources<T>(_ body: (drmModeRes) throws(DRMError) -> T) throws(DRMError) -> T {
        guard let resources = drmModeGetResources(descriptor) else {
            throw .unsupported(card: path, reason: "not a KMS device (drmModeGetResources: \(Errno.lastCall))")
        }
        defer { drmModeFreeResources(resources) }
        return try body(resources.pointee)
    }

    static func groupName(of path: String) -> String? {
        var info = stat()
        guard stat(path, &info) == 0, let group = getgrgid(info.st_gid) else { return nil }
        return String(cString: group.pointee.gr_name)
    }
}
