import Testing
import VitrineCore

@Suite("Plain text helpers (what NSString and String(format:) did)")
struct PlainTextTests {
    @Test(arguments: [
        ("/srv/a/b.jpg", "/srv/a", "b.jpg"), ("b.jpg", "", "b.jpg"), ("/b.jpg", "/", "b.jpg"), ("/srv/a/", "/srv", "a"),
        ("/", "/", "/"), ("", "", ""), ("a/b", "a", "b"), ("//srv//a", "//srv", "a"),
    ])
    func pathParts(path: String, directory: String, last: String) {
        #expect(directoryOfPath(path) == directory)
        #expect(lastComponentOfPath(path) == last)
    }

    @Test func trimming() {
        #expect(" \t a b \r\n".trimmingWhitespace == "a b")
        #expect("   ".trimmingWhitespace == "")
        #expect("x".trimmingWhitespace == "x")
        #expect("  x  ".dropFirst().trimmingWhitespace == "x")
    }

    @Test(arguments: [
        (1.25, 1, "1.3"), (1.24, 1, "1.2"), (-0.04, 1, "0.0"), (-0.06, 1, "-0.1"), (2, 0, "2"), (2.5, 0, "3"),
        (0.1234, 3, "0.123"), (12.0, 2, "12.00"), (1_000_000.5, 1, "1000000.5"), (0.0001, 2, "0.00"), (9.995, 2, "9.99"),
        (99.96, 1, "100.0"),
    ] as [(Double, Int, String)])
    func fixedPointMatchesPrintfForTheValuesShown(value: Double, decimals: Int, text: String) {
        #expect(fixedPoint(value, decimals: decimals) == text)
    }

    @Test func fixedPointOfNonFiniteValues() {
        #expect(fixedPoint(.nan, decimals: 1) == "nan")
        #expect(fixedPoint(-.infinity, decimals: 1) == "-inf")
    }

    @Test func percentEncoding() {
        #expect("abc XYZ 09.jpg".percentEncodingAllButAlphanumerics == "abc%20XYZ%2009%2Ejpg")
        #expect("café/?".percentEncodingAllButAlphanumerics == "caf%C3%A9%2F%3F")
    }

    @Test func naturalOrder() {
        let sorted = ["slides[10]", "slides[2]", "Slides[3].fit", "b.jpg", "a10.jpg", "A2.jpg", "slides[2].fit", "slides[02]"]
            .sorted(by: naturallyPrecedes)
        #expect(sorted == ["A2.jpg", "a10.jpg", "b.jpg", "slides[02]", "slides[2]", "slides[2].fit", "Slides[3].fit", "slides[10]"])
        #expect(!naturallyPrecedes("x", "x"))
    }
}
