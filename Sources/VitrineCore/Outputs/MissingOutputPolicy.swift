/// What a configured output that is not there (unplugged, switched off at
/// boot, not on this board, or without the mode it asks for) means for the
/// others: `whenMissing` in the configuration.
public enum MissingOutputPolicy: String, Hashable, Sendable, CaseIterable {
    /// It belongs here and is expected back: the CRTC it would take is kept
    /// free for it, and a canvas keeps its place (its part of the picture is
    /// not shown elsewhere), so plugging it in changes nothing for the others.
    case wait
    /// It is optional: nothing is kept for it, and a canvas spans the outputs
    /// that are there.
    case skip
}
