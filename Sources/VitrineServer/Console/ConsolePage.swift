extension ConsoleFiles {
    /// `/`: the console's one page. Everything dynamic is filled in by `script`.
    static let indexHTML: String = #"""
<!doctype html>
<html lang="en">
<head>
<meta charset="utf-8">
<meta name="viewport" content="width=device-width, initial-scale=1">
<title>Vitrine console</title>
<link rel="stylesheet" href="/console.css">
<script src="/console.js" defer></script>
</head>
<body>
<header class="topbar">
  <h1>Vitrine</h1>
  <p id="status" class="status" role="status" aria-live="polite">Not signed in</p>
  <button type="button" id="logout" class="quiet" hidden>Sign out</button>
</header>

<main>
  <section id="login-panel" class="card login">
    <h2>Sign in</h2>
    <form id="login-form">
      <label for="token">API token</label>
      <input id="token" name="token" type="password" autocomplete="current-password" spellcheck="false" required>
      <p class="hint">The kiosk's <code>api.token</code>, or the one it generated into <code>&lt;state dir&gt;/api-token</code>.</p>
      <button type="submit" id="login" class="primary">Sign in</button>
      <p id="login-error" class="error" role="alert"></p>
    </form>
  </section>

  <div id="app" class="layout" hidden>
    <section class="card screen" aria-labelledby="screen-title">
      <h2 id="screen-title">Screen</h2>
      <div class="preview-frame">
        <img id="preview" alt="What the kiosk shows now">
      </div>
      <div class="controls" role="group" aria-label="Playback">
        <button type="button" id="previous" title="Previous slide">&#9664; Previous</button>
        <button type="button" id="next" title="Next slide">Next &#9654;</button>
        <button type="button" id="pause" title="Pause rotation">&#10073;&#10073; Pause</button>
        <button type="button" id="resume" title="Resume rotation">&#9654; Resume</button>
      </div>
      <p id="control-error" class="error" role="alert"></p>
      <details id="recent-errors-box" hidden>
        <summary>Recent errors on the kiosk</summary>
        <ul id="recent-errors" class="plain"></ul>
      </details>
      <h3>Events</h3>
      <ol id="event-log" class="event-log" aria-live="polite"></ol>
    </section>

    <section class="card playlist-card" aria-labelledby="playlist-title">
      <h2 id="playlist-title">Playlist</h2>
      <ol id="playlist" class="playlist"></ol>
      <p id="playlist-empty" class="hint" hidden>The playlist is empty: the kiosk shows the placeholder or the background colour.</p>
      <form id="add-path-form" class="add-path">
        <label for="add-path">Add a slide by URL or path</label>
        <div class="inline">
          <input id="add-path" type="text" placeholder="https://… or images/menu.jpg" spellcheck="false">
          <button type="submit" id="add-path-button">Add</button>
        </div>
      </form>
      <div id="drop-zone" class="drop-zone">
        <p>Drop JPEG or PNG pictures here, or</p>
        <label class="button" for="file-input">Choose files&hellip;</label>
        <input id="file-input" type="file" accept="image/jpeg,image/png" multiple>
        <p id="upload-status" class="hint" aria-live="polite"></p>
        <p id="upload-error" class="error" role="alert"></p>
      </div>
    </section>

    <section class="card settings" aria-labelledby="settings-title">
      <h2 id="settings-title">Settings</h2>
      <form id="settings-form" autocomplete="off">
        <fieldset>
          <legend>Rotation</legend>
          <div class="field">
            <label for="interval">Interval</label>
            <input id="interval" data-path="interval" type="text" inputmode="decimal" placeholder="5s">
          </div>
          <div class="field check"><input id="autoplay" data-path="autoplay" type="checkbox"><label for="autoplay">Autoplay</label></div>
          <div class="field check"><input id="loop" data-path="loop" type="checkbox"><label for="loop">Loop</label></div>
          <div class="field">
            <label for="fit">Fit</label>
            <select id="fit" data-path="fit">
              <option value="contain">contain</option>
              <option value="cover">cover</option>
              <option value="stretch">stretch</option>
            </select>
          </div>
        </fieldset>
        <fieldset>
          <legend>Transition</legend>
          <div class="field">
            <label for="transition-type">Type</label>
            <select id="transition-type" data-path="transition.type">
              <option value="slide">slide</option>
              <option value="crossfade">crossfade</option>
              <option value="cut">cut</option>
            </select>
          </div>
          <div class="field">
            <label for="transition-duration">Duration</label>
            <input id="transition-duration" data-path="transition.duration" type="text" placeholder="400ms">
          </div>
          <div class="field">
            <label for="transition-easing">Easing</label>
            <select id="transition-easing" data-path="transition.easing">
              <option value="linear">linear</option>
              <option value="ease-in">ease-in</option>
              <option value="ease-out">ease-out</option>
              <option value="ease-in-out">ease-in-out</option>
            </select>
          </div>
        </fieldset>
        <fieldset>
          <legend>Indicator</legend>
          <div class="field check"><input id="indicator-visible" data-path="indicator.visible" type="checkbox"><label for="indicator-visible">Visible</label></div>
          <div class="field">
            <label for="indicator-position">Position</label>
            <select id="indicator-position" data-path="indicator.position">
              <option value="bottom-center">bottom centre</option>
              <option value="bottom-left">bottom left</option>
              <option value="bottom-right">bottom right</option>
              <option value="top-center">top centre</option>
              <option value="top-left">top left</option>
              <option value="top-right">top right</option>
            </select>
          </div>
          <div class="field">
            <label for="indicator-diameter">Dot size (px)</label>
            <input id="indicator-diameter" data-path="indicator.diameter" type="number" min="1" max="512" step="1">
          </div>
          <div class="field colour">
            <label for="indicator-color">Dots</label>
            <input id="indicator-color" data-path="indicator.color" type="color">
            <label for="indicator-color-alpha" class="sub">alpha</label>
            <input id="indicator-color-alpha" data-path="indicator.color" type="number" min="0" max="255" step="1" title="Opacity, 0 (transparent) to 255 (opaque)">
          </div>
          <div class="field colour">
            <label for="indicator-current-color">Current dot</label>
            <input id="indicator-current-color" data-path="indicator.currentColor" type="color">
            <label for="indicator-current-color-alpha" class="sub">alpha</label>
            <input id="indicator-current-color-alpha" data-path="indicator.currentColor" type="number" min="0" max="255" step="1" title="Opacity, 0 (transparent) to 255 (opaque)">
          </div>
        </fieldset>
        <fieldset>
          <legend>Screen</legend>
          <div class="field colour">
            <label for="background">Background</label>
            <input id="background" data-path="background" type="color">
          </div>
          <div class="field">
            <label for="placeholder">Placeholder</label>
            <input id="placeholder" data-path="placeholder" type="text" list="asset-refs" placeholder="none" spellcheck="false">
            <datalist id="asset-refs"></datalist>
          </div>
        </fieldset>
      </form>
      <div class="save-bar">
        <button type="button" id="save" class="primary">Save</button>
        <button type="button" id="reload" class="quiet">Reload</button>
        <button type="button" id="rollback" class="quiet">Roll back</button>
        <span id="dirty" class="hint" hidden>Unsaved changes</span>
      </div>
      <p id="save-status" class="ok" aria-live="polite"></p>
      <div id="save-error" class="error" role="alert"></div>
    </section>
  </div>
</main>
</body>
</html>
"""#
}
