import Glibc
import Testing
import VitrineSystem

/// `ProgramOutput.run` on /bin/sh: the output, and how the program ended,
/// decoded from the wait status rather than handed back raw.
struct ProgramOutputTests {
    @Test func aProgramThatExitsGivesItsCodeAndOutput() throws {
        let run = try ProgramOutput.run("/bin/sh", ["-c", "echo hello; exit 3"])
        #expect(run.output == "hello\n")
        #expect(run.ending == .exited(3))
        #expect(try ProgramOutput.run("/bin/sh", ["-c", "true"]).ending == .exited(0))
    }

    @Test func aProgramKilledBySignalSaysWhich() throws {
        let run = try ProgramOutput.run("/bin/sh", ["-c", "kill -9 $$"])
        #expect(run.ending == .killed(signal: SIGKILL))
        #expect(run.ending.description.contains("signal 9"))
    }

    @Test func aProgramPastItsDeadlineIsKilledAndSaysSo() throws {
        let started = ContinuousClock.now
        let run = try ProgramOutput.run("/bin/sh", ["-c", "echo started; exec sleep 30"], timeout: .milliseconds(300))
        #expect(run.ending == .timedOut)
        #expect(run.output == "started\n")
        #expect(ContinuousClock.now - started < .seconds(10))
    }

    @Test func aMissingProgramIsASystemErrorNamingIt() {
        #expect(throws: SystemError.self) { try ProgramOutput.run("/nonexistent/vitrine-video", []) }
    }
}
