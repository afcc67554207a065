import Glibc

/// Writes `text` to standard error as it is (no newline added): problems for
/// people, kept apart from the results a script reads on standard output.
/// Straight to file descriptor 2, not through stdio's `stderr` (a global
/// Swift 6 cannot prove safe to share, and unbuffered anyway).
func writeToStandardError(_ text: String) {
    var bytes = Array(text.utf8)[...]
    while !bytes.isEmpty {
        let written = bytes.withUnsafeBytes { write(STDERR_FILENO, $0.baseAddress, $0.count) }
        if written < 0, errno == EINTR { continue }
        guard written > 0 else { return }
        bytes = bytes.dropFirst(written)
    }
}
