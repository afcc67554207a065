import VitrineCore

/// An `evemu-record` file: a header describing the device (N:, I:, P:, B:, A:
/// lines), then its events (E: lines). The events-only form, with the header
/// in a separate description file, is read by `parse(events:description:)`.
public struct EvemuRecording: Hashable, Sendable {
    public var device: InputDeviceDescription
    public var events: [RawInputEvent]

    public struct ParseError: Error, Hashable, Sendable, CustomStringConvertible {
        public var line: Int
        public var message: String
        public var description: String { "line \(line): \(message)" }
    }

    /// A whole recording: header and events in one text.
    public static func parse(_ text: String) throws(ParseError) -> EvemuRecording {
        var device = InputDeviceDescription(name: "")
        var events: [RawInputEvent] = []
        try read(text, device: &device, events: &events)
        guard !device.name.isEmpty || !device.codes.isEmpty else {
            throw ParseError(line: 1, message: "no device description (N:/B:/A: lines); give the description file separately")
        }
        return EvemuRecording(device: device, events: events)
    }

    /// The events-only form, with the device described by another evemu file
    /// (`evemu-describe` output, or a recording whose events are ignored).
    public static func parse(events text: String, description: String) throws(ParseError) -> EvemuRecording {
        var device = InputDeviceDescription(name: "")
        var ignored: [RawInputEvent] = []
        try read(description, device: &device, events: &ignored)
        var events: [RawInputEvent] = []
        var unused = InputDeviceDescription(name: "")
        try read(text, device: &unused, events: &events)
        return EvemuRecording(device: device, events: events)
    }

    private static func read(_ text: String, device: inout InputDeviceDescription, events: inout [RawInputEvent]) throws(ParseError) {
        // Bitmask lines of one kind continue each other: B: 03 … then B: 03 … again.
        var bitmaskBytes: [UInt16: Int] = [:]
        var propertyBytes = 0
        var firstEventTime: EventTime?
        for (index, rawLine) in text.split(separator: "\n", omittingEmptySubsequences: false).enumerated() {
            let number = index + 1
            let line = rawLine.split(separator: "#", maxSplits: 1, omittingEmptySubsequences: false).first.map(String.init) ?? ""
            let trimmed = line.trimmingWhitespace
            guard trimmed.count >= 2, trimmed.dropFirst().first == ":" else { continue }
            let fields = trimmed.dropFirst(2).split(whereSeparator: { $0 == " " || $0 == "\t" }).map(String.init)
            switch trimmed.first! {
            case "N":
                device.name = String(trimmed.dropFirst(2)).trimmingWhitespace
            case "I":
                // I: bus vendor product version, four hex numbers.
                let numbers = fields.compactMap { UInt16($0, radix: 16) }
                guard numbers.count == 4, fields.count == 4 else {
                    throw ParseError(line: number, message: "I: needs bus, vendor, product and version in hex, found \"\(trimmed)\"")
                }
                device.identity = InputDeviceIdentity(bus: numbers[0], vendor: numbers[1], product: numbers[2], version: numbers[3])
            case "P":
                for byte in try hexBytes(fields, line: number) {
                    for bit in 0..<8 where byte & (1 << bit) != 0 { device.properties.insert(UInt16(propertyBytes * 8 + bit)) }
                    propertyBytes += 1
                }
            case "B":
                guard let type = fields.first.flatMap({ UInt16($0, radix: 16) }) else {
                    throw ParseError(line: number, message: "B: needs an event type")
                }
                for byte in try hexBytes(Array(fields.dropFirst()), line: number) {
                    let offset = bitmaskBytes[type, default: 0]
                    for bit in 0..<8 where byte & (1 << bit) != 0 {
                        // Type 0's bitmask lists event types, not codes.
                        if type != 0 { device.codes[type, default: []].insert(UInt16(offset * 8 + bit)) }
                    }
                    bitmaskBytes[type] = offset + 1
                }
            case "A":
                guard fields.count >= 3, let code = UInt16(fields[0], radix: 16), let minimum = Int32(fields[1]),
                      let maximum = Int32(fields[2]) else {
                    throw ParseError(line: number, message: "A: needs code, minimum and maximum")
                }
                let resolution = fields.count >= 6 ? Int32(fields[5]) ?? 0 : 0
                device.axes[code] = AxisRange(minimum: minimum, maximum: maximum, resolution: resolution)
            case "E":
                guard fields.count >= 4, let type = UInt16(fields[1], radix: 16),
                      let code = UInt16(fields[2], radix: 16), let value = Int32(fields[3]) else {
                    throw ParseError(line: number, message: "E: needs time, type, code and value, found \"\(trimmed)\"")
                }
                guard let time = EventTime(fields[0]) else {
                    throw ParseError(line: number, message: "E: time \(fields[0]) is not seconds.microseconds as a timeval holds them")
                }
                // Times count from the first event: evemu 2 writes 0.000000 there,
                // older evemu wrote the kernel's clock (an absolute epoch time such as
                // 1357751027.090934). Either way only the differences matter.
                let first = firstEventTime ?? time
                firstEventTime = first
                guard let offset = time.nanoseconds(since: first) else {
                    throw ParseError(line: number, message: "E: time \(fields[0]) is more than 292 years from the first event's, \(first.text)")
                }
                events.append(RawInputEvent(type: type, code: code, value: value, time: MonotonicInstant(nanoseconds: offset)))
            default:
                continue  // L:, S: and anything newer
            }
        }
    }

