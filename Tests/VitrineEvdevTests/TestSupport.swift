import Foundation
import Testing
import VitrineCore
import VitrineEvdev
import VitrineRuntime

/// The hand-written evemu recordings next to this file.
enum Recordings {
    static let directory: String = URL(fileURLWithPath: #filePath)
        .deletingLastPathComponent().appendingPathComponent("Recordings").path

    static func text(_ name: String) throws -> String {
        try String(contentsOfFile: directory + "/" + name, encoding: .utf8)
    }

    /// A whole recording (header and events).
    static func load(_ name: String) throws -> EvemuRecording {
        try EvemuRecording.parse(text(name))
    }

    /// How many `E:` lines the file has, counted independently of the parser.
    static func eventLineCount(_ name: String) throws -> Int {
        try text(name).split(separator: "\n").filter { $0.hasPrefix("E:") }.count
    }

    /// The recording run through the device model, the gesture recognizer and the
    /// engine on the default 1920x1080 output with five looping slides.
    static func replay(_ name: String) throws -> [TouchReplay.Line] {
        try TouchReplay().run(load(name))
    }
}

extension TouchReplay.Line {
    /// A field's value with the JSON string quotes removed.
    subscript(_ key: String) -> String? {
        guard let raw = fields.first(where: { $0.0 == key })?.1 else { return nil }
        return raw.count >= 2 && raw.hasPrefix("\"") && raw.hasSuffix("\"") ? String(raw.dropFirst().dropLast()) : raw
    }

    func number(_ key: String) -> Double? { self[key].flatMap(Double.init) }
}

/// Checks a `tap` line: its slide exactly, its position within 1 px.
func expectTap(_ line: TouchReplay.Line, slide: Int, x: Double, y: Double, sourceLocation: SourceLocation = #_sourceLocation) {
    #expect(line.event == "tap", "\(line)", sourceLocation: sourceLocation)
    #expect(line["slide"] == "\(slide)", "\(line)", sourceLocation: sourceLocation)
    let px = line.number("x") ?? .nan, py = line.number("y") ?? .nan
    #expect(abs(px - x) <= 1, "tap x \(px), expected \(x)", sourceLocation: sourceLocation)
    #expect(abs(py - y) <= 1, "tap y \(py), expected \(y)", sourceLocation: sourceLocation)
}

/// Checks the four lines of a swipe that pages from `from` to `to`: the drag
/// starts on `from`, ends paged on `to`, the swipe goes `direction`, and the
/// page change (cause swipe) follows.
func expectSwipe(_ lines: ArraySlice<TouchReplay.Line>, from: Int, to: Int, direction: String,
                 sourceLocation: SourceLocation = #_sourceLocation) {
    let lines = Array(lines)
    guard lines.map(\.event) == ["dragStart", "dragEnd", "swipe", "pageChanged"] else {
        Issue.record("expected dragStart, dragEnd, swipe, pageChanged; got \(lines)", sourceLocation: sourceLocation)
        return
    }
    #expect(lines[0]["slide"] == "\(from)", "\(lines[0])", sourceLocation: sourceLocation)
    #expect(lines[1]["slide"] == "\(to)", "\(lines[1])", sourceLocation: sourceLocation)
    #expect(lines[1]["paged"] == "true", "\(lines[1])", sourceLocation: sourceLocation)
    #expect(lines[2]["direction"] == direction, "\(lines[2])", sourceLocation: sourceLocation)
    #expect(lines[2]["from"] == "\(from)", "\(lines[2])", sourceLocation: sourceLocation)
    #expect(lines[3]["from"] == "\(from)", "\(lines[3])", sourceLocation: sourceLocation)
    #expect(lines[3]["to"] == "\(to)", "\(lines[3])", sourceLocation: sourceLocation)
    #expect(lines[3]["cause"] == "swipe", "\(lines[3])", sourceLocation: sourceLocation)
    // The drag ends and the swipe is decided at the same instant: the lift.
    #expect(lines[1]["t"] == lines[2]["t"], sourceLocation: sourceLocation)
}

/// Raw axis units to output pixels, as the recordings' comments compute them.
enum Panel {
    /// (a) protocol B: 0..4095 x 0..2303 onto 1920x1080.
    static func b(_ x: Double, _ y: Double) -> (x: Double, y: Double) { (x * 1920 / 4095, y * 1080 / 2303) }
    /// (b) protocol A: 0..3840 x 0..2160, and (c) single-touch: 0..960 x 0..540.
    static func a(_ x: Double, _ y: Double) -> (x: Double, y: Double) { (x / 2, y / 2) }
    static func single(_ x: Double, _ y: Double) -> (x: Double, y: Double) { (x * 2, y * 2) }
    /// (d) the QEMU tablet: 0..32767 on both axes.
    static func tablet(_ x: Double, _ y: Double) -> (x: Double, y: Double) { (x * 1920 / 32767, y * 1080 / 32767) }
}
