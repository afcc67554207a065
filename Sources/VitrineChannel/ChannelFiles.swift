import Crypto
import Glibc
import VitrineSystem

/// The file operations the publisher and the key files need, over VitrineSystem's
/// `FileIO`: whole-file reads, and writes in two steps (a fsynced temporary
/// file, then a rename), so that the publisher can choose the order in which
/// finished files appear. (`FileIO.writeAtomically` does both steps at once.)
///
/// Every open, write, fsync, rename and unlink goes through `SystemCalls`, so
/// tests inject a full disk or a failed rename at one exact step
/// (`ChannelFilesFaultTests`); only the metadata calls (`fchmod`, `fstat`,
/// `futimens`) are made directly.
public enum ChannelFiles {
    public static func read(_ path: String, limit: Int = 1 << 30, system: SystemCalls = .live) throws(SystemError) -> [UInt8] {
        try FileIO.read(path, limit: limit, system: system)
    }

    public static func exists(_ path: String) -> Bool { access(path, F_OK) == 0 }

    /// The size of a regular file, nil if there is none.
    static func size(_ path: String) -> UInt64? {
        var info = stat()
        guard stat(path, &info) == 0, (info.st_mode & S_IFMT) == S_IFREG else { return nil }
        return UInt64(info.st_size)
    }

    /// `mkdir -p`.
    static func makeDirectories(_ path: String, mode: mode_t = 0o755) throws(SystemError) {
        var prefix = path.hasPrefix("/") ? "" : "."
        for component in path.split(separator: "/") {
            prefix += "/" + component
            if mkdir(prefix, mode) != 0 && errno != EEXIST { throw SystemError("mkdir", subject: prefix) }
        }
    }

    /// How much of a picture or video the publisher holds at a time.
    static let chunkBytes = 1 << 20

    /// A file's SHA-256 and size, read `chunkBytes` at a time: a channel's
    /// videos are hashed in constant memory, whatever their size.
    public static func blob(of path: String, system: SystemCalls = .live) throws(SystemError) -> ChannelBlob {
        let file = try OpenFile(path, O_RDONLY | O_CLOEXEC, system: system)
        var hasher = SHA256()
        let size = try forEachChunk(of: file) { hasher.update(bufferPointer: $0) }
        return ChannelBlob(sha256: hex(hasher.finalize()), size: size)
    }

    /// Reads `file` to its end, handing each chunk to `body`; returns the bytes read.
    private static func forEachChunk(of file: borrowing OpenFile,
                                     _ body: (UnsafeRawBufferPointer) throws(SystemError) -> Void) throws(SystemError) -> UInt64 {
        let buffer = UnsafeMutableRawBufferPointer.allocate(byteCount: chunkBytes, alignment: 16)
        defer { buffer.deallocate() }
        var total: UInt64 = 0
        while true {
            let count = try file.read(into: buffer)
            if count == 0 { return total }
            try body(UnsafeRawBufferPointer(rebasing: buffer[..<count]))
            total += UInt64(count)
        }
    }

    /// Writes `bytes` to a new hidden temporary file next to `path`, fsynced,
    /// and returns its name; `commit` then renames it into place.
    static func writeTemporary(_ bytes: [UInt8], for path: String, mode: mode_t = 0o644, system: SystemCalls = .live) throws(SystemError) -> String {
        try writeTemporary(for: path, mode: mode, system: system) { (file: borrowing OpenFile) throws(SystemError) in try file.write(bytes) }
    }

    /// Copies the file at `source` to a new temporary file next to `path`, a
    /// chunk at a time, and returns its name with the SHA-256 and size of what
    /// was copied: the caller compares them with what it hashed before, since
    /// the file may have changed in between.
    static func writeTemporary(copying source: String, for path: String, mode: mode_t = 0o644,
                               system: SystemCalls = .live) throws(SystemError) -> (temporary: String, copied: ChannelBlob) {
        let input = try OpenFile(source, O_RDONLY | O_CLOEXEC, system: system)
        var hasher = SHA256()
        var size: UInt64 = 0
        let temporary = try writeTemporary(for: path, mode: mode, system: system) { (file: borrowing OpenFile) throws(SystemError) in
            size = try forEachChunk(of: input) { (chunk: UnsafeRawBufferPointer) throws(SystemError) in
                hasher.update(bufferPointer: chunk)
                try FileIO.writeAll(chunk, to: file.descriptor, path: file.path, system: system)
            }
        }
        return (temporary, ChannelBlob(sha256: hex(hasher.finalize()), size: size))
    }

