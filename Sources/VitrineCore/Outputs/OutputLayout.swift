/// The configuration's `outputs`: the connectors a kiosk drives, each with
/// its mode, rotation and picture, in the order given, which is also the
/// order of precedence when a card has fewer CRTCs than outputs.
///
/// `issues` checks how the entries relate (names, mirrors, canvases); the
/// configuration reader reports each at its key path, and `OutputPlan` may
/// take a layout with none for granted.
public struct OutputLayout: Hashable, Sendable {
    public var outputs: [ConfiguredOutput]

    public init(_ outputs: [ConfiguredOutput]) {
        self.outputs = outputs
    }

    public func index(named name: String) -> Int? { outputs.firstIndex { $0.name == name } }

    public func output(named name: String) -> ConfiguredOutput? { index(named: name).map { outputs[$0] } }

    /// The canvases' names, in the order their first output comes.
    public var canvasNames: [String] {
        var names: [String] = []
        for case let membership? in outputs.map(\.canvas) where !names.contains(membership.name) { names.append(membership.name) }
        return names
    }

    /// The indices of the outputs that form the canvas `name`, in order.
    public func members(ofCanvas name: String) -> [Int] {
        outputs.indices.filter { outputs[$0].canvas?.name == name }
    }


    /// One problem, at `outputs[output].key`.
    public struct Issue: Hashable, Sendable, CustomStringConvertible {
        public var output: Int
        /// The key within the entry: `name`, `mirror`, `playlist`, `fit`, `canvas`.
        public var key: String
        public var message: String

        public var description: String { "outputs[\(output)].\(key): \(message)" }
    }

    /// Every problem in how the entries relate, in the order of the entries.
    /// The values of single keys (a mode's form, a rotation) are the reader's.
    public var issues: [Issue] {
        var issues: [Issue] = []
        let names = outputs.map(\.name)
        for (index, output) in outputs.enumerated() {
            func report(_ key: String, _ message: String) { issues.append(Issue(output: index, key: key, message: message)) }
            if !ConnectorName.isValid(output.name) {
                let hint = ConnectorName.suggestion(for: output.name).map { " (did you mean \($0)?)" } ?? ""
                report("name", "\(output.name) is not a connector name\(hint): the kernel names them TYPE-N, such as HDMI-A-1, DSI-1 or DP-1, and `vitrine displays` lists this board's")
            } else if let first = names.firstIndex(of: output.name), first < index {
                report("name", "\(output.name) is outputs[\(first)] already: list each connector once")
            }
            if let source = output.mirrored {
                mirrorIssue(of: output, to: source, names: names).map { report("mirror", $0) }
                if case .playlist(let name) = output.content {
                    report("playlist", "a mirror shows what \(source) shows, so it has no playlist of its own (found \(name)): leave playlist out")
                }
            }
        }
        for canvas in canvasNames { issues += canvasIssues(canvas) }
        return issues.sorted { ($0.output, $0.key) < ($1.output, $1.key) }
    }

    /// Why `output` cannot mirror `source`, if it cannot.
    private func mirrorIssue(of output: ConfiguredOutput, to source: String, names: [String]) -> String? {
        if source == output.name { return "an output cannot mirror itself" }
        guard let target = self.output(named: source) else {
            return "\(source) is not one of the outputs (\(names.joined(separator: ", "))): a mirror shows what another of them shows"
        }
        if let further = target.mirrored {
            return "\(source) is a mirror itself (of \(further)): mirror \(further == output.name ? "another output" : further); mirrors do not chain"
        }
        return nil
    }

    /// A canvas of one output, members that disagree on what the canvas shows
    /// or how it fits, and members whose given rectangles overlap.
    private func canvasIssues(_ canvas: String) -> [Issue] {
        let members = members(ofCanvas: canvas)
        var issues: [Issue] = []
        guard members.count >= 2 else {
            let only = members[0]
            return [Issue(output: only, key: "canvas",
                          message: "canvas \(canvas) has only this output: a canvas spans two or more (give the others canvas: {name: \(canvas), x: …, y: …})")]
        }
        let first = members[0]
        for member in members.dropFirst() {
            if outputs[member].content != outputs[first].content {
                issues.append(Issue(output: member, key: "playlist",
                                    message: "canvas \(canvas) shows \(outputs[first].content) on outputs[\(first)] and \(outputs[member].content) here: give every output of a canvas the same playlist, or none"))
            }
            if outputs[member].fit != outputs[first].fit {
                let fit = { (fit: FitMode?) in fit.map(\.rawValue) ?? "the top-level fit" }
                issues.append(Issue(output: member, key: "fit",
                                    message: "canvas \(canvas) fits with \(fit(outputs[first].fit)) on outputs[\(first)] and \(fit(outputs[member].fit)) here: give every output of a canvas the same fit, or none"))
            }
        }
        // Sizes the displays report are known only on the board: OutputPlan checks those.
        let given = members.compactMap { index in outputs[index].canvas?.configuredRect.map { (index, $0) } }
        for (position, (index, rect)) in given.enumerated() {
            for (earlier, earlierRect) in given.prefix(position) {
                if let overlap = rect.intersection(earlierRect) {
                    issues.append(Issue(output: index, key: "canvas", message: Self.overlap(overlap, with: earlier, name: outputs[earlier].name, in: canvas)))
                }
            }
        }
        return issues
    }

    /// "overlaps outputs[0] (HDMI-A-1) by 30x680 mm in canvas wall: …"
    static func overlap(_ overlap: MillimetreRect, with earlier: Int, name: String, in canvas: String) -> String {
        "overlaps outputs[\(earlier)] (\(name)) by \(MillimetreRect.text(overlap.width))x\(MillimetreRect.text(overlap.height)) mm in canvas \(canvas): the picture areas of a canvas's outputs must not overlap (x and y place each one's top left corner, in millimetres)"
    }

    /// What `check-config` warns of: a touch matcher that two outputs list
    /// (`outputs[J].touch[K]`, and why), which `TouchOutputBinding` settles by
    /// giving the device to the first listed output. Valid, but the later
    /// output's entry then never takes that device, which is rarely meant.
    public var touchWarnings: [(path: String, message: String)] {
        var warnings: [(path: String, message: String)] = []
        for (index, output) in outputs.enumerated() {
            for (position, pattern) in (output.touch ?? []).enumerated() {
                guard let earlier = outputs[..<index].firstIndex(where: { $0.touch?.contains(pattern) == true }) else { continue }
                warnings.append((path: "outputs[\(index)].touch[\(position)]",
                                 message: "\(pattern) is listed by outputs[\(earlier)] (\(outputs[earlier].name)) too: the first listed output, \(outputs[earlier].name), takes the device"))
            }
        }
        return warnings
    }
}
