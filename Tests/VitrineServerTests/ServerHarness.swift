import Foundation
import Hummingbird
import HummingbirdTesting
import Logging
import ServerTestSupport
import Testing
import VitrineChannel
import VitrineConfig
import VitrineCore
import VitrineJPEG
import VitrinePNG
@testable import VitrineRuntime
@testable import VitrineAssembly
@testable import VitrineHTTP
@testable import VitrineState

/// A real kiosk (headless display, its own display thread) with its state
/// directory and remote side, for driving through the API. `close()` stops the
/// display thread and removes the directory.
final class ServerHarness: @unchecked Sendable {
    static let token = "test-token-0123456789"
    static let colors: [String: RGBAColor] = [
        "red": RGBAColor(red: 220, green: 20, blue: 20), "green": RGBAColor(red: 20, green: 200, blue: 20),
        "blue": RGBAColor(red: 20, green: 20, blue: 220),
    ]

    let directory: String
    let stateDirectory: String
    let configPath: String
    let store: StateStore
    let api: APIServices
    private let stop: KioskStopHandle
    private let finished = DispatchSemaphore(value: 0)

    /// - Parameters:
    ///   - yaml: the local configuration file; red.jpg, green.jpg and blue.jpg sit beside it.
    ///   - connector: the connector the display says it drives (`ConnectorDisplay`); nil: plainly headless.
    ///   - groups: instead, one headless display per output group, each saying it drives
    ///     its connector and showing that output's entry, each on its own display loop.
    ///   - hangs: the groups whose display can be made to hang its loop (`DisplayHang`).
    ///   - mirrors: the connectors a group's display also drives, by the group's (its leader's) name.
    ///   - decoder: where slides are decoded: in process, or a test's own.
    ///   - pictures: where uploads and configured pictures are proven (videos need the sandboxed one).
    init(yaml: String = ServerHarness.defaultYAML, stateDirectory: String? = nil, channelPolicy: ChannelPollPolicy? = nil,
         connector: String? = nil, groups: [String]? = nil, hangs: [String: DisplayHang] = [:],
         mirrors: [String: [String]] = [:], decoder: any SlideDecoder = InProcessSlideDecoder(),
         pictures: any PictureInspector = InProcessPictureInspector()) throws {
        directory = NSTemporaryDirectory() + "vitrine-server-test-" + UUID().uuidString
        try FileManager.default.createDirectory(atPath: directory, withIntermediateDirectories: true)
        for (name, color) in Self.colors { try Self.jpeg(color).write(to: directory + "/\(name).jpg") }
        let configPath = directory + "/vitrine.yaml"
        self.configPath = configPath
        try Array(yaml.utf8).write(to: configPath)
        self.stateDirectory = stateDirectory ?? directory + "/state"
        let logger = Logger(label: "test")
        // Built as `vitrine run` builds it, on a headless display; the background work
        // (downloads, channel polls, play uploads) is left to each test to drive.
        let openDisplays: (KioskConfiguration) throws -> KioskDisplays = { configuration in
            let headless = { HeadlessDisplay(size: configuration.outputSize, previewPath: nil, logger: logger) }
            guard let groups else { return KioskDisplays(connector.map { ConnectorDisplay(headless(), connector: $0) } ?? headless()) }
            return KioskDisplays(groups: groups.map {
                OutputDisplay(display: ConnectorDisplay(headless(), connector: $0, hang: hangs[$0]), shown: OutputShown(output: $0),
                              connectors: [$0] + mirrors[$0, default: []])
            })
        }
        nonisolated(unsafe) let assembly = try KioskAssembly(
            configFile: configPath, stateDirectory: self.stateDirectory, logger: logger,
            options: KioskAssemblyOptions(openDisplays: openDisplays, decoder: decoder, pictures: pictures, device: "test-kiosk", channelPolicy: channelPolicy))
        store = assembly.store
        api = assembly.api
        stop = assembly.stopHandle
        let finished = self.finished
        Thread.detachNewThread {
            try? assembly.runDisplay()
            finished.signal()
        }
    }