    /// A new hidden temporary file next to `path`, filled by `fill`, dated and
    /// moded as a served file must be, and fsynced; removed again on any error.
    private static func writeTemporary(for path: String, mode: mode_t, system: SystemCalls,
                                       fill: (borrowing OpenFile) throws(SystemError) -> Void) throws(SystemError) -> String {
        let slash = path.lastIndex(of: "/")
        let directory = slash.map { String(path[...$0]) } ?? ""
        let name = slash.map { String(path[path.index(after: $0)...]) } ?? path
        let temporary = directory + ".\(name).tmp-\(getpid())-\(UInt32.random(in: 0...UInt32.max))"
        let file = try OpenFile(temporary, O_WRONLY | O_CREAT | O_EXCL | O_CLOEXEC, mode: mode, system: system)
        do throws(SystemError) {
            try fill(file)
        } catch {
            try? remove(temporary, system: system)
            throw error
        }
        // nginx and Apache make a file's ETag from its modification time in
        // whole seconds and its size. A manifest published in the same second
        // as the one it replaces, with the same size (a version 9 after an 8),
        // would get the same ETag, and a kiosk holding the old one would be
        // told 304 Not Modified until the next publish. So the new file is
        // dated at least a second after the file it replaces.
        var replaced = stat()
        if stat(path, &replaced) == 0 {
            var written = stat()
            if fstat(file.descriptor, &written) == 0, written.st_mtim.tv_sec <= replaced.st_mtim.tv_sec {
                let later = timespec(tv_sec: replaced.st_mtim.tv_sec + 1, tv_nsec: 0)
                var times = [later, later]
                _ = futimens(file.descriptor, &times)
            }
        }
        // umask may have narrowed the mode; the files of a channel are served, so they must be readable.
        do throws(SystemError) {
            guard fchmod(file.descriptor, mode) == 0 else { throw SystemError("fchmod", subject: temporary) }
            try file.sync()
        } catch {
            try? remove(temporary, system: system)
            throw error
        }
        return temporary
    }

    static func commit(_ temporary: String, to path: String, system: SystemCalls = .live) throws(SystemError) {
        do throws(SystemError) {
            try FileIO.rename(temporary, to: path, system: system)
        } catch {
            try? remove(temporary, system: system)
            throw error
        }
    }

    /// Writes a new file, refusing to replace one (as `signify -G` does with a
    /// key), with exactly `mode` whatever the umask.
    public static func create(_ bytes: [UInt8], at path: String, mode: mode_t, system: SystemCalls = .live) throws(SystemError) {
        let file: OpenFile
        do { file = try OpenFile(path, O_WRONLY | O_CREAT | O_EXCL | O_NOFOLLOW | O_CLOEXEC, mode: mode, system: system) } catch {
            throw SystemError("create", errno: error.errno, subject: path)
        }
        do throws(SystemError) {
            try file.write(bytes)
            guard fchmod(file.descriptor, mode) == 0 else { throw SystemError("fchmod", subject: path) }
            try file.sync()
        } catch {
            try? remove(path, system: system)
            throw error
        }
    }

    /// Writes two files that belong together (a document and its signature):
    /// both to temporary names and fsynced before either is renamed, `first`
    /// renamed first, so they change within microseconds of each other and a
    /// reader that fetches `first` then `second` sees a mismatched pair only if
    /// both its fetches land between the renames. The directory is synced after.
    static func commitPair(_ first: [UInt8], to firstPath: String, _ second: [UInt8], to secondPath: String,
                           directory: String, system: SystemCalls = .live) throws(SystemError) {
        let firstTemporary = try writeTemporary(first, for: firstPath, system: system)
        let secondTemporary: String
        do throws(SystemError) {
            secondTemporary = try writeTemporary(second, for: secondPath, system: system)
        } catch {
            try? remove(firstTemporary, system: system)
            throw error
        }
        do throws(SystemError) {
            try commit(firstTemporary, to: firstPath, system: system)
        } catch {
            try? remove(secondTemporary, system: system)
            throw error
        }
        try commit(secondTemporary, to: secondPath, system: system)
        try FileIO.sync(directory: directory, system: system)
    }

    static func remove(_ path: String, system: SystemCalls = .live) throws(SystemError) {
        try FileIO.remove(path, system: system)
    }
}
