#!/usr/bin/env python3
"""End-to-end test of the web console in a real headless Chromium.

    console_test.py [BINARY]        (default .build/debug/vitrine)

Starts the kiosk itself (`BINARY run --config CONFIG --state-dir DIR --display
headless`, output 320x240, two slides: red and blue, API on a free port of
127.0.0.1), starts chromedriver on another free port, and drives Chromium
through the W3C WebDriver protocol with nothing but urllib. Standard library
only; the green test picture and the PNG screenshots are encoded and decoded
here.

Steps: a wrong token shows the 401 message at the login form; the right one
opens the console with the playlist; a JPEG uploaded through the file input
becomes a third slide with its thumbnail; a text file is refused with the
server's message at the drop zone; the new slide moves to the top with its up
button, the interval is changed, and Save pushes it all; the API then returns
that order, and the kiosk's screen, both fetched through the API and in the
page's preview, turns green. Then pause and resume, a 422 with its issue path
at the Save button, and a 412 conflict that offers a reload. Then the
emergency override: a new picture set through the override panel fills the
screen at once and the panel says until when; Clear brings the playlist
back; an already uploaded picture can be chosen instead. A damaged picture is
listed with its reason, in the status and the console, and once the file is
replaced its "Try again" clears it. Without a schedule
the schedule block stays hidden. With two output groups (the page's fetch
answering GET /api/v1/outputs with two, as a headless kiosk has one), a
panel per group with its own screenshot, status and controls, whose
commands ask for that output alone.

Prints one line per step; exits 0 when every step passed. Leaves a picture of
the page in /tmp/console.png (and a narrow one in /tmp/console-narrow.png, and one
with the two output groups' panels in /tmp/console-outputs.png).
"""
import argparse
import base64
import json
import os
import shutil
import signal
import socket
import struct
import subprocess
import sys
import tempfile
import time
import urllib.error
import urllib.request

sys.dont_write_bytecode = True  # no __pycache__ in the tree
sys.path.insert(0, os.path.join(os.path.dirname(os.path.abspath(__file__)), "..", "Support"))
import png_pixels  # noqa: E402

HERE = os.path.dirname(os.path.abspath(__file__))
REPO = os.path.abspath(os.path.join(HERE, "..", ".."))
TOKEN = "console-test-token-123456"
WIDTH, HEIGHT = 320, 240
GREEN = (40, 190, 70)
ORANGE = (240, 140, 20)
RED = (220, 30, 30)
BLUE = (30, 60, 220)
COLOUR_TOLERANCE = 40
SCREENSHOT = "/tmp/console.png"
NARROW_SCREENSHOT = "/tmp/console-narrow.png"
OUTPUTS_SCREENSHOT = "/tmp/console-outputs.png"


class TestFailure(Exception):
    pass


def step(text):
    print(f"- {text}", flush=True)


def wait_until(what, condition, timeout=10.0, interval=0.2):
    """Polls `condition` until it returns something truthy, which is returned."""
    deadline = time.monotonic() + timeout
    last_error = None
    while True:
        try:
            value = condition()
            if value:
                return value
        except (TestFailure, WebDriverError, OSError, ValueError) as error:
            last_error = error
        if time.monotonic() > deadline:
            raise TestFailure(f"timed out after {timeout:g} s waiting for {what}" + (f" ({last_error})" if last_error else ""))
        time.sleep(interval)


def free_port():
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        return s.getsockname()[1]


# MARK: Pictures, without Pillow


