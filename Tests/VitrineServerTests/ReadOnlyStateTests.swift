import Foundation
import Glibc
import Hummingbird
import HummingbirdTesting
import Testing

/// A kiosk whose state directory is on a read-only file system (a read-only
/// root or overlay, as Pi kiosks protect their SD cards): it starts, shows the
/// configuration stored there, and answers every write with 503 and the
/// reason. A tmpfs remounted read-only, as root (`make test` runs as root).
@Suite("State: a read-only state directory", .serialized)
struct ReadOnlyStateTests {
    @Test func theKioskStartsOnTheLastStoredConfigurationAndRefusesChangesWith503() async throws {
        let disk = try PlayLogFullDiskTestsSupport.mountTmpfs(size: "8m")
        defer { PlayLogFullDiskTestsSupport.unmount(disk) }
        let state = disk + "/state"
        // First run, writable: a configuration is pushed and stored.
        do {
            let harness = try ServerHarness(stateDirectory: state)
            try await harness.application().test(.router) { client in
                let (status, _) = try await sendJSON(client, .put, "/api/v1/config", #"{"slides": ["blue.jpg", "red.jpg", "green.jpg"], "autoplay": false}"#)
                #expect(status == .ok)
            }
            harness.close()
        }
        guard mount("tmpfs", disk, "tmpfs", UInt(MS_REMOUNT | MS_RDONLY), nil) == 0 else {
            Issue.record("remounting \(disk) read-only: \(String(cString: strerror(errno)))")
            return
        }
        // Second run, read-only: it starts, on the pushed configuration.
        let harness = try ServerHarness(stateDirectory: state)
        defer { harness.close() }
        #expect(harness.store.readOnlyReason?.contains("Read-only file system") == true, "\(harness.store.readOnlyReason ?? "writable")")
        #expect(await harness.eventually { harness.api.link.status.slideCount == 3 }, "the stored configuration shows")
        try await harness.application().test(.router) { client in
            let (push, answer) = try await sendJSON(client, .put, "/api/v1/config", #"{"slides": ["red.jpg"]}"#)
            #expect(push == .serviceUnavailable)
            #expect((answer["error"] as? String)?.hasPrefix("nothing can be stored: \(state) cannot be written (Read-only file system)") == true, "\(answer)")
            try await client.execute(uri: "/api/v1/assets?name=x.jpg", method: .post, headers: authorized([.contentType: "image/jpeg"]),
                                     body: ByteBuffer(bytes: try ServerHarness.jpeg(ServerHarness.colors["red"]!))) { response in
                #expect(response.status == .serviceUnavailable)
                #expect((json(response.body)["error"] as? String)?.contains("cannot be written") == true)
            }
            try await client.execute(uri: "/api/v1/config/rollback", method: .post, headers: authorized()) { #expect($0.status == .serviceUnavailable) }
            let (override, _) = try await sendJSON(client, .post, "/api/v1/override", #"{"slides": ["\#(harness.directory)/red.jpg"], "duration": "5m"}"#)
            #expect(override == .serviceUnavailable)
            // Reading still works.
            try await client.execute(uri: "/api/v1/status", method: .get, headers: authorized()) { #expect($0.status == .ok) }
            try await client.execute(uri: "/api/v1/config", method: .get, headers: authorized()) { response in
                #expect(String(buffer: response.body).contains("blue.jpg"))
            }
        }
        #expect(harness.api.link.status.slideCount == 3, "nothing changed on screen")
    }
}

/// The tmpfs helpers of the full-disk tests, for other suites.
enum PlayLogFullDiskTestsSupport {
    static func mountTmpfs(size: String) throws -> String {
        let directory = NSTemporaryDirectory() + "vitrine-tmpfs-" + UUID().uuidString
        try FileManager.default.createDirectory(atPath: directory, withIntermediateDirectories: true)
        guard mount("tmpfs", directory, "tmpfs", 0, "size=\(size),mode=0755") == 0 else {
            let reason = String(cString: strerror(errno))
            try? FileManager.default.removeItem(atPath: directory)
            throw MountFailed(description: "mount -t tmpfs on \(directory): \(reason) (this test needs root, as make test runs)")
        }
        return directory
    }

    struct MountFailed: Error, CustomStringConvertible { var description: String }

    static func unmount(_ directory: String) {
        umount2(directory, Int32(MNT_DETACH))
        try? FileManager.default.removeItem(atPath: directory)
    }
}
