#!/usr/bin/env python3
"""Writes the Raspberry Pi Imager repository entry for an image of
build-pi-image.sh: an `os_list` JSON document (Imager's repository format,
as in https://downloads.raspberrypi.com/os_list_imagingutility_v4.json), to
serve beside the image and open with `rpi-imager --repo URL`.

    imager-os-list.py --image IMG --compressed IMG.xz --version V --url URL

The sizes and SHA-256 digests are of the files themselves: Imager checks the
download against image_download_sha256 and the written card against
extract_sha256. The device tags are Imager's own for the boards the image
boots (pi3-64bit: Pi 3, 3+ and Zero 2 W; pi4-64bit: Pi 4, 400 and CM4); a Pi
5 needs Raspberry Pi OS's kernel (docs/pi-image.md), so pi5-64bit is not
among them. There is no `init_format`: the image has no cloud-init, so Imager
offers no customisation for it, and the card's own setup files
(docs/card-setup.md) take its place.
"""
import argparse
import datetime
import hashlib
import json
import os
import sys


def digest(path):
    sha = hashlib.sha256()
    with open(path, "rb") as f:
        for block in iter(lambda: f.read(1 << 20), b""):
            sha.update(block)
    return sha.hexdigest()


def main():
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--image", required=True)
    parser.add_argument("--compressed", required=True)
    parser.add_argument("--version", required=True)
    parser.add_argument("--url", required=True, help="where Imager downloads the compressed image")
    parser.add_argument("--icon", default="", help="URL of a 40x40 PNG icon")
    parser.add_argument("--date", default=datetime.date.today().isoformat())
    args = parser.parse_args()
    for path in (args.image, args.compressed):
        if not os.path.isfile(path):
            sys.exit(f"imager-os-list.py: no file at {path}")
    if not args.url.startswith(("http://", "https://")):
        sys.exit(f"imager-os-list.py: --url {args.url}: Imager downloads over http:// or https://")
    entry = {
        "name": f"Vitrine kiosk {args.version}",
        "description": "Debian 13 (trixie) that boots straight into the Vitrine image carousel. "
                       "Copy vitrine.yaml or vitrine-wifi.txt onto the card's boot partition to set it up.",
        "url": args.url,
        "extract_size": os.path.getsize(args.image),
        "extract_sha256": digest(args.image),
        "image_download_size": os.path.getsize(args.compressed),
        "image_download_sha256": digest(args.compressed),
        "release_date": args.date,
        "devices": ["pi4-64bit", "pi3-64bit"],
    }
    if args.icon:
        entry["icon"] = args.icon
    json.dump({"os_list": [entry]}, sys.stdout, indent=2)
    sys.stdout.write("\n")


if __name__ == "__main__":
    main()
