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

    /// A runtime directory beside the harness's state, and an installed unit file there.
    static func board(_ harness: ServerHarness, runtime name: String) throws -> (runtime: String, unit: String) {
        let runtime = harness.stateDirectory + "/../" + name
        try FileManager.default.createDirectory(atPath: runtime, withIntermediateDirectories: true)
        let unit = harness.stateDirectory + "/../vitrine-reboot.path"
        try Array("[Path]\n".utf8).write(to: unit)
        return (runtime, unit)
    }

    /// The path unit's part, as vitrine-reboot.service does it first: the request removed once it appears.
    static func takeRequests(at path: String) -> Task<Int, Never> {
        Task.detached {
            var taken = 0
            while !Task.isCancelled {
                if FileManager.default.fileExists(atPath: path) {
                    // Only a request written whole: 0600, its one line.
                    let text = (try? String(contentsOfFile: path, encoding: .utf8)) ?? ""
                    let mode = (try? FileManager.default.attributesOfItem(atPath: path))?[.posixPermissions] as? Int
                    if text == "reboot asked for through the API\n", mode == 0o600 { taken += 1 }
                    try? FileManager.default.removeItem(atPath: path)
                }
                try? await Task.sleep(for: .milliseconds(5))
            }
            return taken
        }
    }

    @Test("with the unit taking it, 202 once the request is taken; 401 without the token, 400 with a query key")
    func aRebootIsLeftForThePathUnit() async throws {
        let harness = try ServerHarness()
        defer { harness.close() }
        let (runtime, unit) = try Self.board(harness, runtime: "run")
        let request = runtime + "/reboot-requested"
        let unitTask = Self.takeRequests(at: request)
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
        }
        unitTask.cancel()
        #expect(await unitTask.value == 1, "the unit took one request, written whole with mode 0600")
    }

    @Test("with the unit installed but not running, 409 saying so, and the request withdrawn so that a later start reboots nothing")
    func aRequestNothingTakesIsWithdrawn() async throws {
        let harness = try ServerHarness()
        defer { harness.close() }
        let (runtime, unit) = try Self.board(harness, runtime: "run-idle")
        let reboot = BoardReboot(runtimeDirectory: runtime, unitFiles: [unit], takeTimeout: .milliseconds(300))
        try await Self.application(harness, reboot).test(.router) { client in
            try await client.execute(uri: "/api/v1/reboot", method: .post, headers: authorized()) { response in
                #expect(response.status == .conflict)
                #expect((json(response.body)["error"] as? String)?.contains("vitrine-reboot.path is installed but not running") == true)
            }
        }
        #expect(try FileManager.default.contentsOfDirectory(atPath: runtime).isEmpty)
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
        let (_, unit) = try Self.board(harness, runtime: "run-unused")
        try await Self.application(harness, BoardReboot(runtimeDirectory: nil, unitFiles: [unit])).test(.router) { client in
            try await client.execute(uri: "/api/v1/reboot", method: .post, headers: authorized()) { response in
                #expect(response.status == .conflict)
                #expect((json(response.body)["error"] as? String)?.contains("not started by vitrine.service") == true)
            }
        }
    }
}
