"""Shared by fleet_test.py and fleet_bench.py: an nginx origin serving a channel
directory on loopback, many headless kiosks following it (each a process of its
own, with its own state directory and API port), solid-colour test pictures,
and the checks "this kiosk shows that version".

Python 3 standard library only. The pictures are written as PPM and encoded by
cjpeg (libjpeg-turbo-progs, one of the test packages); screenshots are PNGs,
decoded here.
"""
import concurrent.futures
import datetime
import json
import os
import random
import re
import shutil
import signal
import socket
import subprocess
import sys
import time
import urllib.error
import urllib.request

sys.path.insert(0, os.path.join(os.path.dirname(os.path.abspath(__file__)), "..", "Support"))
import png_pixels  # noqa: E402

ROOT = os.path.dirname(os.path.dirname(os.path.dirname(os.path.abspath(__file__))))

# Solid colours, one per version: far enough apart that a JPEG's rounding never confuses them.
COLOURS = {
    "red": (220, 30, 30), "green": (30, 200, 40), "blue": (30, 40, 220), "yellow": (230, 220, 30),
    "magenta": (210, 30, 210), "cyan": (30, 210, 210), "white": (240, 240, 240), "orange": (240, 130, 20),
    "purple": (110, 30, 160), "grey": (120, 120, 120), "pink": (250, 150, 190), "teal": (0, 120, 120),
    "olive": (120, 120, 0), "navy": (10, 10, 110), "maroon": (120, 10, 10), "lime": (150, 250, 50),
}
TOLERANCE = 24


class FleetFailure(Exception):
    pass


def log(message):
    print(f"[{time.strftime('%H:%M:%S')}] {message}", flush=True)


def free_port():
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        return s.getsockname()[1]


def free_ports(count):
    """Distinct free ports (held open together while choosing, so no duplicates)."""
    sockets, ports = [], []
    try:
        for _ in range(count):
            s = socket.socket()
            s.bind(("127.0.0.1", 0))
            sockets.append(s)
            ports.append(s.getsockname()[1])
    finally:
        for s in sockets:
            s.close()
    return ports


def run(argv, **kwargs):
    result = subprocess.run(argv, capture_output=True, text=True, **kwargs)
    if result.returncode != 0:
        raise FleetFailure(f"{' '.join(argv)} exited with {result.returncode}:\n{result.stdout}{result.stderr}")
    return result.stdout


# Pictures ------------------------------------------------------------------------------------

def write_jpeg(path, width, height, pixels, quality=92):
    ppm = path + ".ppm"
    with open(ppm, "wb") as f:
        f.write(b"P6 %d %d 255\n" % (width, height) + pixels)
    with open(path, "wb") as out:
        subprocess.run(["cjpeg", "-quality", str(quality), ppm], stdout=out, check=True)
    os.remove(ppm)
    return path


def solid_jpeg(directory, name):
    """A 64x48 JPEG of one colour (4:3, so it fills a 320x240 screen)."""
    return write_jpeg(os.path.join(directory, f"{name}.jpg"), 64, 48, bytes(COLOURS[name]) * (64 * 48))


