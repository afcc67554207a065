import FoundationEssentials
import Testing
import VitrineConfig
import VitrineCore
import VitrineSystem
@testable import VitrineDoctor

/// The doctor's network section, on made-up trees: Avahi's socket and the package's service file.
@Suite struct NetworkCheckTests {
    typealias Tree = DoctorChecksTests.Tree

    static let lan = AddressNotice.InterfaceAddress(interface: "eth0", bytes: [192, 168, 1, 23], text: "192.168.1.23")
    static let loopback = AddressNotice.InterfaceAddress(interface: "lo", bytes: [127, 0, 0, 1], text: "127.0.0.1")
    static let service = """
        <service-group><name replace-wildcards="yes">Vitrine on %h</name>
        <service><type>_http._tcp</type><port>8080</port></service></service-group>
        """

    static func check(_ api: APIConfiguration = APIConfiguration(), addresses: [AddressNotice.InterfaceAddress] = [lan, loopback]) -> NetworkCheck {
        NetworkCheck(api: api, addresses: { addresses }, hostName: { "kiosk-3.example.org" })
    }

    @Test func aKioskAnnouncedOnItsAPIsPortIsFine() throws {
        let tree = try Tree(["/run/avahi-daemon/socket": "", "/etc/avahi/services/vitrine.service": Self.service])
        let section = Self.check().run(on: tree.system)
        #expect(section.status == .ok)
        #expect(section.fact("addresses") == "eth0 192.168.1.23")
        #expect(section.fact("API") == "0.0.0.0:8080")
        #expect(section.fact("mDNS") == "announced by avahi-daemon as kiosk-3.local, the console as _http._tcp on port 8080")
        #expect(section.summary == "1 address; announced as kiosk-3.local")
    }

    @Test func anotherPortOrHTTPSIsAWarningNamingTheFile() throws {
        let tree = try Tree(["/run/avahi-daemon/socket": "", "/etc/avahi/services/vitrine.service": Self.service])
        var api = APIConfiguration()
        api.listen = .address(host: "0.0.0.0", port: 9000)
        api.tls = TLSFiles(certificate: "/etc/vitrine/cert.pem", key: "/etc/vitrine/key.pem")
        let section = Self.check(api).run(on: tree.system)
        #expect(section.status == .warning)
        #expect(section.findings.count == 2)
        #expect(section.findings.first?.hasPrefix("/etc/avahi/services/vitrine.service announces port 8080, but the API listens on 9000") == true)
        #expect(section.findings.last?.contains("_https._tcp") == true)
    }

    @Test func withoutAvahiOrWithoutAnAddressItIsSaidButNotAProblem() throws {
        let section = Self.check(addresses: [Self.loopback]).run(on: try Tree([:]).system)
        #expect(section.status == .ok)
        #expect(section.fact("addresses") == "none another machine can reach (yet)")
        #expect(section.fact("mDNS")?.hasPrefix("avahi-daemon is not running") == true)
        let avahiOnly = try Tree(["/run/avahi-daemon/socket": ""])
        let noFile = Self.check().run(on: avahiOnly.system)
        #expect(noFile.fact("mDNS")?.contains("is missing") == true)
    }

    @Test func thePackagesServiceFileIsReadAsAvahiReadsIt() throws {
        // This file is Tests/VitrineDoctorTests/NetworkCheckTests.swift: three levels under the package.
        var root = Substring(#filePath)
        for _ in 0..<3 { root = root[..<(root.lastIndex(of: "/") ?? root.startIndex)] }
        let shipped = String(decoding: try FileIO.read(root + "/deploy/avahi/vitrine.service", limit: 1 << 16), as: UTF8.self)
        #expect(NetworkCheck.element("port", in: shipped) == "8080")
        #expect(NetworkCheck.element("type", in: shipped) == "_http._tcp")
    }
}
