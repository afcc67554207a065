import Testing
import VitrineCore
@testable import VitrineDoctor
import VitrineUpdate

/// The doctor's software section, on made-up trees: dpkg's status file, apt's configuration and the helper's report.
@Suite struct SoftwareCheckTests {
    typealias Tree = DoctorChecksTests.Tree

    /// As dpkg-query answers on a board with the package installed.
    static let installed = SoftwareCheck(installedVersion: { "0.1.0+repotest1" })

    @Test func aPackagedKioskHeldByTheChannelAfterARollback() throws {
        let report = SoftwareUpdateReport(at: WallInstant(secondsSinceEpoch: 1_795_478_400), outcome: .rolledBack, manifestVersion: 2,
                                          wanted: "0.1.0+repotest2", from: "0.1.0+repotest1", installed: "0.1.0+repotest1",
                                          floor: "0.1.0", detail: "vitrine 0.1.0+repotest2 failed (vitrine.service restarted 2 times)")
        let tree = try Tree([
            "/etc/apt/sources.list.d/vitrine.sources": "Types: deb\n",
            "/lib/systemd/system/vitrine-update.path": "[Path]\n",
            "/etc/apt/preferences.d/vitrine-update.pref": "Explanation: x\nPackage: vitrine\nPin: version 0.1.0+repotest1\nPin-Priority: 1001\n",
            "/var/lib/vitrine-update/report.json": String(decoding: report.json, as: UTF8.self),
        ])
        let section = Self.installed.run(on: tree.system)
        #expect(section.fact("package") == "vitrine 0.1.0+repotest1")
        #expect(section.fact("apt pin") == "0.1.0+repotest1")
        #expect(section.fact("update helper") == "vitrine-update.path installed")
        #expect(section.fact("floor") == "0.1.0")
        #expect(section.status == .warning)
        #expect(section.findings == ["The last update was rolled-back: vitrine 0.1.0+repotest2 failed (vitrine.service restarted 2 times)"])
    }

    @Test func aPackageInstalledByHandIsFineAndToldWhereTheSourceIs() throws {
        let tree = try Tree([:])
        let section = Self.installed.run(on: tree.system)
        #expect(section.fact("apt source")?.contains("docs/apt-repository.md") == true)
        #expect(section.fact("last update") == "none")
        #expect(section.status == .ok)
        #expect(section.findings.isEmpty)
        #expect(section.summary == "vitrine 0.1.0+repotest1, no apt source (updated by hand)")
    }

    @Test func aKioskNotFromThePackageIsUnavailableNotFine() throws {
        let section = SoftwareCheck(installedVersion: { nil }).run(on: try Tree([:]).system)
        #expect(section.status == .unavailable)
        #expect(section.summary.hasPrefix("vitrine is not installed from its package"))
    }

    @Test func dpkgQueryIsAskedOnThisMachine() {
        // This machine (a build host or the CI's) has no vitrine package: dpkg-query says so, or is absent.
        #expect(SoftwareCheck.askDpkg() == nil)
    }
}
