import FoundationEssentials
import Glibc
import Testing
import VitrineCore
@testable import VitrineDoctor

/// The doctor's checks against made-up system trees: what a Raspberry Pi 4 on
/// Raspberry Pi OS's kernel, one on Debian's, and a PC publish under /proc and /sys.
@Suite("Doctor: the checks on made-up boards")
struct DoctorChecksTests {
    /// A directory standing in for `/`, with the files given.
    final class Tree {
        let root: String
        init(_ files: [String: String]) throws {
            var template = Array("/tmp/vitrine-doctor-XXXXXX".utf8CString)
            root = template.withUnsafeMutableBufferPointer { String(cString: mkdtemp($0.baseAddress!)!) }
            for (path, contents) in files {
                let full = root + path
                var prefix = ""
                for part in full.split(separator: "/").dropLast() {
                    prefix += "/" + part
                    mkdir(prefix, 0o755)
                }
                let file = fopen(full, "w")!
                fputs(contents, file)
                fclose(file)
            }
        }
        deinit { _ = try? FileManager.default.removeItem(atPath: root) }
        var system: DoctorSystem { DoctorSystem(root: root, pageSize: 4096) }
    }

    static let piMeminfo = "MemTotal:        3884160 kB\nMemFree:         3000000 kB\nMemAvailable:    3500000 kB\nCmaTotal:          65536 kB\nCmaFree:           40960 kB\n"

    @Test func aRaspberryPiWithTheDefaultCMAIsToldToRaiseIt() throws {
        let tree = try Tree(["/proc/device-tree/model": "Raspberry Pi 4 Model B Rev 1.5\0", "/proc/meminfo": Self.piMeminfo,
                             "/proc/sys/kernel/osrelease": "6.12.47+rpt-rpi-v8\n", "/proc/sys/kernel/arch": "aarch64\n"])
        let section = BoardCheck().run(on: tree.system)
        #expect(section.fact("model") == "Raspberry Pi 4 Model B Rev 1.5")
        #expect(section.fact("kernel") == "6.12.47+rpt-rpi-v8")
        #expect(section.fact("page size") == "4 KiB")
        #expect(section.fact("memory") == "3.7 GiB")
        #expect(section.fact("CMA") == "24 MiB in use, 40 MiB free of 64 MiB")
        #expect(section.status == .warning)
        #expect(section.findings.first?.contains("cma-512") == true)
        #expect(section.summary == "Raspberry Pi 4 Model B Rev 1.5, Linux 6.12.47+rpt-rpi-v8, 3.7 GiB")
    }

    @Test func aPCNamesItselfThroughDMIAndHasNoCMA() throws {
        let tree = try Tree(["/sys/class/dmi/id/sys_vendor": "QEMU\n", "/sys/class/dmi/id/product_name": "Standard PC (Q35 + ICH9, 2009)\n",
                             "/proc/meminfo": "MemTotal:       16384000 kB\nMemAvailable:   8000000 kB\n"])
        let section = BoardCheck().run(on: tree.system)
        #expect(section.fact("model") == "QEMU Standard PC (Q35 + ICH9, 2009)")
        #expect(section.fact("CMA") == "none (the kernel has no contiguous memory area)")
        #expect(section.status == .ok)
    }

    @Test func underVoltageNowIsAProblemAndSinceBootAWarning() throws {
        let firmware = "/sys/devices/platform/soc/soc:firmware/get_throttled"
        // Each tree kept in a constant: a temporary one is removed as soon as its `system` is read.
        let nowTree = try Tree([firmware: "50005\n"])
        let now = PowerCheck().run(on: nowTree.system)
        #expect(now.status == .problem)
        #expect(now.fact("now") == "under-voltage, throttled")
        #expect(now.fact("since boot") == "under-voltage, throttled")
        #expect(now.findings.first?.hasPrefix("Under-voltage now") == true)
        let earlierTree = try Tree([firmware: "0x50000\n"])
        let earlier = PowerCheck().run(on: earlierTree.system)
        #expect(earlier.status == .warning)
        #expect(earlier.fact("now") == "none")
        let fineTree = try Tree([firmware: "0x0\n", "/sys/class/thermal/thermal_zone0/temp": "51540\n",
                                 "/sys/class/thermal/thermal_zone0/type": "cpu-thermal\n"])
        let fine = PowerCheck().run(on: fineTree.system)
        #expect(fine.status == .ok)
        #expect(fine.summary == "no under-voltage or throttling")
        #expect(fine.fact("temperature (cpu-thermal)") == "51.5 °C")
    }

    @Test func mainlinesHwmonAlarmIsReadOnDebiansKernel() throws {
        let tree = try Tree(["/sys/class/hwmon/hwmon0/name": "cpu_thermal\n", "/sys/class/hwmon/hwmon1/name": "rpi_volt\n",
                             "/sys/class/hwmon/hwmon1/in0_lcrit_alarm": "1\n"])
        let section = PowerCheck().run(on: tree.system)
        #expect(section.status == .warning)
        #expect(section.fact("rpi_volt in0_lcrit_alarm") == "1")
        #expect(section.findings.count == 1)
    }

