/// What one decoding helper may spend. The kiosk passes them on the helper's
/// command line; the helper applies them to itself before it reads a byte.
public struct HelperLimits: Hashable, Sendable {
    /// Address space the helper may map above what it has mapped once started
    /// (`RLIMIT_AS`), in MiB: the decoders' memory, the frame it writes
    /// (shared with the kiosk, so mapped in both) and thread stacks all count.
    ///
    /// Why an address-space limit and not a cgroup's `memory.max`: it needs no
    /// cgroup delegated to the kiosk's user and no root, so it holds for
    /// `vitrine check-config` run by anyone as for the service; and an
    /// allocation past it fails at once (libheif and libpng report an error)
    /// rather than waking the OOM killer. What it counts is mapped, not
    /// resident, memory, so the helper runs with one malloc arena
    /// (`MALLOC_ARENA_MAX=1`: each extra arena reserves 64 MiB) and its
    /// threads with 1 MiB stacks (`RLIMIT_STACK`), and the 640 MiB default
    /// leaves room for the largest real picture (a 48-megapixel tiled HEIF
    /// peaks at 177 MiB resident) under the 256 MiB a picture may take
    /// decoded whole, while a 2 GB decompression bomb fails. The unit's
    /// `MemoryMax` still bounds the kiosk and its helpers together, and each
    /// helper sets `oom_score_adj` to 1000 so that the kernel, if it must
    /// kill something, kills a helper before the kiosk.
    public var addressSpaceMiB: Int
    /// CPU seconds one helper may use in its life (`RLIMIT_CPU`), a backstop
    /// behind the pool's deadline on each decode; a helper retires after
    /// `decodesPerHelper` jobs, well within it.
    public var cpuSeconds: Int
    /// How long one decode may take, wall time, before the pool kills the helper.
    public var deadline: Duration

    public init(addressSpaceMiB: Int = 640, cpuSeconds: Int = 600, deadline: Duration = .seconds(30)) {
        self.addressSpaceMiB = addressSpaceMiB
        self.cpuSeconds = cpuSeconds
        self.deadline = deadline
    }

    /// Jobs one helper serves before it exits and the pool starts a fresh one:
    /// whatever a C library leaked or fragmented goes with it.
    public static let decodesPerHelper = 64

    /// The helper's command line after the executable: `vitrine decode-helper …`.
    package var arguments: [String] {
        ["decode-helper", "--address-space-mib", "\(addressSpaceMiB)", "--cpu-seconds", "\(cpuSeconds)"]
    }
}
