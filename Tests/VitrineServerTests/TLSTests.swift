import Foundation
import Hummingbird
import HummingbirdTesting
import Logging
import Testing
import VitrineConfig
@testable import VitrineHTTP

@Suite("API over TLS")
struct TLSTests {
    static let fixtures = URL(fileURLWithPath: #filePath).deletingLastPathComponent().appendingPathComponent("Fixtures").path

    @Test func theAPIIsServedOverHTTPSWithTheConfiguredCertificate() async throws {
        let harness = try ServerHarness()
        defer { harness.close() }
        let tls = TLSFiles(certificate: Self.fixtures + "/test-cert.pem", key: Self.fixtures + "/test-key.pem")
        let application = try APIServer.application(harness.api, token: ServerHarness.token, host: "127.0.0.1", port: 0, tls: tls,
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
            _ = try APIServer.application(harness.api, token: ServerHarness.token, host: "127.0.0.1", port: 0, tls: tls,
                                          logger: Logger(label: "test"))
        } throws: { error in
            let message = "\(error)"
            return message.hasPrefix("api.tls: cannot load /nonexistent/cert.pem and /nonexistent/key.pem:")
        }
    }

    /// TLS 1.2 offers only ECDHE key exchange with AEAD ciphers: a client
    /// offering only static-RSA key exchange (no forward secrecy) or only CBC
    /// with SHA-1 cannot connect, one offering ECDHE with GCM can. Over a real
    /// socket with `openssl s_client`, and an RSA certificate made for the test
    /// (the fixture's is ECDSA, with which static RSA could never be chosen anyway).
    @Test func tls12OffersOnlyForwardSecretAEADSuites() async throws {
        let harness = try ServerHarness()
        defer { harness.close() }
        let directory = FileManager.default.temporaryDirectory.appendingPathComponent("vitrine-tls-\(UUID().uuidString)").path
        try FileManager.default.createDirectory(atPath: directory, withIntermediateDirectories: true)
        defer { try? FileManager.default.removeItem(atPath: directory) }
        let made = try Self.openssl(["req", "-x509", "-newkey", "rsa:2048", "-nodes", "-keyout", directory + "/key.pem",
                                     "-out", directory + "/cert.pem", "-days", "1", "-subj", "/CN=localhost"])
        try #require(made == 0, "openssl could not make an RSA certificate")
        let tls = TLSFiles(certificate: directory + "/cert.pem", key: directory + "/key.pem")
        let server = try await LoopbackServer(serving: { reportPort in
            try APIServer.application(harness.api, token: ServerHarness.token, host: "127.0.0.1", port: 0, tls: tls,
                                      logger: Logger(label: "test"), onListening: reportPort)
        })
        let port = try #require(server.port)
        // Off the cooperative pool: each s_client is waited for.
        let accepted = try await RawHTTP.offPool {
            try ["ECDHE-RSA-AES128-GCM-SHA256", "ECDHE-RSA-CHACHA20-POLY1305", "AES128-GCM-SHA256:AES256-GCM-SHA384",
                 "AES128-SHA:AES256-SHA", "ECDHE-RSA-AES128-SHA:ECDHE-RSA-AES256-SHA"].map { ciphers in
                // @SECLEVEL=0: the client's own policy must not be what refuses the old suites.
                (ciphers, try Self.openssl(["s_client", "-connect", "127.0.0.1:\(port)", "-tls1_2", "-cipher", ciphers + ":@SECLEVEL=0"]) == 0)
            }
        }
        let handshakes = Dictionary(uniqueKeysWithValues: accepted)
        #expect(handshakes["ECDHE-RSA-AES128-GCM-SHA256"] == true, "ECDHE with AES-GCM is offered")
        #expect(handshakes["ECDHE-RSA-CHACHA20-POLY1305"] == true, "ECDHE with ChaCha20-Poly1305 is offered")
        #expect(handshakes["AES128-GCM-SHA256:AES256-GCM-SHA384"] == false, "static RSA key exchange (no forward secrecy) is refused")
        #expect(handshakes["AES128-SHA:AES256-SHA"] == false, "static RSA with CBC and SHA-1 is refused")
        #expect(handshakes["ECDHE-RSA-AES128-SHA:ECDHE-RSA-AES256-SHA"] == false, "CBC with SHA-1 is refused, even with ECDHE")
        await server.stop()
    }

    /// `openssl` with `arguments`, no input, its output discarded; its exit status.
    static func openssl(_ arguments: [String]) throws -> Int32 {
        let process = Process()
        process.executableURL = URL(fileURLWithPath: "/usr/bin/openssl")
        process.arguments = arguments
        process.standardInput = FileHandle.nullDevice
        process.standardOutput = FileHandle.nullDevice
        process.standardError = FileHandle.nullDevice
        try process.run()
        process.waitUntilExit()
        return process.terminationStatus
    }
}
