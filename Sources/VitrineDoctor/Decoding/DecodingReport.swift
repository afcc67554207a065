import VitrineCore
import VitrineSandbox

/// The doctor's "Decoding" section: how long this board takes to decode a
/// phone's photos for its screen, on the kiosk's own path (a sandboxed
/// helper), and what that means for a slide's interval. Pure: the figures come
/// in (`DecodingCheck` measures them), so the judgement is tested without a clock.
///
/// The kiosk decodes the next slide while the one before it rests, and an
/// automatic page change waits for its picture (`CarouselEngine.advance`):
/// a decode longer than the interval makes the slide late. Each picture is
/// held to a budget in milliseconds of wall time, over which the section is a warning:
/// - the 12 MP JPEG to a fifth of the default 5 s interval (`phoneJPEGBudget`):
///   the photo most slides are should leave room for what shares the cores
///   with it (a visitor's swipes, which want the next picture at once, a
///   second output's slides, the frames of each transition);
/// - the 48 MP HEIC to the default interval itself (`phoneHEICBudget`): 48
///   megapixels of HEVC take seconds on a Raspberry Pi's cores, so what
///   matters there is whether such a slide comes late at all.
public enum DecodingReport {
    /// A fifth of `KioskConfiguration.interval`'s default (5 s), in milliseconds.
    public static let phoneJPEGBudget: Duration = .milliseconds(1_000)
    /// `KioskConfiguration.interval`'s default (5 s), in milliseconds.
    public static let phoneHEICBudget: Duration = .milliseconds(5_000)
    /// The default interval the budgets are shares of, as the findings say it.
    static let defaultInterval: Duration = .seconds(5)
    /// What the pictures are decoded for when no connected display was found: a 1080p screen.
    public static let fallbackOutput = PixelSize(width: 1920, height: 1080)

    /// The wall time over which `kind`'s decode is a warning.
    public static func budget(for kind: DoctorPicture.Kind) -> Duration {
        switch kind {
        case .phoneJPEG: phoneJPEGBudget
        case .phoneHEIC: phoneHEICBudget
        }
    }

    /// The size the pictures are decoded for, and where it comes from.
    public struct Target: Sendable, Equatable {
        public var size: PixelSize
        /// "HDMI-A-1's preferred mode", or why the fallback.
        public var origin: String

        public init(size: PixelSize, origin: String) {
            self.size = size
            self.origin = origin
        }

        /// `fallbackOutput`, for a board with no connected display.
        public static let fallback = Target(size: fallbackOutput, origin: "no connected display found: a 1080p screen's size")
    }

    /// What became of one picture.
    public enum Outcome: Sendable, Equatable {
        case measured(SandboxedDecodeCost)
        /// The picture is not where it should be.
        case missing
        case failed(SandboxedDecodeTimer.Failure)
    }

    /// One picture, where it was looked for, and what became of it.
    public struct Picture: Sendable, Equatable {
        public var picture: DoctorPicture
        public var path: String
        public var outcome: Outcome

        public init(_ picture: DoctorPicture, path: String, outcome: Outcome) {
            self.picture = picture
            self.path = path
            self.outcome = outcome
        }
    }

    /// The section for pictures decoded (or not) for `target`.
    public static func section(target: Target, pictures: [Picture]) -> DoctorSection {
        var facts: [DoctorFact] = []
        var findings: [String] = []
        var status = DoctorStatus.ok
        // Each picture in the summary; and why nothing was decoded, when nothing was.
        var parts: [String] = []
        var missing: [String] = []
        var cannotStart: [String] = []
        for entry in pictures {
            let picture = entry.picture
            switch entry.outcome {
            case .measured(let cost):
                facts.append(DoctorFact(picture.title, "\(picture.file) (\(picture.shape)): " + describe(cost)))
                parts.append("\(picture.title) in \(duration(cost.wall))")
                if cost.wall > budget(for: picture.kind) {
                    findings.append(overBudget(picture, wall: cost.wall))
                    status = max(status, .warning)
                }
            case .missing:
                facts.append(DoctorFact(picture.title, "missing: \(entry.path)"))
                parts.append("\(picture.title) missing")
                missing.append(entry.path)
                status = max(status, .unavailable)
            case .failed(.cannotStart(let why)):
                facts.append(DoctorFact(picture.title, "not decoded: \(why)"))
                parts.append("\(picture.title) not decoded")
                if !cannotStart.contains(why) { cannotStart.append(why) }
                status = max(status, .unavailable)
            case .failed(.refused(let why)):
                facts.append(DoctorFact(picture.title, "refused: \(why)"))
                parts.append("\(picture.title) refused")
                findings.append("The package's \(picture.title) is refused here (\(why)). Reinstall the package"
                                + (picture.kind == .phoneHEIC ? " (on Debian 13 a HEIC also needs libheif-plugin-libde265)" : "")
                                + ": if it is still refused, so are such photos on the kiosk.")
                status = max(status, .problem)
            }
        }
        let decoded = pictures.contains { entry in
            switch entry.outcome {
            case .measured, .failed(.refused): true
            case .missing, .failed(.cannotStart): false
            }
        }
        guard decoded else {
            var reasons = cannotStart
            if !missing.isEmpty {
                reasons.insert(missing.joined(separator: " and ") + (missing.count == 1 ? " is" : " are")
                               + " missing (reinstall the package; in a checkout, --pictures \(DoctorPicture.sourceDirectory))", at: 0)
            }
            return DoctorSection(id: "decoding", title: "Decoding", status: status, summary: "not measured: " + reasons.joined(separator: "; "),
                                 facts: facts, findings: findings)
        }
        facts.insert(DoctorFact("decoded for", "\(target.size), \(target.origin)"), at: 0)
        facts.append(DoctorFact("judged against", "the default \(duration(defaultInterval)) interval: a 12 MP JPEG within "
                                + "\(duration(phoneJPEGBudget)) (a fifth of it), a 48 MP HEIC within \(duration(phoneHEICBudget))"))
        return DoctorSection(id: "decoding", title: "Decoding", status: status, summary: parts.joined(separator: ", ") + ", for \(target.size)",
                             facts: facts, findings: findings)
    }

