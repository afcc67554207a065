/// Which connector shows what, on which CRTC and in which mode: a pure
/// decision on the configured outputs (or today's single `output`) and the
/// connectors a card has. VitrineDRM reads the connectors; `vitrine displays`
/// prints the plan and the kiosk drives it.
///
/// Without an `outputs` section the plan is the kiosk's one output as it
/// always was: `output.connector`, else the first connected connector that
/// offers a mode; `output.mode`, else the preferred mode.
///
/// With one, in this order:
/// 1. each listed output whose connector is on the card, not disconnected,
///    and offers the mode asked for (else its preferred one) may be driven;
///    a connector the section does not list is left as it is;
/// 2. those get CRTCs by `CRTCAssignment`, in the order listed, so when the
///    card has fewer CRTCs than outputs the ones listed first win;
/// 3. a listed output that is not there (`MissingOutput`) with
///    `whenMissing: wait` has a CRTC kept for it from those left, when its
///    connector is on the card; with `skip`, nothing;
/// 4. each canvas is laid out (`CanvasLayout`) from its shown outputs' places,
///    and those of the missing ones that `wait`; a canvas that cannot be (an
///    unknown size, an overlap) is a problem, and its outputs show its
///    pictures whole, each on its own;
/// 5. a mirror whose source is driven shows the same pictures; one whose
///    source is not takes its place: its pictures, and its part of a canvas.
/// The same inputs give the same plan.
public struct OutputPlan: Hashable, Sendable {
    /// A connector as the plan sees it: what `DRMOutputs` reads.
    public struct Connector: Hashable, Sendable {
        public enum Status: String, Hashable, Sendable {
            case connected, disconnected, unknown
        }

        /// The kernel's name: `HDMI-A-1`.
        public var name: String
        public var status: Status
        /// The size its display reports, in millimetres; 0 when unknown.
        public var widthMillimetres: Int
        public var heightMillimetres: Int
        public var modes: [OutputMode]
        /// The CRTC indices any of its encoders can drive.
        public var possibleCRTCs: Set<Int>
        /// The CRTC index it is on now.
        public var currentCRTC: Int?

        public init(name: String, status: Status, widthMillimetres: Int = 0, heightMillimetres: Int = 0, modes: [OutputMode],
                    possibleCRTCs: Set<Int>, currentCRTC: Int? = nil) {
            self.name = name
            self.status = status
            self.widthMillimetres = widthMillimetres
            self.heightMillimetres = heightMillimetres
            self.modes = modes
            self.possibleCRTCs = possibleCRTCs
            self.currentCRTC = currentCRTC
        }

        var route: CRTCAssignment.Connector {
            CRTCAssignment.Connector(name: name, possibleCRTCs: possibleCRTCs, currentCRTC: currentCRTC)
        }
    }

    /// The keys of the `output` section that choose the one output when there
    /// is no `outputs` section; its rotation is every listed output's default.
    public struct SingleOutput: Hashable, Sendable {
        public var connector: String?
        public var mode: DisplayModeSpec?
        public var rotation: DisplayRotation

        public init(connector: String? = nil, mode: DisplayModeSpec? = nil, rotation: DisplayRotation = .none) {
            self.connector = connector
            self.mode = mode
            self.rotation = rotation
        }
    }

    /// One connector of the card and what the plan does with it.
    public struct Entry: Hashable, Sendable, CustomStringConvertible {
        public var connector: String
        public var state: State

        public enum State: Hashable, Sendable {
            case driven(PlannedOutput)
            case undriven(UndrivenReason)
        }

        /// `HDMI-A-1: playlist lobby; CRTC 3 (as now), 1920x1080@60`, or `DP-1: not in outputs: left as it is`.
        public var description: String {
            switch state {
            case .driven(let output): return "\(connector): \(output)"
            case .undriven(let reason): return "\(connector): \(reason)"
            }
        }
    }

