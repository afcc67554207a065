/// The web console served at `/`: plain HTML, CSS and JavaScript, no build step.
///
/// The three files are Swift raw string literals so that the kiosk stays one
/// binary: `indexHTML` (ConsolePage.swift) is served at `/`, `script`
/// (ConsoleScript.swift) at `/console.js`, and `stylesheet` (ConsoleStyle.swift)
/// at `/console.css`. The page talks to the API under `/api/v1` with the bearer
/// token the operator types in, kept in the browser's session storage.
/// Tests/Console/console_test.py drives it in headless Chromium.
enum ConsoleFiles {}
