import VitrineCore

// Schedule entries for named outputs (`schedule.entries[].outputs`): which
// entries an output's carousel follows, and which overlaps nothing decides
// on some output. Pure, on the configuration's values; the core's `Schedule`
// never sees an output name, only the entries that apply to one output.

extension OutputLayout {
    /// The outputs whose names in `schedule.entries[].outputs` reach what
    /// `name` shows: a mirror shows its source's carousel, and a canvas is one
    /// carousel across its outputs, so an entry naming any of them applies to
    /// all of them. (The reader refuses an entry naming a mirror, or some of a
    /// canvas's outputs and not the others, so this is only ever the output
    /// itself or a whole canvas in practice.)
    public func scheduleAudience(of name: String) -> Set<String> {
        let source = output(named: name)?.mirrored ?? name
        guard let canvas = output(named: source)?.canvas else { return [source] }
        return Set(members(ofCanvas: canvas.name).map { outputs[$0].name })
    }

    /// Whether what `name` shows follows the schedule's entries that name no
    /// output: it (or its source) has no `playlist` of its own.
    public func followsSchedule(_ name: String) -> Bool {
        let source = output(named: name)?.mirrored.flatMap(output(named:)) ?? output(named: name)
        guard case .playlist? = source?.content else { return true }
        return false
    }

    /// One output per carousel that a schedule can decide for: every output
    /// that is no mirror, a canvas once (its first output listed), in order.
    public var scheduleLeaders: [String] {
        var seen = Set<String>(), leaders: [String] = []
        for output in outputs where output.mirrored == nil {
            let audience = scheduleAudience(of: output.name)
            guard seen.isDisjoint(with: audience) else { continue }
            seen.formUnion(audience)
            leaders.append(output.name)
        }
        return leaders
    }
}

extension ScheduleConfiguration {
    /// Whether any entry names an output.
    public var namesOutputs: Bool { entryOutputs.values.contains { !$0.isEmpty } }

    /// The indices of the entries that apply to a carousel shown on
    /// `audience` (`OutputLayout.scheduleAudience(of:)`): those naming one of
    /// its outputs, and, when it follows the schedule (no `playlist` of its
    /// own), those naming no output.
    public func entryIndices(forAudience audience: Set<String>, followsSchedule: Bool) -> [Int] {
        entries.indices.filter { index in
            let named = outputs(ofEntry: index)
            return named.isEmpty ? followsSchedule : !audience.isDisjoint(with: named)
        }
    }

    /// The schedule with only the entries at `indices` (in their order), each
    /// keeping the outputs it names.
    public func keepingEntries(_ indices: [Int]) -> ScheduleConfiguration {
        var kept = self
        kept.entries = indices.map { entries[$0] }
        kept.entryOutputs = [:]
        for (position, index) in indices.enumerated() where !outputs(ofEntry: index).isEmpty {
            kept.entryOutputs[position] = outputs(ofEntry: index)
        }
        return kept
    }

    /// Entries nothing decides between, on some output. Two entries conflict
    /// where they overlap with the same kind and priority and other playlists
    /// (`Schedule.conflicts()`) **and** both apply to one output: entries for
    /// different outputs may overlap freely. A pair of entries naming no
    /// output is judged as before outputs could be named, once, for every
    /// output (`outputs` empty), even when every output has a playlist of its
    /// own; a pair in which one names outputs is judged on each carousel of
    /// `layout` both apply to, and lists those outputs (each carousel by its
    /// first output). Without a layout, only pairs naming no output are
    /// judged (naming an output then is an error of its own).
    public func outputConflicts(in layout: OutputLayout?) -> [ScheduleOutputConflict] {
        let unnamed = entries.indices.filter { outputs(ofEntry: $0).isEmpty }
        var found = keepingEntries(unnamed).schedule.conflicts().map { conflict in
            ScheduleOutputConflict(first: unnamed[conflict.first], second: unnamed[conflict.second], overlap: conflict.overlap, outputs: [])
        }
        guard let layout, namesOutputs else { return found }
        var byPair: [Pair: Int] = [:]
        for leader in layout.scheduleLeaders {
            let applying = entryIndices(forAudience: layout.scheduleAudience(of: leader), followsSchedule: layout.followsSchedule(leader))
            for conflict in keepingEntries(applying).schedule.conflicts() {
                let pair = Pair(first: applying[conflict.first], second: applying[conflict.second])
                // Two entries naming no output: reported above, once.
                guard !(outputs(ofEntry: pair.first).isEmpty && outputs(ofEntry: pair.second).isEmpty) else { continue }
                if let known = byPair[pair] {
                    found[known].outputs.append(leader)
                } else {
                    byPair[pair] = found.count
                    found.append(ScheduleOutputConflict(first: pair.first, second: pair.second, overlap: conflict.overlap, outputs: [leader]))
                }
            }
        }
        return found.sorted { ($0.first, $0.second) < ($1.first, $1.second) }
    }

    private struct Pair: Hashable {
        var first: Int
        var second: Int
    }
}

/// Two entries that nothing decides between on the outputs listed (none
/// listed: on every output that follows the schedule).
public struct ScheduleOutputConflict: Hashable, Sendable {
    /// Entry indices, `first` < `second`.
    public var first: Int
    public var second: Int
    public var overlap: ScheduleConflict.Overlap
    /// The carousels it happens on, each by its first output; empty for two
    /// entries naming no output.
    public var outputs: [String]
}
