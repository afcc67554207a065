import VitrineCore

/// The board's health as a running kiosk watches it: the doctor's power and
/// storage sections (under-voltage, throttling, the SoC's temperature, ext4's
/// error counts, a file system the kernel turned read-only, free space),
/// read again every `BoardHealthWatch.interval`. The status, `/metrics` and
/// the web console show the last reading; the log says when a subject's
/// status changes, not every minute it stays.
public struct BoardHealth: Hashable, Sendable {
    /// One subject's part of a reading: the doctor section's id, status, summary and findings.
    public struct Subject: Hashable, Sendable {
        /// `power` or `storage`.
        public var id: String
        public var status: DoctorStatus
        public var summary: String
        public var findings: [String]

        public init(id: String, status: DoctorStatus, summary: String, findings: [String]) {
            self.id = id
            self.status = status
            self.summary = summary
            self.findings = findings
        }
    }

    /// A subject whose status is not what it was at the last reading.
    public struct Change: Hashable, Sendable {
        public var subject: Subject
        /// Its status at the last reading; nil at the first.
        public var previous: DoctorStatus?

        /// Whether it got worse (to a warning or a problem), rather than better.
        public var isWorse: Bool { subject.status >= .warning && (previous.map { subject.status > $0 } ?? true) }
    }

    public var subjects: [Subject]
    /// When it was read.
    public var checkedAt: WallInstant

    public init(subjects: [Subject], checkedAt: WallInstant) {
        self.subjects = subjects
        self.checkedAt = checkedAt
    }

    /// A reading from the doctor's sections (their subsections' findings included).
    public init(sections: [DoctorSection], checkedAt: WallInstant) {
        func findings(_ section: DoctorSection) -> [String] { section.findings + section.subsections.flatMap(findings) }
        self.init(subjects: sections.map { Subject(id: $0.id, status: $0.worstStatus, summary: $0.summary, findings: findings($0)) },
                  checkedAt: checkedAt)
    }

    /// The worst subject's status; `ok` with none.
    public var status: DoctorStatus { subjects.map(\.status).max() ?? .ok }

    /// The subjects whose status differs from `previous`'s; at the first
    /// reading (`previous` nil), those with a warning or a problem. A subject
    /// whose findings change wording but not status (free space going down a
    /// few MiB) is no change: the log would otherwise repeat itself every minute.
    public func changes(since previous: BoardHealth?) -> [Change] {
        guard let previous else {
            return subjects.filter { $0.status >= .warning }.map { Change(subject: $0, previous: nil) }
        }
        return subjects.compactMap { subject in
            let before = previous.subjects.first { $0.id == subject.id }?.status
            return before == subject.status ? nil : Change(subject: subject, previous: before)
        }
    }
}