    /// An `E:` line's time as evemu prints a `timeval`: whole seconds (any that
    /// fit a signed 64-bit `tv_sec`), a dot and up to nine digits of fraction.
    /// Read exactly, without going through Double: an epoch time has 16
    /// significant digits, and "nan", "inf" or "1e3000" are not times.
    struct EventTime {
        let seconds: Int64
        let nanoseconds: Int64
        let text: String

        init?(_ text: String) {
            let parts = text.split(separator: ".", maxSplits: 1, omittingEmptySubsequences: false)
            let whole = parts[0], negative = whole.hasPrefix("-")
            let digits = negative ? whole.dropFirst() : whole[...]
            guard !digits.isEmpty, digits.allSatisfy({ $0.isASCII && $0.isNumber }), let seconds = Int64(digits) else { return nil }
            var fraction: Int64 = 0
            if parts.count == 2 {
                let decimals = parts[1]
                guard (1...9).contains(decimals.count), decimals.allSatisfy({ $0.isASCII && $0.isNumber }), let value = Int64(decimals) else { return nil }
                fraction = value * Int64(pow10: 9 - decimals.count)
            }
            self.seconds = negative ? -seconds : seconds
            self.nanoseconds = negative ? -fraction : fraction
            self.text = text
        }

        /// Nanoseconds from `origin` to this time; nil where that does not fit an Int64.
        func nanoseconds(since origin: EventTime) -> Int64? {
            let (seconds, overflowed) = self.seconds.subtractingReportingOverflow(origin.seconds)
            guard !overflowed else { return nil }
            let (scaled, overflow) = seconds.multipliedReportingOverflow(by: 1_000_000_000)
            guard !overflow else { return nil }
            let (total, last) = scaled.addingReportingOverflow(nanoseconds - origin.nanoseconds)
            return last ? nil : total
        }
    }

    private static func hexBytes(_ fields: [String], line: Int) throws(ParseError) -> [UInt8] {
        var bytes: [UInt8] = []
        for field in fields {
            guard let byte = UInt8(field, radix: 16) else { throw ParseError(line: line, message: "\"\(field)\" is not a hex byte") }
            bytes.append(byte)
        }
        return bytes
    }
}

extension Int64 {
    init(pow10 exponent: Int) {
        self = (0..<exponent).reduce(1) { value, _ in value * 10 }
    }
}

extension String {
    var trimmingWhitespace: String {
        String(drop { $0 == " " || $0 == "\t" || $0 == "\r" }.reversed().drop { $0 == " " || $0 == "\t" || $0 == "\r" }.reversed())
    }
}
