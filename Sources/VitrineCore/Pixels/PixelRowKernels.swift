internal import CPixelRows

/// The SIMD paths of the pixel-row kernels (CPixelRows): the compositor's row
/// copies and blends and the resampler's horizontal pass. Each CPU runs the
/// best one it has ("avx2" or "sse2" on x86-64, "neon" on aarch64); every path
/// gives the same pixels as "portable", the plain C the others are tested
/// against (Tests/PixelRows). Benchmarks select each in turn.
public enum PixelRowKernels {
    /// The paths this CPU runs, best first; the last is "portable"
    /// (`vitrine_rows_path_count`, `vitrine_rows_path_name`).
    public static var available: [String] {
        (0..<vitrine_rows_path_count()).compactMap { index in vitrine_rows_path_name(index).map { String(cString: $0) } }
    }

    /// The path in use (`vitrine_rows_kernel_name`).
    public static var current: String { String(cString: vitrine_rows_kernel_name()) }

    /// Orders the kernels' streaming stores before what follows reads their
    /// output (`vitrine_rows_finish`): after `FrameRegionSampler.draw`, for one.
    public static func finish() { vitrine_rows_finish() }

    /// Uses `name` from now on, for the whole process (`vitrine_rows_select`);
    /// false, with nothing changed, when this CPU cannot run it.
    @discardableResult
    public static func select(_ name: String) -> Bool { vitrine_rows_select(name) != 0 }
}
