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
