import AsyncHTTPClient
// sys/socket.h's names (SOCK_STREAM, getaddrinfo's) belong, in a whole-module
// (release) build, to whichever module includes the header first, and
// CLinuxEvents' shim does: without this import, moving a file that imports
// CLinuxEvents ahead of this one broke the release build.
import CLinuxEvents
import Dispatch
import Glibc
import NIOCore
import NIOHTTP1
import VitrineCore

/// Every request the kiosk makes of its own accord (URL slides, the channel,
/// play uploads, tap actions) goes through here, under an `OutboundPolicy`:
///
/// - http and https only;
/// - the host is resolved here first, and every address it resolves to must be
///   allowed (a name that resolves to a public and a loopback address is refused);
/// - the connection then goes to the address that was checked, not to a second
///   lookup (AsyncHTTPClient's `dnsOverride`; TLS still checks the certificate
///   against the host's name), so a name that changes its answer in between
///   (DNS rebinding) cannot slip past;
/// - redirects are followed here, not by AsyncHTTPClient, so each hop is
///   judged again, at most `policy.maximumRedirects` of them, and only for GET;
/// - the caller's deadline covers every hop.
///
/// Each request has its own short-lived client, since the address it may
/// connect to is part of the client's configuration.
public enum OutboundRequest {
    /// A refusal or failure that names the URL. Its text never includes what
    /// the server sent, only what the kiosk decided.
    public struct Refused: Error, CustomStringConvertible, Sendable {
        public var url: String
        public var reason: String
        public var description: String { "\(url): \(reason)" }
    }

    /// Sends `request` (following allowed redirects for GET) and hands the
    /// final response to `body`, which must read what it needs before returning.
    /// - Parameter retryConnecting: whether a refused connection is retried until the deadline (AsyncHTTPClient's default).
    public static func execute<T: Sendable>(
        _ request: HTTPClientRequest, policy: OutboundPolicy, timeout: Duration, retryConnecting: Bool = true,
        _ body: @Sendable (HTTPClientResponse) async throws -> T
    ) async throws -> T {
        let deadline = NIODeadline.now() + .nanoseconds(timeout.nanoseconds)
        var request = request
        var hops = 0
        while true {
            let target = try await checkedTarget(request.url, policy: policy)
            var configuration = HTTPClient.Configuration.singletonConfiguration
            configuration.redirectConfiguration = .disallow
            configuration.connectionPool.retryConnectionEstablishment = retryConnecting
            configuration.dnsOverride = [target.host: target.address]
            let client = HTTPClient(eventLoopGroup: HTTPClient.defaultEventLoopGroup, configuration: configuration)
            do {
                let response = try await client.execute(request, deadline: deadline)
                if let location = redirectLocation(response), request.method == .GET {
                    _ = try? await response.body.collect(upTo: 64 * 1024)
                    try? await client.shutdown()
                    hops += 1
                    guard hops <= policy.maximumRedirects else {
                        throw Refused(url: request.url, reason: "more than \(policy.maximumRedirects) redirects")
                    }
                    guard let next = resolve(location, against: request.url) else {
                        throw Refused(url: request.url, reason: "the redirect's Location is not a URL")
                    }
                    request.url = next
                    continue
                }
                let result = try await body(response)
                try? await client.shutdown()
                return result
            } catch {
                try? await client.shutdown()
                throw error
            }
        }
    }

    /// The standard reason phrase for `code` ("Not Found"): what error messages
    /// say, rather than whatever words the server put after its status code.
    public static func reason(_ code: Int) -> String {
        HTTPResponseStatus(statusCode: code).reasonPhrase
    }

    /// A 301, 302, 303, 307 or 308 with a Location header.
    static func redirectLocation(_ response: HTTPClientResponse) -> String? {
        guard [301, 302, 303, 307, 308].contains(response.status.code) else { return nil }
        return response.headers.first(name: "Location")
    }

    /// `location` made absolute against `base` (RFC 3986: absolute, scheme-relative, absolute path, or relative path).
    static func resolve(_ location: String, against base: String) -> String? {
        guard let parts = URLParts(base) else { return nil }
        // Any scheme makes it absolute (and the scheme is judged next): file:, ftp:, javascript:…
        if let colon = location.firstIndex(of: ":"), let first = location.first, first.isLetter,
           location[..<colon].allSatisfy({ $0.isASCII && ($0.isLetter || $0.isNumber || "+-.".contains($0)) }) {
            return location
        }
        if location.hasPrefix("//") { return parts.scheme + ":" + location }
        if location.hasPrefix("/") { return parts.origin + location }
        let directory = parts.path.split(separator: "/", omittingEmptySubsequences: false).dropLast().joined(separator: "/")
        return parts.origin + directory + "/" + location
    }

