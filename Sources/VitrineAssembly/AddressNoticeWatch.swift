import VitrineConfig
import VitrineCore
import VitrineRuntime
import VitrineSystem

/// Reads this machine's addresses every few seconds and tells every output
/// group where the kiosk can be set up (`AddressNotice`), when that changes:
/// a board often gets its address from DHCP, or its Wi-Fi from the SD card,
/// after the kiosk has started. Each group shows it while its configuration
/// has `showAddress`.
enum AddressNoticeWatch {
    /// How often the addresses are read: `getifaddrs` is cheap, and someone
    /// waiting at a new board should not wait long for its address.
    static let interval: Duration = .seconds(5)

    static func start(api: APIConfiguration, controls: [KioskControl]) -> Task<Void, Never> {
        let listening: AddressNotice.Listening = switch api.listen {
        case .off: .off
        case .address(let host, let port): .address(host: host, port: port, https: api.tls != nil)
        }
        return Task.detached(priority: .background) {
            var sent: ScreenNotice?
            while !Task.isCancelled {
                let notice = AddressNotice.notice(listening: listening, addresses: NetworkInterfaces.addresses(),
                                                  mdnsName: NetworkInterfaces.mdnsName())
                if notice != sent {
                    for control in controls { control.send(.addressNotice(notice)) }
                    sent = notice
                }
                try? await Task.sleep(for: interval)
            }
        }
    }
}
