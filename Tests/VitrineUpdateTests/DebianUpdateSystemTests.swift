import Glibc
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

/// Root reads the kiosk's request only from plain files: a link the kiosk's user made is not followed.
@Suite struct UpdateRequestFilesTests {
    @Test func linksAreNotPlain() throws {
        let directory = "/tmp/vitrine-request-\(getpid())-\(UInt32.random(in: 0...UInt32.max))"
        #expect(mkdir(directory, 0o700) == 0)
        defer { _ = unlink(directory + "/channel.json"); _ = unlink(directory + "/plain"); _ = rmdir(directory) }
        #expect(symlink("/etc/shadow", directory + "/channel.json") == 0)
        let plain = open(directory + "/plain", O_CREAT | O_WRONLY, 0o600)
        #expect(plain >= 0)
        close(plain)
        #expect(!UpdateHelperRun.isPlain(directory + "/channel.json", kind: S_IFREG))
        #expect(UpdateHelperRun.isPlain(directory + "/plain", kind: S_IFREG))
        #expect(UpdateHelperRun.isPlain(directory, kind: S_IFDIR))
        #expect(!UpdateHelperRun.isPlain(directory + "/missing", kind: S_IFREG))
    }
}
