import Glibc
public import SystemPackage

extension Errno {
    /// C's `errno` as the last failed call left it. (swift-system keeps its own
    /// `Errno.current` internal.) Read it at once after the call that failed:
    /// any call in between, a log line included, may change it.
    public static var lastCall: Errno { Errno(rawValue: Glibc.errno) }
}
