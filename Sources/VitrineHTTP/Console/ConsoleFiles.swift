/// The web console served at `/`: plain HTML, CSS and JavaScript, no build step.
///
/// The three files live in `Console/Web/` as what they are, so editors and
/// linters see them, and SwiftPM embeds their bytes into the binary at build
/// time (`resources: [.embedInCode(…)]` in Package.swift, which generates
/// `PackageResources`): the kiosk stays one file to install, with nothing to
/// find on disk at run time. `index.html` is served at `/`, `console.js` at
/// `/console.js` and `console.css` at `/console.css`. The page talks to the API
/// under `/api/v1` with the bearer token the operator types in, kept in the
/// browser's session storage. Tests/Console/console_test.py drives it in
/// headless Chromium.
enum ConsoleFiles {
    /// `/`: the console's one page. Everything dynamic is filled in by `script`.
    static let indexHTML = String(decoding: PackageResources.index_html, as: UTF8.self)
    /// `/console.css`: one column on a narrow screen, two or three side by side on a wider one.
    static let stylesheet = String(decoding: PackageResources.console_css, as: UTF8.self)
    /// `/console.js`: the console's behaviour, plain ES2020 with no dependencies.
    /// Every request carries `Authorization: Bearer <token>`, so pictures (the
    /// preview, thumbnails) are fetched and shown through blob URLs, and the event
    /// stream is read with `fetch()` rather than `EventSource`.
    static let script = String(decoding: PackageResources.console_js, as: UTF8.self)
}
