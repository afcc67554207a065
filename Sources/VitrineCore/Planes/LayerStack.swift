/// A frame as layers, bottom to top, over the background colour: each
/// visible slide with its position, opacity and source rectangle, then the
/// page dots. It is the same picture `Compositor` draws for the scene, in
/// a form a plane planner can hand to the display (`PlanePlanner`), and the
/// geometry follows the compositor's to the pixel: a slide's offset rounds
/// as it does there, and what it skips is left out here.
public struct LayerStack: Hashable, Sendable {
    /// What a scene layer's picture is: the size of its frame, and the Ken
    /// Burns rectangle of it on screen (nil: an output-sized frame shown whole).
    public struct Picture: Hashable, Sendable {
        public var frameSize: PixelSize
        public var region: FrameRect?

        public init(frameSize: PixelSize, region: FrameRect? = nil) {
            self.frameSize = frameSize
            self.region = region
        }
    }

    public var output: PixelSize
    /// Bottom to top.
    public var layers: [DisplayLayer]

    public init(output: PixelSize, layers: [DisplayLayer]) {
        self.output = output
        self.layers = layers
    }

    /// The layers of `scene` on an output of `output` size. `picture` says
    /// what each scene layer shows; nil (not decoded), or a whole frame of
    /// another size, is the background colour in its place, as the compositor draws it.
    public init(scene: Scene, output: PixelSize, indicator style: IndicatorStyle,
                picture: (Scene.Layer) -> Picture?) {
        let width = output.width, height = output.height
        var layers: [DisplayLayer] = []
        for layer in scene.layers {
            // The compositor's rounding, so both paths put a slide on the same column.
            let dx = Int((layer.offset * Double(width) + 0.5).rounded(.down))
            // Quantised as the compositor does (in 256ths): the last frames of a crossfade
            // that it draws opaque are opaque here too, and `isOpaque` agrees with its coverage test.
            let opacity = (min(max(layer.opacity, 0), 1) * 256).rounded() / 256
            guard opacity > 0, dx < width, dx > -width else { continue }
            let first = max(0, dx), count = min(width, dx + width) - first
            guard count > 0 else { continue }
            let destination = PixelRect(x: first, y: 0, width: count, height: height)
            guard let picture = picture(layer), let source = Self.source(of: picture, output: output, dx: dx, destination: destination) else {
                layers.append(DisplayLayer(content: .fill(layer), format: .xrgb8888, bufferSize: PixelSize(width: 1, height: 1),
                                           source: SourceRect(x: 0, y: 0, width: 1, height: 1),
                                           destination: destination, opacity: opacity))
                continue
            }
            layers.append(DisplayLayer(content: .slide(layer), format: .xrgb8888, bufferSize: picture.frameSize,
                                       source: source, destination: destination, opacity: opacity))
        }
        if let state = scene.indicator, let bounds = Self.indicatorBounds(state, style: style, output: output) {
            let size = PixelSize(width: bounds.width, height: bounds.height)
            layers.append(DisplayLayer(content: .indicator(state), format: .argb8888, bufferSize: size,
                                       source: SourceRect(size), destination: bounds, opacity: 1))
        }
        if let notice = scene.notice {
            layers.append(DisplayLayer(content: .notice(notice), format: .argb8888, bufferSize: notice.image.size,
                                       source: SourceRect(notice.image.size), destination: notice.destination, opacity: 1))
        }
        self.init(output: output, layers: layers)
    }

    /// The part of a scene layer's frame that shows in `destination`, a slide
    /// offset by `dx` and clipped to the output: the same columns of an
    /// output-sized frame, or the same share of a Ken Burns rectangle.
    private static func source(of picture: Picture, output: PixelSize, dx: Int, destination: PixelRect) -> SourceRect? {
        guard let region = picture.region else {
            guard picture.frameSize == output else { return nil }
            return SourceRect(x: Double(destination.x - dx), y: 0,
                              width: Double(destination.width), height: Double(output.height))
        }
        guard !picture.frameSize.isEmpty else { return nil }
        let frameWidth = Double(picture.frameSize.width), frameHeight = Double(picture.frameSize.height)
        let perColumn = region.width * frameWidth / Double(output.width)
        return SourceRect(x: region.x * frameWidth + Double(destination.x - dx) * perColumn,
                          y: region.y * frameHeight,
                          width: Double(destination.width) * perColumn,
                          height: region.height * frameHeight)
    }

    /// The rectangle the page dots of `state` cover on the output (their
    /// anti-aliased edges included, as `PageIndicator.draw` touches them),
    /// or nil when no dot is drawn.
    public static func indicatorBounds(_ state: IndicatorState, style: IndicatorStyle, output: PixelSize) -> PixelRect? {
        var minX = Int.max, minY = Int.max, maxX = Int.min, maxY = Int.min
        let whole = PixelRect(x: 0, y: 0, width: output.width, height: output.height)
        for (index, dot) in PageIndicator.dots(count: state.count, style: style, output: output).enumerated() {
            guard PageIndicator.color(ofDot: index, state: state, style: style).alpha > 0,
                  let rect = dot.pixels(within: whole) else { continue }
            minX = min(minX, rect.x)
            maxX = max(maxX, rect.maxX)
            minY = min(minY, rect.y)
            maxY = max(maxY, rect.maxY)
        }
        guard minX < maxX, minY < maxY else { return nil }
        return PixelRect(x: minX, y: minY, width: maxX - minX, height: maxY - minY)
    }

    /// The scene that draws layers `range` of this stack (the bottom ones
    /// a plan composes): their scene layers, and the dots and the notice if
    /// among them. `Compositor` draws it exactly as it draws those layers of
    /// the whole scene, with its fast paths, into the primary plane's buffer.
    public func scene(composing range: Range<Int>) -> Scene {
        var indicator: IndicatorState?
        var notice: NoticeImage?
        for layer in layers[range] {
            switch layer.content {
            case .indicator(let state): indicator = state
            case .notice(let image): notice = image
            case .slide, .fill: break
            }
        }
        return Scene(layers: layers[range].compactMap(\.sceneLayer), indicator: indicator, notice: notice)
    }

    /// Whether opaque layers cover the whole output, so that the background
    /// never shows (only full-height layers count: slides are).
    public var isCoveredOpaquely: Bool {
        var spans = layers.filter { $0.isOpaque && !$0.isFill && $0.destination.y == 0 && $0.destination.height == output.height }
            .map { $0.destination.x..<($0.destination.x + $0.destination.width) }
        spans.sort { $0.lowerBound < $1.lowerBound }
        var reached = 0
        for span in spans where span.lowerBound <= reached { reached = max(reached, span.upperBound) }
        return reached >= output.width
    }
}