    static let defaultYAML = """
        slides: [red.jpg, green.jpg]
        interval: 10m
        autoplay: false
        transition: {type: cut}
        output: {display: headless, width: 64, height: 48}
        api: {listen: "127.0.0.1:0", token: \(token), allowAddresses: [loopback]}
        """

    func close() {
        stop.stop()
        finished.wait()
        try? FileManager.default.removeItem(atPath: directory)
    }

    /// The application on port 0, for Hummingbird's test frameworks.
    func application(limits: ServerLimits = ServerLimits()) throws -> some ApplicationProtocol {
        try APIServer.application(api, token: Self.token, host: "127.0.0.1", port: 0, tls: nil, logger: Logger(label: "test"),
                                  limits: limits)
    }

    static func jpeg(_ color: RGBAColor, size: PixelSize = PixelSize(width: 32, height: 24)) throws -> [UInt8] {
        try JPEGEncoder().encode(PixelImage(size: size, fill: color), quality: 95)
    }

    /// Polls `condition` every 20 ms for up to `seconds`, from a thread of its own.
    func eventually(_ seconds: Double = 5, _ condition: () throws -> Bool) rethrows -> Bool {
        let deadline = Date().addingTimeInterval(seconds)
        while Date() < deadline {
            if try condition() { return true }
            Thread.sleep(forTimeInterval: 0.02)
        }
        return try condition()
    }

    /// Polls `condition` every 20 ms for up to `seconds`, suspending between polls.
    ///
    /// Async tests use this one: `Thread.sleep` would hold one of the cooperative pool's
    /// threads (two on a 2-core CI machine) for the whole wait, starving the very tasks
    /// (the URL fetcher, the server's handlers) whose work the condition waits for.
    func eventually(_ seconds: Double = 5, _ condition: () throws -> Bool) async rethrows -> Bool {
        let deadline = Date().addingTimeInterval(seconds)
        while Date() < deadline {
            if try condition() { return true }
            try? await Task.sleep(for: .milliseconds(20))
        }
        return try condition()
    }
}

/// Headers with the bearer token, plus `extra`.
func authorized(_ extra: HTTPFields = [:]) -> HTTPFields {
    var fields = extra
    fields[.authorization] = "Bearer \(ServerHarness.token)"
    return fields
}

func json(_ buffer: ByteBuffer) -> [String: Any] {
    (try? JSONSerialization.jsonObject(with: Data(buffer.readableBytesView)) as? [String: Any]) ?? [:]
}

func body(_ text: String) -> ByteBuffer { ByteBuffer(string: text) }

/// A JSON body sent with the token: the status, and the answer as a JSON object.
func sendJSON(_ client: some TestClientProtocol, _ method: HTTPRequest.Method, _ uri: String,
              _ text: String) async throws -> (HTTPResponse.Status, [String: Any]) {
    try await client.execute(uri: uri, method: method, headers: authorized([.contentType: "application/json"]), body: body(text)) {
        ($0.status, json($0.body))
    }
}

/// The colour at the centre of a PNG.
func centreColour(ofPNG bytes: ByteBuffer) throws -> (r: Int, g: Int, b: Int) {
    let image = try PNGCodec.decode(Array(bytes.readableBytesView))
    let pixel = image.pixels[image.size.height / 2 * image.size.width + image.size.width / 2]
    return (Int((pixel >> 16) & 0xFF), Int((pixel >> 8) & 0xFF), Int(pixel & 0xFF))
}

/// Whether a colour is near `expected` (JPEG moves solid colours a little).
func near(_ colour: (r: Int, g: Int, b: Int), _ expected: RGBAColor, tolerance: Int = 12) -> Bool {
    abs(colour.r - Int(expected.red)) <= tolerance && abs(colour.g - Int(expected.green)) <= tolerance
        && abs(colour.b - Int(expected.blue)) <= tolerance
}
