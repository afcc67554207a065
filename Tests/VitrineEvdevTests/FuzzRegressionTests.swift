import Testing
import VitrineEvdev

/// Reproducers found by `make fuzz` (Fuzz/FuzzEvemu, docs/fuzzing.md): each
/// once crashed the process and must now be a typed ParseError.
@Suite("Evemu parsing: fuzz reproducers")
struct EvemuFuzzRegressionTests {
    static let header = """
        N: Fuzz Touchscreen
        B: 03 00 00 00 00 00 00 60 00
        A: 35 0 4095 0 0 16
        A: 36 0 2303 0 0 16

        """

    /// The fuzzer's reproducer was `E: 0.1e3000 …`: Double reads it as infinity,
    /// and MonotonicInstant.seconds trapped converting it to Int64 nanoseconds.
    @Test(arguments: ["0.1e3000", "inf", "-inf", "nan", "1e10", "-1e10", "1.", ".5", "1.0000000001", "0x10", "+1.0", "1,5"])
    func eventTimeOutOfRangeIsAParseError(time: String) {
        let text = Self.header + "E: \(time) 0003 0035 100\n"
        #expect(throws: EvemuRecording.ParseError.self) { try EvemuRecording.parse(text) }
    }

    @Test func eventTimesWithinRangeStillParse() throws {
        let text = Self.header + "E: 0.000000 0003 0035 100\nE: 999999999.5 0000 0000 0000\n"
        #expect(try EvemuRecording.parse(text).events.count == 2)
    }

    /// What a timeval holds is a time; only a span past Int64 nanoseconds (292 years) from the first event is not.
    @Test func anySpanThatFitsIsAcceptedAndALongerOneIsAParseError() throws {
        let fits = Self.header + "E: -9223372036.854775 0003 0035 100\nE: -9223372036.000000 0000 0000 0000\n"
        #expect(try EvemuRecording.parse(fits).events.map(\.time.nanoseconds) == [0, 854_775_000])
        let tooLong = Self.header + "E: 0.000000 0003 0035 100\nE: 9223372036854775807.999999 0000 0000 0000\n"
        #expect(throws: EvemuRecording.ParseError.self) { try EvemuRecording.parse(tooLong) }
    }
}
