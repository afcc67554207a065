import VitrineCore

/// The `outputs` section written back out, keyed as the file is: each entry's
/// `name` and `whenMissing`, and the keys it sets. `ConfigLoader.parse` reads
/// it back to an equal value.
enum OutputsDocument {
    static func tree(_ layout: OutputLayout) -> JSONValue {
        .array(layout.outputs.map { .object(entry($0)) })
    }

    static func entry(_ output: ConfiguredOutput) -> [String: JSONValue] {
        var tree: [String: JSONValue] = ["name": .string(output.name), "whenMissing": .string(output.whenMissing.rawValue)]
        if let mode = output.mode { tree["mode"] = .string(mode.description) }
        // Only when set: without it the output takes output.rotation.
        if let rotation = output.rotation { tree["rotation"] = JSONValue(rotation.rawValue) }
        if let fit = output.fit { tree["fit"] = .string(fit.rawValue) }
        if case .playlist(let name) = output.content { tree["playlist"] = .string(name) }
        // As read: a name part or vendor:product as a string, a physical path prefix as {phys: ...}.
        if let touch = output.touch {
            tree["touch"] = .array(touch.map { $0.isPhysicalPath ? .object(["phys": .string($0.text)]) : .string($0.text) })
        }
        switch output.role {
        case .own:
            break
        case .mirror(let source):
            tree["mirror"] = .string(source)
        case .canvas(let membership):
            var canvas: [String: JSONValue] = ["name": .string(membership.name), "x": number(membership.x), "y": number(membership.y)]
            if let width = membership.width, let height = membership.height {
                canvas["width"] = number(width)
                canvas["height"] = number(height)
            }
            tree["canvas"] = .object(canvas)
        }
        return tree
    }

    /// Whole millimetres as integers (`1230`), others as they are (`1230.5`).
    private static func number(_ millimetres: Double) -> JSONValue {
        Int64(exactly: millimetres).map(JSONValue.integer) ?? .double(millimetres)
    }
}
