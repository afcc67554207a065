#!/usr/bin/env python3
"""Downloads Debian binary packages for the arm64 sysroot, each checked the way
apt checks it, without apt (the host is amd64, and the sysroot is only
unpacked, never installed):

    fetch-debs.py --suite SUITE --arch ARCH --cache DIR [--mirror URL] [--keyring FILE]
                  [--version NAME=VERSION ...] NAME...

1. dists/SUITE/InRelease, its signature checked with gpgv against Debian's
   archive keyring (debian-archive-keyring);
2. main/binary-ARCH/Packages.xz, its SHA256 checked against the one InRelease lists;
3. each named package's .deb, its SHA256 checked against the one the Packages
   index gives. A .deb already in DIR is checked again and not downloaded again.

The Valid-Until date of InRelease is not enforced (a mirror may serve a frozen
snapshot); the signature and every hash are. Prints one line per package:
NAME VERSION PATH. --version NAME=VERSION asks for that exact version (the
sysroot's swiftlang:arm64 must be the chroot's swiftlang); it fails if the
index does not have it.
"""
import argparse
import hashlib
import lzma
import os
import subprocess
import sys
import tempfile
import urllib.request


def fetch(url):
    with urllib.request.urlopen(url, timeout=120) as response:
        return response.read()


def sha256(data):
    return hashlib.sha256(data).hexdigest()


def stanzas(text):
    """Deb822 paragraphs as dicts (continuation lines joined with newlines)."""
    for block in text.split("\n\n"):
        fields, key = {}, None
        for line in block.splitlines():
            if line.startswith((" ", "\t")) and key:
                fields[key] += "\n" + line.strip()
            elif ":" in line:
                key, value = line.split(":", 1)
                fields[key] = value.strip()
        if fields:
            yield fields


def verified_release(mirror, suite, keyring):
    data = fetch(f"{mirror}/dists/{suite}/InRelease")
    with tempfile.NamedTemporaryFile() as signed, tempfile.NamedTemporaryFile() as plain:
        signed.write(data)
        signed.flush()
        check = subprocess.run(["gpgv", "--keyring", keyring, "--output", plain.name, signed.name],
                               stdout=subprocess.DEVNULL, stderr=subprocess.PIPE)
        if check.returncode != 0:
            sys.exit(f"fetch-debs.py: the signature of {suite}'s InRelease does not verify:\n{check.stderr.decode()}")
        # gpgv --output writes only the signed text: nothing outside the signature is read.
        return open(plain.name, encoding="utf-8").read()


def packages_index(mirror, suite, arch, release):
    path = f"main/binary-{arch}/Packages.xz"
    fields = next(stanzas(release))
    expected = None
    for line in fields.get("SHA256", "").splitlines():
        parts = line.split()
        if len(parts) == 3 and parts[2] == path:
            expected = parts[0]
    if expected is None:
        sys.exit(f"fetch-debs.py: {suite}'s InRelease lists no {path}")
    data = fetch(f"{mirror}/dists/{suite}/{path}")
    if sha256(data) != expected:
        sys.exit(f"fetch-debs.py: {path} of {suite} does not match the SHA256 in InRelease")
    return lzma.decompress(data).decode("utf-8"), fields.get("Date", "?")


def main():
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--mirror", default="http://deb.debian.org/debian")
    parser.add_argument("--suite", required=True)
    parser.add_argument("--arch", required=True)
    parser.add_argument("--cache", required=True)
    parser.add_argument("--keyring", default="/usr/share/keyrings/debian-archive-keyring.gpg")
    parser.add_argument("--version", action="append", default=[], help="NAME=VERSION")
    parser.add_argument("names", nargs="+")
    args = parser.parse_args()
    mirror = args.mirror.rstrip("/")
    wanted_versions = dict(item.split("=", 1) for item in args.version)

    release = verified_release(mirror, args.suite, args.keyring)
    index, date = packages_index(mirror, args.suite, args.arch, release)
    print(f"# {args.suite} {args.arch}: InRelease of {date}, signature and index hash checked", file=sys.stderr)
    candidates = {}
    for fields in stanzas(index):
        name = fields.get("Package")
        if name in args.names:
            candidates.setdefault(name, []).append(fields)
    os.makedirs(args.cache, exist_ok=True)
    for name in args.names:
        found = candidates.get(name, [])
        if name in wanted_versions:
            found = [f for f in found if f["Version"] == wanted_versions[name]]
        if not found:
            want = f" {wanted_versions[name]}" if name in wanted_versions else ""
            sys.exit(f"fetch-debs.py: {args.suite}/{args.arch} has no package {name}{want}")
        if len(found) > 1:
            # An index lists one version per package; if not, the newest by dpkg's order.
            found.sort(key=lambda f: f["Version"])
            for f in found[1:]:
                if subprocess.run(["dpkg", "--compare-versions", f["Version"], "gt", found[0]["Version"]]).returncode == 0:
                    found[0] = f
        fields = found[0]
        target = os.path.join(args.cache, os.path.basename(fields["Filename"]))
        data = open(target, "rb").read() if os.path.exists(target) else None
        if data is None or sha256(data) != fields["SHA256"]:
            data = fetch(f"{mirror}/{fields['Filename']}")
            if sha256(data) != fields["SHA256"]:
                sys.exit(f"fetch-debs.py: {fields['Filename']} does not match the SHA256 in the Packages index")
            with open(target + ".partial", "wb") as f:
                f.write(data)
            os.replace(target + ".partial", target)
        print(name, fields["Version"], target)


if __name__ == "__main__":
    main()
