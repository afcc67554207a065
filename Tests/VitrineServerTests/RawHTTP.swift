import Dispatch
import Foundation
import Glibc

/// Plain TCP sockets to 127.0.0.1, for what an HTTP client library will not
/// send: request targets as an attacker spells them, connections held open
/// with nothing sent, bodies that stop half way.
///
/// Every call blocks: async tests make them through `offPool`, so that a
/// socket wait never holds one of the few cooperative threads the server
/// under test needs to answer (on two cores there are two).
enum RawHTTP {
    /// Runs `body` on a thread of its own. Not on `DispatchQueue.global()`: these
    /// bodies block for seconds, and on Linux the global pool adds a thread for a
    /// blocked one only slowly, so the kiosk's own getaddrinfo hop waited 12 s
    /// behind them in a loaded run and a channel test missed its 30 s bound.
    static func offPool<T: Sendable>(_ body: @escaping @Sendable () throws -> T) async throws -> T {
        try await withCheckedThrowingContinuation { continuation in
            Thread.detachNewThread { continuation.resume(with: Result { try body() }) }
        }
    }

    struct SocketError: Error, CustomStringConvertible {
        let call: String
        let errno: Int32
        var description: String { "\(call): \(String(cString: strerror(errno)))" }
    }

    /// A connected socket to 127.0.0.1:`port`, with `timeoutMs` on reads;
    /// from `source` when given (127.0.0.2 is another peer on Linux's loopback).
    static func connect(port: Int, timeoutMs: Int = 20_000, from source: String? = nil) throws -> Int32 {
        let fd = socket(AF_INET, Int32(SOCK_STREAM.rawValue), 0)
        guard fd >= 0 else { throw SocketError(call: "socket", errno: errno) }
        if let source {
            var local = sockaddr_in()
            local.sin_family = sa_family_t(AF_INET)
            local.sin_addr.s_addr = inet_addr(source)
            let bound = withUnsafePointer(to: &local) {
                $0.withMemoryRebound(to: sockaddr.self, capacity: 1) { bind(fd, $0, socklen_t(MemoryLayout<sockaddr_in>.size)) }
            }
            guard bound == 0 else {
                let error = errno
                close(fd)
                throw SocketError(call: "bind", errno: error)
            }
        }
        var address = sockaddr_in()
        address.sin_family = sa_family_t(AF_INET)
        address.sin_port = in_port_t(UInt16(port).bigEndian)
        address.sin_addr.s_addr = inet_addr("127.0.0.1")
        let connected = withUnsafePointer(to: &address) {
            $0.withMemoryRebound(to: sockaddr.self, capacity: 1) { Glibc.connect(fd, $0, socklen_t(MemoryLayout<sockaddr_in>.size)) }
        }
        guard connected == 0 else {
            let error = errno
            close(fd)
            throw SocketError(call: "connect", errno: error)
        }
        var timeout = timeval(tv_sec: timeoutMs / 1000, tv_usec: (timeoutMs % 1000) * 1000)
        setsockopt(fd, SOL_SOCKET, SO_RCVTIMEO, &timeout, socklen_t(MemoryLayout<timeval>.size))
        return fd
    }

    static func send(_ fd: Int32, _ text: String) {
        let bytes = Array(text.utf8)
        var sent = 0
        while sent < bytes.count {
            let count = bytes[sent...].withUnsafeBytes { Glibc.send(fd, $0.baseAddress, $0.count, Int32(MSG_NOSIGNAL)) }
            if count <= 0 { return }
            sent += count
        }
    }

    /// What the server sent until it closed the connection or the read timed out;
    /// `closed` is true when the server closed (or reset) it.
    static func readAll(_ fd: Int32) -> (text: String, closed: Bool) {
        var bytes: [UInt8] = []
        var buffer = [UInt8](repeating: 0, count: 4096)
        while true {
            let count = buffer.withUnsafeMutableBytes { recv(fd, $0.baseAddress, $0.count, 0) }
            if count > 0 { bytes += buffer[..<count]; continue }
            let closed = count == 0 || errno == ECONNRESET
            return (String(decoding: bytes, as: UTF8.self), closed)
        }
    }

    /// One request on its own connection (`Connection: close`); the status code, or nil when the server closed without answering.
    static func status(port: Int, method: String, target: String, headers: [String] = [], body: String = "",
                       from source: String? = nil) throws -> Int? {
        let fd = try connect(port: port, from: source)
        defer { close(fd) }
        var request = "\(method) \(target) HTTP/1.1\r\nHost: 127.0.0.1\r\nConnection: close\r\n"
        for header in headers { request += header + "\r\n" }
        if !body.isEmpty { request += "Content-Type: application/json\r\nContent-Length: \(body.utf8.count)\r\n" }
        send(fd, request + "\r\n" + body)
        let answer = readAll(fd).text
        guard answer.hasPrefix("HTTP/1.1 ") else { return nil }
        return Int(answer.dropFirst(9).prefix(3))
    }
}

extension RawHTTP {
    /// The sockets among `fds` that the server closed within `ms` milliseconds (waited for together).
    static func closed(among fds: [Int32], within ms: Int) -> Set<Int32> {
        var closed = Set<Int32>()
        let deadline = MonotonicMilliseconds.now() + ms
        while closed.count < fds.count {
            let remaining = deadline - MonotonicMilliseconds.now()
            if remaining <= 0 { break }
            var polled = fds.filter { !closed.contains($0) }.map { pollfd(fd: $0, events: Int16(POLLIN) | 0x2000 /* POLLRDHUP */, revents: 0) }
            guard poll(&polled, nfds_t(polled.count), Int32(remaining)) > 0 else { continue }
            for entry in polled where entry.revents != 0 {
                var byte: UInt8 = 0
                let count = recv(entry.fd, &byte, 1, Int32(MSG_DONTWAIT))
                if count == 0 || (count < 0 && errno != EAGAIN) { closed.insert(entry.fd) }
            }
        }
        return closed
    }
}

/// CLOCK_MONOTONIC in milliseconds, for the socket tests' waits.
enum MonotonicMilliseconds {
    static func now() -> Int {
        var time = timespec()
        clock_gettime(CLOCK_MONOTONIC, &time)
        return time.tv_sec * 1000 + time.tv_nsec / 1_000_000
    }
}

extension RawHTTP {
    /// The body of a GET on its own connection.
    static func body(port: Int, target: String, from source: String? = nil) throws -> String {
        let fd = try connect(port: port, from: source)
        defer { close(fd) }
        send(fd, "GET \(target) HTTP/1.1\r\nHost: 127.0.0.1\r\nConnection: close\r\n\r\n")
        let text = readAll(fd).text
        guard let split = text.range(of: "\r\n\r\n") else { return "" }
        return String(text[split.upperBound...])
    }
}
