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
    }

    /// The file as the configuration names it.
    public var file: String
    public var reason: Reason

    public init(file: String, reason: Reason) {
        self.file = file
        self.reason = reason
    }

    public var description: String {
        switch reason {
        case .file(let error): return "\(file): cannot read: \(error.reason)"
        case .decode(let error): return "\(file): \(error)"
        case .png(let error): return "\(file): \(error)"
        case .webp(let error): return "\(file): \(error)"
        case .gif(let error): return "\(file): \(error)"
        case .heif(let error): return "\(file): \(error)"
        case .notDownloaded: return "\(file): not downloaded yet"
        }
    }
}
