#!/usr/bin/env bash
# The Raspberry Pi image's test (`make pi-image-test`; docs/pi-image.md):
#   1. the arm64 package (`make deb ARCH=arm64`; $VITRINE_ARM64_DEB names a built one);
#   2. a signed repository with it and a later version of it in its trixie
#      suite, made with a throwaway key as `make repo` makes one
#      (Tests/Image/test-repository.sh, Tests/Image/next-version-deb.sh);
#   3. the image of the first version, by deploy/pi-image/build-pi-image.sh from that repository,
#      with Raspberry Pi Imager's entry;
#   4. Tests/PiImage/piimagetest.py: the card booted in QEMU's virt machine
#      (where it upgrades to the later version over HTTP) and in its Raspberry Pi 3 model.
# Not part of `make test`: the image is made anew each time (about 15 minutes
# here, the arm64 maintainer scripts under qemu-user), and the boots take 10 more.
# Run as root.
set -euo pipefail
cd "$(dirname "$0")/../.."
started=$(date +%s)
phase() { echo "== $* ($(( $(date +%s) - started )) s)"; }
deploy/dev/ensure-packages.sh qemu-system-arm qemu-utils qemu-user-static mmdebstrap arch-test e2fsprogs dosfstools mtools fdisk python3 shellcheck
out=.build-pi-image-test
mkdir -p "$out"
phase "shellcheck"
shellcheck deploy/pi-image/*.sh deploy/pi-image/grow-data deploy/pi-image/initramfs/* Tests/PiImage/*.sh
if [ -n "${VITRINE_ARM64_DEB:-}" ]; then
    deb=$VITRINE_ARM64_DEB
else
    phase "arm64 package"
    ARCH=arm64 deploy/debian/build-deb.sh
    deb=$(ARCH=arm64 deploy/debian/build-deb.sh --print-deb)
fi
phase "repository"
# The package and a later version of it (the same files under VERSION+pitest1), for
# the upgrade over HTTP on the card's read-only root; the image gets the first.
version=$(dpkg-deb --field "$deb" Version)
next_deb=$(Tests/Image/next-version-deb.sh "$deb" pitest1 "$out/next-version")
Tests/Image/test-repository.sh "$out/repository" "$deb" "$next_deb"
grep "trixie arm64:" "$out/repository/build.log"
phase "image"
VITRINE_IMAGE_URL=http://images.vitrine.invalid/vitrine-pi.img.xz \
    deploy/pi-image/build-pi-image.sh --repository "$out/repository/aptly/public" --url http://apt.vitrine.invalid/vitrine \
    --version "$version" --out "$out/image"
image=$(find "$out/image" -maxdepth 1 -name 'vitrine-pi-*.img' | sort -V | tail -1)
[ -n "$image" ] || { echo "$0: no image in $out/image" >&2; exit 1; }
python3 - "$out/image/os-list.json" "$image" << 'PY'
import hashlib, json, os, sys
entry = json.load(open(sys.argv[1]))["os_list"][0]
image = sys.argv[2]
sha = hashlib.sha256()
with open(image, "rb") as f:
    for block in iter(lambda: f.read(1 << 20), b""):
        sha.update(block)
assert entry["extract_size"] == os.path.getsize(image), entry
assert entry["extract_sha256"] == sha.hexdigest(), entry
assert entry["image_download_size"] == os.path.getsize(image + ".xz"), entry
assert set(entry["devices"]) == {"pi3-64bit", "pi4-64bit"}, entry
print(f"PASS [pi-image] Imager's entry names the image's size and digest, and the Pi 3 and 4: {entry['name']}, "
      f"{entry['image_download_size'] >> 20} MiB to download, {entry['extract_size'] >> 20} MiB written")
PY
phase "boots"
python3 Tests/PiImage/piimagetest.py --image "$image" --work "$out/work" \
    --repo "$out/repository/aptly/public" --next-version "$(dpkg-deb --field "$next_deb" Version)"
phase "done"
