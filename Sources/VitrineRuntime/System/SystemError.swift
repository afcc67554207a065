import Glibc

/// A failed system call: which call, on what, and `errno` in words.
public struct SystemError: Error, Hashable, Sendable, CustomStringConvertible {
    public var call: String
    public var errno: Int32
    public var subject: String?

    public init(_ call: String, errno: Int32 = Glibc.errno, subject: String? = nil) {
        self.call = call
        self.errno = errno
        self.subject = subject
    }

    public var reason: String { String(cString: strerror(errno)) }

    public var description: String {
        "\(call)\(subject.map { " \($0)" } ?? ""): \(reason)"
    }
}
