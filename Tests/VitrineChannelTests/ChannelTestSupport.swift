import Foundation
import Glibc
import Testing
import VitrineChannel
import VitrineConfig
import VitrineCore

// Helpers for the channel tests: scratch directories, keys, signed manifests.

/// A fresh directory under the system's temporary directory, removed by `cleanUp`.
final class Scratch {
    let path: String

    init(_ label: String = "channel") {
        var template = Array(((NSTemporaryDirectory() as NSString).appendingPathComponent("vitrine-\(label)-XXXXXX")).utf8CString)
        let made = template.withUnsafeMutableBufferPointer { mkdtemp($0.baseAddress!) }
        precondition(made != nil, "mkdtemp failed")
        path = String(decoding: template.prefix { $0 != 0 }.map { UInt8(bitPattern: $0) }, as: UTF8.self)
    }

    deinit { try? FileManager.default.removeItem(atPath: path) }

    func file(_ name: String) -> String { path + "/" + name }

    @discardableResult
    func write(_ name: String, _ text: String) -> String { write(name, Array(text.utf8)) }

    @discardableResult
    func write(_ name: String, _ bytes: [UInt8]) -> String {
        let full = file(name)
        try! FileManager.default.createDirectory(atPath: (full as NSString).deletingLastPathComponent, withIntermediateDirectories: true)
        precondition(FileManager.default.createFile(atPath: full, contents: Data(bytes)), "cannot write \(full)")
        return full
    }

    func read(_ name: String) -> [UInt8] { Array(FileManager.default.contents(atPath: file(name)) ?? Data()) }
}

/// 2026-03-28T12:00:00Z.
let publishedAt = WallInstant(secondsSinceEpoch: 1_774_699_200)

func key(_ comment: String = "test") -> SignifySecretKey { SignifySecretKey.generate(comment: comment) }

/// A week after `publishedAt`: the expiry a publisher gives by default.
let weekLater = publishedAt + ChannelPublisher.defaultValiditySeconds

/// A valid manifest's bytes: one slide, one blob, and an expiry (none: the kind kiosks refuse).
func manifestBytes(version: UInt64 = 7, expires: WallInstant? = weekLater, picture: [UInt8] = Array("picture".utf8)) -> [UInt8] {
    let blob = ChannelBlob(sha256: ChannelDigest.sha256(picture), size: UInt64(picture.count))
    var configuration = KioskConfiguration()
    configuration.slides = [SlideConfiguration(path: blob.reference, duration: .seconds(8))]
    return ChannelManifest.document(version: version, published: publishedAt, expires: expires, epoch: nil,
                                    configuration: configuration, blobs: [blob])
}

/// The signature file's bytes for `manifest`.
func sign(_ manifest: [UInt8], with key: SignifySecretKey) throws -> [UInt8] {
    try key.sign(manifest, comment: "verify with test.pub").fileBytes
}

/// Runs a program; returns its exit status and what it printed (both streams).
func run(_ program: String, _ arguments: [String], in directory: String? = nil) throws -> (status: Int32, output: String) {
    let process = Process()
    process.executableURL = URL(fileURLWithPath: program)
    process.arguments = arguments
    if let directory { process.currentDirectoryURL = URL(fileURLWithPath: directory) }
    let pipe = Pipe()
    process.standardOutput = pipe
    process.standardError = pipe
    process.standardInput = FileHandle.nullDevice
    try process.run()
    let data = pipe.fileHandleForReading.readDataToEndOfFile()
    process.waitUntilExit()
    return (process.terminationStatus, String(decoding: data, as: UTF8.self))
}

/// OpenBSD's signify as Debian installs it, if it is installed.
let signifyPath: String? = ["/usr/bin/signify-openbsd", "/usr/local/bin/signify-openbsd", "/usr/bin/signify"]
    .first { FileManager.default.isExecutableFile(atPath: $0) }

/// The debug build of the vitrine binary next to these tests, if it was built.
let vitrineBinary: String? = {
    var directory = URL(fileURLWithPath: #filePath)
    for _ in 0..<3 { directory.deleteLastPathComponent() }  // Tests/VitrineChannelTests/this file
    let binary = directory.appendingPathComponent(".build/debug/vitrine").path
    return FileManager.default.isExecutableFile(atPath: binary) ? binary : nil
}()

/// `stat` of a file: its inode and modification time, to tell a rewrite.
func identity(_ path: String) -> (inode: UInt64, modified: timespec)? {
    var info = stat()
    guard stat(path, &info) == 0 else { return nil }
    return (UInt64(info.st_ino), info.st_mtim)
}
