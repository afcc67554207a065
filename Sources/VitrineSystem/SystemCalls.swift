import Glibc
public import SystemPackage

/// The file system calls that `FileIO` and the play log make, one closure per
/// call, so that a test can stand between the code and the kernel
/// (`SystemCallFaults`) and make a call fail as a full disk, a dying SD card
/// or a signal would.
///
/// Each closure makes exactly one call and throws its `errno`: `EINTR` comes
/// back as `Errno.interrupted`, and retrying is the caller's decision, made
/// where the caller can say why.
public struct SystemCalls: Sendable {
    /// `open(2)`; returns the descriptor.
    public var open: @Sendable (_ path: String, _ flags: Int32, _ mode: mode_t) throws(Errno) -> Int32
    /// One `read(2)` into the buffer; returns the bytes read, 0 at the end of the file.
    public var read: @Sendable (_ fd: Int32, _ buffer: UnsafeMutableRawBufferPointer) throws(Errno) -> Int
    /// One `write(2)` of the buffer; returns the bytes written, which may be fewer.
    public var write: @Sendable (_ fd: Int32, _ buffer: UnsafeRawBufferPointer) throws(Errno) -> Int
    /// `fsync(2)`.
    public var fsync: @Sendable (_ fd: Int32) throws(Errno) -> Void
    /// `fdatasync(2)`: the data, and only the metadata needed to read it back.
    public var datasync: @Sendable (_ fd: Int32) throws(Errno) -> Void
    /// `ftruncate(2)`.
    public var truncate: @Sendable (_ fd: Int32, _ length: off_t) throws(Errno) -> Void
    /// `rename(2)`.
    public var rename: @Sendable (_ from: String, _ to: String) throws(Errno) -> Void
    /// `unlink(2)`.
    public var unlink: @Sendable (_ path: String) throws(Errno) -> Void
    /// `close(2)`. Linux releases the descriptor even when close fails (and
    /// retrying could close another thread's new descriptor), so there is
    /// nothing to throw: a failed write-back shows up at `fsync`, which every
    /// durable write calls first.
    public var close: @Sendable (_ fd: Int32) -> Void

    public init(
        open: @escaping @Sendable (String, Int32, mode_t) throws(Errno) -> Int32,
        read: @escaping @Sendable (Int32, UnsafeMutableRawBufferPointer) throws(Errno) -> Int,
        write: @escaping @Sendable (Int32, UnsafeRawBufferPointer) throws(Errno) -> Int,
        fsync: @escaping @Sendable (Int32) throws(Errno) -> Void,
        datasync: @escaping @Sendable (Int32) throws(Errno) -> Void,
        truncate: @escaping @Sendable (Int32, off_t) throws(Errno) -> Void,
        rename: @escaping @Sendable (String, String) throws(Errno) -> Void,
        unlink: @escaping @Sendable (String) throws(Errno) -> Void,
        close: @escaping @Sendable (Int32) -> Void
    ) {
        self.open = open
        self.read = read
        self.write = write
        self.fsync = fsync
        self.datasync = datasync
        self.truncate = truncate
        self.rename = rename
        self.unlink = unlink
        self.close = close
    }

    /// The kernel's own calls, through Glibc.
    public static let live = SystemCalls(
        open: { (path, flags, mode) throws(Errno) in
            let fd = Glibc.open(path, flags, mode)
            guard fd >= 0 else { throw .lastCall }
            return fd
        },
        read: { (fd, buffer) throws(Errno) in
            let count = Glibc.read(fd, buffer.baseAddress, buffer.count)
            guard count >= 0 else { throw .lastCall }
            return count
        },
        write: { (fd, buffer) throws(Errno) in
            let count = Glibc.write(fd, buffer.baseAddress, buffer.count)
            guard count >= 0 else { throw .lastCall }
            return count
        },
        fsync: { fd throws(Errno) in
            guard Glibc.fsync(fd) == 0 else { throw .lastCall }
        },
        datasync: { fd throws(Errno) in
            guard Glibc.fdatasync(fd) == 0 else { throw .lastCall }
        },
        truncate: { (fd, length) throws(Errno) in
            guard Glibc.ftruncate(fd, length) == 0 else { throw .lastCall }
        },
        rename: { (from, to) throws(Errno) in
            guard Glibc.rename(from, to) == 0 else { throw .lastCall }
        },
        unlink: { path throws(Errno) in
            guard Glibc.unlink(path) == 0 else { throw .lastCall }
        },
        close: { fd in _ = Glibc.close(fd) }
    )
}