def large_jpeg(directory, name, width=960, height=720):
    """A JPEG of random noise (so it does not compress: several hundred KiB) with a solid centre
    of the colour `name`, a third of each side, so the screenshot's centre pixel names it."""
    rng = random.Random(name)
    row_noise = [bytes(rng.getrandbits(8) for _ in range(width * 3)) for _ in range(32)]
    colour = bytes(COLOURS[name])
    rows = []
    for y in range(height):
        row = bytearray(row_noise[(y * 7) % len(row_noise)])
        if height // 3 <= y < 2 * height // 3:
            row[width // 3 * 3:2 * width // 3 * 3] = colour * (2 * width // 3 - width // 3)
        rows.append(bytes(row))
    return write_jpeg(os.path.join(directory, f"{name}-large.jpg"), width, height, b"".join(rows), quality=90)


def png_centre(data):
    """The (r, g, b) of the centre pixel of an 8-bit RGB or RGBA PNG."""
    try:
        return png_pixels.png_pixel(data)
    except ValueError as error:
        raise FleetFailure(str(error))


def colour_name(rgb):
    """The name of the test colour `rgb` is, or a description of it."""
    for name, reference in COLOURS.items():
        if all(abs(a - b) <= TOLERANCE for a, b in zip(rgb, reference)):
            return name
    return "rgb(%d,%d,%d)" % tuple(rgb)


def parse_time(text):
    """RFC 3339 (Z or an offset, with any fraction) to Unix seconds."""
    match = re.match(r"(\d{4}-\d\d-\d\dT\d\d:\d\d:\d\d)(\.\d+)?(Z|[+-]\d\d:\d\d)$", text)
    if not match:
        raise FleetFailure(f"not an RFC 3339 time: {text}")
    zone = "+00:00" if match.group(3) == "Z" else match.group(3)
    base = datetime.datetime.fromisoformat(match.group(1) + zone).timestamp()
    return base + (float(match.group(2)) if match.group(2) else 0.0)


def rfc3339(seconds):
    return datetime.datetime.fromtimestamp(seconds, datetime.timezone.utc).strftime("%Y-%m-%dT%H:%M:%SZ")


# The origin ----------------------------------------------------------------------------------

class Origin:
    """Debian's nginx as an unprivileged foreground process with its own nginx.conf, pid file,
    logs and temporary directories in WORK/nginx (run as nobody when the test runs as root; no
    system service): one server on `port`, and one on `slow_port` whose responses are limited
    to `slow_rate` bytes per second (to keep a download in flight). Both serve the channel
    directory; a leading /kNN/ in the path names the kiosk (stripped by a rewrite), so the
    access log tells the kiosks apart although they all come from 127.0.0.1."""

    def __init__(self, work, channel, slow_rate=65536):
        self.work, self.channel, self.slow_rate = work, channel, slow_rate
        self.port, self.slow_port = free_ports(2)
        self.dir = os.path.join(work, "nginx")
        self.access_log = os.path.join(self.dir, "access.log")
        self.error_log = os.path.join(self.dir, "error.log")
        self.process = None
        temp = os.path.join(self.dir, "temp")
        os.makedirs(temp, exist_ok=True)
        self.user = None
        if os.geteuid() == 0:
            # Drop root: nginx runs as nobody, and writes only in its own directory.
            self.user = ("nobody", "nogroup")
            for path in (self.dir, temp):
                shutil.chown(path, *self.user)
        server = """
    server {{
        listen 127.0.0.1:{port};
        root {root};
        rewrite ^/k[0-9]+/(.*)$ /$1 break;
        etag on;
        location ~ ^/channel\\.json(\\.sig)?$ {{ add_header Cache-Control "no-cache"; }}
        location /blobs/ {{ add_header Cache-Control "public, max-age=31536000, immutable"; }}
        {extra}
    }}"""
        with open(os.path.join(self.dir, "nginx.conf"), "w") as f:
            f.write(f"""daemon off;
worker_processes 1;
pid {self.dir}/nginx.pid;
error_log {self.error_log};
events {{ worker_connections 4096; }}
http {{
    default_type application/octet-stream;
    log_format fleet '$msec $status "$request" $bytes_sent $request_length';
    access_log {self.access_log} fleet;
    keepalive_requests 100000;
    client_body_temp_path {temp}; proxy_temp_path {temp}; fastcgi_temp_path {temp};
    uwsgi_temp_path {temp}; scgi_temp_path {temp};
""" + server.format(port=self.port, root=channel, extra="")
                    + server.format(port=self.slow_port, root=channel, extra=f"limit_rate {slow_rate};") + "\n}\n")

    def url(self, kiosk_index, slow=False):
        return f"http://127.0.0.1:{self.slow_port if slow else self.port}/k{kiosk_index:02d}/"

    def start(self):
        err = open(os.path.join(self.work, "nginx-stderr.log"), "ab")
        nginx = shutil.which("nginx") or "/usr/sbin/nginx"
        extra = {"user": self.user[0], "group": self.user[1], "extra_groups": []} if self.user else {}
        self.process = subprocess.Popen([nginx, "-p", self.dir, "-c", os.path.join(self.dir, "nginx.conf"),
                                         "-e", self.error_log],
                                        stdout=err, stderr=err, start_new_session=True, **extra)
        deadline = time.time() + 10
        while time.time() < deadline:
            try:
                with socket.create_connection(("127.0.0.1", self.port), timeout=0.5):
                    pass
                with socket.create_connection(("127.0.0.1", self.slow_port), timeout=0.5):
                    return
            except OSError:
                if self.process.poll() is not None:
                    raise FleetFailure(f"nginx exited with {self.process.returncode}; see {self.error_log} and {self.work}/nginx-stderr.log")
                time.sleep(0.05)
        raise FleetFailure("nginx did not listen within 10 s")

    def stop(self):
        if self.process and self.process.poll() is None:
            self.process.terminate()  # SIGTERM: nginx's fast shutdown, workers included
            try:
                self.process.wait(timeout=10)
            except subprocess.TimeoutExpired:
                os.killpg(self.process.pid, signal.SIGKILL)
                self.process.wait()
        self.process = None

    def log_size(self):
        try:
            return os.path.getsize(self.access_log)
        except FileNotFoundError:
            return 0

    def entries(self, since=0):
        """Access-log entries from byte offset `since`: dicts with at, status, method, kiosk, path,
        bytes (sent, headers included) and received (the request's length)."""
        out = []
        try:
            with open(self.access_log, "rb") as f:
                f.seek(since)
                text = f.read().decode("utf-8", "replace")
        except FileNotFoundError:
            return out
        for line in text.splitlines():
            match = re.match(r'(\S+) (\d+) "(\S+) (\S+)[^"]*" (\d+)(?: (\d+))?$', line)
            if not match:
                continue
            path = match.group(4)
            kiosk = re.match(r"/k(\d+)(/.*)$", path)
            out.append({"at": float(match.group(1)), "status": int(match.group(2)), "method": match.group(3),
                        "kiosk": int(kiosk.group(1)) if kiosk else None, "path": kiosk.group(2) if kiosk else path,
                        "bytes": int(match.group(5)), "received": int(match.group(6) or 0)})
        return out


# The channel ---------------------------------------------------------------------------------

class Channel:
    """The publisher's side: the channel directory, a trusted key made with `vitrine channel
    keygen`, and one solid-colour picture per name."""

    def __init__(self, binary, work):
        self.binary, self.work = binary, work
        self.dir = os.path.join(work, "channel")
        self.pictures = os.path.join(work, "pictures")
        os.makedirs(self.pictures, exist_ok=True)
        self.public = os.path.join(work, "fleet.pub")
        self.secret = os.path.join(work, "fleet.sec")
        run([binary, "channel", "keygen", "--public", self.public, "--secret", self.secret, "--comment", "fleet test"])
        self.colours = {}  # version -> colour name
        self.last_touch = 0.0

    def picture(self, name, large=False):
        path = os.path.join(self.pictures, f"{name}-large.jpg" if large else f"{name}.jpg")
        if not os.path.exists(path):
            (large_jpeg if large else solid_jpeg)(self.pictures, name)
        return path

    def config_file(self, name, extra=""):
        path = os.path.join(self.work, f"publish-{name}.yaml")
        with open(path, "w") as f:
            f.write(f"slides: [{name}]\ninterval: 1s\n{extra}")
        return path

    def publish(self, colour, large=False, key=None, extra="", expires="7d", directory=None, arguments=()):
        """Publishes one slide of `colour`; returns (version, the instant the command returned)."""
        picture = self.picture(colour, large)
        config = self.config_file(os.path.basename(picture), extra)
        shutil.copy(picture, os.path.join(self.work, os.path.basename(picture)))
        out = run([self.binary, "channel", "publish", "--config", config, "--dir", directory or self.dir,
                   "--key", key or self.secret, "--expires", expires, *arguments])
        published = time.time()
        version = int(re.search(r"version (\d+)", out).group(1))
        if directory is None:
            self.colours[version] = colour
            self.touch()
        return version, published

    def manifest(self):
        with open(os.path.join(self.dir, "channel.json"), "rb") as f:
            return f.read()

    def current_version(self):
        return json.loads(self.manifest())["version"]

    def publish_synced(self, names, interval):
        """Publishes one picture of each colour in `names`, every `interval` seconds, cut, with
        `sync: true` and an epoch an hour back; returns (version, epoch, the blobs of its slides)."""
        pictures = [self.picture(name) for name in names]
        for picture in pictures:
            shutil.copy(picture, self.work)
        config = os.path.join(self.work, "publish-sync.yaml")
        with open(config, "w") as f:
            f.write(f"slides: [{', '.join(os.path.basename(p) for p in pictures)}]\ninterval: {interval:g}s\nsync: true\n"
                    f"transition: {{type: cut}}\n")
        epoch = rfc3339(int(time.time()) - 3600)
        out = run([self.binary, "channel", "publish", "--config", config, "--dir", self.dir,
                   "--key", self.secret, "--expires", "7d", "--epoch", epoch])
        self.touch()
        version = int(out.split("version ")[1].split()[0])
        blobs = {slide["path"].split(":", 1)[1] for slide in json.loads(self.manifest())["configuration"]["slides"]}
        return version, epoch, blobs

    def save(self):
        """The manifest and signature as served now, to put back (or replay) later."""
        files = {}
        for name in ("channel.json", "channel.json.sig"):
            with open(os.path.join(self.dir, name), "rb") as f:
                files[name] = f.read()
        return files

    def install(self, files):
        """Puts a manifest and signature in place as the publisher does: each written to a
        temporary name and renamed, the manifest first."""
        for name in ("channel.json", "channel.json.sig"):
            if name not in files:
                continue
            temporary = os.path.join(self.dir, f".{name}.fleet-test")
            with open(temporary, "wb") as f:
                f.write(files[name])
            os.chmod(temporary, 0o644)
            os.replace(temporary, os.path.join(self.dir, name))
        self.touch()

    def touch(self):
        """Gives the manifest and signature a modification time later than any before, by whole
        seconds. nginx's ETag is the modification time in seconds and the size: two manifests of
        the same size written in the same second (a publish and a restore, say) would share
        one, and a kiosk that fetched the first would be told 304 for the second."""
        instant = max(time.time(), self.last_touch + 1.0)
        for name in ("channel.json", "channel.json.sig"):
            os.utime(os.path.join(self.dir, name), (instant, instant))
        self.last_touch = instant


# Kiosks --------------------------------------------------------------------------------------

class Kiosk:
    def __init__(self, binary, work, index, origin, key, poll, jitter, slow=False, allow_local_push=False, timeout="10s"):
        self.binary, self.index = binary, index
        self.dir = os.path.join(work, f"k{index:02d}")
        self.state = os.path.join(self.dir, "state")
        os.makedirs(self.dir, exist_ok=True)
        self.port = None
        self.process = None
        self.token = None
        self.config = os.path.join(self.dir, "vitrine.yaml")
        self.log_path = os.path.join(self.dir, "kiosk.log")
        self.settings = (origin.url(index, slow), key, poll, jitter, allow_local_push, timeout)

    def write_config(self):
        url, key, poll, jitter, allow, timeout = self.settings
        with open(self.config, "w") as f:
            f.write(f"slides: []\noutput: {{width: 320, height: 240}}\n"
                    # The origin is nginx on loopback, which the outbound policy refuses unless allowed.
                    f"api: {{listen: \"127.0.0.1:{self.port}\", allowAddresses: [loopback]}}\n"
                    f"channel:\n  url: \"{url}\"\n  keys: [\"{key}\"]\n  poll: {poll}\n  jitter: {jitter}\n"
                    f"  timeout: {timeout}\n  group: fleet\n  device: k{self.index:02d}\n"
                    f"  allowLocalPush: {'true' if allow else 'false'}\n"
                    # Uploads (to the URL the channel names) every 2 s rather than every minute.
                    f"plays: {{interval: 2s}}\n")

    def launch(self):
        if self.port is None:
            self.port = free_port()
            self.write_config()
        out = open(self.log_path, "ab")
        self.process = subprocess.Popen([self.binary, "run", "--config", self.config, "--state-dir", self.state,
                                         "--display", "headless", "--preview", "off"],
                                        stdout=out, stderr=out, start_new_session=True)

    def wait_healthy(self, timeout=60):
        deadline = time.time() + timeout
        while time.time() < deadline:
            try:
                with urllib.request.urlopen(f"http://127.0.0.1:{self.port}/healthz", timeout=1) as response:
                    if response.status == 200:
                        with open(os.path.join(self.state, "api-token")) as f:
                            self.token = f.read().strip()
                        return
            except OSError:
                pass
            if self.process.poll() is not None:
                raise FleetFailure(f"kiosk {self.index} exited with {self.process.returncode}; see {self.log_path}")
            time.sleep(0.1)
        raise FleetFailure(f"kiosk {self.index} did not become healthy within {timeout} s; see {self.log_path}")

    def kill(self):
        os.kill(self.process.pid, signal.SIGKILL)
        self.process.wait()

    def stop(self):
        if self.process and self.process.poll() is None:
            self.process.terminate()
            try:
                self.process.wait(timeout=15)
            except subprocess.TimeoutExpired:
                self.process.kill()
                self.process.wait()

    def request(self, path, timeout=10):
        req = urllib.request.Request(f"http://127.0.0.1:{self.port}{path}")
        req.add_header("Authorization", f"Bearer {self.token}")
        try:
            with urllib.request.urlopen(req, timeout=timeout) as response:
                return response.status, response.read()
        except urllib.error.HTTPError as error:
            return error.code, error.read()

    def status(self):
        code, body = self.request("/api/v1/status")
        if code != 200:
            raise FleetFailure(f"kiosk {self.index}: GET /api/v1/status answered {code}")
        return json.loads(body)

    def colour(self):
        code, body = self.request("/api/v1/screenshot")
        if code != 200:
            raise FleetFailure(f"kiosk {self.index}: GET /api/v1/screenshot answered {code}")
        return colour_name(png_centre(body))

    def metric(self, name, labels=""):
        code, body = self.request("/metrics")
        pattern = re.escape(name + (("{" + labels + "}") if labels else "")) + r" (\S+)$"
        for line in body.decode().splitlines():
            match = re.match(pattern, line)
            if match:
                return float(match.group(1))
        return None

    def applied_instant(self, config_version, after=0.0):
        """When the display switched to configuration `config_version` (the kiosk's log line
        "configuration ID applied", to the millisecond), the last time at or after `after`."""
        found = None
        with open(self.log_path, "rb") as f:
            for line in f.read().decode("utf-8", "replace").splitlines():
                match = re.match(r"(\S+Z) \S+ vitrine: configuration (\w+) applied", line)
                if match and match.group(2) == config_version:
                    at = parse_time(match.group(1))
                    if at >= after - 0.001:
                        found = at
        return found


class Fleet:
    def __init__(self, kiosks, threads=16):
        self.kiosks = kiosks
        self.pool = concurrent.futures.ThreadPoolExecutor(threads)

    def each(self, function, kiosks=None):
        """function(kiosk) for every kiosk, in parallel; the results in order."""
        return list(self.pool.map(function, kiosks or self.kiosks))

    def start(self):
        fresh = [k for k in self.kiosks if k.port is None]
        for kiosk, port in zip(fresh, free_ports(len(fresh))):
            kiosk.port = port
            kiosk.write_config()
        for kiosk in self.kiosks:
            kiosk.launch()
        self.each(lambda k: k.wait_healthy())

    def stop(self):
        self.each(lambda k: k.stop())
        self.pool.shutdown()


def synced_window(interval, count, rotations):
    """Waits out a window of `rotations` whole rotations of `count` slides every `interval` s,
    starting two rotations from now (a kiosk that applied the version mid-slide rejoins its group
    at a later change), and one more interval (a play is listed once it has ended); returns
    (since, until). Its ends lie half-way between slide changes, so no change straddles them."""
    cycle = interval * count
    since = (int((time.time() + 2 * cycle) / interval) + 0.5) * interval
    until = since + rotations * cycle
    time.sleep(until - time.time() + interval + 0.5)
    return since, until


def slide_changes(fleet, group, blobs, interval, since, until):
    """The slide changes in [since, until) of a synced group, from each kiosk's plays log (the
    `start` of each play of one of `blobs`): {step: {kiosk index: instant}}, a step being the
    change's scheduled instant divided by `interval`."""
    def starts(kiosk):
        code, body = kiosk.request(f"/api/v1/plays?since={rfc3339(int(since) - 1)}&limit=1000")
        if code != 200:
            raise FleetFailure(f"k{kiosk.index:02d}: GET /api/v1/plays answered {code}")
        document = json.loads(body)
        plays = document["plays"] if isinstance(document, dict) else document
        return [parse_time(p["start"]) for p in plays
                if p.get("sha256") in blobs and since <= parse_time(p["start"]) < until]

    changes = {}
    for kiosk, instants in zip(group, fleet.each(starts, group)):
        for instant in instants:
            changes.setdefault(round(instant / interval), {})[kiosk.index] = instant
    return changes


def shows(kiosk, version, colour):
    """(True, detail) when the kiosk reports channel `version` applied and its screen's centre is `colour`."""
    status = kiosk.status()
    applied = (status.get("channel") or {}).get("version")
    if applied != version:
        return False, f"channel version {applied}"
    seen = kiosk.colour()
    if seen != colour:
        return False, f"version {applied} but the screen shows {seen}"
    return True, status


def wait_until_shown(fleet, version, colour, timeout, kiosks=None):
    """Waits until every kiosk shows `version` in `colour`; returns {index: configVersion}.
    Raises naming the kiosks that did not and what they show."""
    kiosks = kiosks or fleet.kiosks
    remaining = {k.index: k for k in kiosks}
    config_versions = {}
    deadline = time.time() + timeout
    last = {}
    while remaining and time.time() < deadline:
        results = fleet.each(lambda k: (k, shows(k, version, colour)), list(remaining.values()))
        for kiosk, (ok, detail) in results:
            if ok:
                config_versions[kiosk.index] = detail["configVersion"]
                del remaining[kiosk.index]
            else:
                last[kiosk.index] = detail
        if remaining:
            time.sleep(0.2)
    if remaining:
        raise FleetFailure(f"not showing version {version} ({colour}) within {timeout:.0f} s: "
                           + ", ".join(f"k{i:02d}: {last.get(i)}" for i in sorted(remaining)))
    return config_versions


def percentile(values, fraction):
    """Nearest-rank percentile."""
    ordered = sorted(values)
    rank = max(1, int(-(-fraction * len(ordered) // 1)))
    return ordered[min(rank, len(ordered)) - 1]
