import VitrineCore

/// How a picture or a video is framed for the output, as both kinds of job
/// carry it: the file's name for messages, the fit, the background, the
/// output's size and the pixel limit.
package struct WireFraming: Equatable, Sendable {
    package var file: String
    package var fit: FitMode
    package var background: RGBAColor
    package var output: PixelSize
    package var maxPixels: Int

    package init(file: String, fit: FitMode, background: RGBAColor, output: PixelSize, maxPixels: Int) {
        self.file = file
        self.fit = fit
        self.background = background
        self.output = output
        self.maxPixels = maxPixels
    }
}

extension WireWriter {
    package mutating func put(_ framing: WireFraming) {
        put(framing.file)
        put(framing.fit.rawValue)
        put(framing.background.xrgb)
        put(framing.background.alpha)
        put(Int64(framing.output.width))
        put(Int64(framing.output.height))
        put(Int64(framing.maxPixels))
    }
}

extension WireReader {
    /// A framing whose output sides lie in `sides`.
    package mutating func getFraming(sides: ClosedRange<Int>) throws(Malformed) -> WireFraming {
        let file = try getString()
        guard let fit = FitMode(rawValue: try getString()) else { throw Malformed(what: "an unknown fit") }
        let xrgb = try get(UInt32.self), alpha = try get(UInt8.self)
        let background = RGBAColor(red: UInt8(truncatingIfNeeded: xrgb >> 16), green: UInt8(truncatingIfNeeded: xrgb >> 8),
                                   blue: UInt8(truncatingIfNeeded: xrgb), alpha: alpha)
        let output = PixelSize(width: try getInt(in: sides, "width"), height: try getInt(in: sides, "height"))
        return WireFraming(file: file, fit: fit, background: background, output: output,
                           maxPixels: try getInt(in: WireBounds.pixels, "maxPixels"))
    }
}

/// The byte layout of the messages between the kiosk and its decoding
/// helpers: fixed-width little-endian integers and length-prefixed UTF-8,
/// nothing else. The kiosk reads what a helper sends as hostile: every read
/// is bounds-checked and a short or malformed message is an error, never a trap.
package struct WireWriter {
    package private(set) var bytes: [UInt8] = []

    package init() {}

    package mutating func put<Value: FixedWidthInteger>(_ value: Value) {
        withUnsafeBytes(of: value.littleEndian) { bytes.append(contentsOf: $0) }
    }

    package mutating func put(_ value: Double) { put(value.bitPattern) }

    package mutating func put(_ value: Bool) { put(UInt8(value ? 1 : 0)) }

    package mutating func put(_ text: String) {
        let utf8 = Array(text.utf8.prefix(WireReader.textLimit))
        put(UInt32(utf8.count))
        bytes += utf8
    }
}

/// Reads what `WireWriter` wrote, refusing anything that does not fit.
package struct WireReader {
    /// The longest string either side sends: an error message, a file name.
    package static let textLimit = 4096

    package struct Malformed: Error, CustomStringConvertible {
        package var what: String
        package var description: String { "malformed message from the decoding helper: \(what)" }
        package init(what: String) { self.what = what }
    }

    private let bytes: [UInt8]
    private var offset = 0

    package init(_ bytes: [UInt8]) { self.bytes = bytes }

    package var isAtEnd: Bool { offset == bytes.count }

    package mutating func get<Value: FixedWidthInteger>(_: Value.Type = Value.self) throws(Malformed) -> Value {
        let size = MemoryLayout<Value>.size
        guard bytes.count - offset >= size else { throw Malformed(what: "cut short at byte \(offset)") }
        var value = Value.zero
        withUnsafeMutableBytes(of: &value) { raw in
            for index in 0..<size { raw[index] = bytes[offset + index] }
        }
        offset += size
        return Value(littleEndian: value)
    }

    package mutating func getDouble() throws(Malformed) -> Double { Double(bitPattern: try get(UInt64.self)) }

    package mutating func getBool() throws(Malformed) -> Bool { try get(UInt8.self) != 0 }

    /// A count or size that must lie in `range`.
    package mutating func getInt(in range: ClosedRange<Int>, _ what: String) throws(Malformed) -> Int {
        let value = try get(Int64.self)
        guard value >= Int64(range.lowerBound), value <= Int64(range.upperBound) else {
            throw Malformed(what: "\(what) \(value) is outside \(range)")
        }
        return Int(value)
    }

    package mutating func getString() throws(Malformed) -> String {
        let count = Int(try get(UInt32.self))
        guard count <= Self.textLimit, bytes.count - offset >= count else { throw Malformed(what: "a string of \(count) bytes") }
        defer { offset += count }
        return String(decoding: bytes[offset..<offset + count], as: UTF8.self)
    }
}

/// Sides, counts and buffer sizes a message may carry: a 16K screen's side,
/// and the 64 MiB Ken Burns frame or animation, with room to spare.
package enum WireBounds {
    package static let side = 0...65_535
    package static let pixels = 0...Int(Int32.max)
    package static let bufferBytes = 0...(1 << 30)
    package static let animationFrames = 0...16_384
}
