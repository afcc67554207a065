import Glibc

/// A failed system call on a channel's files, naming the call and the file.
public struct ChannelFileError: Error, Hashable, Sendable, CustomStringConvertible {
    public var call: String
    public var path: String
    public var errno: Int32

    init(_ call: String, _ path: String, errno: Int32 = Glibc.errno) {
        self.call = call
        self.path = path
        self.errno = errno
    }

    public var description: String { "\(call) \(path): \(String(cString: strerror(errno)))" }
}

/// The POSIX calls the publisher and the key files need: whole-file reads,
/// and writes in two steps (a fsynced temporary file, then a rename), so the
/// publisher can choose the order in which finished files appear.
/// (VitrineRuntime's FileIO does the same in one step; this module stays
/// clear of the kiosk's runtime.)
public enum ChannelFiles {
    public static func read(_ path: String, limit: Int = 1 << 30) throws(ChannelFileError) -> [UInt8] {
        let fd = open(path, O_RDONLY | O_CLOEXEC)
        guard fd >= 0 else { throw ChannelFileError("open", path) }
        defer { close(fd) }
        var info = stat()
        guard fstat(fd, &info) == 0 else { throw ChannelFileError("fstat", path) }
        if (info.st_mode & S_IFMT) == S_IFDIR { throw ChannelFileError("read", path, errno: EISDIR) }
        guard Int(info.st_size) <= limit else { throw ChannelFileError("read", path, errno: EFBIG) }
        var bytes = [UInt8](repeating: 0, count: Int(info.st_size))
        var filled = 0
        while filled < bytes.count {
            let count = bytes.withUnsafeMutableBytes { Glibc.read(fd, $0.baseAddress! + filled, $0.count - filled) }
            if count < 0 {
                if errno == EINTR { continue }
                throw ChannelFileError("read", path)
            }
            if count == 0 { break }
            filled += count
        }
        return filled == bytes.count ? bytes : Array(bytes.prefix(filled))
    }

    public static func exists(_ path: String) -> Bool { access(path, F_OK) == 0 }

    /// The size of a regular file, nil if there is none.
    static func size(_ path: String) -> UInt64? {
        var info = stat()
        guard stat(path, &info) == 0, (info.st_mode & S_IFMT) == S_IFREG else { return nil }
        return UInt64(info.st_size)
    }

    /// `mkdir -p`.
    static func makeDirectories(_ path: String, mode: mode_t = 0o755) throws(ChannelFileError) {
        var prefix = path.hasPrefix("/") ? "" : "."
        for component in path.split(separator: "/") {
            prefix += "/" + component
            if mkdir(prefix, mode) != 0 && errno != EEXIST { throw ChannelFileError("mkdir", prefix) }
        }
    }

    /// Writes `bytes` to a new hidden temporary file next to `path`, fsynced,
    /// and returns its name; `commit` then renames it into place.
    static func writeTemporary(_ bytes: [UInt8], for path: String, mode: mode_t = 0o644) throws(ChannelFileError) -> String {
        let slash = path.lastIndex(of: "/")
        let directory = slash.map { String(path[...$0]) } ?? ""
        let name = slash.map { String(path[path.index(after: $0)...]) } ?? path
        let temporary = directory + ".\(name).tmp-\(getpid())-\(UInt32.random(in: 0...UInt32.max))"
        let fd = open(temporary, O_WRONLY | O_CREAT | O_EXCL | O_CLOEXEC, mode)
        guard fd >= 0 else { throw ChannelFileError("open", temporary) }
        var written = 0
        while written < bytes.count {
            let count = bytes.withUnsafeBytes { write(fd, $0.baseAddress! + written, $0.count - written) }
            if count < 0 {
                if errno == EINTR { continue }
                let error = ChannelFileError("write", temporary)
                close(fd)
                unlink(temporary)
                throw error
            }
            written += count
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
            if fstat(fd, &written) == 0, written.st_mtim.tv_sec <= replaced.st_mtim.tv_sec {
                let later = timespec(tv_sec: replaced.st_mtim.tv_sec + 1, tv_nsec: 0)
                var times = [later, later]
                _ = futimens(fd, &times)
            }
        }
        // umask may have narrowed the mode; the files of a channel are served, so they must be readable.
        if fchmod(fd, mode) != 0 || fsync(fd) != 0 {
            let error = ChannelFileError("fsync", temporary)
            close(fd)
            unlink(temporary)
            throw error
        }
        close(fd)
        return temporary
    }

    static func commit(_ temporary: String, to path: String) throws(ChannelFileError) {
        guard rename(temporary, path) == 0 else {
            let error = ChannelFileError("rename", path)
            unlink(temporary)
            throw error
        }
    }

    /// Makes the renames in `directory` durable.
    static func syncDirectory(_ directory: String) throws(ChannelFileError) {
        let fd = open(directory, O_RDONLY | O_DIRECTORY | O_CLOEXEC)
        guard fd >= 0 else { throw ChannelFileError("open", directory) }
        defer { close(fd) }
        guard fsync(fd) == 0 else { throw ChannelFileError("fsync", directory) }
    }

    /// Writes a new file, refusing to replace one (as `signify -G` does with a
    /// key), with exactly `mode` whatever the umask.
    public static func create(_ bytes: [UInt8], at path: String, mode: mode_t) throws(ChannelFileError) {
        let fd = open(path, O_WRONLY | O_CREAT | O_EXCL | O_NOFOLLOW | O_CLOEXEC, mode)
        guard fd >= 0 else { throw ChannelFileError("create", path) }
        var written = 0
        while written < bytes.count {
            let count = bytes.withUnsafeBytes { write(fd, $0.baseAddress! + written, $0.count - written) }
            if count < 0 {
                if errno == EINTR { continue }
                let error = ChannelFileError("write", path)
                close(fd)
                unlink(path)
                throw error
            }
            written += count
        }
        if fchmod(fd, mode) != 0 || fsync(fd) != 0 {
            let error = ChannelFileError("fsync", path)
            close(fd)
            unlink(path)
            throw error
        }
        close(fd)
    }

    /// Writes two files that belong together (a document and its signature):
    /// both to temporary names and fsynced before either is renamed, `first`
    /// renamed first, so they change within microseconds of each other and a
    /// reader that fetches `first` then `second` sees a mismatched pair only if
    /// both its fetches land between the renames. The directory is synced after.
    static func commitPair(_ first: [UInt8], to firstPath: String, _ second: [UInt8], to secondPath: String,
                           directory: String) throws(ChannelFileError) {
        let firstTemporary = try writeTemporary(first, for: firstPath)
        let secondTemporary: String
        do throws(ChannelFileError) {
            secondTemporary = try writeTemporary(second, for: secondPath)
        } catch {
            try? remove(firstTemporary)
            throw error
        }
        try commit(firstTemporary, to: firstPath)
        try commit(secondTemporary, to: secondPath)
        try syncDirectory(directory)
    }

    static func remove(_ path: String) throws(ChannelFileError) {
        guard unlink(path) == 0 || errno == ENOENT else { throw ChannelFileError("unlink", path) }
    }
}
