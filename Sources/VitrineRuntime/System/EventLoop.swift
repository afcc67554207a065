import CLinuxEvents
import Glibc
import VitrineCore
import VitrineSystem

/// The display thread's only place to sleep: `epoll_wait` over the display's
/// event fd (DRM), input fds, one timerfd for the next deadline, a second one on
/// the wall clock (the schedule's next change), an eventfd that other threads
/// write to wake it, and a signalfd for SIGTERM/SIGINT/SIGHUP.
///
/// Nothing here spins: with a static slide and no input the thread stays in
/// `epoll_wait` until the rotation deadline.
public final class EventLoop {
    /// What woke the loop.
    public enum Source: Hashable, Sendable {
        case timer
        /// The wall-clock timer: its instant came, or (`stepped`) the wall
        /// clock was set, by NTP, an operator or a first time sync.
        case wallClock(stepped: Bool)
        case wakeup
        case signal(Int32)
        case descriptor(Int32)
    }

    private let epollDescriptor: Int32
    private let timerDescriptor: Int32
    private let wallTimerDescriptor: Int32
    /// What the wall timer is armed for, so that an unchanged deadline costs no system call.
    private var wallDeadline: WallInstant?
    private let signalDescriptor: Int32
    public let wakeup: WakeupSignal
    /// Set by SIGTERM, SIGINT or a `KioskStopHandle`: the loop's owner ends
    /// it after the turn in progress.
    let stopRequest: StopRequest

    /// Blocks `signals` for the calling thread and every thread it creates later,
    /// so they arrive only through the signalfd. Call before starting any thread.
    public static func blockSignals(_ signals: [Int32] = [SIGTERM, SIGINT, SIGHUP]) {
        var set = sigset_t()
        sigemptyset(&set)
        for signal in signals { sigaddset(&set, signal) }
        pthread_sigmask(SIG_BLOCK, &set, nil)
    }

    public init(signals: [Int32] = [SIGTERM, SIGINT, SIGHUP]) throws(SystemError) {
        epollDescriptor = epoll_create1(Int32(EPOLL_CLOEXEC))
        guard epollDescriptor >= 0 else { throw SystemError("epoll_create1") }
        timerDescriptor = timerfd_create(CLOCK_MONOTONIC, Int32(TFD_CLOEXEC | TFD_NONBLOCK))
        guard timerDescriptor >= 0 else { throw SystemError("timerfd_create") }
        wallTimerDescriptor = timerfd_create(CLOCK_REALTIME, Int32(TFD_CLOEXEC | TFD_NONBLOCK))
        guard wallTimerDescriptor >= 0 else { throw SystemError("timerfd_create(CLOCK_REALTIME)") }
        var set = sigset_t()
        sigemptyset(&set)
        for signal in signals { sigaddset(&set, signal) }
        signalDescriptor = signalfd(-1, &set, Int32(SFD_CLOEXEC | SFD_NONBLOCK))
        guard signalDescriptor >= 0 else { throw SystemError("signalfd") }
        wakeup = try WakeupSignal()
        stopRequest = StopRequest(wakeup: wakeup)
        try watch(timerDescriptor)
        try watch(wallTimerDescriptor)
        try watch(signalDescriptor)
        try watch(wakeup.descriptor)
    }

    deinit {
        close(epollDescriptor)
        close(timerDescriptor)
        close(wallTimerDescriptor)
        close(signalDescriptor)
    }

    /// Adds `descriptor` to the set waited on, for readability.
    public func watch(_ descriptor: Int32) throws(SystemError) {
        var event = epoll_event()
        event.events = EPOLLIN.rawValue
        event.data.fd = descriptor
        guard epoll_ctl(epollDescriptor, EPOLL_CTL_ADD, descriptor, &event) == 0 else {
            throw SystemError("epoll_ctl(ADD)", subject: "fd \(descriptor)")
        }
    }

    public func unwatch(_ descriptor: Int32) {
        epoll_ctl(epollDescriptor, EPOLL_CTL_DEL, descriptor, nil)
    }

