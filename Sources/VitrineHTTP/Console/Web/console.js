'use strict';
(() => {
  const API = '/api/v1';
  const TOKEN_KEY = 'vitrine.token';
  const PREVIEW_PERIOD_MS = 1000;
  const STATUS_PERIOD_MS = 2000;
  const EVENT_LOG_LENGTH = 40;

  const DEFAULTS = {
    interval: '5s', autoplay: true, loop: true, fit: 'contain', background: '#000000',
    transition: {type: 'slide', duration: '400ms', easing: 'ease-out'},
    indicator: {visible: true, diameter: 14, color: '#FFFFFF6E', currentColor: '#FFFFFF', position: 'bottom-center'},
  };

  const state = {
    token: null,
    config: null,        // the configuration being edited, as loaded from GET /config
    version: null,       // the version it was loaded at (its ETag), sent back as If-Match
    dirty: false,
    assets: new Map(),   // id -> asset object
    thumbnails: new Map(), // id -> Promise of a blob URL
    status: null,        // the first output group's status, the kiosk's own
    outputs: [],         // the output groups' names when there are several (one panel each), else []
    panels: new Map(),   // output name -> {root, previewURL, busy, again}
    timers: [],
    events: null,        // AbortController of the event stream
    previewBusy: false,
    previewAgain: false,
    previewURL: null,
    dragIndex: null,
  };

  const $ = (selector, root = document) => root.querySelector(selector);
  const $$ = (selector, root = document) => Array.from(root.querySelectorAll(selector));
  const sleep = (ms) => new Promise((resolve) => setTimeout(resolve, ms));

  function element(tag, attributes = {}, ...children) {
    const node = document.createElement(tag);
    for (const [key, value] of Object.entries(attributes)) {
      if (value === undefined || value === null || value === false) continue;
      if (key === 'class') node.className = value;
      else if (key === 'text') node.textContent = value;
      else if (key.startsWith('on')) node.addEventListener(key.slice(2), value);
      else node.setAttribute(key, value === true ? '' : String(value));
    }
    for (const child of children) if (child) node.append(child);
    return node;
  }

  // MARK: API

  class APIError extends Error {
    constructor(status, body, message) {
      super(message);
      this.status = status;
      this.body = body;
    }
  }

  /// One request to the API. Resolves to the Response when it is 2xx; otherwise
  /// throws an APIError carrying the server's own `error` sentence.
  async function api(method, path, {body, headers = {}, token = state.token, signInOnUnauthorized = true} = {}) {
    let response;
    try {
      response = await fetch(API + path, {
        method, body, cache: 'no-store',
        headers: {Authorization: `Bearer ${token}`, ...headers},
      });
    } catch (error) {
      throw new APIError(0, null, `The kiosk cannot be reached (${error.message}).`);
    }
    if (response.ok) return response;
    let data = null;
    try { data = await response.json(); } catch (_) { /* not JSON */ }
    const message = data && typeof data.error === 'string' ? data.error
      : `The kiosk answered ${response.status} ${response.statusText}.`;
    if (response.status === 401 && signInOnUnauthorized && state.token) signOut(message);
    throw new APIError(response.status, data, message);
  }

  const json = async (response) => response.json();

  // MARK: Signing in and out

  async function signIn(token) {
    state.token = token;
    sessionStorage.setItem(TOKEN_KEY, token);
    $('#login-error').textContent = '';
    $('#login-panel').hidden = true;
    $('#app').hidden = false;
    $('#logout').hidden = false;
    await Promise.allSettled([loadAssets(), refreshStatus()]);
    await loadConfig().catch((error) => showSaveError(error));
    refreshPreview();
    state.timers.push(setInterval(() => { if (!document.hidden) refreshPreview(); }, PREVIEW_PERIOD_MS));
    state.timers.push(setInterval(() => { if (!document.hidden) refreshStatus(); }, STATUS_PERIOD_MS));
    streamEvents();
  }

  function signOut(message = '') {
    state.token = null;
    sessionStorage.removeItem(TOKEN_KEY);
    for (const timer of state.timers) clearInterval(timer);
    state.timers = [];
    if (state.events) state.events.abort();
    state.events = null;
    if (state.previewURL) URL.revokeObjectURL(state.previewURL);
    state.previewURL = null;
    showOutputs([]);
    for (const promise of state.thumbnails.values()) promise.then((url) => url && URL.revokeObjectURL(url));
    state.thumbnails.clear();
    state.config = null;
    state.version = null;
    setDirty(false);
    $('#app').hidden = true;
    $('#logout').hidden = true;
    $('#login-panel').hidden = false;
    $('#status').textContent = 'Not signed in';
    $('#login-error').textContent = message;
    $('#token').focus();
  }

  async function submitLogin(event) {
    event.preventDefault();
    const token = $('#token').value.trim();
    const error = $('#login-error');
    error.textContent = '';
    if (!token) {
      error.textContent = 'Enter the API token.';
      return;
    }
    const button = $('#login');
    button.disabled = true;
    try {
      await api('GET', '/status', {token, signInOnUnauthorized: false});
      $('#token').value = '';
      await signIn(token);
    } catch (failure) {
      error.textContent = failure.message;
    } finally {
      button.disabled = false;
    }
  }

  // MARK: Configuration

  async function loadConfig() {
    const response = await api('GET', '/config');
    const tag = response.headers.get('ETag');
    const config = await response.json();
    config.slides = (config.slides || []).map((slide) => (typeof slide === 'string' ? {path: slide} : slide));
    state.config = config;
    state.version = tag ? tag.replace(/^W\//, '').replace(/"/g, '') : null;
    setDirty(false);
    clearIssues();
    renderPlaylist();
    renderSettings();
  }

  function setDirty(dirty) {
    state.dirty = dirty;
    $('#dirty').hidden = !dirty;
    if (dirty) $('#save-status').textContent = '';
  }

  function changed() {
    setDirty(true);
  }

  async function save() {
    if (!state.config) return;
    const button = $('#save');
    clearIssues();
    $('#save-error').replaceChildren();
    $('#save-status').textContent = 'Saving…';
    button.disabled = true;
    const headers = {'Content-Type': 'application/json'};
    if (state.version) headers['If-Match'] = `"${state.version}"`;
    try {
      const result = await json(await api('PUT', '/config', {body: JSON.stringify(state.config), headers}));
      setDirty(false);
      await loadConfig().catch(() => { state.version = result.version; });
      $('#save-status').textContent = result.changed
        ? `Saved as version ${result.version}. The kiosk switches to it at the next slide boundary.`
        : 'No changes: the kiosk already runs this configuration.';
    } catch (error) {
      $('#save-status').textContent = '';
      showSaveError(error);
    } finally {
      button.disabled = false;
    }
  }

  function showSaveError(error) {
    const box = $('#save-error');
    box.replaceChildren();
    if (error.status === 412) {
      const current = error.body && error.body.currentVersion ? ` (it is now version ${error.body.currentVersion})` : '';
      box.append(
        element('p', {text: `Someone else changed the configuration since you loaded it${current}. ` +
          'Reload it to see their changes; your unsaved edits here will be lost.'}),
        element('p', {class: 'detail', text: error.message}),
        element('button', {type: 'button', id: 'conflict-reload', text: 'Reload the configuration', onclick: () => reload(true)}));
      return;
    }
    box.append(element('p', {text: error.message}));
    const issues = error.body && Array.isArray(error.body.issues) ? error.body.issues : [];
    if (issues.length) {
      const list = element('ul', {class: 'issues'});
      for (const issue of issues) {
        list.append(element('li', {},
          element('code', {text: issue.path || '(whole configuration)'}), document.createTextNode(` ${issue.message}`)));
        markIssue(issue);
      }
      box.append(list);
    }
  }

  /// Marks the control a validation issue is about, and for a slide shows the message in its row.
  function markIssue(issue) {
    const path = issue.path || '';
    for (const control of $$('[data-path]')) {
      if (control.dataset.path === path) {
        control.classList.add('invalid');
        control.setAttribute('aria-invalid', 'true');
        control.title = issue.message;
      }
    }
    const slide = /^slides\[(\d+)\]/.exec(path);
    if (slide) {
      const row = $(`#playlist li[data-index="${slide[1]}"]`);
      if (row) {
        row.classList.add('invalid');
        const note = $('.slide-error', row);
        note.textContent = [note.textContent, `${path}: ${issue.message}`].filter(Boolean).join('\n');
      }
    }
  }

  function clearIssues() {
    for (const control of $$('.invalid')) {
      control.classList.remove('invalid');
      control.removeAttribute('aria-invalid');
      if (control.dataset.path) control.removeAttribute('title');
    }
    for (const note of $$('.slide-error')) note.textContent = '';
  }

  async function reload(force = false) {
    if (!force && state.dirty && !confirm('Discard your unsaved changes and load the kiosk\'s configuration?')) return;
    $('#save-error').replaceChildren();
    $('#save-status').textContent = '';
    try {
      await loadConfig();
      $('#save-status').textContent = `Loaded version ${state.version}.`;
    } catch (error) {
      showSaveError(error);
    }
  }

  async function rollback() {
    if (!confirm('Go back to the previous configuration? The current one becomes the rollback target.')) return;
    $('#save-error').replaceChildren();
    try {
      const result = await json(await api('POST', '/config/rollback'));
      await loadConfig();
      $('#save-status').textContent = `Rolled back to version ${result.version}.`;
    } catch (error) {
      showSaveError(error);
    }
  }

  // MARK: Playlist

  function slideLabel(path) {
    const asset = /^asset:([0-9a-f]{64})$/.exec(path);
    if (asset) {
      const known = state.assets.get(asset[1]);
      return {kind: 'asset', id: asset[1], title: known ? known.name : `asset ${asset[1].slice(0, 12)}…`,
        detail: known ? `${known.width}×${known.height} ${known.type.toUpperCase()}` : 'uploaded picture'};
    }
    if (/^https?:\/\//i.test(path)) {
      let title = path;
      try {
        const url = new URL(path);
        title = decodeURIComponent(url.pathname.split('/').filter(Boolean).pop() || url.host);
      } catch (_) { /* keep the text */ }
      return {kind: 'url', title, detail: path};
    }
    return {kind: 'file', title: path.split('/').pop(), detail: path};
  }

  // Assets by id (immutable); files and URLs by path, through /thumbnail, which
  // knows only the saved configuration's paths (a new one shows its label until saved).
  function thumbnail(id, path) {
    const key = id || `path:${state.version}:${path}`;
    if (!state.thumbnails.has(key)) {
      const promise = api('GET', id ? `/assets/${id}/thumbnail` : `/thumbnail?path=${encodeURIComponent(path)}`)
        .then((response) => response.blob())
        .then((blob) => URL.createObjectURL(blob))
        .catch(() => { state.thumbnails.delete(key); return null; });
      state.thumbnails.set(key, promise);
    }
    return state.thumbnails.get(key);
  }

  function currentSlideOnScreen() {
    const status = state.status;
    if (!status || state.dirty || status.configVersion !== state.version) return null;
    return status.slide;
  }

  function renderPlaylist() {
    const list = $('#playlist');
    const slides = state.config ? state.config.slides : [];
    const interval = state.config && state.config.interval !== undefined ? String(state.config.interval) : DEFAULTS.interval;
    const onScreen = currentSlideOnScreen();
    list.replaceChildren();
    slides.forEach((slide, index) => {
      const label = slideLabel(slide.path);
      const thumb = element('span', {class: `thumb ${label.kind}`});
      const image = element('img', {alt: ''});
      thumb.append(image);
      thumbnail(label.kind === 'asset' ? label.id : null, slide.path).then((url) => {
        if (url) image.src = url;
        else thumb.replaceChildren(element('span', {text: label.kind === 'asset' ? '?' : label.kind === 'url' ? 'URL' : 'file'}));
      });
      const duration = element('input', {
        type: 'text', class: 'slide-duration', id: `slide-duration-${index}`, 'data-path': `slides[${index}].duration`,
        placeholder: interval, 'aria-label': `Duration of slide ${index + 1}`, spellcheck: 'false',
      });
      duration.value = slide.duration === undefined ? '' : String(slide.duration);
      duration.addEventListener('input', () => {
        const text = duration.value.trim();
        if (text) slide.duration = text; else delete slide.duration;
        changed();
      });
      const row = element('li', {'data-index': index, class: index === onScreen ? 'current' : ''},
        element('span', {class: 'handle', title: 'Drag to reorder', 'aria-hidden': 'true', text: '⠿'}),
        element('span', {class: 'position', text: String(index + 1)}),
        thumb,
        element('div', {class: 'slide-info'},
          element('span', {class: 'slide-name', title: slide.path, text: label.title}),
          element('span', {class: 'slide-detail', text: label.detail}),
          element('label', {class: 'slide-duration-label'}, document.createTextNode('Duration '), duration),
          index === onScreen ? element('span', {class: 'badge', text: 'on screen'}) : null),
        element('div', {class: 'slide-buttons'},
          element('button', {type: 'button', class: 'move-up', 'aria-label': `Move slide ${index + 1} up`, title: 'Move up',
            disabled: index === 0, text: '↑', onclick: () => moveSlide(index, index - 1, '.move-up')}),
          element('button', {type: 'button', class: 'move-down', 'aria-label': `Move slide ${index + 1} down`, title: 'Move down',
            disabled: index === slides.length - 1, text: '↓', onclick: () => moveSlide(index, index + 1, '.move-down')}),
          element('button', {type: 'button', class: 'remove danger', 'aria-label': `Remove slide ${index + 1}`, title: 'Remove',
            text: '✕', onclick: () => removeSlide(index)})),
        element('p', {class: 'slide-error error', role: 'alert'}));
      const handle = $('.handle', row);
      handle.addEventListener('pointerdown', () => { row.draggable = true; });
      handle.addEventListener('pointerup', () => { row.draggable = false; });
      row.addEventListener('dragstart', (event) => {
        state.dragIndex = index;
        event.dataTransfer.effectAllowed = 'move';
        event.dataTransfer.setData('text/x-vitrine-slide', String(index));
        row.classList.add('dragging');
      });
      row.addEventListener('dragend', () => {
        row.draggable = false;
        row.classList.remove('dragging');
        state.dragIndex = null;
        clearDropMarks();
      });
      list.append(row);
    });
    $('#playlist-empty').hidden = slides.length > 0;
    $('#asset-refs').replaceChildren(...Array.from(state.assets.values(),
      (asset) => element('option', {value: asset.ref, label: asset.name})));
  }

  function moveSlide(from, to, focusSelector) {
    const slides = state.config.slides;
    if (to < 0 || to >= slides.length || from === to) return;
    const [slide] = slides.splice(from, 1);
    slides.splice(to, 0, slide);
    changed();
    clearIssues();
    renderPlaylist();
    if (focusSelector) {
      const button = $(`#playlist li[data-index="${to}"] ${focusSelector}`);
      if (button && !button.disabled) button.focus();
      else if (button) $(`#playlist li[data-index="${to}"] .remove`).focus();
    }
  }

  function removeSlide(index) {
    state.config.slides.splice(index, 1);
    changed();
    clearIssues();
    renderPlaylist();
  }

  function clearDropMarks() {
    for (const row of $$('#playlist li')) row.classList.remove('drop-before', 'drop-after');
    $('#playlist').classList.remove('file-over');
    $('#drop-zone').classList.remove('file-over');
  }

  const carriesFiles = (event) => event.dataTransfer && Array.from(event.dataTransfer.types).includes('Files');

  /// Where a dragged slide would land: the row under the pointer, before or after its middle.
  function dropTarget(event) {
    const rows = $$('#playlist li');
    for (const row of rows) {
      const box = row.getBoundingClientRect();
      if (event.clientY < box.top + box.height / 2) return {row, before: true};
    }
    return rows.length ? {row: rows[rows.length - 1], before: false} : null;
  }

  function playlistDragOver(event) {
    if (carriesFiles(event)) {
      event.preventDefault();
      event.dataTransfer.dropEffect = 'copy';
      $('#playlist').classList.add('file-over');
      return;
    }
    if (state.dragIndex === null) return;
    event.preventDefault();
    event.dataTransfer.dropEffect = 'move';
    clearDropMarks();
    const target = dropTarget(event);
    if (target) target.row.classList.add(target.before ? 'drop-before' : 'drop-after');
  }

  function playlistDrop(event) {
    if (carriesFiles(event)) {
      event.preventDefault();
      clearDropMarks();
      uploadFiles(event.dataTransfer.files);
      return;
    }
    if (state.dragIndex === null) return;
    event.preventDefault();
    const from = state.dragIndex;
    const target = dropTarget(event);
    clearDropMarks();
    if (!target) return;
    let to = Number(target.row.dataset.index) + (target.before ? 0 : 1);
    if (from < to) to -= 1;
    moveSlide(from, to);
  }

  function addPath() {
    const input = $('#add-path');
    const path = input.value.trim();
    if (!path || !state.config) return;
    state.config.slides.push({path});
    input.value = '';
    changed();
    renderPlaylist();
  }

  // MARK: Assets

  async function loadAssets() {
    const result = await json(await api('GET', '/assets'));
    state.assets = new Map(result.assets.map((asset) => [asset.id, asset]));
    renderOverrideAssets();
  }

  async function uploadFiles(fileList) {
    const files = Array.from(fileList || []);
    if (!files.length || !state.config) return;
    const status = $('#upload-status');
    const errors = $('#upload-error');
    errors.textContent = '';
    const problems = [];
    let added = 0;
    for (const [position, file] of files.entries()) {
      status.textContent = `Uploading ${file.name}` + (files.length > 1 ? ` (${position + 1} of ${files.length})…` : '…');
      try {
        const response = await api('POST', `/assets?name=${encodeURIComponent(file.name)}`, {
          body: file, headers: {'Content-Type': file.type || 'application/octet-stream'},
        });
        const asset = await response.json();
        state.assets.set(asset.id, asset);
        state.config.slides.push({path: asset.ref});
        added += 1;
        changed();
        renderPlaylist();
      } catch (error) {
        problems.push(error.message.includes(file.name) ? error.message : `${file.name}: ${error.message}`);
      }
    }
    status.textContent = added ? `Added ${added} ${added === 1 ? 'picture' : 'pictures'} to the playlist. Save to put ${added === 1 ? 'it' : 'them'} on the kiosk.` : '';
    errors.textContent = problems.join('\n');
  }

  // MARK: Settings

  /// `#RGB`, `#RRGGBB` or `#RRGGBBAA` (the # optional) as {rgb: '#rrggbb', alpha: 0...255}.
  function parseColour(text) {
    let digits = String(text || '').replace(/^#/, '');
    if (/^[0-9a-f]{3}$/i.test(digits)) digits = digits.replace(/./g, '$&$&');
    if (!/^([0-9a-f]{6}|[0-9a-f]{8})$/i.test(digits)) return {rgb: '#000000', alpha: 255};
    return {rgb: `#${digits.slice(0, 6).toLowerCase()}`, alpha: digits.length === 8 ? parseInt(digits.slice(6), 16) : 255};
  }

  function formatColour(rgb, alpha) {
    const base = `#${rgb.replace(/^#/, '').toUpperCase()}`;
    if (!Number.isFinite(alpha) || alpha >= 255) return base;
    return base + Math.max(0, Math.round(alpha)).toString(16).toUpperCase().padStart(2, '0');
  }

  function sectionOf(key) {
    if (!state.config[key] || typeof state.config[key] !== 'object') state.config[key] = {};
    return state.config[key];
  }

  const valueAt = (path, fallback) => {
    const parts = path.split('.');
    let node = state.config;
    for (const part of parts) node = node && typeof node === 'object' ? node[part] : undefined;
    return node === undefined ? fallback : node;
  };

  function setValue(path, value) {
    const parts = path.split('.');
    const target = parts.length === 2 ? sectionOf(parts[0]) : state.config;
    const key = parts[parts.length - 1];
    if (value === undefined) delete target[key]; else target[key] = value;
    changed();
  }

  const TEXT_SETTINGS = [
    ['#interval', 'interval', DEFAULTS.interval],
    ['#transition-duration', 'transition.duration', DEFAULTS.transition.duration],
    ['#placeholder', 'placeholder', ''],
  ];
  const CHOICE_SETTINGS = [
    ['#fit', 'fit', DEFAULTS.fit],
    ['#transition-type', 'transition.type', DEFAULTS.transition.type],
    ['#transition-easing', 'transition.easing', DEFAULTS.transition.easing],
    ['#indicator-position', 'indicator.position', DEFAULTS.indicator.position],
  ];
  const SWITCH_SETTINGS = [
    ['#autoplay', 'autoplay', DEFAULTS.autoplay],
    ['#loop', 'loop', DEFAULTS.loop],
    ['#indicator-visible', 'indicator.visible', DEFAULTS.indicator.visible],
  ];
  const COLOUR_SETTINGS = [
    ['#indicator-color', '#indicator-color-alpha', 'indicator.color', DEFAULTS.indicator.color],
    ['#indicator-current-color', '#indicator-current-color-alpha', 'indicator.currentColor', DEFAULTS.indicator.currentColor],
    ['#background', null, 'background', DEFAULTS.background],
  ];

  function renderSettings() {
    if (!state.config) return;
    for (const [selector, path, fallback] of TEXT_SETTINGS) $(selector).value = String(valueAt(path, fallback));
    for (const [selector, path, fallback] of CHOICE_SETTINGS) $(selector).value = valueAt(path, fallback);
    for (const [selector, path, fallback] of SWITCH_SETTINGS) $(selector).checked = valueAt(path, fallback) === true;
    $('#indicator-diameter').value = String(valueAt('indicator.diameter', DEFAULTS.indicator.diameter));
    for (const [picker, alpha, path, fallback] of COLOUR_SETTINGS) {
      const colour = parseColour(valueAt(path, fallback));
      $(picker).value = colour.rgb;
      if (alpha) $(alpha).value = String(colour.alpha);
    }
  }

  function bindSettings() {
    for (const [selector, path] of TEXT_SETTINGS) {
      $(selector).addEventListener('input', (event) => {
        const text = event.target.value.trim();
        setValue(path, text === '' ? undefined : text);
      });
    }
    for (const [selector, path] of CHOICE_SETTINGS) {
      $(selector).addEventListener('change', (event) => setValue(path, event.target.value));
    }
    for (const [selector, path] of SWITCH_SETTINGS) {
      $(selector).addEventListener('change', (event) => setValue(path, event.target.checked));
    }
    $('#indicator-diameter').addEventListener('input', (event) => {
      const text = event.target.value.trim();
      setValue('indicator.diameter', text === '' ? undefined : (Number.isInteger(Number(text)) ? Number(text) : text));
    });
    for (const [picker, alpha, path, fallback] of COLOUR_SETTINGS) {
      const update = () => {
        const alphaText = alpha ? $(alpha).value.trim() : '';
        const alphaValue = alphaText === '' ? 255 : Math.min(255, Math.max(0, Number(alphaText)));
        setValue(path, formatColour($(picker).value, alpha ? alphaValue : parseColour(valueAt(path, fallback)).alpha));
      };
      $(picker).addEventListener('input', update);
      if (alpha) $(alpha).addEventListener('input', update);
    }
  }

  // MARK: Screen: preview, status, control

  /// `path` for one output group, or for the whole kiosk when `output` is null.
  function forOutput(path, output) {
    return output ? `${path}?output=${encodeURIComponent(output)}` : path;
  }

  /// Fetches a screenshot into `image`, whose previous blob URL `holder.previewURL` it replaces.
  async function loadScreenshot(image, holder, output) {
    const blob = await (await api('GET', forOutput('/screenshot', output))).blob();
    const previous = holder.previewURL;
    const url = URL.createObjectURL(blob);
    holder.previewURL = url;
    image.addEventListener('load', () => {
      if (previous) URL.revokeObjectURL(previous);
      // The frame takes the screen's shape, so a portrait or 4:3 screen is not letterboxed twice.
      image.parentElement.style.aspectRatio = `${image.naturalWidth} / ${image.naturalHeight}`;
    }, {once: true});
    image.src = url;
    image.classList.remove('stale');
    image.title = `Screen at ${new Date().toLocaleTimeString()}`;
  }

  async function refreshPreview() {
    if (!state.token) return;
    if (state.outputs.length > 1) {
      for (const name of state.outputs) refreshPanelPreview(name);
      return;
    }
    if (state.previewBusy) { state.previewAgain = true; return; }
    state.previewBusy = true;
    try {
      await loadScreenshot($('#preview'), state, null);
    } catch (error) {
      $('#preview').classList.add('stale');
      $('#preview').title = error.message;
    } finally {
      state.previewBusy = false;
      if (state.previewAgain && state.token) {
        state.previewAgain = false;
        refreshPreview();
      }
    }
  }

  function formatUptime(seconds) {
    const s = Math.floor(seconds);
    if (s < 60) return `${s} s`;
    if (s < 3600) return `${Math.floor(s / 60)} min`;
    if (s < 86400) return `${Math.floor(s / 3600)} h ${Math.floor((s % 3600) / 60)} min`;
    return `${Math.floor(s / 86400)} d ${Math.floor((s % 86400) / 3600)} h`;
  }

  /// One output group's screenshot in its panel, one request at a time per panel.
  async function refreshPanelPreview(name) {
    const panel = state.panels.get(name);
    if (!panel || !state.token) return;
    if (panel.busy) { panel.again = true; return; }
    panel.busy = true;
    const image = $('.output-preview', panel.root);
    try {
      await loadScreenshot(image, panel, name);
    } catch (error) {
      image.classList.add('stale');
      image.title = error.message;
    } finally {
      panel.busy = false;
      if (panel.again && state.panels.get(name) === panel) {
        panel.again = false;
        refreshPanelPreview(name);
      }
    }
  }

  /// One line of an output group's status.
  function statusLine(status) {
    const slide = status.slide === null || status.slide === undefined
      ? 'No slides' : `Slide ${status.slide + 1} of ${status.slideCount}`;
    const rotation = status.playing ? 'playing'
      : (status.pausedBecause && status.pausedBecause.length ? `paused (${status.pausedBecause.join(', ')})` : 'not rotating');
    return [slide, rotation, `screen ${status.screen}`].join(' · ');
  }

  /// Today's single screen for one output group; one panel per group (status,
  /// screenshot, controls) when there are several, each named by its connector.
  function showOutputs(groups) {
    const names = groups.length > 1 && groups.every((group) => group.name) ? groups.map((group) => group.name) : [];
    if (names.join('\n') !== state.outputs.join('\n')) {
      for (const panel of state.panels.values()) if (panel.previewURL) URL.revokeObjectURL(panel.previewURL);
      state.panels.clear();
      const container = $('#output-panels');
      container.replaceChildren(...names.map((name, index) => {
        const root = $('#output-panel-template').content.firstElementChild.cloneNode(true);
        root.dataset.output = name;
        const connectors = groups[index].connectors.slice(1);
        $('.output-name', root).textContent = connectors.length ? `${name} (with ${connectors.join(', ')})` : name;
        $('.output-preview', root).alt = `What ${name} shows now`;
        $('.controls', root).setAttribute('aria-label', `Playback on ${name}`);
        for (const button of $$('button[data-command]', root)) {
          button.addEventListener('click', () => control(button.dataset.command, name));
        }
        state.panels.set(name, {root, previewURL: null, busy: false, again: false});
        return root;
      }));
      state.outputs = names;
      renderOverrideOutputs();
      $('#single-screen').hidden = names.length > 0;
      container.hidden = names.length === 0;
      if (names.length) refreshPreview();
    }
    for (const [index, name] of names.entries()) {
      $('.output-status', state.panels.get(name).root).textContent = statusLine(groups[index].status);
    }
  }

  async function refreshStatus() {
    if (!state.token) return;
    try {
      // Every output group's status; the first is the kiosk's own, what /status answers.
      const groups = (await json(await api('GET', '/outputs'))).outputs;
      const status = groups[0].status;
      showOutputs(groups);
      const before = currentSlideOnScreen();
      state.status = status;
      const parts = [];
      parts.push(status.slide === null || status.slide === undefined
        ? 'No slides' : `Slide ${status.slide + 1} of ${status.slideCount}`);
      parts.push(status.playing ? 'playing'
        : (status.pausedBecause && status.pausedBecause.length ? `paused (${status.pausedBecause.join(', ')})` : 'not rotating'));
      parts.push(status.output);
      if (status.configVersion) parts.push(`config ${status.configVersion.slice(0, 8)}`);
      parts.push(`up ${formatUptime(status.uptimeSeconds || 0)}`);
      if (status.vitrineVersion) parts.push(`Vitrine ${status.vitrineVersion}`);
      $('#status').textContent = parts.join(' · ');
      $('#status').classList.remove('offline');
      const errors = status.recentErrors || [];
      $('#recent-errors-box').hidden = errors.length === 0;
      $('#recent-errors').replaceChildren(...errors.map((text) => element('li', {text})));
      if (currentSlideOnScreen() !== before) markCurrentSlide();
      renderRefusedPictures(status.refusedPictures || []);
      renderSchedule(status.schedule);
      renderTelevision(status.tv);
      renderBoard(status.board);
      renderSoftware(status.software);
      renderOverride(state.outputs.length > 1 ? groups.map((group) => group.status.override) : [status.override]);
    } catch (error) {
      if (state.token) {
        $('#status').textContent = error.message;
        $('#status').classList.add('offline');
      }
    }
  }

  /// The pictures the decoding sandbox refused, each with its reason and a way to try it again.
  function renderRefusedPictures(pictures) {
    $('#refused-pictures-box').hidden = pictures.length === 0;
    $('#refused-pictures').replaceChildren(...pictures.map((picture) => {
      const retry = element('button', {type: 'button', text: 'Try again'});
      retry.addEventListener('click', () => retryPictures(picture.file));
      const held = picture.heldBack ? ' Held back until you try it again.' : '';
      return element('li', {},
        element('strong', {text: picture.file}), ` ${picture.reason} (${localTime(picture.lastRefused)}).${held} `, retry);
    }));
  }

  /// Asks the kiosk to decode refused pictures again: one file, or every one.
  async function retryPictures(file) {
    $('#refused-pictures-error').textContent = '';
    try {
      await api('POST', '/pictures/retry', {
        body: JSON.stringify(file ? {file} : {}), headers: {'Content-Type': 'application/json'},
      });
      await refreshStatus();
    } catch (error) {
      $('#refused-pictures-error').textContent = error.message;
    }
  }

  /// A wall-clock time from the API (RFC 3339, UTC) in the browser's own time.
  function localTime(text) {
    const date = new Date(text);
    return Number.isNaN(date.getTime()) ? text : date.toLocaleString();
  }

  /// What the schedule shows now, until when and what comes next; hidden without a schedule.
  function renderSchedule(schedule) {
    $('#schedule-box').hidden = !schedule;
    if (!schedule) return;
    const now = schedule.showing === 'screen off' || schedule.playlist === null ? 'Screen off' : `Showing ${schedule.showing}`;
    $('#schedule-now').textContent = now + (schedule.until ? ` until ${localTime(schedule.until)}` : ' from now on')
      + ` (${schedule.timezone})`;
    $('#schedule-next').textContent = schedule.clockSet === false
      ? 'The clock is not set yet (no time server reached): what applies at any time of day shows until it is.'
      : schedule.next ? `Next: ${schedule.next}` : 'Nothing else is scheduled.';
  }

  /// The TV on HDMI-CEC: what it should be and what it last said. Hidden
  /// while no adapter is in use (most PCs have none; why is in /api/v1/status).
  function renderTelevision(tv) {
    $('#tv-box').hidden = !tv || !tv.adapter;
    if (!tv || !tv.adapter) return;
    const names = {on: 'on', standby: 'in standby', turningOn: 'turning on', turningToStandby: 'going to standby'};
    const wanted = tv.wanted === null ? 'not yet told' : `should be ${names[tv.wanted]}`;
    const reported = tv.reported === null ? 'has not reported its power' : `reports ${names[tv.reported]}`;
    $('#tv-state').textContent = `The TV ${wanted} and ${reported} (${tv.adapter}, ${tv.physicalAddress}).`;
    $('#tv-problem').textContent = tv.problem || '';
  }

  /// The board's power and storage when something needs acting on
  /// (under-voltage, throttling, storage errors); hidden while all is well or unread.
  function renderBoard(board) {
    const troubled = board ? board.subjects.filter((subject) => subject.status === 'warning' || subject.status === 'problem') : [];
    $('#board-box').hidden = troubled.length === 0;
    if (troubled.length === 0) return;
    $('#board-findings').replaceChildren(...troubled.flatMap((subject) =>
      (subject.findings.length ? subject.findings : [subject.summary]).map((text) =>
        element('li', {}, element('strong', {text: `${subject.id} (${subject.status}): `}), text))));
    $('#board-checked').textContent = `Read ${localTime(board.checkedAt)}; read again every minute.`;
  }

  /// The update helper's last run (docs/updates.md); hidden before it ran.
  function renderSoftware(software) {
    $('#software-box').hidden = !software;
    if (!software) return;
    const outcomes = {
      'installed': `vitrine ${software.installed} installed (was ${software.from})`,
      'unchanged': `vitrine ${software.installed}, the version the channel names`,
      'rolled-back': `vitrine ${software.wanted} rolled back: ${software.installed} is back`,
      'refused': `vitrine ${software.wanted} not installed`,
      'failed': 'the update failed: look at the board',
      'unmanaged': 'the channel names no version',
    };
    $('#software-outcome').textContent = outcomes[software.outcome] || software.outcome;
    $('#software-detail').textContent = `${software.detail} (${localTime(software.at)})`;
  }

  // MARK: Emergency override

  /// The override each display loop shows (from the statuses: the kiosk's one,
  /// or one per output when there are several), and Clear only while the output
  /// chosen (any, for every output) shows one.
  function renderOverride(overrides) {
    const describe = (override) => override
      ? `${override.id} is showing ${override.slides.length === 1 ? 'one picture' : `${override.slides.length} slides`}`
        + ` until ${localTime(override.until)}`
      : 'none';
    const several = state.outputs.length > 1;
    const chosen = several ? $('#override-output').value : '';
    const active = chosen ? overrides[state.outputs.indexOf(chosen)] : overrides.find(Boolean);
    $('.override-card').classList.toggle('active', overrides.some(Boolean));
    $('#override-clear').disabled = !active;
    $('#override-active').textContent = several
      ? 'Override ' + state.outputs.map((name, index) => `on ${name}: ${describe(overrides[index])}`).join('; ') + '.'
      : overrides[0] ? `Override ${describe(overrides[0])}.` : 'No override is active.';
  }

  /// The output choice, with several output groups: every output, or one of them.
  function renderOverrideOutputs() {
    const select = $('#override-output');
    const chosen = select.value;
    select.replaceChildren(element('option', {value: '', text: 'every output'}),
      ...state.outputs.map((name) => element('option', {value: name, text: name})));
    select.value = state.outputs.includes(chosen) ? chosen : '';
    $('#override-output-field').hidden = state.outputs.length < 2;
  }

  /// `?output=NAME&` for the output chosen, or nothing for every output.
  function overrideOutputQuery() {
    const chosen = state.outputs.length > 1 ? $('#override-output').value : '';
    return chosen ? `output=${encodeURIComponent(chosen)}&` : '';
  }

  function renderOverrideAssets() {
    const select = $('#override-asset');
    const chosen = select.value;
    const options = Array.from(state.assets.values()).map((asset) =>
      element('option', {value: asset.ref, text: `${asset.name} (${asset.width}×${asset.height})`}));
    select.replaceChildren(element('option', {value: '', text: '(none)'}), ...options);
    select.value = Array.from(select.options).some((option) => option.value === chosen) ? chosen : '';
  }

  async function setOverride(event) {
    event.preventDefault();
    const file = $('#override-file').files[0];
    const ref = $('#override-asset').value;
    const duration = $('#override-duration').value.trim();
    const status = $('#override-status');
    const errors = $('#override-error');
    status.textContent = '';
    errors.textContent = '';
    if (!file && !ref) { errors.textContent = 'Choose a picture to upload, or one already uploaded.'; return; }
    const button = $('#override-set');
    button.disabled = true;
    try {
      // A new picture goes as the body, stored as an asset on the way; an uploaded one is named by its ref.
      const response = file
        ? await api('POST', `/override?${overrideOutputQuery()}duration=${encodeURIComponent(duration)}&name=${encodeURIComponent(file.name)}`, {
          body: file, headers: {'Content-Type': file.type || 'image/jpeg'},
        })
        : await api('POST', `/override?${overrideOutputQuery()}`.replace(/[?&]$/, ''), {
          body: JSON.stringify({slides: [ref], duration}), headers: {'Content-Type': 'application/json'},
        });
      const override = await response.json();
      status.textContent = `Override ${override.id} set${override.output ? ` on ${override.output}` : ''} until ${localTime(override.until)}.`;
      $('#override-file').value = '';
      setTimeout(() => { refreshStatus(); refreshPreview(); }, 300);
    } catch (error) {
      const issues = (error.body && error.body.issues) || [];
      errors.textContent = issues.length ? issues.map((issue) => `${issue.path}: ${issue.message}`).join('\n') : error.message;
    } finally {
      button.disabled = false;
    }
  }

  async function clearOverride() {
    $('#override-status').textContent = '';
    $('#override-error').textContent = '';
    try {
      await api('DELETE', `/override?${overrideOutputQuery()}`.replace(/[?&]$/, ''));
      $('#override-status').textContent = 'Override cleared.';
    } catch (error) {
      // 404: it had ended already (the status below says so), or the output shows the one for every output (the kiosk says so).
      if (error.status !== 404 || overrideOutputQuery()) $('#override-error').textContent = error.message;
    }
    setTimeout(() => { refreshStatus(); refreshPreview(); }, 300);
  }

  function markCurrentSlide() {
    const onScreen = currentSlideOnScreen();
    for (const row of $$('#playlist li')) {
      const current = Number(row.dataset.index) === onScreen;
      row.classList.toggle('current', current);
      const badge = $('.badge', row);
      if (current && !badge) $('.slide-info', row).append(element('span', {class: 'badge', text: 'on screen'}));
      if (!current && badge) badge.remove();
    }
  }

  /// A command for one output group (`output`), or for every group when it is null.
  async function control(command, output = null) {
    const panel = output ? state.panels.get(output) : null;
    const message = panel ? $('.output-error', panel.root) : $('#control-error');
    message.textContent = '';
    const buttons = panel ? $$('.controls button', panel.root) : $$('#single-screen .controls button');
    for (const button of buttons) button.disabled = true;
    try {
      await api('POST', forOutput('/control', output), {body: JSON.stringify({command}), headers: {'Content-Type': 'application/json'}});
      setTimeout(() => { refreshStatus(); refreshPreview(); }, 300);
    } catch (error) {
      message.textContent = error.message;
    } finally {
      for (const button of buttons) button.disabled = false;
    }
  }

  // MARK: Events

  function describeEvent(name, data) {
    switch (name) {
      case 'slideChanged': return `Slide ${data.from + 1} → ${data.to + 1} (${data.cause})`;
      case 'tapped': return `Tap on slide ${data.slide + 1} at ${Math.round(data.x)}, ${Math.round(data.y)}`;
      case 'swiped': return `Swipe ${data.direction} from slide ${data.from + 1}`;
      case 'configApplied': return `Configuration ${data.version} is on screen`;
      case 'assetAdded': return `Picture added: ${data.name} (${data.width}×${data.height})`;
      case 'overrideSet': return `Override ${data.id} set${data.output ? ` on ${data.output}` : ''} until ${localTime(data.until)}`;
      case 'overrideCleared': return `Override ${data.id}${data.output ? ` on ${data.output}` : ''} cleared`;
      case 'error': return data.message;
      default: return `${name} ${JSON.stringify(data)}`;
    }
  }

  function logEvent(name, text) {
    const log = $('#event-log');
    const time = new Date().toLocaleTimeString();
    log.prepend(element('li', {class: `event-${name}`, 'data-event': name},
      element('time', {text: time}), document.createTextNode(' ' + text)));
    while (log.children.length > EVENT_LOG_LENGTH) log.lastElementChild.remove();
  }

  function handleEvent(name, text) {
    let data = {};
    try { data = text ? JSON.parse(text) : {}; } catch (_) { data = {message: text}; }
    // With several output groups each group's events name it (`output`): the
    // playlist's "on screen" mark is the first group's, as the status is.
    const ofFirstGroup = !data.output || state.outputs.length === 0 || data.output === state.outputs[0];
    logEvent(name, (data.output ? `${data.output}: ` : '') + describeEvent(name, data));
    switch (name) {
      case 'slideChanged':
        if (state.status && ofFirstGroup) state.status.slide = data.to;
        markCurrentSlide();
        if (data.output && state.panels.has(data.output)) refreshPanelPreview(data.output);
        else refreshPreview();
        refreshStatus();
        break;
      case 'configApplied':
        refreshPreview();
        refreshStatus();
        if (!state.dirty && data.version !== state.version) loadConfig().catch(() => {});
        break;
      case 'assetAdded':
        if (data.id) {
          state.assets.set(data.id, data);
          if (!state.dirty) renderPlaylist();
          renderOverrideAssets();
        }
        break;
      case 'overrideSet':
      case 'overrideCleared':
        refreshStatus();
        refreshPreview();
        break;
      case 'error':
        refreshStatus();
        break;
      default:
        break;
    }
  }

  /// Dispatches one server-sent event block (the lines before a blank line).
  function dispatchBlock(block) {
    let name = 'message';
    const data = [];
    for (const line of block.split('\n')) {
      if (line === '' || line.startsWith(':')) continue;
      const colon = line.indexOf(':');
      const field = colon < 0 ? line : line.slice(0, colon);
      let value = colon < 0 ? '' : line.slice(colon + 1);
      if (value.startsWith(' ')) value = value.slice(1);
      if (field === 'event') name = value;
      else if (field === 'data') data.push(value);
    }
    if (data.length) handleEvent(name, data.join('\n'));
  }

  async function streamEvents() {
    const controller = new AbortController();
    state.events = controller;
    let delay = 1000;
    while (!controller.signal.aborted && state.token) {
      try {
        const response = await fetch(`${API}/events`, {
          headers: {Authorization: `Bearer ${state.token}`, Accept: 'text/event-stream'},
          cache: 'no-store', signal: controller.signal,
        });
        if (response.status === 401) {
          let message = 'The API token was refused.';
          try { message = (await response.json()).error || message; } catch (_) { /* not JSON */ }
          signOut(message);
          return;
        }
        if (!response.ok || !response.body) throw new Error(`the kiosk answered ${response.status}`);
        logEvent('stream', 'Connected to the event stream');
        delay = 1000;
        const reader = response.body.getReader();
        const decoder = new TextDecoder();
        let buffer = '';
        for (;;) {
          const {value, done} = await reader.read();
          if (done) break;
          buffer += decoder.decode(value, {stream: true});
          buffer = buffer.replace(/\r\n|\r(?=.)/g, '\n');
          let end;
          while ((end = buffer.indexOf('\n\n')) >= 0) {
            dispatchBlock(buffer.slice(0, end));
            buffer = buffer.slice(end + 2);
          }
        }
        if (controller.signal.aborted) return;
        logEvent('stream', 'The event stream ended; reconnecting');
      } catch (error) {
        if (controller.signal.aborted) return;
        logEvent('stream', `The event stream failed (${error.message}); reconnecting`);
      }
      await sleep(delay);
      delay = Math.min(delay * 2, 15000);
    }
  }

  // MARK: Start

  function bindDropZone() {
    const zone = $('#drop-zone');
    zone.addEventListener('dragover', (event) => {
      if (!carriesFiles(event)) return;
      event.preventDefault();
      event.dataTransfer.dropEffect = 'copy';
      zone.classList.add('file-over');
    });
    zone.addEventListener('dragleave', (event) => {
      if (!zone.contains(event.relatedTarget)) zone.classList.remove('file-over');
    });
    zone.addEventListener('drop', (event) => {
      if (!carriesFiles(event)) return;
      event.preventDefault();
      clearDropMarks();
      uploadFiles(event.dataTransfer.files);
    });
    const list = $('#playlist');
    list.addEventListener('dragover', playlistDragOver);
    list.addEventListener('dragleave', (event) => {
      if (!list.contains(event.relatedTarget)) clearDropMarks();
    });
    list.addEventListener('drop', playlistDrop);
    // A file dropped anywhere else must not make the browser leave the console to show it.
    for (const type of ['dragover', 'drop']) {
      window.addEventListener(type, (event) => { if (carriesFiles(event)) event.preventDefault(); });
    }
    $('#file-input').addEventListener('change', async (event) => {
      const input = event.target;
      await uploadFiles(input.files);
      input.value = '';
    });
  }

  function start() {
    $('#login-form').addEventListener('submit', submitLogin);
    $('#logout').addEventListener('click', () => signOut());
    $('#retry-pictures').addEventListener('click', () => retryPictures(null));
    $('#save').addEventListener('click', save);
    $('#reload').addEventListener('click', () => reload(false));
    $('#rollback').addEventListener('click', rollback);
    $('#add-path-form').addEventListener('submit', (event) => { event.preventDefault(); addPath(); });
    $('#override-form').addEventListener('submit', setOverride);
    $('#override-clear').addEventListener('click', clearOverride);
    $('#override-output').addEventListener('change', refreshStatus);
    for (const command of ['next', 'previous', 'pause', 'resume']) {
      $(`#${command}`).addEventListener('click', () => control(command));
    }
    bindSettings();
    bindDropZone();
    const saved = sessionStorage.getItem(TOKEN_KEY);
    if (saved) {
      api('GET', '/status', {token: saved, signInOnUnauthorized: false})
        .then(() => signIn(saved))
        .catch((error) => signOut(error.message));
    } else {
      $('#token').focus();
    }
  }

  document.addEventListener('DOMContentLoaded', start);
})();
