import VitrineCore

/// The configuration the carousel runs at a moment: the one applied, with its
/// `slides` replaced by what the schedule or an emergency override puts on
/// screen. Everything else (transition, indicator, touch, output...) stays the
/// applied configuration's. Pure: the kiosk and `vitrine render --wall` derive
/// the same thing.
extension KioskConfiguration {
    /// The slides of the schedule's playlist `name` that are valid (`slides`,
    /// indices into the playlist, as `ScheduleShowing.playlist` has them).
    /// A name the schedule does not have (which the loader refuses) gives no
    /// slides, so the placeholder shows.
    public func showingPlaylist(_ name: String, slides indices: [Int]) -> KioskConfiguration {
        var shown = self
        let playlist = schedule?.playlist(named: name)?.slides ?? []
        shown.slides = indices.filter(playlist.indices.contains).map { playlist[$0].slide }
        return shown
    }

    /// The override's slides, at its interval, in place of any playlist.
    public func overridden(by override: KioskOverride) -> KioskConfiguration {
        var shown = self
        shown.slides = override.slides
        if let interval = override.interval { shown.interval = interval }
        return shown
    }
}

extension KioskConfiguration {
    /// The configuration as the output `name` (a connector) shows it when the
    /// kiosk drives it alone: its `outputs` entry's rotation (else
    /// `output.rotation`) and fit, and its pictures all the time: a mirror's
    /// are its source's, a canvas output's its canvas's, shown whole. A
    /// playlist becomes the schedule's `otherwise`, kept in its zone, so its
    /// slides' `from` and `until` still apply; of the schedule's entries it
    /// keeps only those naming the output (`schedule.entries[].outputs`),
    /// none when there are none, and with them the playlists they show. An
    /// output without a playlist follows the schedule's entries that name it
    /// and those that name no output, and drops the entries naming only other
    /// outputs. A mirror follows its source, a canvas output its canvas
    /// (`OutputLayout.scheduleAudience(of:)`). Its touch takes the devices
    /// bound to the output, its mirrors and the rest of its canvas
    /// (`touch.outputContext`; give it the card's plan with
    /// `TouchOutputContext.plan(_:connectors:)`). Without an `outputs` section,
    /// for an output it does not list, or for a playlist the schedule lacks
    /// (`outputReferenceIssues` reports that), the configuration as it is.
    public func shown(onOutput name: String) -> KioskConfiguration {
        guard let layout = outputs, let output = layout.output(named: name) else { return self }
        let source = output.mirrored.flatMap(layout.output(named:)) ?? output
        var shown = self
        shown.output.rotation = output.rotation?.rawValue ?? self.output.rotation
        if let fit = output.fit ?? source.fit { shown.fit = fit }
        if let schedule {
            let audience = layout.scheduleAudience(of: name)
            if case .playlist(let playlist) = source.content {
                // Its own playlist is what shows when none of the entries naming it applies.
                if let chosen = schedule.playlist(named: playlist) {
                    let named = schedule.keepingEntries(schedule.entryIndices(forAudience: audience, followsSchedule: false))
                    let used = Set(named.entries.map(\.playlist) + [playlist])
                    // Only the playlists it can show: without an entry naming it, its own alone, as before.
                    let playlists = named.entries.isEmpty ? [chosen] : schedule.playlists.filter { used.contains($0.name) }
                    shown.schedule = ScheduleConfiguration(timezone: schedule.timezone, playlists: playlists, entries: named.entries,
                                                           entryOutputs: named.entryOutputs, otherwise: .playlist(playlist))
                }
            } else if schedule.namesOutputs {
                shown.schedule = schedule.keepingEntries(schedule.entryIndices(forAudience: audience, followsSchedule: true))
            }
        }
        let defaultRotation = DisplayRotation(rawValue: self.output.rotation) ?? .none
        shown.touch.outputContext = TouchOutputContext(
            taken: layout.touchGroup(of: name),
            outputs: layout.outputs.map { TouchOutputBinding.Output(name: $0.name, touch: $0.touch) },
            rotations: Dictionary(uniqueKeysWithValues: layout.outputs.map { ($0.name, $0.rotation ?? defaultRotation) }))
        return shown
    }
}

extension OutputLayout {
    /// The outputs whose touches page the carousel that `name` shows: its
    /// source's picture is the same, so are its mirrors', and a canvas is one
    /// picture across its outputs.
    func touchGroup(of name: String) -> Set<String> {
        let source = output(named: name)?.mirrored ?? name
        let shown: [String] = output(named: source)?.canvas.map { canvas in members(ofCanvas: canvas.name).map { outputs[$0].name } } ?? [source]
        let mirrors = outputs.filter { output in output.mirrored.map { shown.contains($0) } ?? false }.map(\.name)
        return Set(shown + mirrors + [name])
    }
}
