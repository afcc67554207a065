/// The outputs one carousel drives: one engine, one display loop, one
/// picture at a time. An output with a picture of its own is a group; a canvas
/// is one group across its outputs; a mirror joins the group of the output it
/// mirrors. Groups run side by side, each on its own vblank.
public struct OutputGroup: Hashable, Sendable, CustomStringConvertible {
    /// What the carousel's picture is drawn onto.
    public enum Layout: Hashable, Sendable {
        /// One output, the picture at its own size.
        case single(PlannedOutput)
        /// One picture at the canvas's size, each member showing its region of it.
        case canvas(CanvasLayout, members: [PlannedOutput])
    }

    public var layout: Layout
    /// Outputs showing the group's picture too, each scaled to its own size.
    public var mirrors: [PlannedOutput]

    /// The output whose entry the carousel runs (`KioskConfiguration.shown(onOutput:)`):
    /// the single output, or the canvas's first member.
    public var leader: PlannedOutput {
        switch layout {
        case .single(let output): return output
        case .canvas(_, let members): return members[0]
        }
    }

    /// Every output the group drives: the picture's, then the mirrors.
    public var outputs: [PlannedOutput] {
        switch layout {
        case .single(let output): return [output] + mirrors
        case .canvas(_, let members): return members + mirrors
        }
    }

    /// `HDMI-A-1 (playlist lobby)`, `canvas wall across HDMI-A-1, HDMI-A-2 (the programme)`,
    /// each with `, mirrored on DSI-1`.
    public var description: String {
        var text: String
        switch layout {
        case .single(let output): text = "\(output.connector) (\(output.content))"
        case .canvas(let canvas, let members):
            text = "canvas \(canvas.name) \(canvas.size) across \(members.map(\.connector).joined(separator: ", ")) (\(members[0].content))"
        }
        if !mirrors.isEmpty { text += ", mirrored on " + mirrors.map(\.connector).joined(separator: ", ") }
        return text
    }
}

extension OutputPlan {
    /// The carousels the plan asks for, in the order of their first output in
    /// the configuration: one per output with a picture of its own, one per
    /// canvas; a mirror joins its source's group, wherever the source is in it.
    /// A canvas output whose canvas could not be laid out shows its pictures
    /// whole (the plan says `.own` for it), so it is a group of its own. The
    /// outputs that `wait` come after the driven ones: into their canvas's or
    /// their source's group, or a group of their own, whose loop runs with
    /// nothing on screen until the display is plugged in. So the first group,
    /// the kiosk's own, is a driven one whenever one is.
    public var groups: [OutputGroup] {
        var groups: [OutputGroup] = []
        var canvasGroup: [String: Int] = [:]
        var pendingMirrors: [PlannedOutput] = []
        for output in driven + waiting {
            switch output.showing {
            case .own:
                groups.append(OutputGroup(layout: .single(output), mirrors: []))
            case .canvas(let placement):
                if let index = canvasGroup[placement.canvas], case .canvas(let canvas, let members) = groups[index].layout {
                    groups[index].layout = .canvas(canvas, members: members + [output])
                } else if let canvas = canvases.first(where: { $0.name == placement.canvas }) {
                    canvasGroup[placement.canvas] = groups.count
                    groups.append(OutputGroup(layout: .canvas(canvas, members: [output]), mirrors: []))
                } else {
                    groups.append(OutputGroup(layout: .single(output), mirrors: []))
                }
            case .mirror:
                pendingMirrors.append(output)
            }
        }
        // A mirror may mirror a mirror: join once its source has a group.
        while !pendingMirrors.isEmpty {
            var placedAny = false
            pendingMirrors.removeAll { mirror in
                guard case .mirror(let source) = mirror.showing,
                      let index = groups.firstIndex(where: { $0.outputs.contains { $0.connector == source } }) else { return false }
                groups[index].mirrors.append(mirror)
                placedAny = true
                return true
            }
            // A source that is in no group (the plan never gives one): each shows its picture alone.
            if !placedAny {
                groups += pendingMirrors.map { OutputGroup(layout: .single($0), mirrors: []) }
                break
            }
        }
        return groups
    }
}
