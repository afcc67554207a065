import Foundation
import Testing
import VitrineCore
@testable import VitrineJPEG

/// Every file in Damaged/ (generated/ by generate.py, libjpeg-turbo-seeds/ from
/// libjpeg-turbo's fuzzing seed corpus) is judged by libjpeg-turbo's own `djpeg`,
/// and the decoder must agree: what djpeg calls an error or damage is a
/// `JPEGError`, what it decodes cleanly or with a harmless warning decodes to
/// the same picture. Nothing here says what any file's verdict is.
@Suite("Damaged JPEGs against djpeg")
struct DamagedCorpusTests {
    static let corpusDirectory = URL(fileURLWithPath: #filePath).deletingLastPathComponent().appendingPathComponent("Damaged")

    /// Paths relative to Damaged/, sorted.
    static let files: [String] = ["generated", "libjpeg-turbo-seeds"].flatMap { folder in
        let names = (try? FileManager.default.contentsOfDirectory(atPath: corpusDirectory.appendingPathComponent(folder).path)) ?? []
        return names.filter { $0.hasSuffix(".jpg") }.sorted().map { "\(folder)/\($0)" }
    }

    @Test("decoder agrees with djpeg", arguments: files)
    func agreesWithDjpeg(file: String) throws {
        let path = Self.corpusDirectory.appendingPathComponent(file).path
        let verdict = try DjpegVerdict(path: path)
        let bytes = try #require(FileManager.default.contents(atPath: path).map { [UInt8]($0) })
        let result = bytes.withUnsafeBytes { raw in
            Result { () throws(JPEGError) -> DecodedJPEG in
                try JPEGDecoder().decode(raw, covering: nil, maxPixels: 100_000_000)
            }
        }
        switch (verdict.kind, result) {
        case (.clean, .success(let decoded)), (.harmless, .success(let decoded)):
            // Decoded, and to the same picture as djpeg's.
            let reference = try DjpegVerdict.picture(path: path)
            try #require(decoded.image.size == reference.size, "\(file): size \(decoded.image.size), djpeg \(reference.size)")
            #expect(maxChannelDifference(decoded.image, reference) == 0, "\(file)")
        case (.clean, .failure(let error)):
            Issue.record("\(file): djpeg decodes it cleanly, the decoder threw \(error)")
        case (.harmless(let warnings), .failure(let error)):
            Issue.record("\(file): djpeg warns only harmlessly (\(warnings)), the decoder threw \(error)")
        case (.damage(let warnings), .success):
            Issue.record("\(file): djpeg reports damage (\(warnings)), the decoder showed a picture")
        case (.error(let message), .success):
            Issue.record("\(file): djpeg fails (\(message)), the decoder showed a picture")
        case (.damage, .failure(let error)), (.error, .failure(let error)):
            // The reason is named: the marker scan's own, or one of libjpeg's messages as djpeg printed them.
            let scanError = bytes.withUnsafeBytes { raw in
                Result { () throws(JPEGError) in _ = try JPEGMarkerScanner.scan(raw) }
            }
            if case .failure(let scanned) = scanError {
                #expect(error == scanned, "\(file)")
            } else {
                #expect(verdict.messages.contains { error.description.contains($0) },
                        "\(file): \(error) names none of djpeg's messages \(verdict.messages)")
            }
        }
    }

    /// The corpus holds every kind of verdict, and the cases from issue 12 have the
    /// verdict the issue describes; otherwise the test above proves little.
    @Test func corpusCoversEveryVerdict() throws {
        #expect(Self.files.count > 200)
        var kinds: [String: Int] = [:]
        for file in Self.files {
            let verdict = try DjpegVerdict(path: Self.corpusDirectory.appendingPathComponent(file).path)
            kinds[verdict.kind.name, default: 0] += 1
        }
        for kind in ["clean", "harmless", "damage", "error"] {
            #expect(kinds[kind, default: 0] >= 5, "only \(kinds[kind, default: 0]) \(kind) files")
        }
        func kind(_ name: String) throws -> String {
            try DjpegVerdict(path: Self.corpusDirectory.appendingPathComponent("generated/\(name)").path).kind.name
        }
        // (a) errors raised after the last scanline.
        #expect(try kind("baseline-second-sof-after-scan.jpg") == "error")
        #expect(try kind("baseline-bogus-dht-length-after-scan.jpg") == "error")
        #expect(try kind("baseline-sof-inside-scan.jpg") == "error")
        // ... after a harmless warning, which made TurboJPEG call the whole decode a warning.
        #expect(try kind("baseline-jfif-2-then-second-sof-after-scan.jpg") == "error")
        #expect(try kind("progressive-stray-bytes-then-second-sof-after-scan.jpg") == "error")
        // (b) garbage or an unsupported marker where a restart marker belongs.
        #expect(try kind("restarts-garbage-before-rst-then-resync.jpg") == "damage")
        #expect(try kind("restarts-rst-replaced-by-garbage.jpg") == "damage")
        #expect(try kind("restarts-rst-replaced-by-jpg-marker.jpg") == "error")
        #expect(try kind("restarts-rst-all-zeroed.jpg") == "damage")
        // Harmless warnings.
        #expect(try kind("restarts-harmless-stray-bytes-before-dqt.jpg") == "harmless")
        #expect(try kind("restarts-garbage-before-rst.jpg") == "harmless")  // the restart marker itself is intact
        #expect(try kind("restarts-harmless-jfif-version-2.jpg") == "harmless")
        #expect(try kind("cmyk-harmless-adobe-transform-7.jpg") == "harmless")
    }
}

