extension PlanePlanner {
    /// Whether this planner puts the slides of a page change of `kind` on
    /// planes at `output`, halfway through it (the model's decision, with no
    /// test commit): a slide transition and a cut need placement only; a
    /// crossfade needs plane alpha, and the fetch of two whole slides within
    /// the budget (over it at 4K on vc4 with RGB slides).
    ///
    /// Where it is false, that kind's frames are composed on the CPU, from the
    /// slides' frames: those are best decoded into ordinary memory then, not
    /// into scan-out buffers that the CPU would read back every refresh.
    public func carriesPageChanges(_ kind: TransitionKind, at output: PixelSize) -> Bool {
        let layers: [Scene.Layer]
        switch kind {
        case .slide: layers = [Scene.Layer(content: .slide(0), offset: -0.5), Scene.Layer(content: .slide(1), offset: 0.5)]
        case .crossfade: layers = [Scene.Layer(content: .slide(0)), Scene.Layer(content: .slide(1), opacity: 0.5)]
        case .cut: layers = [Scene.Layer(content: .slide(0))]
        }
        let stack = LayerStack(scene: Scene(layers: layers, indicator: nil), output: output, indicator: IndicatorStyle()) { _ in
            LayerStack.Picture(frameSize: output)
        }
        return plan(for: stack).path == "planes"
    }
}
