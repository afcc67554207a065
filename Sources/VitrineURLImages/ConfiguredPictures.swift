import Glibc
import VitrineConfig
import VitrineCore
import VitrineJPEG
import VitrinePNG
import VitrineWebP
import VitrineGIF
import VitrineHEIF
import VitrineRuntime
import VitrineSystem

/// The pictures a configuration names on this machine, checked before they
/// reach a screen: a picture that cannot be shown becomes a problem line naming
/// its key path, the file and the reason, instead of a placeholder found later
/// on the screen.
///
/// Only pictures that are here are checked: a missing file or asset is
/// `ConfigLoader.fileIssues`' to report, and a URL slide is checked when it
/// is downloaded (`URLImageFetcher`).
public enum ConfiguredPictures {
    /// How far each picture is read.
    public enum Depth: Sendable {
        /// The first bytes and the headers: the format by its magic bytes, and the
        /// size against `decode.maxPixels`. Cheap enough for every push.
        case header
        /// All of it decoded, as `ImageInspection` does an upload: a damaged or
        /// truncated file fails too. JPEGs decode at an eighth of their size,
        /// PNGs a strip at a time, WebPs scaled by libwebp to a few pixels,
        /// GIFs' first frames a strip at a time (later frames read, not decoded)
        /// and HEIFs whole by libheif within `SlideDecoding.wholePictureByteLimit`,
        /// so the memory a check takes stays bounded.
        case decode
    }

    /// - Parameters:
    ///   - named: the pictures to check, at their key paths; nil: every one the
    ///     configuration names (a push to one output checks its slides alone).
    ///   - pictures: where they are decoded: the sandboxed helpers in the kiosk and `check-config`.
    public static func issues(in configuration: KioskConfiguration, named: [(keyPath: String, path: String)]? = nil,
                              depth: Depth, pictures: any PictureInspector) -> [ConfigIssue] {
        var issues: [ConfigIssue] = []
        let named = named ?? configuration.pictures
        // A picture named twice is read once; each key path still gets its line.
        var verdicts: [String: String?] = [:]
        for (keyPath, path) in named {
            guard let file = configuration.resolve(path) else { continue }
            let verdict: String?
            if let known = verdicts[file] {
                verdict = known
            } else {
                verdict = problem(with: file, depth: depth, maxPixels: configuration.decode.maxPixels,
                                  maxVideoBitsPerSecond: configuration.decode.maxVideoBitsPerSecond, pictures: pictures)
                verdicts[file] = verdict
            }
            if let verdict { issues.append(ConfigIssue(path: keyPath, message: "\(path): \(verdict)")) }
        }
        return issues
    }

    /// How much of a picture the header check reads: a JPEG's markers up to
    /// its first scan fit, a large ICC profile or EXIF thumbnail included.
    static let headerBytes = 1 << 20

    /// Why `file` cannot be shown, or nil. A file that cannot be opened is not
    /// this check's to report (`fileIssues` says it is missing or unreadable).
    static func problem(with file: String, depth: Depth, maxPixels: Int, maxVideoBitsPerSecond: Int?,
                        pictures: any PictureInspector) -> String? {
        // A video is opened and its first frame decoded, at either depth: its
        // index may be anywhere in the file (an MP4's moov often comes last).
        if VideoFile.isVideo(atPath: file) {
            return pictures.videoProblem(file: file, maxPixels: maxPixels, maxVideoBitsPerSecond: maxVideoBitsPerSecond)
        }
        switch depth {
        case .decode:
            // Mapped, not read, by the helper that decodes it: a 50 MB picture
            // costs page cache, not heap, and a file cut short while it is
            // mapped (SIGBUS) ends that helper, never the check or a kiosk.
            do {
                _ = try pictures.inspect(file: file, named: file, maxPixels: maxPixels)
                return nil
            } catch let failure as ImageInspection.Failure {
                return failure.problem
            } catch {
                return nil
            }
        case .header:
            // Read, not mapped: this runs inside the kiosk (a push), where a
            // file an operator rewrites meanwhile must not be able to crash it.
            var head = [UInt8](repeating: 0, count: headerBytes)
            let count: Int
            do {
                let opened = try OpenFile(file, O_RDONLY | O_CLOEXEC)
                count = try head.withUnsafeMutableBytes { try opened.read(into: $0) }
            } catch {
                return nil
            }
            // The headers are parsed by the decoders' own readers (libheif's for a HEIF): in a helper.
            return pictures.headerProblem(Array(head.prefix(count)), fileGoesOn: count == headerBytes, maxPixels: maxPixels)
        }
    }

    static func headerProblem(_ bytes: [UInt8], fileGoesOn: Bool = false, maxPixels: Int) -> String? {
        ImageInspection.headerProblem(bytes, fileGoesOn: fileGoesOn, maxPixels: maxPixels)
    }
}
