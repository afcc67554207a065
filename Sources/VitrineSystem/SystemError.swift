import Glibc
public import SystemPackage

/// A failed system call: which call, on what, and its `errno`, typed as
/// swift-system's `Errno` so that callers match `.noSpace` or `.readOnlyFileSystem`
/// rather than raw numbers.
public struct SystemError: Error, Hashable, Sendable, CustomStringConvertible {
    public var call: String
    public var errno: Errno
    public var subject: String?

    /// `errno` defaults to the one the failed call just left (`Errno.lastCall`).
    public init(_ call: String, errno: Errno = .lastCall, subject: String? = nil) {
        self.call = call
        self.errno = errno
        self.subject = subject
    }

    /// `errno` in words (`strerror`).
    public var reason: String { errno.description }

    public var description: String {
        "\(call)\(subject.map { " \($0)" } ?? ""): \(reason)"
    }
}
