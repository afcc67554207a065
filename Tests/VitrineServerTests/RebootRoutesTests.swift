import Foundation
import Hummingbird
import HummingbirdTesting
import Logging
import Testing
@testable import VitrineHTTP

/// `POST /api/v1/reboot` (`BoardReboot`): the request left for the package's
/// path unit in the runtime directory, or 409 saying why this kiosk cannot.
@Suite("API: rebooting the board")
struct RebootRoutesTests {
    /// The harness's services with a reboot path of the test's making.
    static func application(_ harness: ServerHarness, _ reboot: BoardReboot) throws -> some ApplicationProtocol {
        var services = harness.api
        services.reboot = reboot
        return try APIServer.application(services, token: ServerHarness.token, host: "127.0.0.1", port: 0, tls: nil,
                                         logger: Logger(label: "test"))
    }

    @Test("with the unit installed, 202 and the request file in the runtime directory; 401 without the token, 400 with a query key")
    func aRebootIsLeftForThePathUnit() async throws {
        let harness = try ServerHarness()
        defer { harness.close() }
        let runtime = harness.stateDirectory + "/../run"
        try FileManager.default.createDirectory(atPath: runtime, withIntermediateDirectories: true)
        let unit = harness.stateDirectory + "/../vitrine-reboot.path"
        try Array("[Path]\n".utf8).write(to: unit)
        let request = runtime + "/reboot-requested"
        try await Self.application(harness, BoardReboot(runtimeDirectory: runtime, unitFiles: ["/nonexistent/unit", unit])).test(.router) { client in
            try await client.execute(uri: "/api/v1/reboot", method: .post) { response in
                #expect(response.status == .unauthorized)
            }
            try await client.execute(uri: "/api/v1/reboot?now=1", method: .post, headers: authorized()) { response in
                #expect(response.status == .badRequest)
            }
            #expect(!FileManager.default.fileExists(atPath: request), "refused requests leave nothing for the unit")
            try await client.execute(uri: "/api/v1/reboot", method: .post, headers: authorized()) { response in
                #expect(response.status == .accepted)
                let body = json(response.body)
                #expect(body["rebooting"] as? Bool == true && body["afterSeconds"] as? Int == 2)
            }
            #expect(FileManager.default.fileExists(atPath: request))
            let attributes = try FileManager.default.attributesOfItem(atPath: request)
            #expect((attributes[.posixPermissions] as? Int) == 0o600)
        }
    }

    @Test("without the unit, or not started by systemd, 409 naming what is missing, and nothing written")
    func aKioskWithoutThePathSaysWhy() async throws {
        let harness = try ServerHarness()
        defer { harness.close() }
        let runtime = harness.stateDirectory + "/../run-none"
        try FileManager.default.createDirectory(atPath: runtime, withIntermediateDirectories: true)
        try await Self.application(harness, BoardReboot(runtimeDirectory: runtime, unitFiles: ["/nonexistent/vitrine-reboot.path"])).test(.router) { client in
            try await client.execute(uri: "/api/v1/reboot", method: .post, headers: authorized()) { response in
                #expect(response.status == .conflict)
                #expect((json(response.body)["error"] as? String)?.contains("vitrine-reboot.path unit is not installed") == true)
            }
        }
        #expect(try FileManager.default.contentsOfDirectory(atPath: runtime).isEmpty)
        let unit = harness.stateDirectory + "/../vitrine-reboot.path"
        try Array("[Path]\n".utf8).write(to: unit)
        try await Self.application(harness, BoardReboot(runtimeDirectory: nil, unitFiles: [unit])).test(.router) { client in
            try await client.execute(uri: "/api/v1/reboot", method: .post, headers: authorized()) { response in
                #expect(response.status == .conflict)
                #expect((json(response.body)["error"] as? String)?.contains("not started by vitrine.service") == true)
            }
        }
    }
}
