import ArgumentParser
import FoundationEssentials
import VitrineClient
import VitrineAPI

/// Where the kiosk is and how to get in.
struct RemoteOptions: ParsableArguments {
    @Option(help: "The kiosk's base URL, such as http://kiosk.local:8080.")
    var to: String

    @Option(help: "The API token (default: $VITRINE_TOKEN).")
    var token: String?

    func client() throws -> RemoteClient {
        guard let token = token ?? ProcessInfo.processInfo.environment["VITRINE_TOKEN"], !token.isEmpty else {
            throw ValidationError("no API token: pass --token or set VITRINE_TOKEN (the kiosk's api.token, or its state directory's api-token file)")
        }
        guard to.hasPrefix("http://") || to.hasPrefix("https://") else {
            throw ValidationError("--to must be an http:// or https:// URL, found \(to)")
        }
        return RemoteClient(base: to, token: token)
    }
}
