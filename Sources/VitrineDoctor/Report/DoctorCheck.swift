import FoundationEssentials
import Glibc
import VitrineSystem

/// One subject of the report. Each runs on its own and never throws: what it
/// cannot read it reports as `unavailable`, with the reason.
public protocol DoctorCheck: Sendable {
    func run(on system: DoctorSystem) -> DoctorSection
}

/// Where the doctor reads the board from: `/proc`, `/sys` and `/dev` under
/// `root` ("" on a board; a fixture tree in tests), with the page size the
/// kernel uses.
public struct DoctorSystem: Sendable {
    public var root: String
    public var pageSize: Int

    public init(root: String = "", pageSize: Int = Int(sysconf(Int32(_SC_PAGESIZE)))) {
        self.root = root
        self.pageSize = pageSize
    }

    /// The path as the process opens it.
    public func path(_ absolute: String) -> String { root + absolute }

    /// A small text file's contents with trailing white space and NULs (a
    /// device tree string ends in one) taken off; nil when it cannot be read.
    public func text(_ absolute: String, limit: Int = 1 << 20) -> String? {
        guard let bytes = try? FileIO.read(path(absolute), limit: limit) else { return nil }
        var text = String(decoding: bytes, as: UTF8.self)
        while let last = text.unicodeScalars.last, last == "\0" || last == "\n" || last == " " || last == "\t" { text.unicodeScalars.removeLast() }
        return text
    }

    /// The names in a directory, sorted, without `.` and `..`; empty when it cannot be read.
    public func names(in absolute: String) -> [String] { FileIO.names(in: path(absolute)) }

    public func exists(_ absolute: String) -> Bool { access(path(absolute), F_OK) == 0 }
}
