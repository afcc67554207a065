import Hummingbird

/// The web console's three files and the OpenAPI document, all compiled into
/// the binary so that a kiosk is one file to install.
struct ConsoleRoutes {
    func add(to router: RecordingRouter<APIRequestContext>) {
        router.get("/") { _, _ in Self.text(ConsoleFiles.indexHTML, "text/html; charset=utf-8") }
        router.get("/console.js") { _, _ in Self.text(ConsoleFiles.script, "text/javascript; charset=utf-8") }
        router.get("/console.css") { _, _ in Self.text(ConsoleFiles.stylesheet, "text/css; charset=utf-8") }
        router.get("/openapi.yaml") { _, _ in Self.text(OpenAPIDocument.yaml, "application/yaml; charset=utf-8") }
    }

    private static func text(_ text: String, _ type: String) -> Response {
        JSONResponse.bytes(Array(text.utf8), contentType: type, headers: [.cacheControl: "no-cache"])
    }
}
