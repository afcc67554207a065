import Glibc
import VitrineCore
import VitrineSystem

/// Whether this system's wall clock has been set, from the marks the system
/// leaves in the file system (`WallClockTrust`).
///
/// - **systemd-timesyncd's mark**, `/run/systemd/timesync/synchronized`, which
///   it makes at its first synchronisation after boot: set by a time server.
/// - **A battery-backed clock read at boot**: an RTC whose `hctosys` is 1 (the
///   kernel set the system clock from it).
/// - Otherwise the clock is **not set** only where systemd-timesyncd runs and
///   is still to reach a server, as on Raspberry Pi OS and Debian, whose
///   boards start on the time they last shut down. It runs when its runtime
///   directory, `/run/systemd/timesync`, is there (`RuntimeDirectory=` of its
///   unit: made at its start, each boot; it starts in `sysinit.target`, before
///   the kiosk's unit). Where it does not run (a container, where its unit's
///   `ConditionVirtualization=!container` skips it, or a system that keeps its
///   time with chrony or ntpd), nothing here can tell, and the clock is
///   believed.
///
/// Why not the kernel's own flag (`adjtimex`, `STA_UNSYNC`): the unit's
/// `ProtectClock=yes` puts `adjtimex` under its seccomp filter, read or write.
/// A clock stepped while the kiosk runs counts as set too: that is decided in
/// `ScheduleTracker`, which sees the step.
///
/// Each reading is a few `stat` and one small read in /run and /sys (memory
/// file systems), made when the schedule is observed: at its changes, a step
/// of the clock, and every few seconds while the clock is not set.
public struct SystemWallClock: Sendable {
    /// Where the file system starts: `/`, or a fixture's directory in tests.
    public var root: String

    public init(root: String = "/") {
        self.root = root
    }

    static let timesyncdRuntime = "run/systemd/timesync"
    static let synchronizedMark = "run/systemd/timesync/synchronized"
    static let realTimeClocks = "sys/class/rtc"

    /// Whether systemd-timesyncd has set the clock from a time server since boot (its mark).
    public var isSynchronized: Bool {
        access(path(Self.synchronizedMark), F_OK) == 0
    }

    public func trust() -> WallClockTrust {
        if isSynchronized { return .set(.timeServer) }
        for clock in FileIO.names(in: path(Self.realTimeClocks)) {
            let flag = (try? FileIO.read(path("\(Self.realTimeClocks)/\(clock)/hctosys"), limit: 16)) ?? []
            if String(decoding: flag, as: UTF8.self).split(whereSeparator: \.isWhitespace) == ["1"] { return .set(.realTimeClock) }
        }
        var status = stat()
        if stat(path(Self.timesyncdRuntime), &status) == 0, status.st_mode & S_IFMT == S_IFDIR { return .notSet }
        return .set(.unwatched)
    }

    private func path(_ relative: String) -> String {
        root.hasSuffix("/") ? root + relative : root + "/" + relative
    }
}
