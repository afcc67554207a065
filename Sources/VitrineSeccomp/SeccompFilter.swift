import CLibSeccomp
import SystemPackage

/// A seccomp-BPF filter being built for this process, through libseccomp.
///
/// Rules are added by system call name, resolved for the architecture the
/// process runs on (`seccomp_syscall_resolve_name`), so one allowlist serves
/// x86-64 and arm64. Nothing applies until `load()` (`seccomp_load`), and once
/// loaded a filter binds this process and every thread and child it starts
/// after, for the rest of its life: it can be narrowed by another filter,
/// never widened. The libseccomp context is released when the filter is
/// (`seccomp_release`); the loaded program stays in the kernel.
public final class SeccompFilter {
    /// What the kernel does with a system call a rule (or the default) matches.
    public enum Action: Sendable, Equatable {
        /// Runs it (`SCMP_ACT_ALLOW`).
        case allow
        /// Does not run it and returns this error to the caller (`SCMP_ACT_ERRNO`):
        /// for calls a library may try and cope without, such as opening a file.
        case fail(Errno)
        /// Kills the whole process with SIGSYS (`SCMP_ACT_KILL_PROCESS`): the
        /// parent sees the signal and knows the sandbox stopped it.
        case killProcess

        var value: UInt32 {
            switch self {
            case .allow: vitrine_seccomp_allow()
            case .fail(let errno): vitrine_seccomp_errno(UInt32(errno.rawValue))
            case .killProcess: vitrine_seccomp_kill_process()
            }
        }
    }

    /// A test on one of a system call's arguments (`struct scmp_arg_cmp`); a
    /// rule with several matches only when all hold.
    public enum ArgumentTest: Sendable, Equatable {
        /// `(argument & mask) == value` (`SCMP_CMP_MASKED_EQ`).
        case maskedEqual(argument: Int, mask: UInt64, value: UInt64)
        /// `argument == value` (`SCMP_CMP_EQ`).
        case equal(argument: Int, value: UInt64)

        var comparison: scmp_arg_cmp {
            switch self {
            case let .maskedEqual(argument, mask, value):
                scmp_arg_cmp(arg: UInt32(argument), op: SCMP_CMP_MASKED_EQ, datum_a: mask, datum_b: value)
            case let .equal(argument, value):
                scmp_arg_cmp(arg: UInt32(argument), op: SCMP_CMP_EQ, datum_a: value, datum_b: 0)
            }
        }
    }

    private let context: scmp_filter_ctx

    /// Starts a filter whose calls without a rule get `defaultAction` (`seccomp_init`).
    public init(defaultAction: Action) throws(SeccompError) {
        guard let context = seccomp_init(defaultAction.value) else {
            throw SeccompError(call: "seccomp_init", errno: .noMemory, subject: "the filter")
        }
        self.context = context
    }

    deinit { seccomp_release(context) }

    /// Adds a rule: `name` gets `action`, when every test in `tests` holds
    /// (`seccomp_rule_add_array`). A name this libseccomp does not know at
    /// all is an error: a misspelt allowlist would otherwise fail only at run time.
    public func add(_ action: Action, _ name: String, when tests: [ArgumentTest] = []) throws(SeccompError) {
        let number = seccomp_syscall_resolve_name(name)
        guard number != __NR_SCMP_ERROR else {
            throw SeccompError(call: "seccomp_syscall_resolve_name", errno: .invalidArgument, subject: name)
        }
        var comparisons = tests.map(\.comparison)
        let result = comparisons.withUnsafeMutableBufferPointer { buffer in
            seccomp_rule_add_array(context, action.value, number, UInt32(buffer.count), buffer.baseAddress)
        }
        // A call with a pseudo number (not on this architecture, such as `open` on
        // arm64) is accepted and ignored by libseccomp; only real failures land here.
        guard result == 0 else { throw SeccompError(call: "seccomp_rule_add", errno: Errno(rawValue: -result), subject: name) }
    }

    /// Installs the filter in the kernel for this process (`seccomp_load`). The
    /// caller must have set `PR_SET_NO_NEW_PRIVS` unless it has CAP_SYS_ADMIN
    /// (libseccomp sets it by default, `SCMP_FLTATR_CTL_NNP`).
    public func load() throws(SeccompError) {
        let result = seccomp_load(context)
        guard result == 0 else { throw SeccompError(call: "seccomp_load", errno: Errno(rawValue: -result), subject: "the filter") }
    }
}

/// A libseccomp call that failed, with the errno it returned (negated, as libseccomp reports them).
public struct SeccompError: Error, Hashable, Sendable, CustomStringConvertible {
    public var call: String
    public var errno: Errno
    public var subject: String

    public init(call: String, errno: Errno, subject: String) {
        self.call = call
        self.errno = errno
        self.subject = subject
    }

    public var description: String { "\(call) (\(subject)): \(errno)" }
}
