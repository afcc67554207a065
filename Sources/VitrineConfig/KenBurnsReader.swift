import VitrineCore
import VitrineYAML

// Reading `kenBurns`, top level and per slide (docs/configuration.md, "Ken
// Burns"): `false`, `true`, `{from: [x, y, w, h], to: [x, y, w, h]}` or
// `{seed: N, zoom: Z}`, each object with an optional `easing`. Every problem
// is reported with its key path (`slides[2].kenBurns.from`).

extension ConfigLoader {
    /// What a `kenBurns` key says; nil (reported) when it is not valid.
    static func readKenBurns(_ node: YAMLNode, at path: String, reader: ConfigNodeReader) -> KenBurns? {
        let forms = "must be false, true, {from: [x, y, w, h], to: [x, y, w, h]} or {seed: N, zoom: Z}"
        switch node {
        case .scalar(let scalar) where scalar.style == .plain && ["true", "True", "TRUE", "false", "False", "FALSE"].contains(scalar.string):
            guard let on = reader.bool(node, at: path) else { return nil }
            return on ? .seeded(seed: 0, zoom: KenBurns.defaultZoom, easing: KenBurns.defaultEasing) : .off
        case .scalar, .sequence:
            reader.report(path, "\(forms), found \(reader.describe(node))")
            return nil
        case .mapping:
            break
        }
        guard var object = reader.object(node, at: path) else { return nil }
        defer { object.finish() }
        let from = object.read("from") { readFrameRect($1, at: $2, reader: $0) }
        let to = object.read("to") { readFrameRect($1, at: $2, reader: $0) }
        let seed = object.read("seed") { $0.integer($1, at: $2, in: 0...Int(UInt32.max)) }
        let zoom = object.read("zoom") { reader, node, path -> Double? in
            guard let zoom = reader.number(node, at: path, in: 1...KenBurns.largestZoom) else { return nil }
            guard zoom > 1 else {
                reader.report(path, "must be greater than 1 (1 shows the whole picture and moves nothing) and at most \(Int(KenBurns.largestZoom))")
                return nil
            }
            return zoom
        }
        let easing = object.read("easing") { $0.choice($1, at: $2, as: Easing.self) }
        let rectangles = object.has("from") || object.has("to"), seeded = object.has("seed") || object.has("zoom")
        if rectangles && seeded {
            reader.report(path, "must have either from and to (two rectangles) or seed and zoom (rectangles the seed chooses), not both")
            return nil
        }
        guard object.has("easing") == (easing != nil) else { return nil }
        if rectangles {
            for key in ["from", "to"] where !object.has(key) {
                reader.report(object.child(key), "is required beside \(key == "from" ? "to" : "from"): a rectangle [x, y, w, h] of the framed picture")
            }
            guard let from, let to else { return nil }
            return .rectangles(from: from, to: to, easing: easing ?? KenBurns.defaultEasing)
        }
        guard object.has("seed") == (seed != nil), object.has("zoom") == (zoom != nil) else { return nil }
        return .seeded(seed: UInt32(seed ?? 0), zoom: zoom ?? KenBurns.defaultZoom, easing: easing ?? KenBurns.defaultEasing)
    }

    /// `[x, y, w, h]`: fractions of the framed picture, inside it, of the
    /// output's shape (w = h) and at most 2x zoom (w, h >= 0.5).
    private static func readFrameRect(_ node: YAMLNode, at path: String, reader: ConfigNodeReader) -> FrameRect? {
        guard case .sequence(let items) = node, items.count == 4 else {
            reader.report(path, "must be a rectangle [x, y, w, h]: four numbers, fractions of the framed picture's width and height, found \(reader.describe(node))")
            return nil
        }
        let numbers = items.enumerated().compactMap { reader.number($1, at: "\(path)[\($0)]", in: 0...1) }
        guard numbers.count == 4 else { return nil }
        let rect = FrameRect(x: numbers[0], y: numbers[1], width: numbers[2], height: numbers[3])
        if let problem = KenBurns.problem(with: rect) {
            reader.report(path, "\(problem), found [\(items.map { reader.describe($0) }.joined(separator: ", "))]")
            return nil
        }
        return rect
    }
}
