import FoundationEssentials
import VitrineCore

/// A configuration written back out as JSON: what the remote API serves and
/// stores. Every key is written, defaults included, with sorted keys, so the
/// same configuration always gives the same bytes and so the same version.
/// The `api` section is never written: it belongs to the local file alone.
public enum ConfigDocument {
    /// The canonical JSON text of `configuration`; `ConfigLoader.parse` reads it back to an equal value.
    public static func json(_ configuration: KioskConfiguration) -> [UInt8] {
        let object = tree(configuration)
        // Sorted keys make the bytes canonical; slashes stay unescaped so URLs read as written.
        let data = try! JSONValue.encode(object, [.sortedKeys, .prettyPrinted, .withoutEscapingSlashes])
        return Array(data) + [0x0A]
    }

    /// The configuration as plain values (see `JSONValue.init(plain:)`), keyed as the file is.
    public static func tree(_ c: KioskConfiguration) -> [String: Any] {
        func duration(_ d: Duration) -> String { DurationSyntax.format(d) }
        let slides = c.slides.map(slide)
        var output: [String: Any] = [
            "display": c.output.display.rawValue, "modesetting": c.output.modesetting.rawValue,
            "rotation": c.output.rotation, "width": c.output.width, "height": c.output.height, "preview": c.output.preview,
        ]
        if let card = c.output.card { output["card"] = card }
        if let connector = c.output.connector { output["connector"] = connector }
        if let mode = c.output.mode { output["mode"] = mode.description }
        var document: [String: Any] = [
            "slides": slides,
            "interval": duration(c.interval),
            "autoplay": c.autoplay,
            "loop": c.loop,
            "fit": c.fit.rawValue,
            "background": c.background.hexString,
            "onImageError": c.onImageError.rawValue,
            "transition": [
                "type": c.transition.kind.rawValue, "duration": duration(c.transition.duration),
                "easing": c.transition.easing.rawValue,
            ],
            "indicator": [
                "visible": c.indicator.visible, "diameter": c.indicator.diameter, "spacing": c.indicator.spacing,
                "color": c.indicator.color.hexString, "currentColor": c.indicator.currentColor.hexString,
                "position": c.indicator.position.rawValue, "margin": c.indicator.margin,
            ],
            "touch": [
                "resumeDelay": duration(c.touch.resumeDelay), "include": c.touch.include, "exclude": c.touch.exclude,
                "calibration": c.touch.calibration, "tapMaxDuration": duration(c.touch.tapMaxDuration),
                "tapSlop": c.touch.tapSlopMillimetres, "swipeFraction": c.touch.swipeFraction,
                "flickVelocity": c.touch.flickVelocityMillimetresPerSecond,
                "devices": c.touch.devices.map { ["match": $0.pattern.text, "calibration": $0.matrix] as [String: Any] },
            ],
            "output": output,
            "decode": ["maxPixels": c.decode.maxPixels, "cacheSlides": c.decode.cacheSlides],
            "power": ["wakeOnTouch": c.power.wakeOnTouch.map(duration) ?? "off", "cec": c.power.cec.description],
        ]
        if let placeholder = c.placeholder { document["placeholder"] = placeholder }
        if let schedule = c.schedule { document["schedule"] = ScheduleDocument.tree(schedule) }
        if let sync = c.sync { document["sync"] = sync.document }
        return document
    }

    /// One slide in its canonical object form (`{"path": ...}` and the keys it
    /// sets), as `slides` has it; the slide reader reads it back to an equal value.
    public static func slide(_ slide: SlideConfiguration) -> [String: Any] {
        func duration(_ d: Duration) -> String { DurationSyntax.format(d) }
        var entry: [String: Any] = ["path": slide.path]
        if let d = slide.duration { entry["duration"] = duration(d) }
        if let fit = slide.fit { entry["fit"] = fit.rawValue }
        switch slide.action {
        case .goTo(let index)?: entry["action"] = ["goto": index]
        case .post(let url, let timeout)?: entry["action"] = ["post": url, "timeout": duration(timeout)]
        case nil: break
        }
        return entry
    }
}
