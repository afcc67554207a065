/// A callback kept in a `Mutex` (or any other generic container) and called
/// many times: `ChannelFollower.onApply`, `URLImageFetcher.onChange`.
///
/// Keep callbacks in this box, never as a bare function value in the
/// container: `Mutex<(@Sendable (T) -> Void)?>` read with `withLock { $0 }`
/// passes the function through `inout` at the generic type, and Swift
/// reabstracts it on the way in and again on the write-back, so every read
/// stores two more thunks around it. The chain never shrinks: each call runs
/// through all of it, a few hundred bytes of stack more per read (about 2 KiB
/// a version for `onApply`, whose thunks copy a `StoredConfiguration`), and
/// each layer keeps a heap context. On a kiosk following a channel, that was
/// +4 MiB of resident stack and +0.3 MiB of heap per 1,000 versions, without
/// end, until a dispatch thread's 8 MiB stack would overflow after a few
/// thousand versions (issue 39, docs/benchmarks.md). A struct is not
/// reabstracted: its stored closure is the one put in.
public struct StoredCallback<Argument>: Sendable {
    public let call: @Sendable (Argument) -> Void

    public init(_ call: @escaping @Sendable (Argument) -> Void) {
        self.call = call
    }
}
