import FoundationEssentials
import Glibc
import Logging
import Synchronization
import VitrineConfig
import VitrineCore
import VitrineRuntime
import VitrineSystem
import VitrineAPI

/// The API token: configured, or generated once and kept.
extension StateStore {
    /// The API token: the configured one, or the one generated into
    /// `api-token` on first start (mode 0600). The token itself is never
    /// logged, only the file that holds it: a journal is read by more people,
    /// kept longer and copied further than a mode-0600 file.
    ///
    /// A state directory that cannot be written puts a generated token in
    /// `runtimeDirectory` (`$RUNTIME_DIRECTORY`, /run/vitrine under the shipped
    /// unit) instead, where it lasts until the kiosk restarts; without one, the
    /// API cannot be used until `api.token` is configured.
    public func apiToken(configured: String?,
                         runtimeDirectory: String? = ProcessInfo.processInfo.environment["RUNTIME_DIRECTORY"]) throws -> String {
        if let configured { return configured }
        let path = directory + "/api-token"
        if let bytes = try? FileIO.read(path) {
            let token = String(decoding: bytes, as: UTF8.self).trimmingWhitespace
            if token.count >= APIConfiguration.minimumTokenLength { return token }
            logger.warning("\(path) holds no usable token (fewer than \(APIConfiguration.minimumTokenLength) characters); generating a new one")
        }
        var random = SystemRandomNumberGenerator()
        let alphabet = Array("ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789-_")
        // Not starting with "-" or "_": `vitrine push --token T` would read a leading "-" as an option.
        let token = String((0..<43).map { index in
            alphabet[Int(random.next(upperBound: UInt64(index == 0 ? alphabet.count - 2 : alphabet.count)))]
        })
        try keep(generated: token, readOnlyReason: readOnlyReason, runtimeDirectory: runtimeDirectory)
        return token
    }

    /// Stores a generated token and logs where it is, never what it is.
    func keep(generated token: String, readOnlyReason: String?, runtimeDirectory: String?) throws {
        let file = Array((token + "\n").utf8)
        guard let readOnlyReason else {
            let path = directory + "/api-token"
            try FileIO.writeAtomically(file, to: path, mode: 0o600)
            logger.notice("generated an API token into \(path) (mode 0600): read it there (sudo cat \(path))")
            return
        }
        // The first path of a colon-separated list: systemd gives several when a unit names several.
        if let runtime = runtimeDirectory?.split(separator: ":").first.map(String.init), !runtime.isEmpty,
           (try? FileIO.writeAtomically(file, to: runtime + "/api-token", mode: 0o600)) != nil {
            logger.notice("generated an API token, which cannot be stored (\(readOnlyReason)): it is in \(runtime)/api-token (mode 0600) until the kiosk restarts")
        } else {
            logger.warning("generated an API token, which cannot be stored (\(readOnlyReason)) and has no runtime directory to go to: set api.token in the configuration file to use the API")
        }
    }
}
