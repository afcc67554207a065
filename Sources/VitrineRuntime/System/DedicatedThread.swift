import Glibc

/// A thread of its own for a loop that blocks in `epoll_wait` or a device's
/// read for its whole life (a display loop, the HDMI-CEC adapter), which
/// must never sit on Dispatch's or NIO's shared pools and starve them.
enum DedicatedThread {
    /// Starts `body` on a new detached thread; false when `pthread_create`
    /// fails, with `body` never run.
    @discardableResult
    static func start(_ body: @escaping @Sendable () -> Void) -> Bool {
        final class Box {
            let body: @Sendable () -> Void
            init(body: @escaping @Sendable () -> Void) { self.body = body }
        }
        var thread = pthread_t()
        let context = Unmanaged.passRetained(Box(body: body)).toOpaque()
        let created = pthread_create(&thread, nil, { context in
            let box = Unmanaged<Box>.fromOpaque(context!).takeRetainedValue()
            box.body()
            return nil
        }, context)
        guard created == 0 else {
            Unmanaged<Box>.fromOpaque(context).release()
            return false
        }
        pthread_detach(thread)
        return true
    }
}
