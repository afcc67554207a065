import VitrineJPEG
import VitrinePNG
import VitrineWebP
import VitrineGIF
import VitrineHEIF
import VitrineSystem

/// Why a slide's picture cannot be shown: its file, and the reason.
public struct SlideError: Error, Hashable, Sendable, CustomStringConvertible {
    public enum Reason: Hashable, Sendable {
        case file(SystemError)
        case decode(JPEGError)
        case png(PNGError)
        case webp(WebPError)
        case gif(GIFError)
        case heif(HEIFError)
        /// A URL slide whose picture has not arrived yet.
        case notDownloaded
        /// What the sandboxed decoder reported: its decoder's error as that
        /// decoder words it, or why the helper stopped ("decoding stopped: over
        /// its memory limit"). Only text crosses the process boundary.
        case isolated(String)
    }

    /// The file as the configuration names it.
    public var file: String
    public var reason: Reason

    public init(file: String, reason: Reason) {
        self.file = file
        self.reason = reason
    }

    public var description: String { "\(file): \(reasonDescription)" }

    /// The reason alone, without the file: what a sandboxed decoder sends back.
    public var reasonDescription: String {
        switch reason {
        case .file(let error): return "cannot read: \(error.reason)"
        case .decode(let error): return "\(error)"
        case .png(let error): return "\(error)"
        case .webp(let error): return "\(error)"
        case .gif(let error): return "\(error)"
        case .heif(let error): return "\(error)"
        case .notDownloaded: return "not downloaded yet"
        case .isolated(let message): return message
        }
    }
}
