import Testing
@testable import VitrineCore

@Suite("Address notice")
struct AddressNoticeTests {
    typealias Address = AddressNotice.InterfaceAddress
    static let loopback = Address(interface: "lo", bytes: [127, 0, 0, 1], text: "127.0.0.1")
    static let lan = Address(interface: "eth0", bytes: [192, 168, 1, 23], text: "192.168.1.23")
    static let wifi = Address(interface: "wlan0", bytes: [10, 0, 0, 7], text: "10.0.0.7")
    static let linkLocal4 = Address(interface: "eth0", bytes: [169, 254, 3, 4], text: "169.254.3.4")
    static let public4 = Address(interface: "eth0", bytes: [203, 0, 113, 5], text: "203.0.113.5")
    static let global6 = Address(interface: "eth0", bytes: [0x20, 0x01, 0x0d, 0xb8] + [UInt8](repeating: 0, count: 11) + [1], text: "2001:db8::1")
    static let linkLocal6 = Address(interface: "eth0", bytes: [0xfe, 0x80] + [UInt8](repeating: 0, count: 13) + [1], text: "fe80::1")
    static let loopback6 = Address(interface: "lo", bytes: [UInt8](repeating: 0, count: 15) + [1], text: "::1")
    static let every = AddressNotice.Listening.address(host: "0.0.0.0", port: 8080, https: false)

    @Test func theLANAddressComesFirstThenTheMDNSName() {
        let notice = AddressNotice.notice(listening: Self.every, addresses: [Self.loopback, Self.public4, Self.linkLocal4, Self.lan, Self.global6],
                                          mdnsName: "kiosk.local")
        #expect(notice.lines == ["This kiosk is not set up yet.", "Set it up at", "http://192.168.1.23:8080/",
                                 "http://203.0.113.5:8080/", "http://169.254.3.4:8080/", "http://kiosk.local:8080/"])
    }

    @Test func onEveryIPv6AddressGlobalOnesAreListedInBracketsAndLinkLocalOnesNot() {
        let listening = AddressNotice.Listening.address(host: "::", port: 443, https: true)
        let notice = AddressNotice.notice(listening: listening, addresses: [Self.loopback6, Self.linkLocal6, Self.global6, Self.wifi], mdnsName: nil)
        #expect(notice.lines.dropFirst(2) == ["https://10.0.0.7:443/", "https://[2001:db8::1]:443/"])
    }

    @Test func atMostThreeAddressesEachOnce() {
        let many = [Self.lan, Self.wifi, Self.lan, Self.public4, Self.linkLocal4]
        let notice = AddressNotice.notice(listening: Self.every, addresses: many, mdnsName: nil)
        #expect(notice.lines.dropFirst(2) == ["http://192.168.1.23:8080/", "http://10.0.0.7:8080/", "http://203.0.113.5:8080/"])
    }

    @Test func noAddressYetSaysItWaits() {
        let notice = AddressNotice.notice(listening: Self.every, addresses: [Self.loopback, Self.linkLocal6], mdnsName: "kiosk.local")
        #expect(notice.lines == ["This kiosk is not set up yet.", "Waiting for a network address (Ethernet, or Wi-Fi from the SD card)."])
    }

    @Test func anAPIThatIsOffOrLocalSaysSo() {
        #expect(AddressNotice.notice(listening: .off, addresses: [Self.lan], mdnsName: nil).lines.last
                == "Its API is off (api.listen: off in /etc/vitrine/vitrine.yaml).")
        let local = AddressNotice.notice(listening: .address(host: "127.0.0.1", port: 8080, https: false), addresses: [Self.lan], mdnsName: nil)
        #expect(local.lines.last == "Its API answers on this machine only (api.listen: 127.0.0.1:8080).")
    }

    @Test func oneListenAddressIsTheOneListed() {
        let notice = AddressNotice.notice(listening: .address(host: "192.168.1.23", port: 8080, https: false), addresses: [Self.lan, Self.wifi],
                                          mdnsName: "kiosk.local")
        #expect(notice.lines == ["This kiosk is not set up yet.", "Set it up at", "http://192.168.1.23:8080/"])
    }
}
