import Glibc
import VitrineCore
import VitrineSystem

/// Finding out whether a slide's file is a video, from its first bytes (`VideoSignature`).
public enum VideoFile {
    /// Whether the file at `path` is a video; false when it cannot be read (its
    /// picture decode then says why).
    public static func isVideo(atPath path: String) -> Bool { openIfVideo(path) != nil }

    /// The file at `path`, open, when it is a video; nil otherwise.
    public static func openIfVideo(_ path: String) -> OpenFile? {
        guard let file = try? OpenFile(path, O_RDONLY | O_CLOEXEC), isVideo(file) else { return nil }
        return file
    }

    /// Whether the open `file` is a video; read with pread, so its offset stays.
    public static func isVideo(_ file: borrowing OpenFile) -> Bool {
        var prefix = [UInt8](repeating: 0, count: VideoSignature.prefixLength)
        let count = prefix.withUnsafeMutableBytes { pread(file.descriptor, $0.baseAddress, $0.count, 0) }
        return count > 0 && VideoSignature.isVideo(prefix.prefix(count))
    }
}
