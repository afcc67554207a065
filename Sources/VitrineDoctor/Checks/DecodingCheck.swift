import FoundationEssentials
import Glibc
import VitrineConfig
import VitrineCore
import VitrineSandbox
import VitrineSystem

/// How long this board takes to decode a phone's photos for its screen: the
/// package's 12 MP JPEG and 48 MP HEIC (`DoctorPicture`), each decoded by a
/// sandboxed helper as the kiosk decodes an untrusted slide
/// (`SandboxedDecodeTimer`), for the first connected output's preferred mode
/// (else a 1080p screen). `DecodingReport` judges the figures.
///
/// Decoding 48 megapixels costs seconds of CPU and a few hundred MiB on a
/// Raspberry Pi, so the kiosk's own report at start does not measure: it
/// keeps the figures of the last `vitrine doctor` from the report it replaces
/// (`carriedOver(stateDirectory:)`), or says how to have them. `vitrine
/// doctor` measures, unless `--no-decode`.
public struct DecodingCheck: DoctorCheck {
    /// What the report the kiosk makes at every start says instead.
    public static let notAtStart = "not measured in the report the kiosk makes at start (decoding a 48-megapixel photo costs "
        + "seconds of CPU): run `vitrine doctor` on the board"

    /// Measure each picture (at its path, for an output's size), or say why not.
    enum Plan: Sendable {
        case measure(@Sendable (_ path: String, _ output: PixelSize) -> Result<SandboxedDecodeCost, SandboxedDecodeTimer.Failure>)
        case skip(String)
        /// The section of the report saved in this state directory, when it was measured; else `notAtStart`.
        case carryOver(stateDirectory: String)
    }

    /// The pictures' folder; nil: they are installed nowhere.
    public var pictures: String?
    let plan: Plan
    /// What the pictures are decoded for; nil: no connected display (`DecodingReport.Target.fallback`).
    let target: @Sendable (DoctorSystem) -> DecodingReport.Target?

    /// Measures the pictures in `pictures` (the package's by default) with `timer`'s helpers.
    public init(pictures: String? = DoctorPicture.installedDirectory(), timer: SandboxedDecodeTimer = SandboxedDecodeTimer()) {
        // The kiosk's own limit (`decode.maxPixels`' default): the doctor times the decoder, not a configuration.
        let maxPixels = DecodeConfiguration().maxPixels
        self.init(pictures: pictures,
                  plan: .measure { path, output in
                      Result { () throws(SandboxedDecodeTimer.Failure) in try timer.measure(path, output: output, maxPixels: maxPixels) }
                  },
                  target: { DisplaysCheck.firstConnectedOutput(on: $0) })
    }

    /// Measures nothing, and says `why` (`--no-decode`).
    public static func skipped(_ why: String) -> DecodingCheck {
        DecodingCheck(pictures: nil, plan: .skip(why), target: { _ in nil })
    }

    /// Measures nothing: the figures of the report last saved in `stateDirectory`
    /// (`Doctor.fileName`), when `vitrine doctor` measured them, so that the
    /// kiosk's report at start does not throw away what the operator ran;
    /// otherwise `notAtStart`.
    public static func carriedOver(stateDirectory: String) -> DecodingCheck {
        DecodingCheck(pictures: nil, plan: .carryOver(stateDirectory: stateDirectory), target: { _ in nil })
    }

    init(pictures: String?, plan: Plan, target: @escaping @Sendable (DoctorSystem) -> DecodingReport.Target?) {
        self.pictures = pictures
        self.plan = plan
        self.target = target
    }

    public func run(on system: DoctorSystem) -> DoctorSection {
        let measure: @Sendable (String, PixelSize) -> Result<SandboxedDecodeCost, SandboxedDecodeTimer.Failure>
        switch plan {
        case .skip(let why): return DecodingReport.notMeasured(why)
        case .carryOver(let directory):
            // A report that cannot be read (none yet, or one of a format to come) carries nothing over.
            let saved = (try? FileIO.read(directory + "/" + Doctor.fileName, limit: 4 << 20))
                .flatMap { try? JSONDecoder().decode(DoctorReport.self, from: Data($0)) }
            return DecodingReport.carriedOver(from: saved) ?? DecodingReport.notMeasured(Self.notAtStart)
        case .measure(let measuring): measure = measuring
        }
        let target = self.target(system) ?? .fallback
        let folder = pictures ?? DoctorPicture.installedDirectories[0]
        var results: [DecodingReport.Picture] = []
        // A helper that cannot start for one picture cannot for the next: it is not tried twice.
        var cannotStart: SandboxedDecodeTimer.Failure?
        for picture in DoctorPicture.all {
            let path = folder + "/" + picture.file
            guard access(path, F_OK) == 0 else {
                results.append(.init(picture, path: path, outcome: .missing))
                continue
            }
            if let cannotStart {
                results.append(.init(picture, path: path, outcome: .failed(cannotStart)))
                continue
            }
            switch measure(path, target.size) {
            case .success(let cost):
                results.append(.init(picture, path: path, outcome: .measured(cost)))
            case .failure(let failure):
                if case .cannotStart = failure { cannotStart = failure }
                results.append(.init(picture, path: path, outcome: .failed(failure)))
            }
        }
        return DecodingReport.section(target: target, pictures: results)
    }
}
