import VitrineCore
import VitrineDRM

/// The DRM cards: driver, connectors and their modes, CRTCs, and every plane
/// with its formats and the properties that let the display controller
/// compose (the planes issue's section: alpha, zpos, rotation, blend modes).
///
/// Reading these needs no DRM master, so it runs beside a running kiosk.
/// Whether a plane scales is not a property: only an atomic test commit
/// tells, which the planes work will add.
public struct DisplaysCheck: DoctorCheck {
    public var directory: String

    public init(directory: String = "/dev/dri") {
        self.directory = directory
    }

    public func run(on system: DoctorSystem) -> DoctorSection {
        let paths = DRMCard.cardPaths(in: system.path(directory))
        guard !paths.isEmpty else {
            return DoctorSection(id: "displays", title: "Displays", status: .unavailable,
                                 summary: "no DRM card in \(directory): the kiosk can only run headless here")
        }
        let cards = paths.map(card(at:))
        let connected = cards.flatMap { $0.facts.filter { $0.value.hasPrefix("connected") }.map(\.name) }
        let summary = "\(cards.count) card\(cards.count == 1 ? "" : "s")" + (connected.isEmpty ? ", no display connected" : ", connected: " + connected.joined(separator: ", "))
        return DoctorSection(id: "displays", title: "Displays", status: cards.map(\.status).max() ?? .ok, summary: summary, subsections: cards)
    }

    private func card(at path: String) -> DoctorSection {
        let name = String(path.split(separator: "/").last ?? Substring(path))
        let card: DRMCard, outputs: DRMOutputs
        do {
            card = try DRMCard(path: path)
            outputs = try card.outputs()
        } catch {
            return DoctorSection(id: "card", title: name, status: .warning, summary: "cannot be read: \(error)")
        }
        var facts = [DoctorFact("driver", card.driver), DoctorFact("CRTCs", "\(outputs.crtcIDs.count)")]
        for output in outputs.outputs {
            let connector = output.connector
            var value = connector.status.rawValue
            if connector.widthMillimetres > 0 { value += ", \(connector.widthMillimetres)x\(connector.heightMillimetres) mm" }
            if let preferred = connector.modes.first(where: \.isPreferred) ?? connector.modes.first {
                value += ", \(preferred)" + (preferred.isPreferred ? " preferred" : "")
                if connector.modes.count > 1 { value += " (\(connector.modes.count) modes, the largest \(connector.modes.max { $0.width * $0.height < $1.width * $1.height }!))" }
            }
            facts.append(DoctorFact(connector.name, value))
        }
        var findings: [String] = []
        var subsections: [DoctorSection] = []
        do {
            if let planes = try card.planeDetails() {
                subsections.append(Self.planesSection(planes))
                // Each connected output at its preferred mode, with the planes its CRTC would get:
                // with several screens, each one's share of the overlays (`PlaneShare`, as the
                // kiosk's leases divide them), else every plane that can feed its CRTC.
                let routed = outputs.outputs.filter { $0.connector.status == .connected }
                    .compactMap { output in output.crtcIndex(crtcCount: outputs.crtcIDs.count).map { (output, crtc: $0) } }
                let share = routed.count > 1 ? try? PlaneShare.decide(planes: planes.map(\.plane), crtcs: routed.map(\.crtc)) : nil
                for (output, crtc) in routed {
                    guard let mode = output.connector.modes.first(where: \.isPreferred) ?? output.connector.modes.first else { continue }
                    let usable = share?.shares[crtc].map { Set($0.planeIDs) }
                    var section = TransitionPaths.section(
                        planes: planes.filter { usable?.contains($0.plane.id) ?? $0.plane.canFeed(crtc: crtc) }.map(\.displayPlane),
                        driver: card.driver, output: PixelSize(width: mode.width, height: mode.height), refreshHz: mode.refreshHertz)
                    section.title = "\(output.connector.name): " + section.title
                    subsections.append(section)
                }
                let overlays = planes.filter { $0.plane.kind == .overlay }
                if overlays.isEmpty {
                    findings.append("\(card.driver) offers no overlay plane: every frame is composed on the CPU on this card.")
                } else if !overlays.contains(where: \.hasAlpha) {
                    findings.append("No overlay plane has an alpha property: crossfades are composed on the CPU on this card.")
                }
            } else {
                findings.append("The kernel will not list this card's planes to this process (no universal planes).")
            }
        } catch {
            findings.append("Its planes cannot be read: \(error)")
        }
        let connected = outputs.outputs.filter { $0.connector.status == .connected }.map(\.connector.name)
        return DoctorSection(id: "card", title: "\(name) (\(card.driver))", status: .ok,
                             summary: connected.isEmpty ? "no display connected" : connected.joined(separator: ", ") + " connected",
                             facts: facts, findings: findings, subsections: subsections)
    }

    /// The first connected output's preferred mode (its first mode when none
    /// is preferred), in the order this section lists cards and connectors:
    /// the size the "Decoding" section decodes for. Nil when no card has a
    /// connected output with a mode.
    static func firstConnectedOutput(in directory: String = "/dev/dri", on system: DoctorSystem) -> DecodingReport.Target? {
        for path in DRMCard.cardPaths(in: system.path(directory)) {
            guard let outputs = try? DRMCard(path: path).outputs() else { continue }
            for output in outputs.outputs where output.connector.status == .connected {
                let modes = output.connector.modes
                guard let mode = modes.first(where: \.isPreferred) ?? modes.first else { continue }
                return DecodingReport.Target(size: PixelSize(width: mode.width, height: mode.height),
                                             origin: "\(output.connector.name)'s \(mode.isPreferred ? "preferred" : "first") mode")
            }
        }
        return nil
    }

    static func planesSection(_ planes: [DRMPlaneDetails]) -> DoctorSection {
        let counts = DRMPlaneDescription.Kind.allCases.map { kind in (kind, planes.filter { $0.plane.kind == kind }.count) }
        let facts = planes.map { details -> DoctorFact in
            let crtcs = (0..<32).filter(details.plane.canFeed(crtc:)).map(String.init).joined(separator: ",")
            var value = "CRTC \(crtcs); " + details.formats.map(DRMPlaneDetails.fourcc).joined(separator: " ")
            value += "; alpha " + (details.hasAlpha ? "yes" : "no")
            value += "; zpos " + (details.zpos.map { $0.lowerBound == $0.upperBound ? "\($0.lowerBound)" : "\($0.lowerBound)–\($0.upperBound)" } ?? "none")
            value += "; rotation " + (details.rotations.isEmpty ? "none" : details.rotations.joined(separator: " "))
            if !details.blendModes.isEmpty { value += "; blend " + details.blendModes.joined(separator: ", ") }
            return DoctorFact("\(details.plane.kind.rawValue) \(details.plane.id)", value)
        }
        return DoctorSection(id: "planes", title: "Planes", summary: counts.map { "\($0.1) \($0.0.rawValue)" }.joined(separator: ", "), facts: facts)
    }
}
