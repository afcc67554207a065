import Foundation
import Hummingbird
import HummingbirdTesting
import Logging
import Testing
import VitrineConfig
@testable import VitrineServer

@Suite("API over TLS")
struct TLSTests {
    static let fixtures = URL(fileURLWithPath: #filePath).deletingLastPathComponent().appendingPathComponent("Fixtures").path

    @Test func theAPIIsServedOverHTTPSWithTheConfiguredCertificate() async throws {
        let harness = try ServerHarness()
        defer { harness.close() }
        let tls = TLSFiles(certificate: Self.fixtures + "/test-cert.pem", key: Self.fixtures + "/test-key.pem")
        let application = try APIServer.application(harness.remote, token: ServerHarness.token, host: "127.0.0.1", port: 0, tls: tls,
                                                    logger: Logger(label: "test"))
        try await application.test(.ahc(.https)) { client in
            try await client.execute(uri: "/api/v1/status", method: .get, headers: authorized()) { response in
                #expect(response.status == .ok)
                #expect(json(response.body)["slideCount"] as? Int == 2)
            }
            try await client.execute(uri: "/api/v1/status", method: .get) { #expect($0.status == .unauthorized) }
        }
    }

    @Test func aMissingCertificateIsAClearError() throws {
        let harness = try ServerHarness()
        defer { harness.close() }
        let tls = TLSFiles(certificate: "/nonexistent/cert.pem", key: "/nonexistent/key.pem")
        #expect {
            _ = try APIServer.application(harness.remote, token: ServerHarness.token, host: "127.0.0.1", port: 0, tls: tls,
                                          logger: Logger(label: "test"))
        } throws: { error in
            let message = "\(error)"
            return message.hasPrefix("api.tls: cannot load /nonexistent/cert.pem and /nonexistent/key.pem:")
        }
    }
}
