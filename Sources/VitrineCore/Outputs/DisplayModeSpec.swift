/// A display mode as a configuration asks for it: `WIDTHxHEIGHT` or
/// `WIDTHxHEIGHT@HZ` (`output.mode`, and each output's `mode` in `outputs`).
public struct DisplayModeSpec: Hashable, Sendable, CustomStringConvertible {
    public var width: Int
    public var height: Int
    public var refreshHertz: Double?

    public init(width: Int, height: Int, refreshHertz: Double? = nil) {
        self.width = width
        self.height = height
        self.refreshHertz = refreshHertz
    }

    public init?(parsing text: String) {
        let parts = text.split(separator: "@", omittingEmptySubsequences: false)
        guard parts.count <= 2, let size = PixelSize(parsing: String(parts[0])) else { return nil }
        width = size.width
        height = size.height
        if parts.count == 2 {
            guard let hertz = Double(parts[1]), hertz > 0, hertz < 1000 else { return nil }
            refreshHertz = hertz
        }
    }

    public var description: String {
        "\(width)x\(height)" + (refreshHertz.map { $0.rounded() == $0 ? "@\(Int($0))" : "@\($0)" } ?? "")
    }

    /// The index of the best of `modes` for this request: the right size, the
    /// rate within half a hertz if one is given (a TV's 59.94 for `@60`), then
    /// the preferred mode, then the highest rate; nil when none has the size
    /// and rate. The one rule for the plan and for `DRMScanout`.
    public func bestMatch(in modes: [OutputMode]) -> Int? {
        modes.indices.filter { index in
            let mode = modes[index]
            return mode.width == width && mode.height == height
                && (refreshHertz.map { abs(mode.refreshHertz - $0) < 0.5 } ?? true)
        }
        .max { (modes[$0].isPreferred ? 1 : 0, modes[$0].refreshMillihertz) < (modes[$1].isPreferred ? 1 : 0, modes[$1].refreshMillihertz) }
    }
}
