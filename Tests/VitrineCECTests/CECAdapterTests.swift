import Foundation
import Glibc
import Testing
import VitrineCEC
import SystemPackage

/// The wrapper's own logic and its errors; the ioctls themselves run against
/// the kernel's vivid adapters in the VM tests (Tests/VM/cec_checks.py).
@Suite struct CECAdapterTests {
    @Test func physicalAddressesAreWrittenAsFourNibbles() {
        #expect(CECPhysicalAddress(rawValue: 0x1000).description == "1.0.0.0")
        #expect(CECPhysicalAddress(rawValue: 0x21a0).description == "2.1.a.0")
        #expect(CECPhysicalAddress.tv.description == "0.0.0.0")
        #expect(!CECPhysicalAddress.invalid.isValid && CECPhysicalAddress.invalid.description == "f.f.f.f")
    }

    @Test func adaptersAreListedInNumberOrder() throws {
        let directory = FileManager.default.temporaryDirectory.appendingPathComponent("cec-\(UUID().uuidString)").path
        try FileManager.default.createDirectory(atPath: directory, withIntermediateDirectories: true)
        defer { try? FileManager.default.removeItem(atPath: directory) }
        for name in ["cec10", "cec2", "cec0", "cecx", "card0", "cec"] {
            _ = FileManager.default.createFile(atPath: "\(directory)/\(name)", contents: nil)
        }
        #expect(CECAdapter.adapterPaths(in: directory) == ["\(directory)/cec0", "\(directory)/cec2", "\(directory)/cec10"])
        #expect(CECAdapter.adapterPaths(in: "\(directory)/missing").isEmpty)
    }

    @Test func aMissingAdapterIsNamedInItsError() {
        do {
            _ = try CECAdapter(path: "/nonexistent/cec7")
            Issue.record("opened a missing adapter")
        } catch {
            #expect(error.operation == .open && error.errno == .noSuchFileOrDirectory)
            #expect(error.description == "/nonexistent/cec7: no such CEC adapter")
        }
    }

    @Test func aDeviceThatIsNotAnAdapterFailsItsFirstIoctlByName() throws {
        // /dev/null opens, and answers every ioctl with ENOTTY.
        let adapter = try CECAdapter(path: "/dev/null")
        do {
            _ = try adapter.info()
            Issue.record("/dev/null answered CEC_ADAP_G_CAPS")
        } catch {
            #expect(error.operation == .capabilities && error.errno == .inappropriateIOCTLForDevice)
            #expect(error.description.hasPrefix("/dev/null: CEC_ADAP_G_CAPS: "), "\(error)")
        }
        #expect(throws: CECError.self) { try adapter.sendStandby(from: CECLogicalAddress(rawValue: 4)) }
    }

    @Test func kernelErrorsThatOperatorsMeetAreExplained() {
        #expect(CECError(path: "/dev/cec0", operation: .transmit, errno: CECError.noNetwork).description
            == "/dev/cec0: CEC_TRANSMIT: no logical address claimed (is an HDMI display connected?)")
        #expect(CECError(path: "/dev/cec0", operation: .open, errno: .permissionDenied).description
            == "/dev/cec0: permission denied; add the kiosk's user to the 'video' group")
        #expect(CECError(path: "/dev/cec1", operation: .transmit, errno: .operationNotSupportedByDevice).adapterRemoved)
    }
}
