#!/usr/bin/env bash
# The image test's root filesystem: a minimal Debian bookworm tree made with
# debootstrap (systemd, udev, Debian's stock kernel and a small initramfs),
# with the kiosk's runtime packages downloaded into its apt cache but not
# installed. Tests/Image/build-image.sh unpacks it and installs the package.
#
#   cache-rootfs.sh OUTDIR
#
# The tree is cached as OUTDIR/rootfs-KEY.tar, KEY naming the suite, mirror
# and package lists, so only the first run downloads; OUTDIR/rootfs-base.tar
# links to it (run-image-test.sh's installer checks use a fresh copy of it
# too). The mirror is the first Debian one this host's apt uses (or
# $VITRINE_IMAGE_MIRROR).
#
# It is mostly waiting on the mirror and on dpkg, so `make test` runs it beside
# the static build (`make -j2 static image-rootfs`) rather than after it. A
# lock makes a second run wait for the first instead of debootstrapping into
# the same staging tree.
set -euo pipefail
[ $# -eq 1 ] || { echo "usage: $0 OUTDIR" >&2; exit 64; }
out=$(mkdir -p "$1" && cd "$1" && pwd)
repo=$(cd "$(dirname "$0")/../.." && pwd)
[ "$(id -u)" -eq 0 ] || { echo "$0: debootstrap and the tree's file ownership need root" >&2; exit 1; }
"$repo/deploy/dev/ensure-packages.sh" debootstrap
exec 9> "$out/rootfs.lock"
flock 9

suite=bookworm
# The boot essentials, and procps for the harness's pgrep. Not the kiosk's
# runtime libraries: those must come from the package's Depends.
packages=systemd,systemd-sysv,udev,kmod,linux-image-amd64,initramfs-tools,util-linux,procps
# ...but downloaded once, at the cache stage, into the tree's apt cache (not
# installed), so that apt-get install of the package, and install.sh --root in
# run-image-test.sh, need no network afterwards. This list is only that hint:
# a dependency missing from it is downloaded then, one missing from Depends
# shows as a kiosk that cannot start.
prefetch=(libdrm2 libturbojpeg0 libjpeg62-turbo libevdev2 libpng16-16 libyaml-0-2 adduser tzdata)

# The Debian mirror this host's apt uses: the first deb822 URIs or one-line
# `deb` entry ending in /debian (not -security, not a third-party repository).
find_mirror() {
    local line
    for file in /etc/apt/sources.list /etc/apt/sources.list.d/*.list /etc/apt/sources.list.d/*.sources; do
        [ -f "$file" ] || continue
        while read -r line; do
            for word in $line; do
                case "$word" in
                    http://*/debian|https://*/debian|http://*/debian/|https://*/debian/) echo "${word%/}"; return ;;
                esac
            done
        done < <(grep -E '^[[:space:]]*(deb[[:space:]]|URIs:)' "$file")
    done
    echo http://deb.debian.org/debian
}
mirror=${VITRINE_IMAGE_MIRROR:-$(find_mirror)}

# Version 2 of the cached tree: bump when the cache stage below changes.
key=$(printf '2 %s %s %s %s' "$suite" "$mirror" "$packages" "${prefetch[*]}" | sha256sum | cut -c1-12)
cache="$out/rootfs-$key.tar"
if [ ! -f "$cache" ]; then
    echo "debootstrap $suite from $mirror (cached afterwards as $(basename "$cache"))"
    staging="$out/debootstrap"
    rm -rf "$staging"
    started=$(date +%s)
    debootstrap --variant=minbase --include="$packages" "$suite" "$staging" "$mirror" > "$out/debootstrap.log" 2>&1 \
        || { tail -30 "$out/debootstrap.log" >&2; exit 1; }
    # A small initramfs: only what mounting an ext4 root on virtio-blk takes
    # (Debian's default, MODULES=most, packs every storage driver and makes a
    # slow boot under TCG much slower).
    printf 'MODULES=list\n' > "$staging/etc/initramfs-tools/conf.d/vitrine-image.conf"
    printf '%s\n' virtio_pci virtio_blk ext4 crc32c_generic >> "$staging/etc/initramfs-tools/modules"
    mount -t proc proc "$staging/proc"
    chroot "$staging" update-initramfs -u -k all > "$out/initramfs.log" 2>&1 || { umount "$staging/proc"; cat "$out/initramfs.log" >&2; exit 1; }
    umount "$staging/proc"
    chroot "$staging" apt-get clean
    # debootstrap leaves apt's package lists for the mirror in the tree: enough
    # for apt to resolve the package's Depends, offline, from these downloads.
    chroot "$staging" env DEBIAN_FRONTEND=noninteractive apt-get install -y -q --download-only \
        --no-install-recommends "${prefetch[@]}" > "$out/prefetch.log" 2>&1 || { cat "$out/prefetch.log" >&2; exit 1; }
    tar -C "$staging" --numeric-owner -cf "$cache.partial" .
    mv "$cache.partial" "$cache"
    rm -rf "$staging"
    echo "rootfs cached in $(( $(date +%s) - started )) s"
fi

ln -sfn "$(basename "$cache")" "$out/rootfs-base.tar"