    @Test func aBoardThatReportsNoPowerStateIsUnavailableNotFine() throws {
        let tree = try Tree(["/proc/meminfo": "MemTotal: 1 kB\n"])
        let section = PowerCheck().run(on: tree.system)
        #expect(section.status == .unavailable)
    }

    @Test func aFileSystemTheKernelTurnedReadOnlyIsAProblem() throws {
        let mountinfo = """
            22 1 179:2 / / rw,noatime shared:1 - ext4 /dev/mmcblk0p2 ro,errors=remount-ro
            23 22 179:1 / /boot/firmware rw,relatime shared:2 - vfat /dev/mmcblk0p1 rw
            """
        let tree = try Tree(["/proc/self/mountinfo": mountinfo])
        let section = StorageCheck(stateDirectory: "/var/lib/vitrine").run(on: tree.system)
        #expect(section.status == .problem)
        #expect(section.fact("/") == "/dev/mmcblk0p2 (ext4) on /, read-only (remounted by the kernel)")
        #expect(section.findings.first?.contains("replace the card") == true)
    }

    @Test func aRootMountedReadOnlyOnPurposeIsOnlyAFact() throws {
        let mountinfo = """
            22 1 179:2 / / ro,noatime shared:1 - ext4 /dev/mmcblk0p2 ro
            30 22 179:3 / /var/lib/vitrine\\040data rw,noatime shared:3 - ext4 /dev/mmcblk0p3 rw
            """
        let tree = try Tree(["/proc/self/mountinfo": mountinfo, "/var/lib/vitrine data/x": ""])
        let section = StorageCheck(stateDirectory: "/var/lib/vitrine data").run(on: tree.system)
        #expect(section.fact("/") == "/dev/mmcblk0p2 (ext4) on /, read-only")
        #expect(section.fact("/var/lib/vitrine data") == "/dev/mmcblk0p3 (ext4) on /var/lib/vitrine data, read-write")
        #expect(section.fact("free on /var/lib/vitrine data") != nil)
        #expect(section.status != .problem)
    }

    @Test func ext4ErrorsAreAProblemWithTheFirstOnesTime() throws {
        let tree = try Tree(["/sys/fs/ext4/mmcblk0p2/errors_count": "3\n", "/sys/fs/ext4/mmcblk0p2/first_error_time": "1795000000\n",
                             "/sys/fs/ext4/mmcblk0p1/errors_count": "0\n"])
        let section = StorageCheck().run(on: tree.system)
        #expect(section.status == .problem)
        #expect(section.fact("ext4 errors on mmcblk0p2") == "3")
        #expect(section.findings == ["ext4 recorded 3 errors on mmcblk0p2 (the first at 2026-11-18T11:06:40Z): the storage is failing. Back up the state directory and replace the card."])
    }

    @Test func noCardNoAdapterNoInputAreUnavailable() throws {
        let tree = try Tree([:])
        #expect(DisplaysCheck().run(on: tree.system).status == .unavailable)
        #expect(CECCheck().run(on: tree.system).status == .unavailable)
        #expect(TouchCheck().run(on: tree.system).status == .unavailable)
    }

    @Test func theReportIsTheWorstOfItsSectionsAndReadsBackFromJSON() throws {
        let tree = try Tree(["/proc/meminfo": Self.piMeminfo, "/sys/devices/platform/soc/soc:firmware/get_throttled": "0x1\n"])
        let report = Doctor.report([BoardCheck(), PowerCheck()], on: tree.system, version: "1.2.3",
                                   now: WallInstant(secondsSinceEpoch: 1_795_000_000))
        #expect(report.status == .problem)
        #expect(report.generatedAt == "2026-11-18T11:06:40Z")
        let decoded = try JSONDecoder().decode(DoctorReport.self, from: Data(try Doctor.json(report)))
        #expect(decoded == report)
        #expect(report.text.hasPrefix("vitrine doctor 1.2.3, 2026-11-18T11:06:40Z: problem\n"))
        #expect(report.text.contains("Power [problem]: Under-voltage now"))
        #expect(report.text.contains("  ! Under-voltage now"))
    }

    @Test func mountinfoEscapesAndLongestPrefixes() {
        let mounts = ["1 0 0:1 / / rw - ext4 /dev/root rw", "2 1 0:2 / /var rw - ext4 /dev/var rw",
                      "3 2 0:3 / /var/lib/vitrine rw - tmpfs tmpfs rw", "4 1 0:4 / /variety rw - ext4 /dev/x rw"].compactMap(MountInfoLine.init)
        #expect(MountInfoLine.covering("/var/lib/vitrine/assets", in: mounts)?.source == "tmpfs")
        #expect(MountInfoLine.covering("/var/cache", in: mounts)?.source == "/dev/var")
        #expect(MountInfoLine.covering("/varx", in: mounts)?.source == "/dev/root")
        // Backslash itself is written \134.
        #expect(MountInfoLine.unescape("/a\\040b\\011c\\134") == "/a b\tc\\")
    }
}
