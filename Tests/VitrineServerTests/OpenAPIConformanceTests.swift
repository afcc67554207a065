import Foundation
import Hummingbird
import HummingbirdTesting
import Testing
import VitrineCore
import VitrineYAML
@testable import VitrineAPI
@testable import VitrineHTTP

/// docs/api/openapi.yaml against the server: the embedded copy is the file,
/// every documented operation exists, and what it answers is a documented status.
@Suite("OpenAPI document")
struct OpenAPIConformanceTests {
    static let specPath = URL(fileURLWithPath: #filePath).deletingLastPathComponent().deletingLastPathComponent()
        .deletingLastPathComponent().appendingPathComponent("docs/api/openapi.yaml").path

    @Test func theServedDocumentIsTheFile() throws {
        let file = try String(contentsOfFile: Self.specPath, encoding: .utf8)
        #expect(OpenAPIDocument.yaml == file, "run `make openapi` after editing docs/api/openapi.yaml")
    }

    @Test func everyDocumentedOperationAnswersWithADocumentedStatus() async throws {
        let spec = try #require(try plainYAML(String(contentsOfFile: Self.specPath, encoding: .utf8)) as? [String: Any])
        let paths = try #require(spec["paths"] as? [String: [String: Any]])
        let harness = try ServerHarness()
        defer { harness.close() }
        let picture = try ServerHarness.jpeg(ServerHarness.colors["blue"]!)
        let id = ContentDigest.sha256(picture)
        // The operations as plain values, to carry into the test client's closure.
        let operations: [(path: String, method: String, statuses: Set<String>)] = paths.sorted { $0.key < $1.key }.flatMap { path, item in
            ["get", "put", "post", "delete"].compactMap { method in
                ((item[method] as? [String: Any])?["responses"] as? [String: Any]).map { (path, method, Set($0.keys)) }
            }
        }
        let checked = try await harness.application().test(.router) { client in
            var checked = 0
            // An asset to talk about, and a second configuration so that rollback has a target.
            try await client.execute(uri: "/api/v1/assets", method: .post, headers: authorized(), body: ByteBuffer(bytes: picture)) { _ in }
            try await client.execute(uri: "/api/v1/config", method: .put, headers: authorized([.contentType: "application/yaml"]),
                                     body: body("slides: [red.jpg, green.jpg]\ninterval: 7s")) { _ in }
            for (path, method, responses) in operations {
                do {
                    // A stream never ends: the event stream is checked over a real socket elsewhere.
                    if path == "/api/v1/events" { continue }
                    var uri = path.replacingOccurrences(of: "{id}", with: id)
                    var headers = authorized()
                    var requestBody: ByteBuffer?
                    switch (method, path) {
                    case ("put", "/api/v1/config"):
                        headers[.contentType] = "application/json"
                        requestBody = body(#"{"slides": ["red.jpg"]}"#)
                    case ("post", "/api/v1/assets"):
                        uri += "?name=again.jpg"
                        requestBody = ByteBuffer(bytes: picture)
                    case ("post", "/api/v1/control"):
                        requestBody = body(#"{"command": "pause"}"#)
                    case ("get", "/api/v1/thumbnail"):
                        uri += "?path=red.jpg"
                    default:
                        break
                    }
                    let status = try await client.execute(uri: uri, method: HTTPRequest.Method(rawValue: method.uppercased())!,
                                                          headers: headers, body: requestBody) { $0.status.code }
                    #expect(responses.contains("\(status)"), "\(method.uppercased()) \(uri) answered \(status), which the spec does not list (\(responses.sorted()))")
                    #expect(status < 500, "\(method.uppercased()) \(uri)")
                    if path.hasPrefix("/api/") {
                        try await client.execute(uri: uri, method: HTTPRequest.Method(rawValue: method.uppercased())!) { response in
                            #expect(response.status == .unauthorized && responses.contains("401"), "\(method.uppercased()) \(path) without a token")
                        }
                    }
                    checked += 1
                }
            }
            return checked
        }
        #expect(checked >= 15, "every operation but the stream was exercised (\(checked))")
    }
}
