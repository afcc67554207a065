import Testing
import VitrineCEC
@testable import VitrineRuntime

@Suite struct CECAdapterChoiceTests {
    static func adapter(_ number: Int, _ address: UInt16, transmit: Bool = true, connector: UInt32? = nil) -> CECAdapterInfo {
        var info = CECAdapterInfo(path: "/dev/cec\(number)", driver: "test", name: "a\(number)",
                                  physicalAddress: CECPhysicalAddress(rawValue: address), canTransmit: transmit)
        info.drmConnector = connector.map { .init(card: 0, connector: $0) }
        return info
    }

    @Test func theTVEndOfACableIsNeverChosen() {
        // vivid: cec0 is its HDMI input (the TV, 0.0.0.0), cec1 its output (1.0.0.0).
        #expect(CECAdapterChoice.choose(from: [Self.adapter(0, 0x0000), Self.adapter(1, 0x1000)], drmConnector: nil)?.path == "/dev/cec1")
        #expect(CECAdapterChoice.choose(from: [Self.adapter(0, 0x0000)], drmConnector: nil) == nil)
    }

    @Test func theAdapterOfTheKiosksConnectorWins() {
        // A Raspberry Pi 4: two HDMI ports, the kiosk drives the second (connector 42).
        let adapters = [Self.adapter(0, 0x1000, connector: 33), Self.adapter(1, 0x2000, connector: 42)]
        #expect(CECAdapterChoice.choose(from: adapters, drmConnector: .init(card: 0, connector: 42))?.path == "/dev/cec1")
        #expect(CECAdapterChoice.choose(from: adapters, drmConnector: .init(card: 1, connector: 42))?.path == "/dev/cec0")
    }

    @Test func oneWithADisplayConnectedComesBeforeOneWithout() {
        let adapters = [Self.adapter(0, 0xffff), Self.adapter(1, 0x3000), Self.adapter(2, 0x1000, transmit: false)]
        #expect(CECAdapterChoice.choose(from: adapters, drmConnector: nil)?.path == "/dev/cec1")
        // With no display on either, the first that can transmit: it claims an address once one is plugged in.
        #expect(CECAdapterChoice.choose(from: [Self.adapter(3, 0xffff), Self.adapter(4, 0xffff)], drmConnector: nil)?.path == "/dev/cec3")
    }

    @Test func anotherOutputGroupsTVIsOnlyTheAdapterOnItsConnector() {
        // A Raspberry Pi 4 driving both HDMI ports: the second group's TV takes cec1, on connector 42.
        let adapters = [Self.adapter(0, 0x1000, connector: 33), Self.adapter(1, 0x2000, connector: 42)]
        #expect(CECAdapterChoice.choose(from: adapters, drmConnector: .init(card: 0, connector: 42), onConnectorOnly: true)?.path
            == "/dev/cec1")
        // No adapter says it sits on the connector (vivid, a USB dongle): none, rather than the first group's.
        #expect(CECAdapterChoice.choose(from: [Self.adapter(0, 0x0000), Self.adapter(1, 0x1000)], drmConnector: .init(card: 0, connector: 42),
                                        onConnectorOnly: true) == nil)
        #expect(CECAdapterChoice.choose(from: adapters, drmConnector: nil, onConnectorOnly: true) == nil)
    }

    @Test func theFirstGroupsTVNeverTakesAnotherGroupsAdapter() {
        // The first group is the DSI panel (no CEC); the HDMI TV on connector 42 is another group's.
        let adapters = [Self.adapter(0, 0x1000, connector: 42), Self.adapter(1, 0x2000)]
        #expect(CECAdapterChoice.choose(from: adapters, drmConnector: .init(card: 0, connector: 50))?.path == "/dev/cec0")
        #expect(CECAdapterChoice.choose(from: adapters, drmConnector: .init(card: 0, connector: 50),
                                        othersConnectors: [.init(card: 0, connector: 42)])?.path == "/dev/cec1")
        #expect(CECAdapterChoice.choose(from: [adapters[0]], drmConnector: nil, othersConnectors: [.init(card: 0, connector: 42)]) == nil)
    }
}
