import FoundationEssentials
import VitrineCore

/// A configuration written back out as JSON: what the remote API serves and
/// stores. Every key is written, defaults included, with sorted keys, so the
/// same configuration always gives the same bytes and so the same version.
/// The `api` section is never written: it belongs to the local file alone.
public enum ConfigDocument {
    /// The canonical JSON text of `configuration`; `ConfigLoader.parse` reads it back to an equal value.
    public static func json(_ configuration: KioskConfiguration) -> [UInt8] {
        // Sorted keys make the bytes canonical; slashes stay unescaped so URLs read as written.
        JSONValue.object(tree(configuration)).encoded([.sortedKeys, .prettyPrinted, .withoutEscapingSlashes]) + [0x0A]
    }

    /// The configuration as JSON values, keyed as the file is. Keys without a
    /// value (`placeholder`, `schedule`, `sync`, `outputs`, `output.card`, …) are left out.
    public static func tree(_ c: KioskConfiguration) -> [String: JSONValue] {
        func duration(_ d: Duration) -> JSONValue { .string(DurationSyntax.format(d)) }
        var output: [String: JSONValue] = [
            "display": .string(c.output.display.rawValue), "modesetting": .string(c.output.modesetting.rawValue),
            "rotation": JSONValue(c.output.rotation), "width": JSONValue(c.output.width), "height": JSONValue(c.output.height),
            "preview": .string(c.output.preview),
        ]
        // Written only when set otherwise than the default: keys that came after a configuration's
        // bytes were first stored must not change its version (SlideBytesPinTests).
        if c.output.planes != OutputConfiguration().planes { output["planes"] = .string(c.output.planes.rawValue) }
        if c.output.planeMemoryMiB != OutputConfiguration().planeMemoryMiB { output["planeMemory"] = JSONValue(c.output.planeMemoryMiB) }
        var decode: [String: JSONValue] = ["maxPixels": JSONValue(c.decode.maxPixels), "cacheSlides": JSONValue(c.decode.cacheSlides)]
        // Only when set, as keys added later are: the document's bytes are its configuration's version.
        if c.decode.maxVideoBitrateMbps != DecodeConfiguration().maxVideoBitrateMbps {
            decode["maxVideoBitrate"] = JSONValue(c.decode.maxVideoBitrateMbps)
        }
        if let card = c.output.card { output["card"] = .string(card) }
        if let connector = c.output.connector { output["connector"] = .string(connector) }
        if let mode = c.output.mode { output["mode"] = .string(mode.description) }
        var touch: [String: JSONValue] = [
            "resumeDelay": duration(c.touch.resumeDelay), "include": JSONValue(c.touch.include), "exclude": JSONValue(c.touch.exclude),
            "calibration": JSONValue(c.touch.calibration), "tapMaxDuration": duration(c.touch.tapMaxDuration),
            "tapSlop": JSONValue(c.touch.tapSlopMillimetres), "swipeFraction": JSONValue(c.touch.swipeFraction),
            "flickVelocity": JSONValue(c.touch.flickVelocityMillimetresPerSecond),
            "devices": .array(c.touch.devices.map(touchDevice)),
        ]
        // Only when set, so that every configuration without it keeps its version.
        if let attract = c.touch.attract {
            touch["attract"] = ["after": duration(attract.idle), "home": JSONValue(attract.home)]
        }
        var document: [String: JSONValue] = [
            "slides": .array(c.slides.map { .object(slide($0)) }),
            "interval": duration(c.interval),
            "autoplay": .bool(c.autoplay),
            "loop": .bool(c.loop),
            "fit": .string(c.fit.rawValue),
            "background": .string(c.background.hexString),
            "onImageError": .string(c.onImageError.rawValue),
            "transition": [
                "type": .string(c.transition.kind.rawValue), "duration": duration(c.transition.duration),
                "easing": .string(c.transition.easing.rawValue),
            ],
            "indicator": [
                "visible": .bool(c.indicator.visible), "diameter": JSONValue(c.indicator.diameter),
                "spacing": JSONValue(c.indicator.spacing), "color": .string(c.indicator.color.hexString),
                "currentColor": .string(c.indicator.currentColor.hexString), "position": .string(c.indicator.position.rawValue),
                "margin": JSONValue(c.indicator.margin),
            ],
            "touch": .object(touch),
            "output": .object(output),
            "decode": .object(decode),
            "power": ["wakeOnTouch": c.power.wakeOnTouch.map(duration) ?? "off", "cec": .string(c.power.cec.description)],
        ]
        if let placeholder = c.placeholder { document["placeholder"] = .string(placeholder) }
        // Only when set, so that every configuration without it keeps its version.
        if c.showAddress { document["showAddress"] = .bool(true) }
        // Only when set, so that every configuration without it keeps its version.
        if let kenBurns = c.kenBurns { document["kenBurns"] = KenBurnsBody(kenBurns).document }
        if let schedule = c.schedule { document["schedule"] = .object(ScheduleDocument.tree(schedule)) }
        if let sync = c.sync { document["sync"] = sync.document }
        if let outputs = c.outputs { document["outputs"] = OutputsDocument.tree(outputs) }
        return document
    }

    /// One slide in its canonical object form (`{"path": ...}` and the keys it
    /// sets), as `slides` has it: `SlideBody`'s document.
    public static func slide(_ slide: SlideConfiguration) -> [String: JSONValue] {
        SlideBody(slide).document
    }

    /// A `touch.devices` entry: `{"match": ..., "calibration": [...]}`.
    static func touchDevice(_ device: TouchDeviceCalibration) -> JSONValue {
        ["match": .string(device.pattern.text), "calibration": JSONValue(device.matrix)]
    }
}
