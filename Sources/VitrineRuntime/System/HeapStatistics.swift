import CLinuxEvents
import Glibc

/// glibc's own account of the heap (`mallinfo2`), for `/metrics` and the
/// per-operation soak (Tests/Soak/per_op.py). The resident set also counts
/// memory the allocator keeps cached after a free, and swings by whole frames
/// as pictures come and go; bytes in use move only when something is allocated
/// and not freed, which is what a leak does.
public enum HeapStatistics {
    /// Both figures from one `mallinfo2` call, which takes every arena's lock
    /// in turn: read them together, not one call each.
    public struct Sample: Sendable, Equatable {
        /// Bytes allocated and not freed: small blocks (`uordblks`) plus blocks
        /// mapped on their own (`hblkhd`, frames and decode buffers).
        public var bytesInUse: Int
        /// Bytes the allocator holds from the kernel: its arenas (`arena`) plus
        /// the blocks mapped on their own.
        public var bytesHeld: Int

        public init(bytesInUse: Int, bytesHeld: Int) {
            self.bytesInUse = bytesInUse
            self.bytesHeld = bytesHeld
        }
    }

    public static func sample() -> Sample {
        let info = mallinfo2()
        return Sample(bytesInUse: Int(info.uordblks) + Int(info.hblkhd), bytesHeld: Int(info.arena) + Int(info.hblkhd))
    }
}
