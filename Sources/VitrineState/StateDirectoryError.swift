/// The state directory cannot be made or written.
public struct StateDirectoryError: Error, CustomStringConvertible {
    public var directory: String
    public var reason: String
    public var description: String {
        "cannot use \(directory) as the state directory (--state-dir): \(reason)"
    }
}

extension Result {
    var failure: Failure? {
        if case .failure(let error) = self { return error }
        return nil
    }
}
