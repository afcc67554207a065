import HTTPTypes
import Hummingbird

/// Headers that tell a browser what the kiosk's answers may do, on every
/// response (errors included): no content sniffing, no framing by other sites,
/// no referrer; and on the console's page a Content-Security-Policy that lets
/// it load only its own script, style sheet and API, and pictures from the
/// API (as blob: URLs). The console has no inline script or style, so nothing
/// in the policy needs 'unsafe-inline'.
struct SecurityHeadersMiddleware<Context: RequestContext>: RouterMiddleware {
    static var contentSecurityPolicy: String {
        [
            "default-src 'none'", "script-src 'self'", "style-src 'self'", "img-src 'self' blob: data:",
            "connect-src 'self'", "base-uri 'none'", "form-action 'none'", "frame-ancestors 'none'",
        ].joined(separator: "; ")
    }

    // Not among HTTPTypes' predefined names.
    private static var referrerPolicy: HTTPField.Name { HTTPField.Name("Referrer-Policy")! }
    private static var xFrameOptions: HTTPField.Name { HTTPField.Name("X-Frame-Options")! }

    func handle(_ request: Request, context: Context, next: (Request, Context) async throws -> Response) async throws -> Response {
        do {
            var response = try await next(request, context)
            Self.add(to: &response.headers)
            return response
        } catch var error as APIError {
            Self.add(to: &error.headers)
            throw error
        }
    }

    private static func add(to headers: inout HTTPFields) {
        headers[.xContentTypeOptions] = "nosniff"
        headers[Self.referrerPolicy] = "no-referrer"
        // frame-ancestors for browsers that read CSP, X-Frame-Options for older ones.
        headers[.contentSecurityPolicy] = contentSecurityPolicy
        headers[Self.xFrameOptions] = "DENY"
    }
}