    /// Arms the timer for the absolute monotonic `instant` (`TFD_TIMER_ABSTIME`),
    /// or disarms it for nil.
    public func setTimer(_ instant: MonotonicInstant?) {
        var spec = itimerspec()
        if let instant {
            // An all-zero it_value disarms, so a deadline at or before the origin becomes 1 ns.
            let nanoseconds = max(instant.nanoseconds, 1)
            spec.it_value.tv_sec = Int(nanoseconds / 1_000_000_000)
            spec.it_value.tv_nsec = Int(nanoseconds % 1_000_000_000)
        }
        timerfd_settime(timerDescriptor, Int32(TFD_TIMER_ABSTIME), &spec, nil)
    }

    /// Arms the wall-clock timer for `instant` (`TFD_TIMER_ABSTIME` on
    /// `CLOCK_REALTIME`), or disarms it for nil.
    ///
    /// `TFD_TIMER_CANCEL_ON_SET`: when the wall clock is set while the timer is
    /// armed, the timer fires at once and its read fails with `ECANCELED`
    /// (`.wallClock(stepped: true)`), so a step is noticed when it happens, not
    /// at a deadline that now means another moment. A cancelled timer stays
    /// disarmed until it is armed again: `wait` forgets the deadline so that the
    /// next call re-arms it.
    public func setWallTimer(_ instant: WallInstant?) {
        guard instant != wallDeadline else { return }
        wallDeadline = instant
        var spec = itimerspec()
        if let instant {
            // All-zero disarms: the epoch itself (a board that booted in 1970) becomes 1 s.
            spec.it_value.tv_sec = Int(max(instant.secondsSinceEpoch, 1))
        }
        timerfd_settime(wallTimerDescriptor, Int32(TFD_TIMER_ABSTIME) | Int32(TFD_TIMER_CANCEL_ON_SET), &spec, nil)
    }

    /// Sleeps until something is ready (or `timeoutMilliseconds`, -1 for none)
    /// and returns what woke it, having drained the timer, wakeup and signal fds.
    public func wait(timeoutMilliseconds: Int32 = -1) throws(SystemError) -> [Source] {
        var events = [epoll_event](repeating: epoll_event(), count: 16)
        let count = events.withUnsafeMutableBufferPointer {
            // glibc 2.41's header marks the buffer non-null (trixie, Raspberry Pi
            // OS trixie), glibc 2.36's does not (bookworm): a non-optional
            // pointer is accepted by both imports. The buffer has 16 elements,
            // so baseAddress is never nil.
            epoll_wait(epollDescriptor, $0.baseAddress!, Int32($0.count), timeoutMilliseconds)
        }
        if count < 0 {
            if errno == EINTR { return [] }
            throw SystemError("epoll_wait")
        }
        var sources: [Source] = []
        for event in events.prefix(Int(count)) {
            let fd = event.data.fd
            if fd == timerDescriptor {
                var expirations: UInt64 = 0
                _ = read(timerDescriptor, &expirations, 8)
                sources.append(.timer)
            } else if fd == wallTimerDescriptor {
                var expirations: UInt64 = 0
                let stepped = read(wallTimerDescriptor, &expirations, 8) < 0 && errno == ECANCELED
                // Fired or cancelled, the timer is disarmed now (a one-shot): re-arm at the next call.
                wallDeadline = nil
                sources.append(.wallClock(stepped: stepped))
            } else if fd == wakeup.descriptor {
                wakeup.drain()
                sources.append(.wakeup)
            } else if fd == signalDescriptor {
                var info = signalfd_siginfo()
                while read(signalDescriptor, &info, MemoryLayout<signalfd_siginfo>.size) == MemoryLayout<signalfd_siginfo>.size {
                    sources.append(.signal(Int32(info.ssi_signo)))
                }
            } else {
                sources.append(.descriptor(fd))
            }
        }
        return sources
    }
}

/// An eventfd any thread may write to wake the display thread: the decoder
/// when a picture is ready, later the HTTP server when a command arrives.
public final class WakeupSignal: Sendable {
    public let descriptor: Int32

    init() throws(SystemError) {
        descriptor = eventfd(0, Int32(EFD_CLOEXEC | EFD_NONBLOCK))
        guard descriptor >= 0 else { throw SystemError("eventfd") }
    }

    deinit { close(descriptor) }

    public func signal() {
        var one: UInt64 = 1
        _ = write(descriptor, &one, 8)
    }

    func drain() {
        var value: UInt64 = 0
        _ = read(descriptor, &value, 8)
    }
}
