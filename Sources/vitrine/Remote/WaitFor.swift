import Dispatch
import FoundationEssentials

/// Runs async work from a synchronous command and waits for it (the CLI's
/// `main` is synchronous: `run` must block the main thread for the display).
func waitFor<T: Sendable>(_ body: @escaping @Sendable () async throws -> T) throws -> T {
    let done = DispatchSemaphore(value: 0)
    nonisolated(unsafe) var result: Result<T, Error>?
    Task {
        do { result = .success(try await body()) } catch { result = .failure(error) }
        done.signal()
    }
    done.wait()
    return try result!.get()
}
