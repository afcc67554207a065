import Glibc

/// The first thing every helper, picture or video, does: confine itself
/// (`HelperConfinement`) and tell the kiosk, on its socket, whether that
/// worked. The kiosk's `HelperProcess` reads the answer before it sends a job.
package enum HelperHello {
    /// The descriptor the kiosk places the helper's end of the socket on.
    package static let socket: Int32 = 3

    /// The first message a helper sends: ready, or why it cannot be.
    package static let readyMagic: UInt32 = 0x5654_4831 // "VTH1"

    /// Confines the helper, then tells the kiosk whether that worked; exits
    /// if the kiosk is gone. `prepare` runs first, while files can still be
    /// opened (libheif loads its decoder plugins then).
    package static func confineAndSayHello(_ limits: HelperLimits, prepare: () -> Void = {}) {
        var hello = WireWriter()
        hello.put(readyMagic)
        do {
            try HelperConfinement.apply(limits, prepare: prepare)
            hello.put(true)
            hello.put("")
        } catch {
            hello.put(false)
            hello.put(error.description)
        }
        guard (try? DescriptorPassing.send(socket, hello.bytes)) != nil else { exit(1) }
    }
}
