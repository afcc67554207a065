import Testing
@testable import VitrineRuntime

/// How a resumable download reads the answer to its GET (RFC 9110).
@Suite struct RangeAnswerTests {
    @Test func theRestIsTakenOnlyFromTheByteAskedFor() {
        #expect(RangeAnswer.of(status: 206, contentRange: "bytes 1000-2999/3000", askedFrom: 1000) == .rest)
        guard case .startOver(let reason) = RangeAnswer.of(status: 206, contentRange: "bytes 0-2999/3000", askedFrom: 1000) else {
            Issue.record("another range was taken"); return
        }
        #expect(reason.contains("not from byte 1000 to the end") && reason.contains("bytes 0-2999/3000"))
        guard case .startOver = RangeAnswer.of(status: 206, contentRange: "bytes 1000-1999/3000", askedFrom: 1000) else {
            Issue.record("a 206 that stops short of the end was taken as the rest"); return
        }
        #expect(RangeAnswer.of(status: 206, contentRange: "bytes 1000-2999/*", askedFrom: 1000) == .rest, "a length the server does not know")
        guard case .startOver = RangeAnswer.of(status: 206, contentRange: nil, askedFrom: 1000) else {
            Issue.record("a 206 without Content-Range was taken"); return
        }
        #expect(RangeAnswer.of(status: 206, contentRange: "bytes 0-9/10", askedFrom: 0) == .failed(status: 206), "a range nobody asked for")
    }

    @Test func aWholeBodyReplacesThePart() {
        #expect(RangeAnswer.of(status: 200, contentRange: nil, askedFrom: 1000) == .whole)
        #expect(RangeAnswer.of(status: 200, contentRange: nil, askedFrom: 0) == .whole)
    }

    @Test func otherAnswers() {
        guard case .startOver(let reason) = RangeAnswer.of(status: 416, contentRange: "bytes */3000", askedFrom: 5000) else {
            Issue.record("a 416 kept the part"); return
        }
        #expect(reason.contains("from byte 5000"))
        #expect(RangeAnswer.of(status: 416, contentRange: "bytes */3000", askedFrom: 3000) == .alreadyWhole, "the part has every byte")
        #expect(RangeAnswer.of(status: 416, contentRange: nil, askedFrom: 0) == .failed(status: 416))
        #expect(RangeAnswer.of(status: 304, contentRange: nil, askedFrom: 0) == .notModified)
        #expect(RangeAnswer.of(status: 404, contentRange: nil, askedFrom: 10) == .missing)
        #expect(RangeAnswer.of(status: 410, contentRange: nil, askedFrom: 0) == .missing)
        #expect(RangeAnswer.of(status: 503, contentRange: nil, askedFrom: 10) == .failed(status: 503))
    }

    @Test func aContentRangeGivesItsBytesAndLength() {
        #expect(RangeAnswer.range("bytes 1000-2999/3000").map { [$0.start, $0.end, $0.total ?? -1] } == [1000, 2999, 3000])
        #expect(RangeAnswer.range("bytes 0-0/1").map { [$0.start, $0.end, $0.total ?? -1] } == [0, 0, 1])
        #expect(RangeAnswer.range("bytes 5-9/*").map { [$0.start, $0.end, $0.total ?? -1] } == [5, 9, -1])
        #expect(RangeAnswer.range("bytes */3000") == nil)
        #expect(RangeAnswer.range("bytes 9-5/10") == nil)
        #expect(RangeAnswer.range("bytes 0-10/10") == nil)
        #expect(RangeAnswer.range("items 1-2/3") == nil)
        #expect(RangeAnswer.range(nil) == nil)
        #expect(RangeAnswer.unsatisfiedLength("bytes */3000") == 3000)
        #expect(RangeAnswer.unsatisfiedLength("bytes 0-1/2") == nil)
        #expect(RangeAnswer.rangeHeader(from: 1000) == "bytes=1000-")
    }

    /// If-Range takes a strong ETag, else Last-Modified; a weak ETag cannot resume.
    @Test func theValidatorForIfRange() {
        #expect(RangeAnswer.ifRangeValidator(etag: "\"abc\"", lastModified: "Sat, 28 Nov 2026 10:00:00 GMT") == "\"abc\"")
        #expect(RangeAnswer.ifRangeValidator(etag: "W/\"abc\"", lastModified: "Sat, 28 Nov 2026 10:00:00 GMT") == nil,
                "no date beside an ETag")
        #expect(RangeAnswer.ifRangeValidator(etag: nil, lastModified: "Sat, 28 Nov 2026 10:00:00 GMT") == "Sat, 28 Nov 2026 10:00:00 GMT")
        #expect(RangeAnswer.ifRangeValidator(etag: "W/\"abc\"", lastModified: nil) == nil)
        #expect(RangeAnswer.ifRangeValidator(etag: nil, lastModified: nil) == nil)
    }
}
