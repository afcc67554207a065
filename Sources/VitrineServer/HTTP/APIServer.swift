import Hummingbird
import HummingbirdCore
import HummingbirdTLS
import Logging
import NIOCore
import NIOSSL
import VitrineConfig

/// The kiosk's HTTP server (Hummingbird 2): the API, the web console, metrics.
///
/// It runs on NIO's event loops and the blocking thread pool, never on the
/// display thread; the two meet only in `KioskControl`, whose calls take a
/// short lock and never wait for each other.
public enum APIServer {
    /// The routes and middleware, without a socket: what Hummingbird's test client drives.
    public static func router(_ kiosk: RemoteKiosk, token: String) -> Router<BasicRequestContext> {
        let router = Router()
        let table = RouteTable()
        router.add(middleware: RequestCountingMiddleware(counter: kiosk.requests))
        router.add(middleware: ErrorBodyMiddleware())
        router.add(middleware: BearerAuthentication(token: token))
        // Innermost, so that a request without a token is still refused with 401 first.
        router.add(middleware: MethodNotAllowedMiddleware(table: table))
        let routes = RecordingRouter(router: router, table: table)
        ConsoleRoutes().add(to: routes)
        MonitoringRoutes(kiosk: kiosk).add(to: routes)
        ConfigRoutes(kiosk: kiosk).add(to: routes)
        AssetRoutes(kiosk: kiosk).add(to: routes)
        StatusRoutes(kiosk: kiosk).add(to: routes)
        PowerRoutes(kiosk: kiosk).add(to: routes)
        OverrideRoutes(kiosk: kiosk).add(to: routes)
        EventRoutes(kiosk: kiosk).add(to: routes)
        PlaysRoutes(kiosk: kiosk).add(to: routes)
        return router
    }

    /// The application listening on `host:port`, over TLS when `tls` names a
    /// certificate and key. `onListening` gets the bound port (useful with port 0).
    public static func application(_ kiosk: RemoteKiosk, token: String, host: String, port: Int, tls: TLSFiles?,
                                   logger: Logger, onListening: @escaping @Sendable (Int) -> Void = { _ in })
        throws -> some ApplicationProtocol {
        var server: HTTPServerBuilder = .http1()
        if let tls {
            do {
                let certificates = try NIOSSLCertificate.fromPEMFile(tls.certificate).map { NIOSSLCertificateSource.certificate($0) }
                let key = try NIOSSLPrivateKey(file: tls.key, format: .pem)
                server = try .tls(.http1(), tlsConfiguration: .makeServerConfiguration(certificateChain: certificates, privateKey: .privateKey(key)))
            } catch {
                throw ConfigError(source: nil, issues: [ConfigIssue(path: "api.tls", message: "cannot load \(tls.certificate) and \(tls.key): \(error)")])
            }
        }
        return Application(
            router: router(kiosk, token: token), server: server,
            configuration: ApplicationConfiguration(address: .hostname(host, port: port), serverName: "vitrine"),
            onServerRunning: { channel in onListening(channel.localAddress?.port ?? port) },
            logger: logger)
    }
}
