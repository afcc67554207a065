import Glibc
import VitrineCore

/// A picture `vitrine doctor` times the decoding of ("Decoding"): a phone's
/// photo, as people put on kiosks. The package carries them (a board has no
/// encoder to make them), made once by deploy/doctor/make-pictures.py, so that
/// every board decodes the same bytes and their figures compare.
public struct DoctorPicture: Sendable, Equatable {
    /// Which photo it stands for, and so how long its decode may take (`DecodingReport`).
    public enum Kind: Sendable, Equatable {
        /// A phone's 12-megapixel JPEG: the photo most slides are.
        case phoneJPEG
        /// A phone's 48-megapixel HEIF (an iPhone's HEIF Max): the largest picture people bring.
        case phoneHEIC
    }

    public var kind: Kind
    /// Its name in the pictures' directory.
    public var file: String
    /// How the report names it: "12 MP JPEG".
    public var title: String
    /// What it is, beside its name in the report.
    public var shape: String

    public static let jpeg12MP = DoctorPicture(kind: .phoneJPEG, file: "photo-12mp.jpg", title: "12 MP JPEG",
                                               shape: "4000x3000, 4:2:0, baseline, 1.8 MB")
    public static let heic48MP = DoctorPicture(kind: .phoneHEIC, file: "photo-48mp.heic", title: "48 MP HEIC",
                                               shape: "8064x6048 in 192 HEVC tiles of 512x512, turned upright")
    /// In the order the report gives them.
    public static let all = [jpeg12MP, heic48MP]

    /// Where the package installs them, then where deploy/install.sh does.
    public static let installedDirectories = ["/usr/share/vitrine/doctor", "/usr/local/share/vitrine/doctor"]
    /// In a checkout of the sources: `vitrine doctor --pictures deploy/doctor`.
    public static let sourceDirectory = "deploy/doctor"

    /// The first of `installedDirectories` that holds the first picture; nil when none does.
    public static func installedDirectory() -> String? {
        installedDirectories.first { access($0 + "/" + all[0].file, R_OK) == 0 }
    }
}
