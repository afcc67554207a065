import Testing
@testable import VitrineUpdate

/// What the helper reads from dpkg, apt and systemd, from their real output's shape.
@Suite struct DebianUpdateSystemTests {
    @Test func dpkgQuerySaysInstalledOnlyForII() {
        #expect(DebianUpdateSystem.installed(fromQuery: "ii |0.1.0+repotest1") == "0.1.0+repotest1")
        // Removed, its configuration files kept: not installed.
        #expect(DebianUpdateSystem.installed(fromQuery: "rc |0.1.0") == nil)
        // Half-configured after a failed postinst.
        #expect(DebianUpdateSystem.installed(fromQuery: "iF |0.1.0") == nil)
        #expect(DebianUpdateSystem.installed(fromQuery: "") == nil)
    }

    @Test func madisonListsTheRepositorysVersionsNotDpkgsStatus() {
        let output = """
               vitrine | 0.1.0+repotest2 | http://10.0.2.2:41237/bookworm bookworm/main amd64 Packages
               vitrine | 0.1.0+repotest1 | http://10.0.2.2:41237/bookworm bookworm/main amd64 Packages
               vitrine |      0.1.0 | http://10.0.2.2:41237/bookworm bookworm/main amd64 Packages
               vitrine |      0.0.9 | /var/lib/dpkg/status
            """
        #expect(DebianUpdateSystem.offered(fromMadison: output) == ["0.1.0+repotest2", "0.1.0+repotest1", "0.1.0"])
        #expect(DebianUpdateSystem.offered(fromMadison: "N: Unable to locate package vitrine\n").isEmpty)
    }

    @Test func systemctlShowIsReadByKey() {
        let sample = DebianUpdateSystem.sample(fromShow: "MainPID=787\nNRestarts=3\nActiveState=active\n")
        #expect(sample == ServiceHealthWatch.Sample(activeState: "active", restarts: 3, mainPID: 787))
        // systemctl could not be asked: never taken for a healthy kiosk.
        #expect(DebianUpdateSystem.sample(fromShow: "") == ServiceHealthWatch.Sample(activeState: "unknown", restarts: 0, mainPID: 0))
    }
}
