import Foundation
import Logging
import SystemPackage
import ServerTestSupport
import Testing
import VitrineConfig
import VitrineCore
import VitrineRuntime
import VitrineSystem
@testable import VitrineState

/// Removals go through the `SystemCalls` seam as writes do: a failed unlink
/// (an SD card gone read-only, an I/O error) is an error naming the file, and
/// leaves what was there listed and whole.
@Suite("State directory: removals under injected faults")
struct RemovalFaultTests {
    let directory = NSTemporaryDirectory() + "vitrine-removal-faults-" + UUID().uuidString

    private func store(system: SystemCalls) throws -> StateStore {
        try FileManager.default.createDirectory(atPath: directory, withIntermediateDirectories: true)
        let file = directory + "/vitrine.yaml"
        try Array("interval: 5s\n".utf8).write(to: file)
        let seed = Result { () throws(ConfigError) in try ConfigLoader.load(file: file) }
        return try StateStore(directory: directory + "/state", seedFile: file, seed: seed, logger: Logger(label: "test"), system: system)
    }

    @Test("an asset whose metadata cannot be removed stays listed, and the error names the file", arguments: [".json", ""])
    func assetRemovalFails(failing suffix: String) throws {
        defer { try? FileManager.default.removeItem(atPath: directory) }
        let faults = SystemCallFaults()
        let store = try store(system: faults.calls)
        let upload = try AssetUpload(in: store.assets)
        try upload.append(Array("not really a picture".utf8))
        let (asset, created) = try store.assets.adopt(upload, image: InspectedImage(kind: .jpeg, size: PixelSize(width: 4, height: 3)), name: "a.jpg")
        #expect(created)
        let file = store.assets.directory + "/" + asset.id + suffix
        faults.fail(.unlink, with: .ioError, pathContaining: asset.id + suffix)
        var thrown: SystemError?
        do { try store.deleteAsset(asset.id, downloads: [:]) } catch let error as SystemError { thrown = error }
        #expect(thrown?.errno == .ioError)
        #expect(thrown.map { "\($0)".contains(file) } == true, "\(thrown.map { "\($0)" } ?? "no error")")
        #expect(faults.injected == 1)
        if suffix == ".json" {
            // Metadata goes first: with it kept, the asset is listed and whole.
            #expect(store.assets.asset(asset.id) != nil)
            #expect(try store.assets.bytes(asset.id) == Array("not really a picture".utf8))
        }
    }

    @Test("an override whose file cannot be removed is still the one stored, and the error names its file")
    func overrideRemovalFails() throws {
        defer { try? FileManager.default.removeItem(atPath: directory) }
        try FileManager.default.createDirectory(atPath: directory, withIntermediateDirectories: true)
        let faults = SystemCallFaults()
        let now = WallInstant(secondsSinceEpoch: 1_795_000_000)
        let overrides = OverrideStore(directory: directory, now: now, logger: Logger(label: "test"), system: faults.calls)
        let override = KioskOverride(id: "feedf00d", slides: [SlideConfiguration(path: "/srv/a.jpg")], since: now, until: now + 60)
        try overrides.replace(with: override)
        faults.fail(.unlink, with: .readOnlyFileSystem, pathContaining: "override.json")
        var thrown: SystemError?
        do { try overrides.clear() } catch let error as SystemError { thrown = error }
        #expect(thrown?.errno == .readOnlyFileSystem)
        #expect(thrown.map { "\($0)".contains(directory + "/override.json") } == true)
        #expect(overrides.active(at: now) == override)
        // Read back as it is on disk after a restart.
        #expect(OverrideStore(directory: directory, now: now, logger: Logger(label: "test")).active(at: now) == override)
    }

    @Test("a leftover temporary that cannot be removed at start leaves the store usable")
    func staleTemporaryRemovalFails() throws {
        defer { try? FileManager.default.removeItem(atPath: directory) }
        try FileManager.default.createDirectory(atPath: directory + "/state", withIntermediateDirectories: true)
        try Array("half".utf8).write(to: directory + "/state/.config.json.tmp-1-2")
        let faults = SystemCallFaults()
        faults.fail(.unlink, with: .ioError, pathContaining: ".tmp-")
        let store = try store(system: faults.calls)
        #expect(faults.injected == 1)
        #expect(store.current.configuration.interval == .seconds(5))
    }
}