    /// Every connector of the card, in the card's order.
    public let entries: [Entry]
    /// The outputs driven, in the configuration's order; `groups` says which
    /// share a carousel. The first group's is the kiosk's own output (its
    /// status, screenshots and TV).
    public let driven: [PlannedOutput]
    /// The configured outputs that are not there as asked.
    public let missing: [MissingOutput]
    /// The missing outputs that `wait` with a CRTC kept for them on this card,
    /// each as it will be driven once its display is there: on the kept CRTC,
    /// in the mode it asks for (until then laid out at that mode's size, or at
    /// `waitingStandIn` without one), showing what it would. A kiosk opens them
    /// at start, unplugged, and sets their mode when a hotplug brings a display.
    /// One a driven mirror stands in for is not among them (the mirror shows its part).
    public let waiting: [PlannedOutput]
    /// The canvases laid out.
    public let canvases: [CanvasLayout]
    /// What the configuration asks that this card cannot give, one line each.
    public let problems: [String]

    public init(layout: OutputLayout?, single: SingleOutput, connectors: [Connector], crtcCount: Int) {
        var builder = Builder(connectors: connectors, crtcCount: crtcCount)
        if let layout {
            builder.plan(layout, defaultRotation: single.rotation)
        } else {
            builder.plan(single)
        }
        entries = connectors.map { connector in
            Entry(connector: connector.name, state: builder.driven.first { $0.connector == connector.name }.map(Entry.State.driven)
                ?? .undriven(builder.undriven[connector.name] ?? .notListed))
        }
        driven = builder.driven
        missing = builder.missing
        waiting = builder.waiting
        canvases = builder.canvases
        problems = builder.problems
    }

    /// The size a waiting output without a configured mode is laid out at until its display is there.
    public static let waitingStandIn = OutputMode(width: 1920, height: 1080, refreshMillihertz: 60_000)

    /// The plan as `vitrine displays --config` prints it: each connector, then
    /// `missing: …` and `problem: …` lines.
    public var lines: [String] {
        entries.map(\.description) + missing.map { "missing: \($0)" } + problems.map { "problem: \($0)" }
    }

    /// What `plan`'s steps work on.
    private struct Builder {
        let connectors: [Connector]
        let crtcCount: Int
        var driven: [PlannedOutput] = []
        var undriven: [String: UndrivenReason] = [:]
        var missing: [MissingOutput] = []
        var waiting: [PlannedOutput] = []
        var canvases: [CanvasLayout] = []
        var problems: [String] = []

        init(connectors: [Connector], crtcCount: Int) {
            self.connectors = connectors
            self.crtcCount = crtcCount
        }

        func connector(named name: String) -> Connector? { connectors.first { $0.name == name } }

        /// The mode to drive `connector` in, or why it cannot be driven. A
        /// connector in an unknown state is taken at its word, as DRMScanout
        /// takes a named one.
        func usable(_ name: String, mode spec: DisplayModeSpec?) -> Result<(Connector, OutputMode), UndrivenReason> {
            guard let connector = connector(named: name) else { return .failure(.notOnCard) }
            guard connector.status != .disconnected else { return .failure(.notConnected) }
            guard !connector.modes.isEmpty else { return .failure(.noModes) }
            guard let spec else { return .success((connector, connector.modes.preferred!)) }
            guard let index = spec.bestMatch(in: connector.modes) else { return .failure(.modeNotOffered(spec)) }
            return .success((connector, connector.modes[index]))
        }

        // MARK: Today's one output

        mutating func plan(_ single: SingleOutput) {
            let name = single.connector ?? connectors.first { $0.status == .connected && !$0.modes.isEmpty }?.name
            for connector in connectors where connector.name != name {
                undriven[connector.name] = name.map { .notTheOneOutput($0) } ?? (connector.status == .disconnected ? .notConnected : .noModes)
            }
            guard let name else { return }
            switch usable(name, mode: single.mode) {
            case .failure(let reason):
                undriven[name] = reason
                missing.append(MissingOutput(name: name, reason: reason, policy: nil, keptCRTC: nil, canvas: nil, shownBy: []))
            case .success(let (connector, mode)):
                let route = CRTCAssignment(connectors: [connector.route], crtcCount: crtcCount).outputs[0]
                guard let crtc = route.crtc else {
                    undriven[name] = .noCRTC
                    return
                }
                driven.append(PlannedOutput(connector: name, crtc: crtc, keepsCRTC: route.isKept, mode: mode, requestedMode: single.mode,
                                            rotation: single.rotation, fit: nil, content: .programme, showing: .own, standsInFor: nil))
            }
        }

