import Glibc
public import SystemPackage
import VitrineCore

/// File reading and crash-safe writing with plain POSIX calls, so every failure
/// carries its errno and names its file. Each function takes the calls it makes
/// as `system` (the kernel's own by default), the seam through which tests make
/// them fail (`SystemCallFaults`).
public enum FileIO {
    /// Reads a whole file, refusing files larger than `limit` bytes.
    public static func read(_ path: String, limit: Int = 256 << 20, system: SystemCalls = .live) throws(SystemError) -> [UInt8] {
        let file = try OpenFile(path, O_RDONLY | O_CLOEXEC, system: system)
        return try read(file, limit: limit)
    }

    /// Reads the open file `file` whole from where it stands, refusing one
    /// larger than `limit` bytes: a file handed over as a descriptor (a
    /// sandboxed decoder's, which may open nothing itself).
    public static func read(_ file: borrowing OpenFile, limit: Int = 256 << 20) throws(SystemError) -> [UInt8] {
        let path = file.path
        let info = try file.status()
        if (info.st_mode & S_IFMT) == S_IFDIR { throw SystemError("read", errno: .isDirectory, subject: path) }
        guard Int(info.st_size) <= limit else { throw SystemError("read", errno: .fileTooLarge, subject: path) }
        // procfs and sysfs files report a size of 0: read those until end of file.
        var bytes = [UInt8](repeating: 0, count: info.st_size > 0 ? Int(info.st_size) : 4096)
        var filled = 0
        while true {
            let result = bytes.withUnsafeMutableBytes { buffer in
                Result { () throws(SystemError) in try file.read(into: UnsafeMutableRawBufferPointer(rebasing: buffer[filled...])) }
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
    public static func read(_ fd: Int32, into buffer: UnsafeMutableRawBufferPointer, path: String, system: SystemCalls = .live) throws(SystemError) -> Int {
        var filled = 0
        while filled < buffer.count {
            let count = try retryingInterrupts("read", path: path) { () throws(Errno) in
                try system.read(fd, UnsafeMutableRawBufferPointer(rebasing: buffer[filled...]))
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
    ///
    /// On any failure before the rename, the target is untouched and the
    /// temporary file is removed; the error names the call and the file.
    public static func writeAtomically(_ bytes: [UInt8], to path: String, mode: mode_t = 0o644, durable: Bool = true, system: SystemCalls = .live) throws(SystemError) {
        // Unique per call: two threads replacing the same file (two uploads of one
        // picture) must not write into one temporary file.
        let temporary = path + ".tmp-\(getpid())-\(UInt64.random(in: 0...UInt64.max))"
        do {
            // The temporary file is closed at the end of this scope, before the rename.
            let file = try OpenFile(temporary, O_WRONLY | O_CREAT | O_EXCL | O_CLOEXEC, mode: mode, system: system)
            do throws(SystemError) {
                try file.write(bytes)
                // The data must be on the medium before the rename makes it the file:
                // after a power cut, a rename that reached the journal ahead of the
                // data would leave an empty or torn target.
                if durable { try file.sync() }
            } catch {
                try? system.unlink(temporary)
                throw error
            }
        }
        do {
            try system.rename(temporary, path)
        } catch {
            try? system.unlink(temporary)
            throw SystemError("rename", errno: error, subject: path)
        }
        if durable { try syncDirectory(of: path, system: system) }
    }

    /// Writes all of `bytes` to `fd` (`write`, again after a short write or
    /// EINTR); the error names `path`, the file `fd` is open on.
    public static func writeAll(_ bytes: [UInt8], to fd: Int32, path: String, system: SystemCalls = .live) throws(SystemError) {
        // withUnsafeBytes rethrows untyped: carry the typed error out in a Result.
        try bytes.withUnsafeBytes { buffer in
            Result { () throws(SystemError) in try writeAll(buffer, to: fd, path: path, system: system) }
        }.get()
    }

    /// Writes all of `buffer` to `fd`, as `writeAll(_:to:path:system:)` does.
    public static func writeAll(_ buffer: UnsafeRawBufferPointer, to fd: Int32, path: String, system: SystemCalls = .live) throws(SystemError) {
        var written = 0
        while written < buffer.count {
            written += try retryingInterrupts("write", path: path) { () throws(Errno) in
                try system.write(fd, UnsafeRawBufferPointer(rebasing: buffer[written...]))
            }
        }
    }

    /// Removes `path`; a file that is gone already is fine. With `durable`, its
    /// directory is fsynced after, so that the removal survives a power cut as a
    /// replacement does.
    public static func remove(_ path: String, durable: Bool = false, system: SystemCalls = .live) throws(SystemError) {
        do throws(Errno) {
            try system.unlink(path)
        } catch where error == .noSuchFileOrDirectory {
            return
        } catch {
            throw SystemError("unlink", errno: error, subject: path)
        }
        if durable { try sync(directory: directoryName(of: path), system: system) }
    }

    /// Writes zeros over every byte `path` holds, in place, and flushes them
    /// (`fsync`), before a secret's file is removed or replaced: a removal only
    /// frees the file's blocks, and a rename leaves the old ones as they were.
    /// On flash the controller may still keep an old copy (docs/card-setup.md);
    /// what this removes is the copy the file system, and anyone reading the
    /// card's partition, can find. A link is not followed; a file that is gone is fine.
    public static func overwriteWithZeros(_ path: String, system: SystemCalls = .live) throws(SystemError) {
        var status = stat()
        if lstat(path, &status) != 0, errno == ENOENT { return }
        let opened = try OpenFile(path, O_WRONLY | O_NOFOLLOW | O_CLOEXEC, system: system)
        guard fstat(opened.descriptor, &status) == 0 else { throw SystemError("fstat", subject: path) }
        let zeros = [UInt8](repeating: 0, count: 64 << 10)
        var left = Int(status.st_size)
        while left > 0 {
            let count = min(left, zeros.count)
            try zeros.withUnsafeBytes { buffer in
                Result { () throws(SystemError) in
                    try writeAll(UnsafeRawBufferPointer(rebasing: buffer[..<count]), to: opened.descriptor, path: path, system: system)
                }
            }.get()
            left -= count
        }
        try opened.sync()
    }

    /// Renames `from` to `to`, replacing it.
    public static func rename(_ from: String, to: String, system: SystemCalls = .live) throws(SystemError) {
        do throws(Errno) {
            try system.rename(from, to)
        } catch {
            throw SystemError("rename", errno: error, subject: to)
        }
    }

    /// Makes a rename or a new name in `path`'s directory durable (`fsync` of
    /// the directory). A directory that cannot be opened is left alone.
    public static func syncDirectory(of path: String, system: SystemCalls = .live) throws(SystemError) {
        let directory = directoryName(of: path)
        guard let opened = try? OpenFile(directory, O_RDONLY | O_DIRECTORY | O_CLOEXEC, system: system) else { return }
        try opened.sync()
    }

    /// `fsync` of `directory` itself, for a caller whose durability promise
    /// needs it: unlike `syncDirectory(of:)`, a directory that cannot be
    /// opened is an error.
    public static func sync(directory: String, system: SystemCalls = .live) throws(SystemError) {
        try OpenFile(directory, O_RDONLY | O_DIRECTORY | O_CLOEXEC, system: system).sync()
    }

    /// `fsync` of the open file `fd`, again after EINTR (the call did not
    /// complete; EIO, by contrast, is reported and never retried: a second
    /// fsync after a failed one can succeed without the data being written).
    public static func sync(_ fd: Int32, path: String, system: SystemCalls = .live) throws(SystemError) {
        try retryingInterrupts("fsync", path: path) { () throws(Errno) in try system.fsync(fd) }
    }

    /// Makes one system call, again for as long as it fails with EINTR: a
    /// signal arrived before the call did anything (a read or write that had
    /// moved bytes returns their count instead), so asking again is safe. Any
    /// other errno becomes an error naming `call` and `path`.
    public static func retryingInterrupts<Value>(_ call: String, path: String, _ body: () throws(Errno) -> Value) throws(SystemError) -> Value {
        while true {
            do {
                return try body()
            } catch .interrupted {
                continue
            } catch {
                throw SystemError(call, errno: error, subject: path)
            }
        }
    }

    /// The names in a directory (`opendir`, `readdir`), sorted, without `.`
    /// and `..`; none when it cannot be read (absent, not a directory, no permission).
    public static func names(in directory: String) -> [String] {
        guard let stream = opendir(directory) else { return [] }
        defer { closedir(stream) }
        var names: [String] = []
        while let entry = readdir(stream) {
            let name = withUnsafeBytes(of: entry.pointee.d_name) { String(decoding: $0.prefix { $0 != 0 }, as: UTF8.self) }
            if name != "." && name != ".." { names.append(name) }
        }
        return names.sorted()
    }

    /// The directory part of `path` ("." for a bare name).
    public static func directoryName(of path: String) -> String {
        let directory = directoryOfPath(path)
        return directory.isEmpty ? "." : directory
    }

    /// Reads a file `chunkSize` bytes at a time, handing each chunk to `body`,
    /// so a large file need not fit in memory.
    public static func forEachChunk(of path: String, chunkSize: Int = 1 << 20, system: SystemCalls = .live, _ body: ([UInt8]) -> Void) throws(SystemError) {
        let file = try OpenFile(path, O_RDONLY | O_CLOEXEC, system: system)
        var chunk = [UInt8](repeating: 0, count: chunkSize)
        while true {
            let count = try chunk.withUnsafeMutableBytes { buffer in
                Result { () throws(SystemError) in try file.read(into: buffer) }
            }.get()
            if count > 0 { body(count == chunkSize ? chunk : Array(chunk.prefix(count))) }
            // `read(into:)` fills the chunk unless the file ended.
            if count < chunkSize { return }
        }
    }
}
