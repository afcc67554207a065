import Glibc
import VitrineCore

/// File reading and crash-safe writing with plain POSIX calls, so every failure
/// carries its errno.
public enum FileIO {
    /// Reads a whole file, refusing files larger than `limit` bytes.
    public static func read(_ path: String, limit: Int = 256 << 20) throws(SystemError) -> [UInt8] {
        let fd = open(path, O_RDONLY | O_CLOEXEC)
        guard fd >= 0 else { throw SystemError("open", subject: path) }
        defer { close(fd) }
        var info = stat()
        guard fstat(fd, &info) == 0 else { throw SystemError("fstat", subject: path) }
        if (info.st_mode & S_IFMT) == S_IFDIR { throw SystemError("read", errno: EISDIR, subject: path) }
        guard Int(info.st_size) <= limit else { throw SystemError("read", errno: EFBIG, subject: path) }
        // procfs and sysfs files report a size of 0: read those until end of file.
        var bytes = [UInt8](repeating: 0, count: info.st_size > 0 ? Int(info.st_size) : 4096)
        var filled = 0
        while true {
            let result = bytes.withUnsafeMutableBytes { buffer in
                Result { () throws(SystemError) in try read(fd, into: UnsafeMutableRawBufferPointer(rebasing: buffer[filled...]), path: path) }
            }
            filled += try result.get()
            // Short of the buffer is the end of the file (or the file shrank while we read it).
            guard filled == bytes.count, info.st_size == 0, bytes.count < limit else { break }
            bytes.append(contentsOf: repeatElement(0, count: bytes.count))
        }
        return filled == bytes.count ? bytes : Array(bytes.prefix(filled))
    }

    /// Reads from the open file `fd` until `buffer` is full or the file ends;
    /// returns how many bytes it read. `path` names the file in errors.
    public static func read(_ fd: Int32, into buffer: UnsafeMutableRawBufferPointer, path: String) throws(SystemError) -> Int {
        var filled = 0
        while filled < buffer.count {
            let count = Glibc.read(fd, buffer.baseAddress! + filled, buffer.count - filled)
            if count < 0 {
                if errno == EINTR { continue }
                throw SystemError("read", subject: path)
            }
            if count == 0 { break }
            filled += count
        }
        return filled
    }

    /// Replaces `path` with `bytes` so that a crash or power cut leaves either the
    /// old file or the new one, never a torn one: write a temporary file in the
    /// same directory, fsync it, rename it over the target, then fsync the
    /// directory so the rename itself is durable. Skipping either fsync can leave
    /// an empty file after power loss on ext4 and most flash filesystems.
    public static func writeAtomically(_ bytes: [UInt8], to path: String, mode: mode_t = 0o644, durable: Bool = true) throws(SystemError) {
        // Unique per call: two threads replacing the same file (two uploads of one
        // picture) must not write into one temporary file.
        let temporary = path + ".tmp-\(getpid())-\(UInt64.random(in: 0...UInt64.max))"
        let fd = open(temporary, O_WRONLY | O_CREAT | O_EXCL | O_CLOEXEC, mode)
        guard fd >= 0 else { throw SystemError("open", subject: temporary) }
        do {
            try writeAll(bytes, to: fd, path: temporary)
        } catch {
            close(fd)
            unlink(temporary)
            throw error
        }
        if durable && fsync(fd) != 0 {
            let error = SystemError("fsync", subject: temporary)
            close(fd)
            unlink(temporary)
            throw error
        }
        close(fd)
        guard rename(temporary, path) == 0 else {
            let error = SystemError("rename", subject: path)
            unlink(temporary)
            throw error
        }
        if durable { try syncDirectory(of: path) }
    }

    /// Writes all of `bytes` to `fd` (`write`, again after a short write or
    /// EINTR); the error names `path`, the file `fd` is open on.
    public static func writeAll(_ bytes: [UInt8], to fd: Int32, path: String) throws(SystemError) {
        var written = 0
        while written < bytes.count {
            let count = bytes.withUnsafeBytes { write(fd, $0.baseAddress! + written, $0.count - written) }
            if count < 0 {
                if errno == EINTR { continue }
                throw SystemError("write", subject: path)
            }
            written += count
        }
    }

    /// Makes a rename or a new name in `path`'s directory durable (`fsync` of
    /// the directory). A directory that cannot be opened is left alone.
    public static func syncDirectory(of path: String) throws(SystemError) {
        let directory = directoryName(of: path)
        let dfd = open(directory, O_RDONLY | O_DIRECTORY | O_CLOEXEC)
        guard dfd >= 0 else { return }
        defer { close(dfd) }
        guard fsync(dfd) == 0 else { throw SystemError("fsync", subject: directory) }
    }

    static func directoryName(of path: String) -> String {
        let directory = directoryOfPath(path)
        return directory.isEmpty ? "." : directory
    }

    /// Reads a file `chunkSize` bytes at a time, handing each chunk to `body`,
    /// so a large file need not fit in memory.
    public static func forEachChunk(of path: String, chunkSize: Int = 1 << 20, _ body: ([UInt8]) -> Void) throws(SystemError) {
        let fd = open(path, O_RDONLY | O_CLOEXEC)
        guard fd >= 0 else { throw SystemError("open", subject: path) }
        defer { close(fd) }
        var chunk = [UInt8](repeating: 0, count: chunkSize)
        while true {
            let count = chunk.withUnsafeMutableBytes { Glibc.read(fd, $0.baseAddress!, $0.count) }
            if count < 0 {
                if errno == EINTR { continue }
                throw SystemError("read", subject: path)
            }
            if count == 0 { return }
            body(count == chunkSize ? chunk : Array(chunk.prefix(count)))
        }
    }
}