        // MARK: The outputs section

        mutating func plan(_ layout: OutputLayout, defaultRotation: DisplayRotation) {
            let outputs = layout.outputs
            // 1. Which can be driven, and in which mode.
            var usable: [Int: (connector: Connector, mode: OutputMode)] = [:]
            var reasons: [Int: UndrivenReason] = [:]
            for (index, output) in outputs.enumerated() {
                switch self.usable(output.name, mode: output.mode) {
                case .success(let found): usable[index] = found
                case .failure(let reason): reasons[index] = reason
                }
            }
            // 2. CRTCs, in the order listed.
            let candidates = outputs.indices.filter { usable[$0] != nil }
            let assignment = CRTCAssignment(connectors: candidates.map { usable[$0]!.connector.route }, crtcCount: crtcCount)
            var routes: [Int: CRTCAssignment.Output] = [:]
            for (index, route) in zip(candidates, assignment.outputs) {
                if route.crtc != nil {
                    routes[index] = route
                } else {
                    reasons[index] = usable[index]!.connector.possibleCRTCs.contains(where: { (0..<crtcCount).contains($0) }) ? .noCRTCLeft : .noCRTC
                }
            }
            // 3. A CRTC kept for each missing output that waits, from those left.
            let taken = Set(routes.values.compactMap(\.crtc))
            let awaited = outputs.indices.filter { reasons[$0]?.isMissing == true && outputs[$0].whenMissing == .wait }
                .compactMap { index in connector(named: outputs[index].name).map { (index, $0) } }
            let kept = CRTCAssignment(connectors: awaited.map { _, connector in
                CRTCAssignment.Connector(name: connector.name, possibleCRTCs: connector.possibleCRTCs.subtracting(taken))
            }, crtcCount: crtcCount)
            var keptCRTC: [Int: Int] = [:]
            for ((index, _), route) in zip(awaited, kept.outputs) { keptCRTC[index] = route.crtc }

            let drivenIndices = outputs.indices.filter { routes[$0] != nil }
            // A mirror whose source is not driven takes its place (the first such mirror, for a canvas).
            var standIns: [String: [Int]] = [:]
            for index in drivenIndices {
                if let source = outputs[index].mirrored, let sourceIndex = layout.index(named: source), routes[sourceIndex] == nil {
                    standIns[source, default: []].append(index)
                }
            }
            func rotation(_ index: Int) -> DisplayRotation { outputs[index].rotation ?? defaultRotation }
            func logicalSize(_ index: Int) -> PixelSize {
                let size = usable[index]!.mode.size
                return rotation(index) == .quarter || rotation(index) == .threeQuarters ? size.transposed : size
            }

            // 4. Canvases.
            for canvas in layout.canvasNames {
                var places: [CanvasLayout.Place] = []
                for member in layout.members(ofCanvas: canvas) {
                    let membership = outputs[member].canvas!
                    // Shown by itself, else by the mirror standing in for it, else by nothing.
                    let shower = routes[member] != nil ? member : standIns[outputs[member].name]?.first
                    if shower == nil, outputs[member].whenMissing == .skip { continue }
                    // Its size on the wall: configured, else its display's (or, for a
                    // stand-in, the standing-in display's), turned as it is mounted.
                    let display = shower ?? member
                    let reported = connector(named: outputs[display].name).map { connector -> (Double, Double) in
                        let size = (Double(connector.widthMillimetres), Double(connector.heightMillimetres))
                        return rotation(display) == .quarter || rotation(display) == .threeQuarters ? (size.1, size.0) : size
                    } ?? (0, 0)
                    let rect = membership.configuredRect
                        ?? MillimetreRect(x: membership.x, y: membership.y, width: reported.0, height: reported.1)
                    if shower == nil, !(rect.width > 0 && rect.height > 0) {
                        problems.append("canvas \(canvas): \(outputs[member].name)'s place cannot be kept while it is missing: its size is not known (give canvas.width and canvas.height)")
                        continue
                    }
                    places.append(CanvasLayout.Place(output: outputs[member].name, millimetres: rect, shownAt: shower.map(logicalSize)))
                }
                switch CanvasLayout.make(name: canvas, places: places) {
                case .success(let laidOut): canvases.append(laidOut)
                case .failure(.nothingShown): break
                case .failure(let problem):
                    problems.append("canvas \(canvas) is not spanned: \(problem); its outputs show its pictures whole, each on its own")
                }
            }

            // 5. What each driven output shows.
            for index in drivenIndices {
                let output = outputs[index], (connector, mode) = usable[index]!, route = routes[index]!
                var content = output.content, fit = output.fit
                var showing = PlannedOutput.Showing.own
                var standsInFor: String?
                var place = output.canvas.map { ($0.name, output.name) }
                if let source = output.mirrored, let sourceIndex = layout.index(named: source) {
                    content = outputs[sourceIndex].content
                    fit = fit ?? outputs[sourceIndex].fit
                    if routes[sourceIndex] != nil {
                        showing = .mirror(of: source)
                    } else {
                        standsInFor = source
                        place = outputs[sourceIndex].canvas.map { ($0.name, source) }
                    }
                }
                if let (canvas, member) = place, let placement = canvases.first(where: { $0.name == canvas })?.placement(of: member) {
                    showing = .canvas(placement)
                }
                driven.append(PlannedOutput(connector: connector.name, crtc: route.crtc!, keepsCRTC: route.isKept, mode: mode,
                                            requestedMode: output.mode, rotation: rotation(index), fit: fit, content: content,
                                            showing: showing, standsInFor: standsInFor))
            }

            // 6. The missing outputs that wait, as they will be driven.
            for index in outputs.indices {
                guard let crtc = keptCRTC[index], standIns[outputs[index].name] == nil else { continue }
                let output = outputs[index]
                let mode = output.mode.map { OutputMode(width: $0.width, height: $0.height,
                                                        refreshMillihertz: Int((($0.refreshHertz ?? 60) * 1000).rounded())) }
                    ?? OutputPlan.waitingStandIn
                var content = output.content, fit = output.fit
                var showing = PlannedOutput.Showing.own
                if let source = output.mirrored, let sourceIndex = layout.index(named: source) {
                    content = outputs[sourceIndex].content
                    fit = fit ?? outputs[sourceIndex].fit
                    // A mirror of a source that is not driven either has nothing to mirror yet.
                    guard routes[sourceIndex] != nil else { continue }
                    showing = .mirror(of: source)
                }
                if let membership = output.canvas, let placement = canvases.first(where: { $0.name == membership.name })?.placement(of: output.name) {
                    showing = .canvas(placement)
                }
                waiting.append(PlannedOutput(connector: output.name, crtc: crtc, keepsCRTC: false, mode: mode, requestedMode: output.mode,
                                             rotation: rotation(index), fit: fit, content: content, showing: showing))
            }

            for (index, output) in outputs.enumerated() {
                guard let reason = reasons[index] else { continue }
                if connector(named: output.name) != nil { undriven[output.name] = reason }
                guard reason.isMissing else { continue }
                let shownBy = (standIns[output.name] ?? []).map { outputs[$0].name }
                missing.append(MissingOutput(name: output.name, reason: reason, policy: output.whenMissing, keptCRTC: keptCRTC[index],
                                             canvas: output.canvas?.name, shownBy: shownBy))
            }
        }
    }
}
