import Foundation
import Glibc
import Logging
import Testing
import VitrineConfig
import VitrineCore
import VitrineSystem
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

    /// A notify socket in `directory`, and a notifier sending to it with a 200 ms watchdog (pings every 100 ms).
    static func notifier(in directory: String) -> (NotifySocket, ServiceNotifier) {
        let socket = NotifySocket(directory: directory)
        return (socket, ServiceNotifier(environment: ["NOTIFY_SOCKET": socket.path, "WATCHDOG_USEC": "200000"]))
    }

    /// A kiosk with one slide and nothing to animate: only its notifier's interval wakes it.
    static func idleKiosk(in directory: String, notifier: ServiceNotifier, takesSignals: Bool = true) throws -> Kiosk {
        try writeJPEG(directory + "/a.jpg", size: PixelSize(width: 160, height: 90), color: .white)
        let configuration = try ConfigLoader.parse("slides: [a.jpg]\noutput: {width: 160, height: 90}", baseDirectory: directory)
        let display = HeadlessDisplay(size: configuration.outputSize, previewPath: nil, logger: Logger(label: "test"))
        return try Kiosk(configuration: configuration, display: display, logger: Logger(label: "test"), decoder: InProcessSlideDecoder(), notifier: notifier,
                         takesSignals: takesSignals)
    }

    @Test func readyAfterTheFirstFrameWatchdogFromTheLoopAndStopping() throws {
        let directory = makeTemporaryDirectory()
        defer { removeTemporaryDirectory(directory) }
        let (socket, notifier) = Self.notifier(in: directory)
        #expect(notifier.watchdogInterval == .milliseconds(100))
        let kiosk = try Self.idleKiosk(in: directory, notifier: notifier)
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

    /// The first loop's pings wait for every other output group's heartbeat:
    /// a companion loop silent for the whole timeout holds them back (so
    /// systemd restarts the kiosk), and one that turns again lets them go.
    @Test func aHungCompanionLoopHoldsBackTheWatchdog() throws {
        let directory = makeTemporaryDirectory()
        defer { removeTemporaryDirectory(directory) }
        // A 200 ms timeout: pings (and beats) every 100 ms.
        let (socket, notifier) = Self.notifier(in: directory)
        let heartbeat = LoopHeartbeat(name: "DSI-1", startedAt: .zero)
        let companion = notifier.companion(beating: heartbeat)
        notifier.watch([heartbeat])
        #expect(!companion.isActive && companion.watchdogInterval == .milliseconds(100))
        func at(_ milliseconds: Int64) -> MonotonicInstant { .zero + .milliseconds(milliseconds) }

        // The companion beats at 0 and 100 ms, then hangs.
        #expect(companion.pingIfDue(at: at(0)) == at(100))
        #expect(companion.pingIfDue(at: at(50)) == at(100), "not due: no beat")
        #expect(companion.pingIfDue(at: at(100)) == at(200))
        #expect(heartbeat.lastBeat == at(100))
        #expect(socket.messages().isEmpty, "a companion tells systemd nothing")

        var sent: [Int64] = []
        for milliseconds in stride(from: Int64(0), through: 500, by: 100) {
            notifier.pingIfDue(at: at(milliseconds))
            if socket.messages() == ["WATCHDOG=1"] { sent.append(milliseconds) }
        }
        // Silent for 200 ms at 300: still within the timeout; at 400 and 500 it is not.
        #expect(sent == [0, 100, 200, 300])
        #expect(notifier.withheldFor === heartbeat)

        // It turns again: the next ping due goes.
        companion.pingIfDue(at: at(550))
        #expect(notifier.pingIfDue(at: at(600)) == at(700))
        #expect(socket.messages() == ["WATCHDOG=1"] && notifier.withheldFor == nil)
    }

    /// A companion loop wakes for its heartbeat as the first loop wakes for its pings, idle or not.
    @Test func anIdleCompanionLoopStillBeats() throws {
        let directory = makeTemporaryDirectory()
        defer { removeTemporaryDirectory(directory) }
        let (socket, notifier) = Self.notifier(in: directory)
        let heartbeat = LoopHeartbeat(name: "HDMI-A-2", startedAt: MonotonicClock.now())
        let kiosk = try Self.idleKiosk(in: directory, notifier: notifier.companion(beating: heartbeat), takesSignals: false)
        let stop = kiosk.stopHandle
        nonisolated(unsafe) var beats: [Duration] = []
        let started = heartbeat.lastBeat
        Thread.detachNewThread {
            var last = started
            for _ in 0..<13 {
                Thread.sleep(forTimeInterval: 0.05)
                if heartbeat.lastBeat != last {
                    last = heartbeat.lastBeat
                    beats.append(last - started)
                }
            }
            stop.stop()
        }
        try kiosk.run()
        // One slide, nothing to animate: only the heartbeat wakes the loop, every 100 ms.
        #expect((5...8).contains(beats.count), "\(beats.count) beats in 0.65 s: \(beats)")
        #expect(socket.messages().isEmpty)
    }
}
