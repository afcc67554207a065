import CLinuxEvents
import Glibc

/// How the process asks glibc's allocator to treat picture-sized buffers.
public enum MemoryPolicy {
    /// Serves every allocation of 256 KiB or more with its own mmap, returned to
    /// the kernel on free.
    ///
    /// Without this, glibc raises its mmap threshold after the first large free
    /// (up to 32 MiB), after which 8 MiB frames come from the heap and, freed,
    /// stay in the process: resident memory then depends on the order frames
    /// happened to be freed, not on what is held. Setting the threshold turns
    /// that dynamic adjustment off, so RSS follows the frames the cache keeps.
    public static func configure() {
        mallopt(M_MMAP_THRESHOLD, 256 * 1024)
    }

    /// Faults in the pages under `pixels` with one madvise(MADV_POPULATE_WRITE)
    /// (Linux 5.14) instead of one page fault per 4 KiB as the first rows are
    /// written: a fresh 1080p frame is about 2,000 faults. Pages already there
    /// are left as they are; on an older kernel (EINVAL) the faults simply
    /// happen later, as before.
    public static func populate(_ pixels: UnsafeMutableBufferPointer<UInt32>) {
        guard let base = pixels.baseAddress else { return }
        let page = UInt(sysconf(Int32(_SC_PAGESIZE)))
        let start = (UInt(bitPattern: base) + page - 1) & ~(page - 1)
        let end = (UInt(bitPattern: base + pixels.count)) & ~(page - 1)
        guard end > start else { return }
        _ = madvise(UnsafeMutableRawPointer(bitPattern: start), Int(end - start), MADV_POPULATE_WRITE)
    }

    /// Hands freed heap pages back to the kernel (`malloc_trim`): the heap's top,
    /// and whole free pages inside it, which glibc otherwise keeps for reuse.
    /// Called off the display thread when a burst of work has ended (the decode
    /// queue running dry), where the few milliseconds it can take are not seen.
    public static func returnFreedMemory() {
        malloc_trim(0)
    }
}
