extension CarouselEngine {
    /// Slide `slide` stays `dwell` from now on: a video slide without a
    /// `duration` stays as long as its video, which is known only once the
    /// video is open. If it is the slide on screen, or the one a page change
    /// heads to, its scheduled change moves too, still counted from its start.
    public mutating func setDwell(_ dwell: Duration, ofSlide slide: Int) {
        guard settings.slideDwells.indices.contains(slide), settings.slideDwells[slide] != dwell else { return }
        settings.slideDwells[slide] = dwell
        switch phase {
        case .resting, .animating:
            if currentSlide == slide { scheduler.dwellChanged(to: self.dwell(ofSlide: slide)) }
        case .dragging, .awaitingNext:
            // The dwell is taken up when the slide next begins.
            break
        }
    }
}
