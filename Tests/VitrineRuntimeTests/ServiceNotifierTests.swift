import Foundation
import Glibc
import Logging
import Testing
import VitrineConfig
import VitrineCore
@testable import VitrineRuntime

@Suite("systemd notification")
struct ServiceNotifierTests {
    /// A unix datagram socket standing in for systemd's notify socket.
    final class NotifySocket {
        let path: String
        let fd: Int32

        init(directory: String) {
            path = directory + "/notify"
            fd = socket(AF_UNIX, Int32(SOCK_DGRAM.rawValue) | Int32(SOCK_NONBLOCK.rawValue), 0)
            var address = sockaddr_un()
            address.sun_family = sa_family_t(AF_UNIX)
            withUnsafeMutableBytes(of: &address.sun_path) { raw in
                for (index, byte) in Array(path.utf8).enumerated() { raw[index] = byte }
            }
            _ = withUnsafePointer(to: &address) {
                $0.withMemoryRebound(to: sockaddr.self, capacity: 1) { bind(fd, $0, socklen_t(MemoryLayout<sockaddr_un>.size)) }
            }
        }

        deinit { close(fd) }

        func messages() -> [String] {
            var result: [String] = []
            var buffer = [UInt8](repeating: 0, count: 4096)
            while true {
                let count = recv(fd, &buffer, buffer.count, 0)
                guard count > 0 else { return result }
                result.append(String(decoding: buffer.prefix(count), as: UTF8.self))
            }
        }
    }

    @Test func readyAfterTheFirstFrameWatchdogFromTheLoopAndStopping() throws {
        let directory = makeTemporaryDirectory()
        defer { removeTemporaryDirectory(directory) }
        let socket = NotifySocket(directory: directory)
        try writeJPEG(directory + "/a.jpg", size: PixelSize(width: 160, height: 90), color: .white)
        let configuration = try ConfigLoader.parse("slides: [a.jpg]\noutput: {width: 160, height: 90}", baseDirectory: directory)
        let display = HeadlessDisplay(size: configuration.outputSize, previewPath: nil, logger: Logger(label: "test"))
        let notifier = ServiceNotifier(environment: ["NOTIFY_SOCKET": socket.path, "WATCHDOG_USEC": "200000"])
        #expect(notifier.watchdogInterval == .milliseconds(100))
        let kiosk = try Kiosk(configuration: configuration, display: display, logger: Logger(label: "test"), notifier: notifier)
        let stop = kiosk.stopHandle
        Thread.detachNewThread { Thread.sleep(forTimeInterval: 0.65); stop.stop() }
        try kiosk.run()
        let messages = socket.messages()
        #expect(messages.filter { $0.hasPrefix("READY=1\nSTATUS=showing 1 slides on headless 160x90") }.count == 1)
        // One slide, nothing to animate: only the watchdog wakes the loop, every 100 ms.
        let pings = messages.filter { $0 == "WATCHDOG=1" }.count
        #expect((5...8).contains(pings), "\(pings) watchdog pings in 0.65 s")
        #expect(messages.last == "STOPPING=1")
    }

    @Test func nothingOutsideSystemdAndNoWatchdogForAnotherProcess() {
        #expect(!ServiceNotifier(environment: [:]).isActive)
        #expect(ServiceNotifier(environment: [:]).pingIfDue(at: .zero) == nil)
        let other = ServiceNotifier(environment: ["NOTIFY_SOCKET": "/run/x", "WATCHDOG_USEC": "1000000", "WATCHDOG_PID": "1"])
        #expect(other.isActive && other.watchdogInterval == nil)
    }
}
