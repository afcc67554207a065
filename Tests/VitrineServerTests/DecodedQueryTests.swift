import Hummingbird
import Testing
@testable import VitrineHTTP

/// `Request.decodedQuery`: keys and values percent-decoded; what is not valid
/// percent-encoded UTF-8 kept as it was sent (and so matching no parameter).
@Suite("API: the decoded query")
struct DecodedQueryTests {
    @Test func keysAndValuesAreDecodedAndBadEncodingsKeptAsSent() {
        #expect(Request.percentDecoded("outpu%74") == "output")
        #expect(Request.percentDecoded("HDMI%2DA%2D1") == "HDMI-A-1")
        #expect(Request.percentDecoded("%6f%75%74put") == "output")
        #expect(Request.percentDecoded("caf%C3%A9") == "café")
        #expect(Request.percentDecoded("a+b") == "a+b", "a + is not a space here: PlaysRoutes and OverrideRoutes decide")
        #expect(Request.percentDecoded("out%zzput") == "out%zzput")
        #expect(Request.percentDecoded("output%") == "output%")
        #expect(Request.percentDecoded("%FF%FE") == "%FF%FE", "not UTF-8")
        #expect(Request.percentDecoded("output%00") == "output\u{0}", "a NUL is decoded, and matches no parameter")
    }
}
