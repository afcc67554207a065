import CLinuxEvents
import Glibc

/// glibc's own account of the heap (`mallinfo2`), for `/metrics` and the
/// per-operation soak (Tests/Soak/per_op.py). The resident set also counts
/// memory the allocator keeps cached after a free, and swings by whole frames
/// as pictures come and go; bytes in use move only when something is allocated
/// and not freed, which is what a leak does.
public enum HeapStatistics {
    /// Bytes allocated and not freed: small blocks (`uordblks`) plus blocks
    /// mapped on their own (`hblkhd`, frames and decode buffers).
    public static var bytesInUse: Int {
        let info = mallinfo2()
        return Int(info.uordblks) + Int(info.hblkhd)
    }

    /// Bytes the allocator holds from the kernel: its arenas (`arena`) plus
    /// the blocks mapped on their own.
    public static var bytesHeld: Int {
        let info = mallinfo2()
        return Int(info.arena) + Int(info.hblkhd)
    }
}
