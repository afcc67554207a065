/// How a frame reached the screen: all its layers on the display's planes,
/// part of it composed on the CPU into the primary plane (`mixed`), or all of
/// it composed on the CPU (every frame of a display without overlay planes).
public enum FramePath: String, Hashable, Sendable, CaseIterable {
    case planes, mixed, cpu
}

/// One frame's path and the display thread's CPU time to draw and present it
/// (`ThreadCPUClock`): `vitrine_frame_cpu_seconds{path}` in /metrics.
public struct FrameWork: Hashable, Sendable {
    public var path: FramePath
    public var cpu: Duration
}