/// What `djpeg` makes of a file.
///
/// djpeg runs at trace level 3 (`-verbose` three times), the only level at which
/// libjpeg's default emit_message prints every warning rather than the first:
/// a harmless first warning must not hide damage after it here either.
struct DjpegVerdict {
    enum Kind {
        /// Exit status 0.
        case clean
        /// Exit status 2 with only warnings that do not mean lost data.
        case harmless([String])
        /// Exit status 2 with at least one warning that means damaged or missing data.
        case damage([String])
        /// Exit status 1; the text is djpeg's last line.
        case error(String)

        var name: String {
            switch self {
            case .clean: "clean"
            case .harmless: "harmless"
            case .damage: "damage"
            case .error: "error"
            }
        }
    }

    var kind: Kind
    /// Every warning and error line djpeg printed.
    var messages: [String]

    init(path: String) throws {
        let (status, errorBytes) = try Self.run(["-verbose", "-verbose", "-verbose", "-outfile", "/dev/null", path], reading: .error)
        let lines = String(decoding: errorBytes, as: UTF8.self).split(separator: "\n").map(String.init)
        let warnings = lines.filter(Self.isWarning)
        messages = warnings + (status == 1 ? Array(lines.suffix(1)) : [])
        switch status {
        case 0:
            kind = .clean
        case 1:
            kind = .error(lines.last ?? "")
        case 2:
            if warnings.isEmpty {
                throw UnknownDjpegOutput(description: "djpeg exited with 2 but printed no warning this test knows: \(lines.suffix(3))")
            }
            kind = warnings.allSatisfy(Self.isHarmless) ? .harmless(warnings) : .damage(warnings)
        default:
            throw UnknownDjpegOutput(description: "djpeg exited with \(status)")
        }
    }

    /// libjpeg's warning texts (JWRN_* in jerror.h), as djpeg prints them.
    static func isWarning(_ line: String) -> Bool {
        ["Corrupt JPEG data:", "Premature end of JPEG file", "Warning: unknown JFIF revision number",
         "Unknown Adobe color transform code", "Inconsistent progression sequence",
         "Invalid SOS parameters for sequential JPEG", "Application transferred too many scanlines"]
            .contains { line.hasPrefix($0) }
    }

    /// Warnings about data that is not part of the picture: stray bytes before a
    /// marker (between segments, or padding after a complete restart interval, as
    /// MJPEG encoders write it), and unknown JFIF, Adobe or ICC details. Lost data
    /// around a restart marker shows as "found marker ... instead of RSTn",
    /// "premature end of data segment" or a bad code, which are damage.
    static func isHarmless(_ line: String) -> Bool {
        if line.hasPrefix("Corrupt JPEG data:"), line.contains("extraneous bytes before marker 0x") {
            return true
        }
        return line.hasPrefix("Warning: unknown JFIF revision number") || line.hasPrefix("Unknown Adobe color transform code")
            || line == "Corrupt JPEG data: bad ICC marker"
    }

    /// The picture djpeg decodes (P5 or P6), as XRGB.
    static func picture(path: String) throws -> PixelImage {
        try parsePNM(run(["-pnm", path], reading: .output).bytes)
    }

    /// Runs djpeg and reads one of its streams; the other goes to /dev/null, so
    /// no pipe can fill up while the other is read.
    static func run(_ arguments: [String], reading stream: Stream) throws -> (status: Int32, bytes: [UInt8]) {
        let process = Process()
        process.executableURL = URL(fileURLWithPath: "/usr/bin/djpeg")
        process.arguments = arguments
        let pipe = Pipe()
        process.standardOutput = stream == .output ? pipe : FileHandle.nullDevice
        process.standardError = stream == .error ? pipe : FileHandle.nullDevice
        try process.run()
        let data = pipe.fileHandleForReading.readDataToEndOfFile()
        process.waitUntilExit()
        return (process.terminationStatus, [UInt8](data))
    }

    enum Stream { case output, error }
}

struct UnknownDjpegOutput: Error, CustomStringConvertible {
    var description: String
}