    /// The fact a measured section carries when a later report keeps it.
    static let measuredAtFact = "measured at"

    /// `previous`'s decoding section, when it holds figures (a measured
    /// section has "decoded for"), marked with when it was measured; nil when
    /// there is none. A section kept once keeps its first date.
    public static func carriedOver(from previous: DoctorReport?) -> DoctorSection? {
        guard let previous, var section = previous.sections.first(where: { $0.id == "decoding" }),
              section.facts.contains(where: { $0.name == "decoded for" }) else { return nil }
        if !section.facts.contains(where: { $0.name == measuredAtFact }) {
            section.facts.insert(DoctorFact(measuredAtFact, previous.generatedAt + " by `vitrine doctor` (the kiosk's start does not measure)"),
                                 at: 0)
        }
        return section
    }

    /// The section when nothing is measured, saying why and how to have it.
    public static func notMeasured(_ why: String) -> DoctorSection {
        DoctorSection(id: "decoding", title: "Decoding", status: .unavailable, summary: why)
    }

    /// "212 ms, CPU 198 ms, peak 61 MiB".
    static func describe(_ cost: SandboxedDecodeCost) -> String {
        var parts = [duration(cost.wall)]
        parts.append(cost.cpu.map { "CPU \(duration($0))" } ?? "CPU time unknown")
        if let peak = cost.peakResidentKiB { parts.append("peak \(MemoryInfo.describe(kibibytes: peak))") }
        return parts.joined(separator: ", ")
    }

    /// The finding for a picture whose decode took longer than its budget, with what to do.
    static func overBudget(_ picture: DoctorPicture, wall: Duration) -> String {
        switch picture.kind {
        case .phoneJPEG:
            // The interval at which it is a fifth again, in whole seconds.
            let interval = wholeSecondsUp(wall * 5)
            return "A \(picture.title) takes \(duration(wall)) to decode here, over a fifth of the default \(duration(defaultInterval)) interval: "
                + "photos of that size may not be ready when a visitor swipes through them, or at an interval under \(interval) s. "
                + "Resize them to the screen's size before they go on the kiosk: a JPEG of the screen's size decodes many times faster."
        case .phoneHEIC:
            return "A \(picture.title) takes \(duration(wall)) to decode here, longer than the default \(duration(defaultInterval)) interval: "
                + "the carousel waits for such a picture, and its slide comes late. Give playlists of phone photos an interval of "
                + "at least \(wholeSecondsUp(wall)) s, or convert the photos to JPEG at the screen's size."
        }
    }

    /// "212 ms" under a second, "3.4 s" from one.
    static func duration(_ value: Duration) -> String {
        let milliseconds = (Double(value.nanoseconds) / 1e6).rounded()
        if milliseconds < 1_000 { return "\(Int(milliseconds)) ms" }
        let seconds = fixedPoint(milliseconds / 1_000, decimals: 1)
        return (seconds.hasSuffix(".0") ? String(seconds.dropLast(2)) : seconds) + " s"
    }

    private static func wholeSecondsUp(_ value: Duration) -> Int64 {
        let nanoseconds = value.nanoseconds
        return nanoseconds / 1_000_000_000 + (nanoseconds % 1_000_000_000 == 0 ? 0 : 1)
    }
}
