import CLinuxProcess
import Glibc
import VitrineSeccomp
import VitrineSystem

/// What a decoding helper does to itself before it reads a picture, in this
/// order: the steps that need files come before the filter that forbids them.
package enum HelperConfinement {
    package struct Failure: Error, CustomStringConvertible {
        package var description: String
    }

    /// `prepare` runs before the limits and the filter: what must open files first.
    package static func apply(_ limits: HelperLimits, prepare: () -> Void) throws(Failure) {
        // Dies with the kiosk: a helper must never outlive the process it serves.
        vitrine_set_parent_death_signal(SIGKILL)
        if getppid() == 1 { exit(0) }
        // If the kernel must kill something for memory, a helper goes before the kiosk.
        if let adjust = try? OpenFile("/proc/self/oom_score_adj", O_WRONLY | O_CLOEXEC) {
            try? adjust.write(Array("1000".utf8))
        }
        prepare()
        try setLimit(RLIMIT_CORE, 0, "core dumps")
        try setLimit(RLIMIT_STACK, 1 << 20, "thread stacks")
        try setLimit(RLIMIT_NOFILE, 16, "open files")
        try setLimit(RLIMIT_CPU, rlim_t(limits.cpuSeconds), "CPU time")
        // Counted from what is mapped now (the binary, its libraries, the
        // runtime): the budget is what decoding may add.
        let mapped = mappedBytes() ?? (64 << 20)
        try setLimit(RLIMIT_AS, rlim_t(mapped + limits.addressSpaceMiB << 20), "address space")
        let filter: SeccompFilter
        do {
            filter = try HelperSyscallPolicy.filter()
            try filter.load()
        } catch {
            throw Failure(description: "the system-call filter cannot be installed (\(error)); "
                          + "a kernel without seccomp, or an emulator such as qemu-user, cannot run the sandbox")
        }
    }

    private static func setLimit(_ resource: __rlimit_resource, _ value: rlim_t, _ what: String) throws(Failure) {
        var limit = rlimit(rlim_cur: value, rlim_max: value)
        guard setrlimit(Int32(resource.rawValue), &limit) == 0 else {
            throw Failure(description: "cannot limit \(what) (setrlimit: \(String(cString: strerror(errno))))")
        }
    }

    /// The address space mapped now, from `/proc/self/statm` (its first field, in pages).
    private static func mappedBytes() -> Int? {
        guard let text = try? FileIO.read("/proc/self/statm", limit: 4096),
              let pages = String(decoding: text, as: UTF8.self).split(separator: " ").first.flatMap({ Int($0) }) else { return nil }
        return pages * Int(sysconf(Int32(_SC_PAGESIZE)))
    }
}