    /// The URL's host and the one address the request may go to, after the policy has judged them all.
    static func checkedTarget(_ url: String, policy: OutboundPolicy) async throws -> (host: String, address: String) {
        let scheme = url.firstIndex(of: ":").map { String(url[..<$0]) }
        if let refusal = OutboundPolicy.refusal(forScheme: scheme) { throw Refused(url: url, reason: refusal) }
        guard let parts = URLParts(url) else { throw Refused(url: url, reason: "not an absolute URL with a host") }
        let addresses = try await resolveHost(parts.host, url: url)
        for address in addresses {
            guard let kind = NetworkAddressKind(bytes: address.bytes) else { continue }
            if let refusal = policy.refusal(for: kind) {
                throw Refused(url: url, reason: "\(parts.host) is \(address.text), \(refusal)")
            }
        }
        guard let first = addresses.first else { throw Refused(url: url, reason: "\(parts.host) has no address") }
        let name = parts.host.hasPrefix("[") ? String(parts.host.dropFirst().dropLast()) : parts.host
        return (name, first.text)
    }

    /// The host's addresses (getaddrinfo, on a thread of its own: it blocks).
    static func resolveHost(_ host: String, url: String) async throws -> [(bytes: [UInt8], text: String)] {
        let name = host.hasPrefix("[") && host.hasSuffix("]") ? String(host.dropFirst().dropLast()) : host
        return try await withCheckedThrowingContinuation { continuation in
            DispatchQueue.global().async {
                var hints = addrinfo()
                hints.ai_socktype = Int32(SOCK_STREAM.rawValue)
                var list: UnsafeMutablePointer<addrinfo>?
                let status = getaddrinfo(name, nil, &hints, &list)
                guard status == 0, let list else {
                    let reason = status == 0 ? "no address" : String(cString: gai_strerror(status))
                    continuation.resume(throwing: Refused(url: url, reason: "cannot resolve \(name): \(reason)"))
                    return
                }
                defer { freeaddrinfo(list) }
                var addresses: [(bytes: [UInt8], text: String)] = []
                var entry: UnsafeMutablePointer<addrinfo>? = list
                while let current = entry {
                    if let address = current.pointee.ai_addr, let converted = Self.address(address, family: current.pointee.ai_family),
                       !addresses.contains(where: { $0.bytes == converted.bytes }) {
                        addresses.append(converted)
                    }
                    entry = current.pointee.ai_next
                }
                continuation.resume(returning: addresses)
            }
        }
    }

    private static func address(_ pointer: UnsafeMutablePointer<sockaddr>, family: Int32) -> (bytes: [UInt8], text: String)? {
        var text = [CChar](repeating: 0, count: Int(INET6_ADDRSTRLEN))
        switch family {
        case AF_INET:
            return pointer.withMemoryRebound(to: sockaddr_in.self, capacity: 1) { ipv4 in
                var raw = ipv4.pointee.sin_addr
                let bytes = withUnsafeBytes(of: &raw) { Array($0) }
                guard inet_ntop(AF_INET, &raw, &text, socklen_t(text.count)) != nil else { return nil }
                return (bytes, String(decoding: text.prefix { $0 != 0 }.map { UInt8(bitPattern: $0) }, as: UTF8.self))
            }
        case AF_INET6:
            return pointer.withMemoryRebound(to: sockaddr_in6.self, capacity: 1) { ipv6 in
                var raw = ipv6.pointee.sin6_addr
                let bytes = withUnsafeBytes(of: &raw) { Array($0) }
                guard inet_ntop(AF_INET6, &raw, &text, socklen_t(text.count)) != nil else { return nil }
                return (bytes, String(decoding: text.prefix { $0 != 0 }.map { UInt8(bitPattern: $0) }, as: UTF8.self))
            }
        default:
            return nil
        }
    }
}

/// The parts of an absolute URL the policy needs: scheme, host (IPv6 literals
/// keep their brackets), the origin (scheme://authority) and the path.
struct URLParts {
    var scheme: String
    var host: String
    var origin: String
    var path: String

    init?(_ url: String) {
        guard let colon = url.firstIndex(of: ":") else { return nil }
        let scheme = url[..<colon]
        guard let first = scheme.first, first.isLetter,
              scheme.allSatisfy({ $0.isASCII && ($0.isLetter || $0.isNumber || "+-.".contains($0)) }) else { return nil }
        let rest = url[url.index(after: colon)...]
        guard rest.hasPrefix("//") else { return nil }
        let afterSlashes = rest.dropFirst(2)
        let authorityEnd = afterSlashes.firstIndex { "/?#".contains($0) } ?? afterSlashes.endIndex
        var authority = afterSlashes[..<authorityEnd]
        if let at = authority.lastIndex(of: "@") { authority = authority[authority.index(after: at)...] }
        var host: Substring
        if authority.hasPrefix("[") {
            guard let close = authority.firstIndex(of: "]") else { return nil }
            host = authority[...close]
        } else {
            host = authority.split(separator: ":", maxSplits: 1, omittingEmptySubsequences: false).first ?? ""
        }
        guard !host.isEmpty else { return nil }
        self.scheme = String(scheme)
        // As written: AsyncHTTPClient's dnsOverride is keyed by the host as the URL spells it.
        self.host = String(host)
        self.origin = String(url[..<authorityEnd])
        let pathEnd = afterSlashes[authorityEnd...].firstIndex { "?#".contains($0) } ?? afterSlashes.endIndex
        self.path = String(afterSlashes[authorityEnd..<pathEnd])
    }
}
