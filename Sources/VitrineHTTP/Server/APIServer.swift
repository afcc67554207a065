import Hummingbird
import HummingbirdCore
import HummingbirdTLS
import Logging
import NIOCore
import NIOSSL
import VitrineConfig
import VitrineCore

/// The kiosk's HTTP server (Hummingbird 2): the API, the web console, metrics.
///
/// It runs on NIO's event loops and the blocking thread pool, never on the
/// display thread; the two meet only in `KioskControl`, whose calls take a
/// short lock and never wait for each other.
public enum APIServer {
    /// The routes and middleware, without a socket: what Hummingbird's test client drives.
    /// `connections` is the listener's connection cap, whose counts `/metrics` reports.
    public static func router(_ services: APIServices, token: String, connections: ConnectionLimiter? = nil) -> Router<APIRequestContext> {
        routesAndTable(services, authenticator: APIAuthenticator(token: token), connections: connections).router
    }

    /// The router and the table of what it registered, each route behind the
    /// token unless `PublicRoutes` lists it.
    static func routesAndTable(_ services: APIServices, authenticator: APIAuthenticator, connections: ConnectionLimiter? = nil)
        -> (router: Router<APIRequestContext>, table: RouteTable) {
        let router = Router(context: APIRequestContext.self)
        let table = RouteTable()
        router.add(middleware: RequestCountingMiddleware(counter: services.monitoring.requests))
        router.add(middleware: SecurityHeadersMiddleware())
        router.add(middleware: ErrorBodyMiddleware())
        router.add(middleware: MethodNotAllowedMiddleware(table: table, authenticator: authenticator))
        let routes = RecordingRouter(router: router, table: table, authenticator: authenticator)
        // Each group of routes gets the parts it uses, and no others.
        let link = services.link
        let assets = AssetRoutes(apply: services.apply, pictures: services.pictures, events: services.events)
        ConsoleRoutes().add(to: routes)
        MonitoringRoutes(link: link, monitoring: services.monitoring, channel: services.channel, television: services.television,
                         plays: services.plays, board: services.board, software: services.software, authenticator: authenticator, connections: connections).add(to: routes)
        ConfigRoutes(apply: services.apply, pictures: services.pictures.inspector).add(to: routes)
        assets.add(to: routes)
        let status = StatusRoutes(link: link, store: services.apply.store, channel: services.channel, television: services.television,
                                  slides: services.pictures.slides, board: services.board, software: services.software)
        status.add(to: routes)
        PictureRoutes(link: link, slides: services.pictures.slides, logger: services.logger).add(to: routes)
        OutputRoutes(link: link, status: status).add(to: routes)
        PowerRoutes(link: link).add(to: routes)
        OverrideRoutes(overrides: services.overrides, link: link, assets: assets).add(to: routes)
        EventRoutes(events: services.events).add(to: routes)
        PlaysRoutes(plays: services.plays, link: link).add(to: routes)
        DoctorRoutes(stateDirectory: services.apply.store.directory).add(to: routes)
        RebootRoutes(reboot: services.reboot, logger: services.logger).add(to: routes)
        return (router, table)
    }

    /// The application listening on `host:port`, over TLS when `tls` names a
    /// certificate and key. `onListening` gets the bound port (useful with port 0).
    ///
    /// Bounded by `limits`: at most `limits.maximumConnections` connections at
    /// once, and `limits.connectionsPerSource` from one address, the rest closed
    /// as soon as accepted; idle connections, slow headers, stalled or trickled
    /// bodies closed after their timeouts; an answer given before its request's
    /// body was read closes its connection. The cap defaults to what the
    /// process's descriptor limit allows.
    public static func application(_ services: APIServices, token: String, host: String, port: Int, tls: TLSFiles?,
                                   logger: Logger, limits: ServerLimits = ServerLimits(),
                                   onListening: @escaping @Sendable (Int) -> Void = { _ in })
        throws -> some ApplicationProtocol {
        let connections = ConnectionLimiter(limit: limits.maximumConnections, limitPerSource: limits.connectionsPerSource)
        let http1 = GuardedHTTP1Channel.builder(limits: limits, connections: connections)
        var server = http1
        if let tls {
            server = try .tls(http1, tlsConfiguration: APITLSConfiguration.server(tls))
        }
        return Application(
            router: router(services, token: token, connections: connections), server: server,
            configuration: ApplicationConfiguration(address: .hostname(host, port: port), serverName: "vitrine"),
            onServerRunning: { channel in onListening(channel.localAddress?.port ?? port) },
            logger: logger)
    }
}
