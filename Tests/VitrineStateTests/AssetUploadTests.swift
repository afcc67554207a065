import Foundation
import Logging
import Testing
import VitrineConfig
import VitrineCore
import VitrineSystem
@testable import VitrineAPI
@testable import VitrineRuntime
@testable import VitrineState

/// Staging files: an upload's goes with it unless adopted; a resumable
/// download's stays, and the next attempt hashes it and goes on after it.
@Suite("Asset staging")
struct AssetUploadTests {
    let directory = NSTemporaryDirectory() + "vitrine-staging-test-" + UUID().uuidString

    func store() throws -> StateStore {
        try FileManager.default.createDirectory(atPath: directory, withIntermediateDirectories: true)
        let file = directory + "/vitrine.yaml"
        try Array("interval: 5s\n".utf8).write(to: file)
        let seed = Result { () throws(ConfigError) in try ConfigLoader.load(file: file) }
        return try StateStore(directory: directory + "/state", seedFile: file, seed: seed, logger: Logger(label: "test"))
    }

    static let image = InspectedImage(kind: .jpeg, size: PixelSize(width: 4, height: 3))
    static let bytes = (0..<3000).map { UInt8(truncatingIfNeeded: $0 &* 7) }

    static func exists(_ path: String) -> Bool { FileManager.default.fileExists(atPath: path) }

    @Test func anUploadNotAdoptedLeavesNothing() throws {
        defer { try? FileManager.default.removeItem(atPath: directory) }
        let assets = try store().assets
        var path = ""
        do {
            let upload = try AssetUpload(in: assets)
            path = upload.path
            try upload.append(Self.bytes)
            #expect(Self.exists(path))
        }
        #expect(!Self.exists(path))
    }

    @Test func aResumableDownloadKeepsItsPartAndGoesOnAfterIt() throws {
        defer { try? FileManager.default.removeItem(atPath: directory) }
        let assets = try store().assets
        var path = ""
        do {
            let first = try AssetUpload(in: assets, resuming: "blob-test")
            path = first.path
            #expect(first.size == 0)
            try first.append(Array(Self.bytes[..<1000]))
        }
        #expect(try FileIO.read(path) == Array(Self.bytes[..<1000]), "the part outlives the attempt")
        let second = try AssetUpload(in: assets, resuming: "blob-test")
        #expect(second.size == 1000)
        try second.append(Array(Self.bytes[1000...]))
        #expect(try second.finish() == ContentDigest.sha256(Self.bytes), "the kept part is hashed with the rest")
        let (asset, created) = try assets.adopt(second, image: Self.image, name: "blob")
        #expect(created && asset.size == Self.bytes.count)
        #expect(try assets.bytes(asset.id) == Self.bytes)
        #expect(!Self.exists(path))
        #expect(assets.list().map(\.id) == [asset.id], "a part is never listed")
    }

    @Test func restartEmptiesThePartAndDiscardRemovesIt() throws {
        defer { try? FileManager.default.removeItem(atPath: directory) }
        let assets = try store().assets
        let upload = try AssetUpload(in: assets, resuming: "blob-test")
        try upload.append(Array(Self.bytes[..<500]))
        try upload.restart()
        #expect(upload.size == 0)
        try upload.append(Self.bytes)
        #expect(try upload.finish() == ContentDigest.sha256(Self.bytes))
        #expect(try FileIO.read(upload.path) == Self.bytes, "written after the restart from byte 0")
        upload.discard()
        #expect(!Self.exists(upload.path))
        let again = try AssetUpload(in: assets, resuming: "blob-test")
        #expect(again.size == 0, "a discarded part is not resumed")
    }

    @Test func adoptingBytesAlreadyStoredRemovesThePart() throws {
        defer { try? FileManager.default.removeItem(atPath: directory) }
        let assets = try store().assets
        let upload = try AssetUpload(in: assets)
        try upload.append(Self.bytes)
        let (asset, _) = try assets.adopt(upload, image: Self.image, name: "first")
        let part = try AssetUpload(in: assets, resuming: "blob-again")
        try part.append(Self.bytes)
        let (same, created) = try assets.adopt(part, image: Self.image, name: "again")
        #expect(!created && same.id == asset.id)
        #expect(!Self.exists(part.path))
    }

    /// At start, a part nothing has written to for a week goes; a fresher one
    /// stays to be resumed. `removePartialDownloads` takes them all.
    @Test func partsAreKeptAcrossAStartUntilAWeekOld() throws {
        defer { try? FileManager.default.removeItem(atPath: directory) }
        let assets = try store().assets
        let fresh = try AssetUpload(in: assets, resuming: "blob-fresh")
        try fresh.append(Self.bytes)
        let old = try AssetUpload(in: assets, resuming: "blob-old")
        try old.append(Self.bytes)
        let eightDaysAgo = Date().addingTimeInterval(-8 * 24 * 3600)
        try FileManager.default.setAttributes([.modificationDate: eightDaysAgo], ofItemAtPath: old.path)
        let restarted = try store().assets
        #expect(Self.exists(fresh.path))
        #expect(!Self.exists(old.path))
        restarted.removePartialDownloads(keyedBy: "url-")
        #expect(Self.exists(fresh.path), "only the parts of the key asked for")
        restarted.removePartialDownloads(keyedBy: "blob-")
        #expect(!Self.exists(fresh.path))
    }

    /// A URL's part keeps what the origin called its file's version, for
    /// `If-Range`; it goes with the part, however the part goes.
    @Test func aPartsValidatorStaysWithIt() throws {
        defer { try? FileManager.default.removeItem(atPath: directory) }
        let assets = try store().assets
        do {
            let part = try AssetUpload(in: assets, resuming: "url-test")
            #expect(part.resumeValidator == nil)
            try part.keepResumeValidator("\"v1\"")
            try part.append(Array(Self.bytes[..<100]))
        }
        let resumed = try AssetUpload(in: assets, resuming: "url-test")
        #expect(resumed.resumeValidator == "\"v1\"" && resumed.size == 100)
        try resumed.restart()
        #expect(resumed.resumeValidator == nil)
        #expect(!Self.exists(resumed.path + ".validator"))
        try resumed.keepResumeValidator("\"v2\"")
        try resumed.append(Self.bytes)
        _ = try assets.adopt(resumed, image: Self.image, name: "url")
        #expect(!Self.exists(resumed.path + ".validator") && !Self.exists(resumed.path))
        let discarded = try AssetUpload(in: assets, resuming: "url-other")
        try discarded.keepResumeValidator("Sat, 28 Nov 2026 10:00:00 GMT")
        discarded.discard()
        #expect(!Self.exists(discarded.path + ".validator"))
    }
}
