import Testing
import VitrineConfig
import VitrineCore

@Suite("DurationSyntax")
struct DurationSyntaxTests {
    @Test(arguments: [
        ("5", Duration.seconds(5)),
        ("0.4", .milliseconds(400)),
        (".5", .milliseconds(500)),
        ("400ms", .milliseconds(400)),
        ("5s", .seconds(5)),
        ("1.5s", .milliseconds(1500)),
        ("2m", .seconds(120)),
        ("2min", .seconds(120)),
        ("0.5m", .seconds(30)),
        ("1.25ms", .microseconds(1250)),
        ("0", .zero),
        ("0ms", .zero),
        ("-2s", .seconds(-2)),
        (" 5s ", .seconds(5)),
        ("5 s", .seconds(5)),
        ("400 ms", .milliseconds(400)),
        ("86400", .seconds(86_400)),
        ("0.000001", .microseconds(1)),
    ])
    func parses(text: String, expected: Duration) {
        #expect(DurationSyntax.parse(text) == expected)
    }

    @Test(arguments: [
        "", " ", "s", "ms", "min", "m", "abc", "5x", "5sec", "5 seconds", "5h", "2d", "1e3", "1e3s", "--5", "1.2.3",
        "+5", "nan", "inf", "5ms5", "1_000", "1,5s", "5S", "5MS", "0x10", "½s",
        // Beyond what a duration in nanoseconds holds: malformed, not a crash.
        "99999999999999999999", "10000000000", "-10000000000s", "200000000m",
    ])
    func rejects(text: String) {
        #expect(DurationSyntax.parse(text) == nil)
    }

    @Test(arguments: [
        (Duration.seconds(5), "5s"),
        (.milliseconds(400), "400ms"),
        (.milliseconds(1500), "1.5s"),
        (.milliseconds(1234), "1.234s"),
        (.seconds(120), "120s"),
        (.zero, "0s"),
        (.seconds(86_400), "86400s"),
        (.milliseconds(1), "1ms"),
        (.microseconds(250), "0.00025s"),
        (.microseconds(1), "0.000001s"),
        (.nanoseconds(1), "0.000000001s"),
        (.milliseconds(-500), "-500ms"),
        (.milliseconds(-1500), "-1.5s"),
        (.seconds(-3), "-3s"),
    ])
    func formats(duration: Duration, text: String) {
        #expect(DurationSyntax.format(duration) == text)
    }

    @Test(arguments: [
        ("5", "5s"), ("0.4", "400ms"), ("400ms", "400ms"), ("5s", "5s"), ("1.5s", "1.5s"), ("2m", "120s"),
        ("2min", "120s"), ("0.25", "250ms"), ("90s", "90s"), ("1.5m", "90s"), ("0.0005", "0.0005s"),
    ])
    func roundTrips(text: String, canonical: String) throws {
        let parsed = try #require(DurationSyntax.parse(text))
        #expect(DurationSyntax.format(parsed) == canonical)
        #expect(DurationSyntax.parse(canonical) == parsed)
    }

    @Test func everyFormattedDurationParsesBackToItself() throws {
        let samples: [Duration] = [
            .nanoseconds(1), .nanoseconds(999), .microseconds(1), .microseconds(1500), .milliseconds(1),
            .milliseconds(999), .milliseconds(1001), .seconds(1), .seconds(59), .seconds(3600), .seconds(86_400),
            .nanoseconds(1_234_567_891), .milliseconds(-250),
        ]
        for duration in samples {
            let text = DurationSyntax.format(duration)
            #expect(DurationSyntax.parse(text) == duration, "\(duration) formatted as \(text)")
        }
    }
}
