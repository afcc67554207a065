/// What a pacing run measured for one kind of frame on one output: the gaps
/// between consecutive frames of its motion, as the kiosk's histogram keeps
/// them (`vitrine_frame_gap_seconds`), and the frames by the path they took
/// with the display thread's CPU time (`vitrine_frame_cpu_seconds`).
public struct PacingFigures: Sendable, Equatable {
    /// "slide transition", "crossfade", "Ken Burns".
    public var kind: String
    public var refreshHz: Double
    /// The histogram's upper bounds, in seconds, and its cumulative counts (one more: +Inf).
    public var gapBounds: [Double]
    public var gapCounts: [Int]
    /// The frames each path took, and their CPU time in seconds: "planes", "mixed", "cpu".
    public var paths: [(name: String, frames: Int, cpuSeconds: Double)]

    public init(kind: String, refreshHz: Double, gapBounds: [Double], gapCounts: [Int],
                paths: [(name: String, frames: Int, cpuSeconds: Double)]) {
        self.kind = kind
        self.refreshHz = refreshHz
        self.gapBounds = gapBounds
        self.gapCounts = gapCounts
        self.paths = paths
    }

    public static func == (lhs: Self, rhs: Self) -> Bool {
        lhs.kind == rhs.kind && lhs.refreshHz == rhs.refreshHz && lhs.gapBounds == rhs.gapBounds && lhs.gapCounts == rhs.gapCounts
            && lhs.paths.map(\.name) == rhs.paths.map(\.name) && lhs.paths.map(\.frames) == rhs.paths.map(\.frames)
            && lhs.paths.map(\.cpuSeconds) == rhs.paths.map(\.cpuSeconds)
    }

    /// Gaps counted: consecutive frames of the motion.
    public var gaps: Int { gapCounts.last ?? 0 }

    /// The smallest bound at or under which `share` of the gaps fall (nil: none
    /// counted, or past the last bound): the histogram tells no finer.
    public func bound(holding share: Double) -> Double? {
        guard gaps > 0 else { return nil }
        let needed = Int((Double(gaps) * share).rounded(.up))
        return zip(gapBounds, gapCounts).first { $0.1 >= needed }?.0
    }

    /// One refresh period, in seconds.
    public var period: Double { refreshHz > 0 ? 1 / refreshHz : 1.0 / 60 }
}

/// The doctor's section of a pacing run: for each output, each kind of frame
/// with its gaps (median, 95th percentile and worst, to the histogram's
/// bounds) against the refresh period, and the paths its frames took with
/// the CPU time of each. A median gap over one and a half periods, or a worst
/// over four, is a warning: transitions are not smooth on that output.
public enum PacingReport {
    public static func section(outputs: [(name: String, mode: String, figures: [PacingFigures])], seconds: Int) -> DoctorSection {
        let subsections = outputs.map { output -> DoctorSection in
            var findings: [String] = []
            let facts = output.figures.map { figures -> DoctorFact in
                let period = figures.period
                let median = figures.bound(holding: 0.5), p95 = figures.bound(holding: 0.95), worst = figures.bound(holding: 1)
                var value = "\(figures.gaps) frame gaps"
                if figures.gaps > 0 {
                    value += ": median ≤ \(milliseconds(median)), 95 % ≤ \(milliseconds(p95)), worst ≤ \(milliseconds(worst))"
                        + " (one period \(milliseconds(period)))"
                }
                let paths = figures.paths.filter { $0.frames > 0 }.map { path in
                    "\(path.frames) \(path.name) at \(milliseconds(path.cpuSeconds / Double(path.frames), decimals: 2)) CPU each"
                }
                if !paths.isEmpty { value += "; " + paths.joined(separator: ", ") }
                if figures.gaps == 0 {
                    findings.append("\(figures.kind): no frames of the motion were presented in \(seconds) s.")
                } else if (median ?? .infinity) > 1.5 * period {
                    findings.append("\(figures.kind): frames come late: the median gap is over one and a half refresh periods.")
                } else if (worst ?? .infinity) > 4 * period {
                    findings.append("\(figures.kind): a frame came over four refresh periods after the one before (a stall).")
                }
                return DoctorFact(figures.kind, value)
            }
            return DoctorSection(id: "pacing-output", title: "\(output.name) at \(output.mode)", status: findings.isEmpty ? .ok : .warning,
                                 summary: findings.isEmpty ? "every kind of frame on time" : "\(findings.count) kind(s) of frame not on time",
                                 facts: facts, findings: findings)
        }
        let late = subsections.filter { $0.status != .ok }.count
        return DoctorSection(id: "pacing", title: "Pacing (\(seconds) s of each kind of frame)",
                             status: subsections.isEmpty ? .unavailable : (late > 0 ? .warning : .ok),
                             summary: subsections.isEmpty ? "no output could be driven"
                                 : "\(subsections.count) output(s)" + (late > 0 ? ", \(late) not on time" : ", on time"),
                             subsections: subsections)
    }

    static func milliseconds(_ seconds: Double?, decimals: Int = 1) -> String {
        guard let seconds, seconds.isFinite else { return "more than 1 s" }
        let scale = decimals == 2 ? 100.0 : 10.0
        let value = (seconds * 1000 * scale).rounded() / scale
        return "\(value) ms"
    }
}
