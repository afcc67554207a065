import CLinuxProcess
import Glibc
import SystemPackage
import VitrineSeccomp

/// The system calls a decoding helper may make once it is confined: what
/// decoding in memory and talking to the kiosk over its socket need, and
/// nothing that reaches a file, the network or another process.
///
/// Anything not listed fails with EPERM and does nothing: a library that
/// asks for something harmless this list did not foresee (another glibc's
/// way of reading the CPU count, say, on a board's other release) gets an
/// error it can handle, rather than every picture failing. The calls that
/// only an exploit would make (starting a program or a process, the
/// network, reading or writing another process) kill the helper with
/// SIGSYS instead, which the pool reports as "a system call the sandbox does
/// not allow". A few calls that libraries try and can do without fail with
/// a chosen error: opening a file (glibc reads
/// `/sys/devices/system/cpu/online` for the CPU count and falls back to
/// `sched_getaffinity`; thread names go to `/proc/self/task/*/comm`),
/// `ioctl` (a terminal check on stderr) and `clone3`, which glibc 2.34 and
/// later try first and, on ENOSYS, fall back to `clone`, whose flags the
/// filter can inspect (`clone3` passes them in memory, out of a filter's reach).
package enum HelperSyscallPolicy {
    /// Calls allowed whatever their arguments.
    package static let allowed = [
        // The socket to the kiosk, and the descriptors it hands over.
        "read", "write", "readv", "writev", "recvmsg", "sendmsg", "recvfrom", "sendto", "close",
        "fstat", "newfstatat", "statx", "lseek", "pread64",
        // Memory: the heap, the shared frame, and unmapping.
        "brk", "munmap", "mremap", "madvise",
        // Threads (libheif decodes tiles on up to four) and their synchronisation.
        "futex", "set_robust_list", "rseq", "sched_yield", "sched_getaffinity", "gettid", "getpid", "getcpu",
        "membarrier",
        // Signals: the runtime's own handlers, abort(3), and returning from a handler.
        "rt_sigaction", "rt_sigprocmask", "rt_sigreturn", "sigaltstack", "tgkill",
        // Time.
        "clock_gettime", "clock_getres", "clock_nanosleep", "nanosleep", "gettimeofday",
        "getrandom", "getuid", "geteuid", "getgid", "getegid",
        "dup", "exit", "exit_group", "restart_syscall",
    ]

    /// Calls only an exploit makes: they kill the helper.
    package static let fatal = [
        "execve", "execveat", "fork", "vfork", "ptrace", "process_vm_readv", "process_vm_writev",
        "socket", "socketpair", "connect", "bind", "listen", "accept", "accept4",
        "kill", "tkill", "pidfd_open", "pidfd_send_signal", "pidfd_getfd",
        "setuid", "setgid", "setreuid", "setregid", "setresuid", "setresgid", "unshare", "setns", "mount",
        "init_module", "finit_module", "bpf", "perf_event_open", "userfaultfd", "io_uring_setup",
    ]

    /// Builds the filter. Mappings may never be executable: a decoder's
    /// memory written by an exploit cannot become code.
    package static func filter() throws(SeccompError) -> SeccompFilter {
        let filter = try SeccompFilter(defaultAction: .fail(.notPermitted))
        for name in allowed { try filter.add(.allow, name) }
        for name in fatal { try filter.add(.killProcess, name) }
        let executable = UInt64(PROT_EXEC)
        try filter.add(.allow, "mmap", when: [.maskedEqual(argument: 2, mask: executable, value: 0)])
        try filter.add(.allow, "mprotect", when: [.maskedEqual(argument: 2, mask: executable, value: 0)])
        // A thread, never a process: CLONE_THREAD set.
        let thread = UInt64(vitrine_clone_thread)
        try filter.add(.allow, "clone", when: [.maskedEqual(argument: 0, mask: thread, value: thread)])
        try filter.add(.fail(.noFunction), "clone3")
        // Reading a limit (glibc's default thread stack size), never setting one.
        try filter.add(.allow, "prlimit64", when: [.equal(argument: 2, value: 0)])
        // Naming a thread (PR_SET_NAME) and nothing else prctl does.
        try filter.add(.allow, "prctl", when: [.equal(argument: 0, value: UInt64(vitrine_pr_set_name))])
        try filter.add(.allow, "fcntl", when: [.equal(argument: 1, value: UInt64(F_GETFL))])
        try filter.add(.allow, "fcntl", when: [.equal(argument: 1, value: UInt64(F_GETFD))])
        for name in ["open", "openat", "openat2"] { try filter.add(.fail(.permissionDenied), name) }
        try filter.add(.fail(.inappropriateIOCTLForDevice), "ioctl")
        return filter
    }
}
