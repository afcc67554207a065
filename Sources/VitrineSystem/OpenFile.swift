import Glibc
import SystemPackage

/// An open file with one owner: the descriptor, the path it was opened with
/// (which every error names), and the calls it goes through. Non-copyable, so
/// that exactly one value holds the descriptor and `close` runs exactly once:
/// when the owner's scope ends, on an error's way out as on success, or at
/// `close()`. A descriptor closed twice could close another thread's newly
/// opened file; one never closed runs the kiosk out of descriptors.
public struct OpenFile: ~Copyable {
    public let descriptor: Int32
    public let path: String
    private let system: SystemCalls

    /// `open(2)`.
    public init(_ path: String, _ flags: Int32, mode: mode_t = 0, system: SystemCalls = .live) throws(SystemError) {
        do {
            descriptor = try system.open(path, flags, mode)
        } catch {
            throw SystemError("open", errno: error, subject: path)
        }
        self.path = path
        self.system = system
    }

    /// Takes ownership of a descriptor another call opened (a DRM lease's,
    /// from `drmModeCreateLease`); `path` names it in errors.
    public init(adopting descriptor: Int32, path: String, system: SystemCalls = .live) {
        self.descriptor = descriptor
        self.path = path
        self.system = system
    }

    deinit {
        system.close(descriptor)
    }

    /// Closes the file now rather than at the end of the owner's scope.
    public consuming func close() {}

    /// `fstat(2)`.
    public func status() throws(SystemError) -> stat {
        var info = stat()
        guard fstat(descriptor, &info) == 0 else { throw SystemError("fstat", subject: path) }
        return info
    }

    /// Reads until `buffer` is full or the file ends (`FileIO.read(_:into:path:system:)`).
    public func read(into buffer: UnsafeMutableRawBufferPointer) throws(SystemError) -> Int {
        try FileIO.read(descriptor, into: buffer, path: path, system: system)
    }

    /// Writes all of `bytes` (`FileIO.writeAll`).
    public func write(_ bytes: [UInt8]) throws(SystemError) {
        try FileIO.writeAll(bytes, to: descriptor, path: path, system: system)
    }

    /// `fsync(2)`, again after EINTR (`FileIO.sync(_:path:system:)`).
    public func sync() throws(SystemError) {
        try FileIO.sync(descriptor, path: path, system: system)
    }

    /// `fdatasync(2)`, again after EINTR.
    public func syncData() throws(SystemError) {
        try FileIO.retryingInterrupts("fdatasync", path: path) { () throws(Errno) in try system.datasync(descriptor) }
    }

    /// `ftruncate(2)`.
    public func truncate(to length: off_t) throws(SystemError) {
        do { try system.truncate(descriptor, length) } catch { throw SystemError("ftruncate", errno: error, subject: path) }
    }
}
