extension ConsoleFiles {
    /// `/console.css`: one column on a narrow screen, two or three side by side on a wider one.
    static let stylesheet: String = #"""
:root {
  --bg: #f3f4f6;
  --card: #ffffff;
  --text: #1c2024;
  --muted: #5f6873;
  --line: #d9dde3;
  --accent: #2563eb;
  --accent-text: #ffffff;
  --danger: #b42318;
  --ok: #1a7f37;
  --current: #e8f0fe;
  --radius: 8px;
  color-scheme: light;
  font-family: system-ui, -apple-system, "Segoe UI", Roboto, "Helvetica Neue", Arial, sans-serif;
  font-size: 15px;
  line-height: 1.4;
}

* { box-sizing: border-box; }
[hidden] { display: none !important; }

body {
  margin: 0;
  background: var(--bg);
  color: var(--text);
}

h1, h2, h3 { margin: 0; font-weight: 600; }
h1 { font-size: 1.25rem; letter-spacing: 0.02em; }
h2 { font-size: 1.05rem; margin-bottom: 0.75rem; }
h3 { font-size: 0.9rem; margin: 1rem 0 0.4rem; color: var(--muted); text-transform: uppercase; letter-spacing: 0.05em; }
code { font-family: ui-monospace, "SFMono-Regular", Menlo, Consolas, monospace; font-size: 0.9em; }

.topbar {
  display: flex;
  align-items: center;
  gap: 1rem;
  padding: 0.6rem 1rem;
  background: #101418;
  color: #f5f7fa;
  position: sticky;
  top: 0;
  z-index: 10;
}
.status {
  flex: 1;
  margin: 0;
  font-size: 0.9rem;
  color: #c5ccd6;
  overflow: hidden;
  text-overflow: ellipsis;
  white-space: nowrap;
}
.status.offline { color: #ffb4a8; }
.topbar .quiet { color: #f5f7fa; border-color: #4b5563; background: transparent; }

main { padding: 1rem; max-width: 1800px; margin: 0 auto; }

.card {
  background: var(--card);
  border: 1px solid var(--line);
  border-radius: var(--radius);
  padding: 1rem;
  min-width: 0;
}

.layout {
  display: grid;
  gap: 1rem;
  grid-template-columns: minmax(0, 1fr) minmax(0, 1fr);
  grid-template-areas: "screen playlist" "screen settings";
  align-items: start;
}
.screen { grid-area: screen; }
.playlist-card { grid-area: playlist; }
.settings { grid-area: settings; }

@media (min-width: 1200px) {
  .layout {
    grid-template-columns: minmax(0, 1fr) minmax(0, 1.1fr) minmax(0, 0.9fr);
    grid-template-areas: "screen playlist settings";
  }
}
@media (max-width: 900px) {
  .layout {
    grid-template-columns: minmax(0, 1fr);
    grid-template-areas: "screen" "playlist" "settings";
  }
  main { padding: 0.5rem; }
  .status { white-space: normal; }
}

.login { max-width: 26rem; margin: 3rem auto; }
.login input { width: 100%; }
.login button { margin-top: 0.75rem; }

label { font-weight: 500; }
input[type="text"], input[type="password"], input[type="number"], select {
  font: inherit;
  padding: 0.35rem 0.5rem;
  border: 1px solid var(--line);
  border-radius: 6px;
  background: #fff;
  color: inherit;
  min-width: 0;
}
input[type="color"] {
  width: 3rem;
  height: 2rem;
  padding: 0.1rem;
  border: 1px solid var(--line);
  border-radius: 6px;
  background: #fff;
}
input:focus-visible, select:focus-visible, button:focus-visible, .button:focus-within {
  outline: 2px solid var(--accent);
  outline-offset: 1px;
}
.invalid, input.invalid, select.invalid { border-color: var(--danger) !important; background: #fff5f4; }

button, .button {
  font: inherit;
  display: inline-flex;
  align-items: center;
  justify-content: center;
  gap: 0.3rem;
  padding: 0.4rem 0.8rem;
  border: 1px solid var(--line);
  border-radius: 6px;
  background: #f8f9fb;
  color: var(--text);
  cursor: pointer;
  min-height: 2.2rem;
}
button:hover:not(:disabled), .button:hover { border-color: #9aa4b2; }
button:disabled { opacity: 0.45; cursor: default; }
button.primary { background: var(--accent); border-color: var(--accent); color: var(--accent-text); font-weight: 600; }
button.quiet { background: transparent; }
button.danger { color: var(--danger); }

.hint { color: var(--muted); font-size: 0.85rem; margin: 0.4rem 0; }
.error { color: var(--danger); white-space: pre-line; margin: 0.4rem 0 0; }
.error:empty { display: none; }
.ok { color: var(--ok); margin: 0.5rem 0 0; }
.ok:empty { display: none; }
.detail { color: var(--muted); font-size: 0.85rem; }

/* Screen */
.preview-frame {
  background: #101418;
  border-radius: 6px;
  overflow: hidden;
  display: flex;
  align-items: center;
  justify-content: center;
  aspect-ratio: 16 / 9;
  max-height: 70vh;
}
#preview { display: block; width: 100%; height: 100%; object-fit: contain; }
#preview:not([src]) { visibility: hidden; }
#preview.stale { opacity: 0.5; }
.controls { display: grid; grid-template-columns: repeat(2, minmax(0, 1fr)); gap: 0.5rem; margin-top: 0.75rem; }
#recent-errors-box { margin-top: 0.75rem; color: var(--danger); }
ul.plain { margin: 0.4rem 0 0; padding-left: 1.2rem; font-size: 0.85rem; }
.event-log {
  list-style: none;
  margin: 0;
  padding: 0.4rem 0.6rem;
  font-family: ui-monospace, "SFMono-Regular", Menlo, Consolas, monospace;
  font-size: 0.8rem;
  background: #f8f9fb;
  border: 1px solid var(--line);
  border-radius: 6px;
  max-height: 12rem;
  overflow-y: auto;
}
.event-log:empty::before { content: "No events yet"; color: var(--muted); }
.event-log li { padding: 0.1rem 0; border-bottom: 1px dotted var(--line); overflow-wrap: anywhere; }
.event-log li:last-child { border-bottom: 0; }
.event-log time { color: var(--muted); margin-right: 0.3rem; }
.event-log .event-error { color: var(--danger); }
.event-log .event-stream { color: var(--muted); font-style: italic; }

/* Playlist */
.playlist { list-style: none; margin: 0; padding: 0; display: flex; flex-direction: column; gap: 0.4rem; }
.playlist.file-over { outline: 2px dashed var(--accent); outline-offset: 4px; border-radius: 6px; }
.playlist li {
  display: grid;
  grid-template-columns: auto auto 96px minmax(0, 1fr) auto;
  grid-template-areas: "handle position thumb info buttons" "error error error error error";
  align-items: center;
  gap: 0.2rem 0.6rem;
  padding: 0.4rem 0.5rem;
  border: 1px solid var(--line);
  border-radius: 6px;
  background: #fff;
  position: relative;
}
.playlist li.current { background: var(--current); border-color: #a8c3f5; }
.playlist li.invalid { border-color: var(--danger); }
.playlist li.dragging { opacity: 0.4; }
.playlist li.drop-before { box-shadow: 0 -3px 0 var(--accent); }
.playlist li.drop-after { box-shadow: 0 3px 0 var(--accent); }
.handle { grid-area: handle; cursor: grab; color: var(--muted); font-size: 1.2rem; padding: 0 0.2rem; user-select: none; touch-action: none; }
.position { grid-area: position; color: var(--muted); font-variant-numeric: tabular-nums; min-width: 1.4em; text-align: right; }
.thumb {
  grid-area: thumb;
  width: 96px;
  height: 54px;
  border-radius: 4px;
  background: #101418;
  color: #c5ccd6;
  display: flex;
  align-items: center;
  justify-content: center;
  overflow: hidden;
  font-size: 0.75rem;
  text-transform: uppercase;
  letter-spacing: 0.05em;
}
.thumb img { width: 100%; height: 100%; object-fit: contain; }
.slide-info { grid-area: info; display: flex; flex-direction: column; gap: 0.15rem; min-width: 0; }
.slide-name { font-weight: 600; overflow: hidden; text-overflow: ellipsis; white-space: nowrap; }
.slide-detail { color: var(--muted); font-size: 0.8rem; overflow: hidden; text-overflow: ellipsis; white-space: nowrap; }
.slide-duration-label { font-weight: 400; font-size: 0.85rem; color: var(--muted); }
.slide-duration { width: 6rem; margin-left: 0.3rem; padding: 0.15rem 0.4rem !important; }
.badge {
  align-self: flex-start;
  font-size: 0.7rem;
  text-transform: uppercase;
  letter-spacing: 0.05em;
  color: var(--accent);
  font-weight: 600;
}
.slide-buttons { grid-area: buttons; display: flex; gap: 0.25rem; }
.slide-buttons button { min-width: 2.2rem; padding: 0.3rem 0.5rem; }
.slide-error { grid-area: error; font-size: 0.85rem; }

.add-path { margin-top: 0.75rem; }
.add-path label { display: block; font-size: 0.85rem; margin-bottom: 0.2rem; }
.inline { display: flex; gap: 0.5rem; }
.inline input { flex: 1; }

.drop-zone {
  margin-top: 0.75rem;
  padding: 1rem;
  border: 2px dashed var(--line);
  border-radius: var(--radius);
  text-align: center;
  color: var(--muted);
  transition: border-color 0.15s, background 0.15s;
  position: relative;
}
.drop-zone p { margin: 0 0 0.5rem; }
.drop-zone.file-over { border-color: var(--accent); background: #eef4ff; color: var(--text); }
.drop-zone .error { text-align: left; }
/* The file input stays in the page (so it can be driven by tests and assistive
   technology) but is covered by its label, which looks like a button. */
#file-input { position: absolute; width: 1px; height: 1px; opacity: 0; }

/* Settings */
fieldset { border: 1px solid var(--line); border-radius: 6px; margin: 0 0 0.75rem; padding: 0.5rem 0.75rem 0.75rem; }
legend { font-weight: 600; padding: 0 0.3rem; }
.field { display: flex; align-items: center; gap: 0.5rem; margin-top: 0.5rem; flex-wrap: wrap; }
.field > label:first-child { flex: 0 0 6.5rem; }
.field input[type="text"], .field select { flex: 1 1 8rem; }
.field input[type="number"] { width: 4.5rem; }
.field.check > label { flex: 0 1 auto; }
.field.check input { margin: 0; width: 1.1rem; height: 1.1rem; }
.field label.sub { font-weight: 400; color: var(--muted); font-size: 0.85rem; }
.save-bar { display: flex; align-items: center; gap: 0.5rem; flex-wrap: wrap; }
.save-bar #dirty { color: #9a6700; font-weight: 500; }
#save-error { margin-top: 0.5rem; }
#save-error p { margin: 0 0 0.3rem; }
#save-error ul.issues { margin: 0.2rem 0 0.4rem; padding-left: 1.2rem; }
#save-error code { color: var(--text); background: #fff1ef; padding: 0 0.2rem; border-radius: 3px; }

@media (max-width: 520px) {
  .playlist li {
    grid-template-columns: auto 72px minmax(0, 1fr);
    grid-template-areas: "handle thumb info" "buttons buttons buttons" "error error error";
  }
  .position { display: none; }
  .thumb { width: 72px; height: 40px; }
  .slide-buttons { justify-content: flex-end; }
  .field > label:first-child { flex-basis: 100%; }
  .topbar { flex-wrap: wrap; }
}
"""#
}
