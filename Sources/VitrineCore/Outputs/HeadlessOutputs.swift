/// The connectors a headless kiosk plans its `outputs` on: one per listed
/// output, connected, offering the mode it asks for (else `size`, the
/// top-level output size) at 60 Hz, with a CRTC each. Their physical size is
/// their pixels at 96 dpi, so that a canvas whose places give no size is
/// laid out as screens of that density would be.
///
/// It lets several output groups run without a card: for the memory
/// benchmark of two outputs against one, and for tests of the loops side by side.
public enum HeadlessOutputs {
    /// Millimetres per pixel at 96 dpi.
    static let millimetresPerPixel = 25.4 / 96

    public static func connectors(for layout: OutputLayout, size: PixelSize) -> [OutputPlan.Connector] {
        layout.outputs.enumerated().map { index, output in
            let mode = OutputMode(width: output.mode?.width ?? size.width, height: output.mode?.height ?? size.height,
                                  refreshMillihertz: Int(((output.mode?.refreshHertz ?? 60) * 1000).rounded()), isPreferred: true)
            return OutputPlan.Connector(
                name: output.name, status: .connected,
                widthMillimetres: Int((Double(mode.width) * millimetresPerPixel).rounded()),
                heightMillimetres: Int((Double(mode.height) * millimetresPerPixel).rounded()),
                modes: [mode], possibleCRTCs: [index], currentCRTC: index)
        }
    }
}
