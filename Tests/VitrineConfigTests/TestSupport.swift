import Foundation
import Testing
@testable import VitrineConfig
import VitrineCore

// Shared helpers for the VitrineConfig tests.

/// The repository's root, found from this file's own path.
let repositoryRoot: String = {
    var url = URL(fileURLWithPath: #filePath)
    for _ in 0..<3 { url.deleteLastPathComponent() }  // TestSupport.swift, VitrineConfigTests, Tests
    return url.path
}()

/// The bundled demo configuration.
let demoConfigPath = repositoryRoot + "/deploy/demo/vitrine.yaml"
let demoDirectory = repositoryRoot + "/deploy/demo"

/// The problems `text` has, as `ConfigIssue.description` lines (`path: message`);
/// empty when it is valid.
func issues(_ text: String) -> [String] {
    do {
        _ = try ConfigLoader.parse(text)
        return []
    } catch {
        return error.issues.map(\.description)
    }
}

/// The single problem `text` has; records a failure if there is not exactly one.
func issue(_ text: String, sourceLocation: SourceLocation = #_sourceLocation) -> String? {
    let found = issues(text)
    #expect(found.count == 1, "expected exactly one issue, found \(found)", sourceLocation: sourceLocation)
    return found.first
}

/// The error `text` raises, or nil (with a recorded failure) when it parses.
func configError(_ text: String, baseDirectory: String = ".", source: String? = nil,
                 sourceLocation: SourceLocation = #_sourceLocation) -> ConfigError? {
    do {
        _ = try ConfigLoader.parse(text, baseDirectory: baseDirectory, source: source)
        Issue.record("expected a ConfigError, but the text parsed", sourceLocation: sourceLocation)
        return nil
    } catch {
        return error
    }
}

/// The message every duration problem starts with, as the reader writes it.
let durationSyntaxMessage = "must be a duration: seconds as a number (5, 0.4) or with a unit (400ms, 5s, 2m), found"

/// The message every colour problem starts with.
let colourMessage = "must be a colour \"#RRGGBB\" or \"#RRGGBBAA\", found"

/// A fresh temporary directory, removed when `body` returns.
func withTemporaryDirectory<T>(_ body: (String) throws -> T) throws -> T {
    let directory = FileManager.default.temporaryDirectory
        .appendingPathComponent("vitrine-config-tests-\(UUID().uuidString)").path
    try FileManager.default.createDirectory(atPath: directory, withIntermediateDirectories: true)
    defer { try? FileManager.default.removeItem(atPath: directory) }
    return try body(directory)
}

func write(_ text: String, to path: String) throws {
    try Data(text.utf8).write(to: URL(fileURLWithPath: path))
}
