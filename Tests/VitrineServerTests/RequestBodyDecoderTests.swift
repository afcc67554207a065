import Testing
@testable import VitrineAPI
@testable import VitrineHTTP

/// The API's JSON request bodies, decoded as their Codable types: what each
/// refuses, at which key path, and in which words.
@Suite("API: request bodies as Codable types")
struct RequestBodyDecoderTests {
    private func refusal<Body: APIRequestBody>(_ type: Body.Type, _ text: String) -> APIError? {
        do {
            _ = try RequestBodyDecoder.decode(type, from: Array(text.utf8))
            return nil
        } catch {
            return error as? APIError
        }
    }

    @Test("each body decodes to its value")
    func valid() throws {
        #expect(try RequestBodyDecoder.decode(PowerRequest.self, from: Array(#"{"state": "off"}"#.utf8)) == PowerRequest(state: .off))
        #expect(try RequestBodyDecoder.decode(ControlCommand.self, from: Array(#"{"command": "goto", "slide": 3}"#.utf8)) == .goTo(slide: 3))
        #expect(try RequestBodyDecoder.decode(ControlCommand.self, from: Array(#" {"command":"next"} "#.utf8)) == .next)
        #expect(try RequestBodyDecoder.decode(PictureRetryBody.self, from: Array(#"{"file": "a.heic"}"#.utf8)).file == "a.heic")
    }

    @Test("an empty body means what its type says: every picture for a retry, nothing for power")
    func emptyBodies() throws {
        #expect(try RequestBodyDecoder.decode(PictureRetryBody.self, from: Array(" \n".utf8)).file == nil)
        #expect(try RequestBodyDecoder.decode(PictureRetryBody.self, from: Array("{}".utf8)).file == nil)
        #expect(refusal(PowerRequest.self, "")?.message == #"the body must be a JSON object such as {"state": "off"}"#)
        #expect(refusal(PictureRetryBody.self, "[]")?.message == #"the body must be empty or a JSON object such as {"file": "images/menu.heic"}"#)
    }

    @Test("a key the type does not list is refused, never ignored, and named at its path")
    func unknownKeys() throws {
        let error = try #require(refusal(PictureRetryBody.self, #"{"files": "a.heic"}"#))
        #expect(error.status == .unprocessableContent)
        #expect(error.message == "unknown key files")
        #expect(error.issues.map(\.path) == ["files"])
        #expect(error.issues.first?.message == "unknown key (known keys: file)")
        // A caller's long key is quoted cut short.
        let long = String(repeating: "k", count: 500)
        #expect(try #require(refusal(PowerRequest.self, "{\"\(long)\": 1}")).message.count < 100)
    }

    @Test("a value the type refuses is a 422 at its key path, in the type's words", arguments: [
        (#"{"command": 3}"#, "command", "must be one of next, previous, goto, pause, resume, found something else"),
        (#"{"command": "goto", "slide": true}"#, "slide", "must be a slide index for goto, a whole number from 0 to 1000000"),
        (#"{"command": "goto", "slide": null}"#, "slide", "must be a slide index for goto, a whole number from 0 to 1000000"),
    ])
    func refusedValues(text: String, path: String, message: String) throws {
        let error = try #require(refusal(ControlCommand.self, text))
        #expect(error.status == .unprocessableContent)
        #expect(error.message == "\(path) \(message)")
        #expect(error.issues.map(\.path) == [path])
        #expect(error.issues.first?.message == message)
    }

    @Test("a retry's file must be a non-empty string")
    func retryFile() throws {
        for text in [#"{"file": ""}"#, #"{"file": 7}"#, #"{"file": null}"#] {
            let error = try #require(refusal(PictureRetryBody.self, text), "\(text)")
            #expect(error.issues.map(\.path) == ["file"])
        }
    }

    @Test("the decoder's own errors name the path and the type wanted")
    func decoderErrors() {
        struct Nested: APIRequestBody {
            static let keys = ["outer"]
            static let example = "{}"
            struct Inner: Decodable { var count: Int }
            var outer: [Inner]
        }
        let error = refusal(Nested.self, #"{"outer": [{"count": 1}, {"count": "two"}]}"#)
        #expect(error?.issues.first?.path == "outer[1].count")
        #expect(error?.issues.first?.message == "must be a whole number")
        let missing = refusal(Nested.self, #"{"outer": [{}]}"#)
        #expect(missing?.issues.first?.path == "outer[0].count")
        #expect(missing?.issues.first?.message == "is required")
    }
}