def solid_jpeg(width, height, rgb):
    """A baseline JPEG of one colour: 4:4:4, every block only a DC coefficient."""
    r, g, b = rgb
    levels = [0.299 * r + 0.587 * g + 0.114 * b,
              128 - 0.168736 * r - 0.331264 * g + 0.5 * b,
              128 + 0.5 * r - 0.418688 * g - 0.081312 * b]
    # With every quantiser 8, a flat block's DC coefficient 8 * (level - 128) quantises to level - 128.
    dc = [max(-128, min(127, round(level - 128))) for level in levels]

    def segment(marker, payload):
        return bytes([0xFF, marker]) + struct.pack(">H", len(payload) + 2) + payload

    quantisation = segment(0xDB, bytes([0]) + bytes([8] * 64))
    frame = segment(0xC0, struct.pack(">BHHB", 8, height, width, 3) + bytes([1, 0x11, 0, 2, 0x11, 0, 3, 0x11, 0]))
    # DC table 0: categories 0...11, each a 4-bit code. AC table 0: only end-of-block, the 1-bit code 0.
    dc_table = segment(0xC4, bytes([0x00]) + bytes([0, 0, 0, 12] + [0] * 12) + bytes(range(12)))
    ac_table = segment(0xC4, bytes([0x10]) + bytes([1] + [0] * 15) + bytes([0x00]))
    scan = segment(0xDA, bytes([3, 1, 0x00, 2, 0x00, 3, 0x00, 0, 63, 0]))

    bits = []

    def put(value, length):
        bits.extend((value >> (length - 1 - i)) & 1 for i in range(length))

    def put_dc(difference):
        category = abs(difference).bit_length()
        put(category, 4)
        if category:
            put(difference if difference > 0 else difference + (1 << category) - 1, category)
        put(0, 1)  # end of block

    blocks = ((width + 7) // 8) * ((height + 7) // 8)
    for index in range(blocks):
        for component in range(3):
            put_dc(dc[component] if index == 0 else 0)
    bits.extend([1] * (-len(bits) % 8))
    data = bytearray()
    for i in range(0, len(bits), 8):
        byte = int("".join(map(str, bits[i:i + 8])), 2)
        data.append(byte)
        if byte == 0xFF:
            data.append(0x00)
    return b"\xFF\xD8" + quantisation + frame + dc_table + ac_table + scan + bytes(data) + b"\xFF\xD9"


def png_pixel(data, x, y):
    """The (r, g, b) of one pixel of an 8-bit RGB or RGBA PNG."""
    try:
        return png_pixels.png_pixel(data, x, y)
    except ValueError as error:
        raise TestFailure(str(error))


def close_to(colour, expected):
    return colour is not None and all(abs(a - b) <= COLOUR_TOLERANCE for a, b in zip(colour, expected))


# MARK: The kiosk's API, for checking what the console did


class API:
    def __init__(self, base):
        self.base = base

    def request(self, method, path, body=None, token=TOKEN, headers=None):
        request = urllib.request.Request(self.base + path, data=body, method=method, headers=dict(headers or {}))
        if token is not None:
            request.add_header("Authorization", f"Bearer {token}")
        try:
            with urllib.request.urlopen(request, timeout=10) as response:
                return response.status, dict(response.headers), response.read()
        except urllib.error.HTTPError as error:
            return error.code, dict(error.headers), error.read()

    def json(self, method, path, **kwargs):
        status, headers, body = self.request(method, path, **kwargs)
        return status, headers, json.loads(body) if body else None


# MARK: WebDriver over HTTP


class WebDriverError(Exception):
    pass


ELEMENT = "element-6066-11e4-a52e-4f735466cecf"


class Browser:
    def __init__(self, driver_url):
        self.driver_url = driver_url
        capabilities = {"capabilities": {"alwaysMatch": {
            "browserName": "chrome",
            # The browser's console, to find Content-Security-Policy violations in it.
            "goog:loggingPrefs": {"browser": "ALL"},
            "goog:chromeOptions": {
                "binary": shutil.which("chromium") or "/usr/bin/chromium",
                "args": ["--headless=new", "--no-sandbox", "--disable-gpu", "--window-size=1280,900"],
            },
        }}}
        self.session = self.call("POST", "/session", capabilities, prefix="")["sessionId"]

    def call(self, method, path, body=None, prefix=None):
        url = self.driver_url + (f"/session/{self.session}" if prefix is None else prefix) + path
        data = json.dumps(body if body is not None else {}).encode() if method == "POST" else None
        request = urllib.request.Request(url, data=data, method=method, headers={"Content-Type": "application/json"})
        try:
            with urllib.request.urlopen(request, timeout=60) as response:
                payload = json.loads(response.read() or b"{}")
        except urllib.error.HTTPError as error:
            payload = json.loads(error.read() or b"{}")
            value = payload.get("value", {})
            raise WebDriverError(f"{method} {path}: {value.get('error')}: {str(value.get('message', '')).splitlines()[0:1]}")
        return payload.get("value")

    def console_messages(self):
        """What the page wrote to the browser's console since the last call (chromedriver's log endpoint)."""
        return [entry.get("message", "") for entry in self.call("POST", "/se/log", {"type": "browser"}) or []]

    def quit(self):
        try:
            self.call("DELETE", "")
        except (WebDriverError, OSError):
            pass

    def open(self, url):
        self.call("POST", "/url", {"url": url})

    def find_all(self, css):
        return [item[ELEMENT] for item in self.call("POST", "/elements", {"using": "css selector", "value": css})]

    def find(self, css):
        return self.call("POST", "/element", {"using": "css selector", "value": css})[ELEMENT]

    def click(self, css):
        element = self.find(css)
        # The console's status bar sticks to the top of the window: centre the element so the bar does not cover it.
        self.call("POST", "/execute/sync", {"script": "arguments[0].scrollIntoView({block: 'center'});",
                                            "args": [{ELEMENT: element}]})
        self.call("POST", f"/element/{element}/click")

    def type(self, css, text, clear=True):
        element = self.find(css)
        if clear:
            self.call("POST", f"/element/{element}/clear")
        self.call("POST", f"/element/{element}/value", {"text": text})

    def text(self, css):
        return self.call("GET", f"/element/{self.find(css)}/text")

    def property(self, css, name):
        return self.call("GET", f"/element/{self.find(css)}/property/{name}")

    def displayed(self, css):
        return self.call("GET", f"/element/{self.find(css)}/displayed")

    def script(self, source, *args):
        return self.call("POST", "/execute/sync", {"script": source, "args": list(args)})

    def screenshot(self, path):
        self.script("window.scrollTo(0, 0);")
        with open(path, "wb") as f:
            f.write(base64.b64decode(self.call("GET", "/screenshot")))

    def resize(self, width, height):
        self.call("POST", "/window/rect", {"width": width, "height": height})


PREVIEW_CENTRE = """
const image = document.getElementById('preview');
if (!image || !image.complete || !image.naturalWidth) return null;
const canvas = document.createElement('canvas');
canvas.width = image.naturalWidth;
canvas.height = image.naturalHeight;
const context = canvas.getContext('2d');
context.drawImage(image, 0, 0);
const pixel = context.getImageData(canvas.width >> 1, canvas.height >> 1, 1, 1).data;
return [pixel[0], pixel[1], pixel[2]];
"""


# MARK: The test


# Makes the page see two output groups (see "Several output groups" in run).
OUTPUTS_STUB = """
window.vitrineRealFetch = window.vitrineRealFetch || window.fetch;
window.vitrineOutputRequests = [];
window.fetch = async (input, init) => {
  const url = new URL(typeof input === 'string' ? input : input.url, location.href);
  const output = url.searchParams.get('output');
  if (output !== null) {
    window.vitrineOutputRequests.push(`${(init && init.method) || 'GET'} ${url.pathname}?output=${output}`);
    url.searchParams.delete('output');
  }
  const response = await window.vitrineRealFetch(url.pathname + url.search, init);
  if (url.pathname !== '/api/v1/outputs' || !response.ok) return response;
  const body = await response.json();
  const group = body.outputs[0];
  body.outputs = [{...group, name: 'HDMI-A-1', connectors: ['HDMI-A-1']},
                  {...group, name: 'DSI-1', connectors: ['DSI-1', 'DSI-2']}];
  return new Response(JSON.stringify(body), {status: 200, headers: {'Content-Type': 'application/json'}});
};
"""


def run(binary, work):
    port = free_port()
    base = f"http://127.0.0.1:{port}"
    api = API(base)
    for name in ("red.jpg", "blue.jpg"):
        shutil.copy(os.path.join(REPO, "Tests", "VM", "content", name), os.path.join(work, name))
    config_path = os.path.join(work, "vitrine.json")
    with open(config_path, "w") as f:
        json.dump({
            "slides": ["red.jpg", "blue.jpg"],
            "interval": "3s",
            "output": {"width": WIDTH, "height": HEIGHT, "preview": os.path.join(work, "preview.png")},
            "api": {"listen": f"127.0.0.1:{port}", "token": TOKEN},
        }, f, indent=2)
    green_path = os.path.join(work, "green.jpg")
    with open(green_path, "wb") as f:
        f.write(solid_jpeg(640, 480, GREEN))
    alert_path = os.path.join(work, "alert.jpg")
    with open(alert_path, "wb") as f:
        f.write(solid_jpeg(640, 480, ORANGE))
    text_path = os.path.join(work, "notes.txt")
    with open(text_path, "w") as f:
        f.write("This is not a picture.\n")
    state_dir = os.path.join(work, "state")
    os.mkdir(state_dir)

    command = [binary, "run", "--config", config_path, "--state-dir", state_dir, "--display", "headless"]
    step(f"starting the kiosk: {' '.join(command)}")
    kiosk_log = open(os.path.join(work, "kiosk.log"), "w")
    kiosk = subprocess.Popen(command, stdout=kiosk_log, stderr=subprocess.STDOUT, cwd=work)
    driver_port = free_port()
    driver = subprocess.Popen(["chromedriver", f"--port={driver_port}"], stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL)
    browser = None
    try:
        def kiosk_up():
            if kiosk.poll() is not None:
                raise SystemExit(f"FAIL: the kiosk exited with status {kiosk.returncode}:\n" + open(kiosk_log.name).read()[-3000:])
            status, _, _ = api.request("GET", "/healthz", token=None)
            return status == 200
        wait_until("the kiosk's /healthz", kiosk_up, timeout=30)
        step(f"the kiosk answers on {base}")

        def driver_up():
            with urllib.request.urlopen(f"http://127.0.0.1:{driver_port}/status", timeout=2) as response:
                return json.loads(response.read())["value"]["ready"]
        wait_until("chromedriver", driver_up, timeout=20)
        browser = Browser(f"http://127.0.0.1:{driver_port}")
        step("headless Chromium started through chromedriver")

        browser.open(base + "/")
        wait_until("the login form", lambda: browser.displayed("#token"))
        step("the console's login form is shown")

        # A wrong token: the page shows the server's own 401 message at the login form.
        status, headers, body = api.json("GET", "/api/v1/status", token="wrong-token-0000000000")
        if status != 401 or 'Bearer realm="vitrine"' not in headers.get("WWW-Authenticate", ""):
            raise TestFailure(f"a wrong token got {status} {headers.get('WWW-Authenticate')!r}, expected 401 with WWW-Authenticate")
        expected = body["error"]
        browser.type("#token", "wrong-token-0000000000")
        browser.click("#login")
        wait_until("the 401 message at #login-error", lambda: browser.text("#login-error") == expected)
        if browser.displayed("#app"):
            raise TestFailure("the console opened with a wrong token")
        step(f"a wrong token is refused at the login form: {expected!r}")

        browser.type("#token", TOKEN)
        browser.click("#login")
        wait_until("the console after signing in", lambda: browser.displayed("#app") and len(browser.find_all("#playlist li")) == 2)
        names = [browser.text(f'#playlist li[data-index="{i}"] .slide-name') for i in range(2)]
        if names != ["red.jpg", "blue.jpg"]:
            raise TestFailure(f"the playlist shows {names}, expected red.jpg, blue.jpg")
        wait_until("the status line", lambda: "of 2" in browser.text("#status"))
        wait_until("a preview picture", lambda: browser.script(PREVIEW_CENTRE))
        step(f"signed in: playlist red.jpg, blue.jpg; status {browser.text('#status')!r}")

        # Upload a picture through the file input.
        browser.type("#file-input", green_path, clear=False)
        wait_until("a third slide", lambda: len(browser.find_all("#playlist li")) == 3)
        wait_until("green.jpg in the playlist", lambda: browser.text('#playlist li[data-index="2"] .slide-name') == "green.jpg")
        if browser.text("#upload-error"):
            raise TestFailure(f"unexpected upload error: {browser.text('#upload-error')}")
        wait_until("the thumbnail of green.jpg", lambda: browser.script(
            "const i = document.querySelector('#playlist li[data-index=\"2\"] .thumb img'); return !!(i && i.complete && i.naturalWidth > 0);"))
        status, _, assets = api.json("GET", "/api/v1/assets")
        uploaded = [a for a in assets["assets"] if a["name"] == "green.jpg"]
        if status != 200 or not uploaded:
            raise TestFailure(f"GET /api/v1/assets does not list green.jpg: {status} {assets}")
        asset = uploaded[0]
        step(f"uploaded green.jpg through the file input: slide 3 with its thumbnail, {asset['ref'][:18]}…")

        # A file that is not a picture: the server's message is shown at the drop zone.
        with open(text_path, "rb") as f:
            status, _, body = api.json("POST", "/api/v1/assets?name=notes.txt", body=f.read(), headers={"Content-Type": "text/plain"})
        if status != 415:
            raise TestFailure(f"uploading a text file got {status}, expected 415")
        browser.type("#file-input", text_path, clear=False)
        wait_until("the 415 message at #upload-error", lambda: body["error"] in browser.text("#upload-error"))
        if len(browser.find_all("#playlist li")) != 3:
            raise TestFailure("a refused upload changed the playlist")
        step(f"a text file is refused at the drop zone: {browser.text('#upload-error')!r}")

        # Reorder with the up buttons, and change the interval.
        browser.click('#playlist li[data-index="2"] .move-up')
        browser.click('#playlist li[data-index="1"] .move-up')
        names = [browser.text(f'#playlist li[data-index="{i}"] .slide-name') for i in range(3)]
        if names != ["green.jpg", "red.jpg", "blue.jpg"]:
            raise TestFailure(f"after moving green.jpg up twice the playlist shows {names}")
        browser.type("#interval", "2s")
        step("moved green.jpg to the top with its up button; interval set to 2s")

        preview_before = browser.property("#preview", "src")
        browser.click("#save")
        wait_until("the save to finish", lambda: browser.text("#save-status").startswith("Saved"))
        if browser.text("#save-error"):
            raise TestFailure(f"unexpected save error: {browser.text('#save-error')}")
        step(f"saved: {browser.text('#save-status')!r}")

        status, headers, config = api.json("GET", "/api/v1/config")
        paths = [slide["path"] for slide in config["slides"]]
        if status != 200 or paths != [asset["ref"], "red.jpg", "blue.jpg"] or config["interval"] != "2s":
            raise TestFailure(f"GET /api/v1/config has slides {paths} and interval {config.get('interval')!r}")
        version = headers.get("ETag", "").strip('"')
        step(f"GET /api/v1/config has the new order and interval, version {version}")

        def screen_is_green():
            status, _, png = api.request("GET", "/api/v1/screenshot")
            if status != 200:
                raise TestFailure(f"GET /api/v1/screenshot answered {status}")
            colour = png_pixel(png, WIDTH // 2, HEIGHT // 2)
            return colour if close_to(colour, GREEN) else None
        colour = wait_until("the kiosk to show green.jpg", screen_is_green, timeout=15, interval=0.25)
        step(f"the kiosk switched: the screenshot's centre is {colour}")

        def preview_is_green():
            src = browser.property("#preview", "src")
            colour = browser.script(PREVIEW_CENTRE)
            return colour if src != preview_before and close_to(colour, GREEN) else None
        colour = wait_until("the page's preview to show green.jpg", preview_is_green, timeout=15, interval=0.25)
        step(f"the page's preview changed: its centre is {tuple(colour)}")

        def applied():
            status, _, body = api.json("GET", "/api/v1/status")
            return body if status == 200 and body["configVersion"] == version and body["slideCount"] == 3 else None
        wait_until(f"status to report version {version}", applied)
        wait_until("the configApplied event in the log", lambda: version in browser.text("#event-log"))
        step("GET /api/v1/status reports the new version; the event log shows it applied")
        browser.screenshot(SCREENSHOT)
        step(f"page screenshot: {SCREENSHOT}")

        # Pause and resume.
        browser.click("#pause")
        wait_until("a remote pause", lambda: api.json("GET", "/api/v1/status")[2]["pausedBecause"] == ["remote"])
        wait_until("the status line to say paused", lambda: "paused" in browser.text("#status"))
        browser.click("#resume")
        wait_until("resumed", lambda: api.json("GET", "/api/v1/status")[2]["playing"])
        if browser.text("#control-error"):
            raise TestFailure(f"unexpected control error: {browser.text('#control-error')}")
        step("pause and resume reach the kiosk")

        # An invalid duration: the 422's issue path is shown at the Save button.
        browser.type("#slide-duration-0", "0")
        browser.click("#save")
        wait_until("the 422 issue at #save-error", lambda: "slides[0].duration" in browser.text("#save-error"))
        step(f"an invalid duration is refused at Save: {browser.text('#save-error')!r}")
        browser.type("#slide-duration-0", "4s")

        # Someone else changes the configuration: Save answers 412 and offers a reload.
        config["interval"] = "7s"
        status, _, _ = api.json("PUT", "/api/v1/config", body=json.dumps(config).encode(),
                                headers={"Content-Type": "application/json", "If-Match": f'"{version}"'})
        if status != 200:
            raise TestFailure(f"PUT /api/v1/config through the API answered {status}")
        browser.click("#save")
        wait_until("the conflict message", lambda: "Someone else changed" in browser.text("#save-error"))
        browser.click("#conflict-reload")
        wait_until("the reloaded interval", lambda: browser.property("#interval", "value") == "7s")
        if browser.property("#slide-duration-0", "value") != "":
            raise TestFailure("the reload kept the unsaved duration")
        step("a concurrent change makes Save answer 412; the reload shows the other change")

        # The emergency override: no schedule, so its block is hidden; set a new picture, then clear it.
        if browser.displayed("#schedule-box"):
            raise TestFailure("the schedule block shows although the configuration has no schedule")
        if browser.displayed("#tv-box"):
            raise TestFailure("the TV block shows although this machine has no CEC adapter")
        if not browser.property("#override-clear", "disabled"):
            raise TestFailure("Clear is enabled with no override active")

        def screen_centre():
            status, _, png = api.request("GET", "/api/v1/screenshot")
            return png_pixel(png, WIDTH // 2, HEIGHT // 2) if status == 200 else None

        browser.type("#override-file", alert_path, clear=False)
        browser.type("#override-duration", "5m")
        browser.click("#override-set")
        wait_until("the override to be set", lambda: browser.text("#override-status").startswith("Override "))
        if browser.text("#override-error"):
            raise TestFailure(f"unexpected override error: {browser.text('#override-error')}")
        status, _, override = api.json("GET", "/api/v1/override")
        if status != 200 or len(override["slides"]) != 1 or not override["slides"][0]["path"].startswith("asset:"):
            raise TestFailure(f"GET /api/v1/override answered {status} {override}")
        colour = wait_until("the kiosk to show the override", lambda: close_to(screen_centre(), ORANGE) and screen_centre(),
                            timeout=10, interval=0.2)
        wait_until("the panel to show the active override",
                   lambda: override["id"] in browser.text("#override-active") and not browser.property("#override-clear", "disabled"))
        step(f"override {override['id']} set through the panel with a new picture: the screen's centre is {colour}; "
             f"the panel says {browser.text('#override-active')!r}")

        browser.click("#override-clear")
        wait_until("the override to end", lambda: api.json("GET", "/api/v1/override")[0] == 404)
        wait_until("the playlist back on screen", lambda: (lambda c: c is not None and not close_to(c, ORANGE))(screen_centre()), timeout=10)
        wait_until("the panel to say none is active", lambda: browser.text("#override-active") == "No override is active.")
        if api.json("GET", "/api/v1/status")[2]["override"] is not None:
            raise TestFailure("the status still reports an override after Clear")
        step("Clear ended it: GET /api/v1/override is 404, the status's override is null, the playlist is back")

        browser.script("const s = document.getElementById('override-asset'); s.value = arguments[0];", asset["ref"])
        browser.click("#override-set")
        wait_until("the override of an uploaded picture", lambda: api.json("GET", "/api/v1/override")[0] == 200)
        chosen = api.json("GET", "/api/v1/override")[2]
        if [slide["path"] for slide in chosen["slides"]] != [asset["ref"]]:
            raise TestFailure(f"the override of an uploaded picture shows {chosen['slides']}")
        browser.click("#override-clear")
        wait_until("the second override to end", lambda: api.json("GET", "/api/v1/override")[0] == 404)
        step("an already uploaded picture can be chosen for the override, and cleared again")

        # A picture the decoding helpers refuse: its first half, whose headers a push reads
        # as a JPEG's and whose decode stops short. The status and the console list it with
        # the reason; the operator replaces the file and asks for it to be tried again.
        damaged_path = os.path.join(work, "damaged.jpg")
        whole = solid_jpeg(640, 480, ORANGE)
        with open(damaged_path, "wb") as f:
            f.write(whole[:len(whole) // 2])
        status, _, answer = api.request("PUT", "/api/v1/config", body=json.dumps({
            "slides": ["red.jpg", "damaged.jpg"], "interval": "2s"}).encode(), headers={"Content-Type": "application/json"})
        if status != 200:
            raise TestFailure(f"the push naming damaged.jpg answered {status}: {answer.decode(errors='replace')}")

        def refused_listed():
            refused = api.json("GET", "/api/v1/status")[2].get("refusedPictures") or []
            return [p for p in refused if p["file"].endswith("damaged.jpg")]
        wait_until("damaged.jpg in the status's refused pictures", refused_listed, timeout=20)
        reason = refused_listed()[0]["reason"]
        wait_until("the console's list of refused pictures", lambda: browser.displayed("#refused-pictures-box")
                   and "damaged.jpg" in browser.text("#refused-pictures"), timeout=15)
        listed = browser.text("#refused-pictures")
        if reason not in listed:
            raise TestFailure(f"the console lists {listed!r}, not the reason {reason!r}")
        step(f"a damaged picture is listed in the status and the console with its reason: {listed!r}")

        with open(damaged_path, "wb") as f:
            f.write(whole)
        # Found and clicked in one script: the list is drawn again at each status refresh.
        browser.script("""
            const item = [...document.querySelectorAll('#refused-pictures li')].find((li) => li.textContent.includes('damaged.jpg'));
            item.querySelector('button').click();""")
        wait_until("the retried picture to decode and leave the list", lambda: not refused_listed(), timeout=20)
        wait_until("the console's list to empty", lambda: not browser.displayed("#refused-pictures-box"), timeout=15)
        if browser.text("#refused-pictures-error"):
            raise TestFailure(f"the retry answered {browser.text('#refused-pictures-error')!r}")
        step("replaced and tried again from the console: it decoded, and the list is empty again")

        # Several output groups: a headless kiosk has one, so the page's fetch answers
        # GET /api/v1/outputs with two groups made from the real one (HDMI-A-1, and DSI-1
        # driving DSI-2 too), records each request's output= and sends it on without it.
        browser.script(OUTPUTS_STUB)
        wait_until("a panel per output group", lambda: not browser.displayed("#single-screen")
                   and browser.displayed("#output-panels") and len(browser.find_all(".output-panel")) == 2)
        # textContent: the headings' style writes them in capitals.
        names = browser.script("return [...document.querySelectorAll('.output-panel .output-name')].map((h) => h.textContent);")
        if names != ["HDMI-A-1", "DSI-1 (with DSI-2)"]:
            raise TestFailure(f"the output panels are named {names}")
        wait_until("both panels' screenshots", lambda: browser.script(
            "const i = [...document.querySelectorAll('.output-preview')];"
            " return i.length === 2 && i.every((x) => x.complete && x.naturalWidth > 0);"))
        wait_until("each panel's status", lambda: all(
            "screen on" in browser.text(f".output-panel:nth-child({i}) .output-status") for i in (1, 2)))
        requested = browser.script("return window.vitrineOutputRequests;")
        for wanted in ("GET /api/v1/screenshot?output=HDMI-A-1", "GET /api/v1/screenshot?output=DSI-1"):
            if wanted not in requested:
                raise TestFailure(f"the panels asked for {sorted(set(requested))}, not {wanted}")
        browser.click('.output-panel[data-output="DSI-1"] button[data-command="pause"]')
        wait_until("DSI-1's pause", lambda: "POST /api/v1/control?output=DSI-1" in browser.script("return window.vitrineOutputRequests;"))
        wait_until("the kiosk paused", lambda: "remote" in api.json("GET", "/api/v1/status")[2]["pausedBecause"])
        browser.click('.output-panel[data-output="DSI-1"] button[data-command="resume"]')
        wait_until("the kiosk resumed", lambda: "remote" not in api.json("GET", "/api/v1/status")[2]["pausedBecause"])
        if any("output=HDMI-A-1" in r for r in browser.script("return window.vitrineOutputRequests;") if r.startswith("POST")):
            raise TestFailure("a command on DSI-1's panel was sent for HDMI-A-1")
        # The override's output choice: every output, or one of them (the stub sends it on without output=).
        if not browser.displayed("#override-output"):
            raise TestFailure("with two output groups the override form has no output choice")
        choices = browser.script("return [...document.querySelectorAll('#override-output option')].map((o) => o.value);")
        if choices != ["", "HDMI-A-1", "DSI-1"]:
            raise TestFailure(f"the override's output choices are {choices}")
        browser.script("const s = document.getElementById('override-output'); s.value = 'DSI-1';"
                       " document.getElementById('override-asset').value = arguments[0];", asset["ref"])
        browser.click("#override-set")
        wait_until("the override asked for DSI-1", lambda: "POST /api/v1/override?output=DSI-1" in browser.script("return window.vitrineOutputRequests;"))
        wait_until("the override stored", lambda: api.json("GET", "/api/v1/override")[0] == 200)
        wait_until("Clear enabled for DSI-1", lambda: not browser.property("#override-clear", "disabled"))
        browser.click("#override-clear")
        wait_until("the clear asked for DSI-1", lambda: "DELETE /api/v1/override?output=DSI-1" in browser.script("return window.vitrineOutputRequests;"))
        wait_until("the override ended", lambda: api.json("GET", "/api/v1/override")[0] == 404)
        browser.script("document.getElementById('override-output').value = '';")
        step("the override form offers every output, HDMI-A-1 or DSI-1; set and Clear on DSI-1 asked for output=DSI-1")
        browser.screenshot(OUTPUTS_SCREENSHOT)
        step(f"two output groups: a panel each ({', '.join(names)}), each with its own screenshot and status; "
             f"DSI-1's Pause and Resume asked for output=DSI-1 alone; page screenshot: {OUTPUTS_SCREENSHOT}")
        browser.script("window.fetch = window.vitrineRealFetch;")
        wait_until("one screen again", lambda: browser.displayed("#single-screen") and not browser.displayed("#output-panels")
                   and not browser.displayed("#override-output"))
        step("one output group again: the single screen is back")

        browser.resize(420, 900)
        time.sleep(0.5)
        browser.screenshot(NARROW_SCREENSHOT)
        step(f"narrow page screenshot: {NARROW_SCREENSHOT}")

        # The console ran the whole way under its Content-Security-Policy without breaking it.
        _, headers, _ = api.request("GET", "/", token=None)
        policy = headers.get("Content-Security-Policy", "")
        for needed in ("default-src 'none'", "script-src 'self'", "frame-ancestors 'none'"):
            if needed not in policy:
                raise TestFailure(f"the console's Content-Security-Policy lacks {needed}: {policy!r}")
        if headers.get("X-Content-Type-Options") != "nosniff":
            raise TestFailure(f"X-Content-Type-Options is {headers.get('X-Content-Type-Options')!r}")
        violations = [message for message in browser.console_messages() if "Content Security Policy" in message]
        if violations:
            raise TestFailure(f"the console broke its Content-Security-Policy: {violations[:3]}")
        step(f"the console sends a strict Content-Security-Policy ({policy}) and nosniff, and broke neither")
    finally:
        if browser:
            browser.quit()
        driver.terminate()
        kiosk.send_signal(signal.SIGTERM)
        try:
            kiosk.wait(timeout=10)
        except subprocess.TimeoutExpired:
            kiosk.kill()
        driver.wait(timeout=10)
        kiosk_log.close()


def main():
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("binary", nargs="?", default=os.path.join(REPO, ".build", "debug", "vitrine"))
    parser.add_argument("--keep", action="store_true", help="keep the temporary directory (config, state, kiosk.log)")
    arguments = parser.parse_args()
    binary = os.path.abspath(arguments.binary)
    if not os.access(binary, os.X_OK):
        print(f"FAIL: no kiosk binary at {binary} (swift build first)", file=sys.stderr)
        return 1
    subprocess.run([os.path.join(REPO, "deploy", "dev", "ensure-packages.sh"), "chromium", "chromium-driver"], check=True)
    work = tempfile.mkdtemp(prefix="vitrine-console-")
    try:
        run(binary, work)
    except (TestFailure, WebDriverError) as error:
        print(f"FAIL: {error}", file=sys.stderr)
        log = os.path.join(work, "kiosk.log")
        if os.path.exists(log):
            print("kiosk log (end):\n" + open(log).read()[-3000:], file=sys.stderr)
        return 1
    finally:
        if arguments.keep:
            print(f"kept {work}")
        else:
            shutil.rmtree(work, ignore_errors=True)
    print("PASS: the console works end to end")
    return 0


if __name__ == "__main__":
    sys.exit(main())
