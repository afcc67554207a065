/// What `vitrine doctor` found on one board: one section per subject (the
/// board, its power, its storage, its displays and planes, its TV links, its
/// touch devices), each with the facts it read and what it makes of them.
///
/// The shape is the one every subject shares, so that the planes and video
/// work add sections of their own (a `DoctorCheck` each) without changing
/// it, and so that the saved JSON (`GET /api/v1/doctor`) reads the same for
/// every section. `format` changes only when that shape does.
public struct DoctorReport: Codable, Sendable, Equatable {
    public static let currentFormat = 1

    public var format: Int
    /// Vitrine's version, as `vitrine --version` prints it.
    public var version: String
    /// When the report was made: RFC 3339 in UTC, from the wall clock passed in.
    public var generatedAt: String
    public var sections: [DoctorSection]

    public init(version: String, generatedAt: String, sections: [DoctorSection]) {
        self.format = Self.currentFormat
        self.version = version
        self.generatedAt = generatedAt
        self.sections = sections
    }

    /// The worst status of any section or subsection.
    public var status: DoctorStatus { sections.map(\.worstStatus).max() ?? .ok }
}

/// How a section reads, from best to worst.
public enum DoctorStatus: String, Codable, Sendable, Comparable, CaseIterable {
    /// Nothing to act on.
    case ok
    /// The board could not tell (no such device, not readable here): said, not judged.
    case unavailable
    /// Worth knowing, and maybe acting on: throttling that happened once, a
    /// screen with no overlay planes.
    case warning
    /// Something is wrong now: under-voltage, a file system gone read-only, storage errors.
    case problem

    public static func < (lhs: DoctorStatus, rhs: DoctorStatus) -> Bool {
        allCases.firstIndex(of: lhs)! < allCases.firstIndex(of: rhs)!
    }
}

/// One subject, or one part of one (a card, a connector, a plane).
public struct DoctorSection: Codable, Sendable, Equatable {
    /// Stable, for machines: `board`, `power`, `storage`, `displays`, `cec`, `touch`.
    public var id: String
    public var title: String
    public var status: DoctorStatus
    /// One line: what a reader most needs from this section.
    public var summary: String
    /// What was read, in the order it is best read: name and value.
    public var facts: [DoctorFact]
    /// What the doctor makes of them, each one sentence saying what to do where it can.
    public var findings: [String]
    public var subsections: [DoctorSection]

    public init(id: String, title: String, status: DoctorStatus = .ok, summary: String, facts: [DoctorFact] = [],
                findings: [String] = [], subsections: [DoctorSection] = []) {
        self.id = id
        self.title = title
        self.status = status
        self.summary = summary
        self.facts = facts
        self.findings = findings
        self.subsections = subsections
    }

    /// This section's status, or a worse one of a subsection.
    public var worstStatus: DoctorStatus { ([status] + subsections.map(\.worstStatus)).max()! }

    /// The value of the fact named `name`, if there is one.
    public func fact(_ name: String) -> String? { facts.first { $0.name == name }?.value }
}

/// One thing read: `kernel` = `6.12.47+rpt-rpi-v8`.
public struct DoctorFact: Codable, Sendable, Equatable {
    public var name: String
    public var value: String

    public init(_ name: String, _ value: String) {
        self.name = name
        self.value = value
    }
}
