import Dispatch
import VitrineHTTP
import VitrinePlays
import VitrineRuntime

/// The background work `KioskAssembly.startServices()` started, and its end.
public struct KioskServices {
    let tasks: [Task<Void, Never>]
    let server: APIServerRunner?
    let televisions: [CECTelevision]
    let plays: ProofOfPlay?

    /// Ends the work: open API requests get up to two seconds to finish and
    /// event streams end, rather than being cut.
    public func stop() {
        for television in televisions { television.stop() }
        for task in tasks { task.cancel() }
        // The composition root reads the clock it gave every loop: the plays on screen end now.
        plays?.stop(at: KioskClock.system.now().monotonic)
        if let server {
            let stopped = DispatchSemaphore(value: 0)
            Task {
                await server.shutdown()
                stopped.signal()
            }
            _ = stopped.wait(timeout: .now() + 2)
        }
    }
}
