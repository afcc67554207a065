import Glibc

/// A file's bytes mapped read-only (`mmap` with `PROT_READ`, `MAP_PRIVATE`),
/// unmapped (`munmap`) when the last reference goes.
///
/// For decoding a picture that is already on disk (an upload staged while it
/// arrived) without copying it into the heap: the pages are the page cache's,
/// which the kernel can drop and read again under memory pressure, so a 50 MB
/// upload does not add 50 MB of anonymous memory to the kiosk.
///
/// The file must not be truncated while it is mapped (a read past the new end
/// is SIGBUS): map only files this process owns, such as a staging file.
public final class MappedFile: @unchecked Sendable {
    public let path: String
    /// Immutable after `init`; the mapping lives until `deinit`.
    private let base: UnsafeRawPointer?
    public let count: Int

    /// Maps all of `path`. An empty file maps to an empty buffer (`mmap` refuses length 0).
    public convenience init(_ path: String) throws(SystemError) {
        let fd = open(path, O_RDONLY | O_CLOEXEC)
        guard fd >= 0 else { throw SystemError("open", subject: path) }
        // The mapping keeps the file; the descriptor is not needed once it exists.
        defer { close(fd) }
        try self.init(descriptor: fd, path: path)
    }

    /// Maps all of the open file `fd` (which stays the caller's to close):
    /// a picture handed to a sandboxed decoder, which may open nothing.
    /// `path` names it in errors.
    public init(descriptor fd: Int32, path: String) throws(SystemError) {
        self.path = path
        var info = stat()
        guard fstat(fd, &info) == 0 else { throw SystemError("fstat", subject: path) }
        count = Int(info.st_size)
        guard count > 0 else {
            base = nil
            return
        }
        let mapped = mmap(nil, count, PROT_READ, MAP_PRIVATE, fd, 0)
        guard let mapped, mapped != MAP_FAILED else { throw SystemError("mmap", subject: path) }
        base = UnsafeRawPointer(mapped)
    }

    deinit {
        if let base { munmap(UnsafeMutableRawPointer(mutating: base), count) }
    }

    /// The mapped bytes, valid while `self` is alive: hold the `MappedFile` for as
    /// long as anything keeps the pointer.
    public var bytes: UnsafeRawBufferPointer { UnsafeRawBufferPointer(start: base, count: count) }
}
