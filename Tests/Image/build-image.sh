#!/usr/bin/env bash
# Builds the bootable Debian image of the image test (Tests/Image/imagetest.py):
# a small bookworm root filesystem made with mmdebstrap from Debian's
# packages (systemd, udev, Debian's stock kernel), with Vitrine's Debian
# package (`make deb`) installed by `apt-get install ./vitrine_VERSION_ARCH.deb`
# in a chroot, as on a real system: apt brings the runtime libraries from the
# package's Depends, and its postinst makes the user, the state directory and
# the starter configuration and enables the unit. The tree is then packed
# into an ext4 disk image.
#
#   build-image.sh DEB OUTDIR [CONFIG]
#
# OUTDIR receives disk.img (ext4, the root filesystem for root=/dev/vda),
# vmlinuz and initrd.img (the rootfs's own kernel and initramfs, for QEMU's
# -kernel/-initrd). CONFIG, when given, is placed at /etc/vitrine/vitrine.yaml
# before the package is installed, which then keeps it (its postinst writes
# the starter configuration only where there is none).
#
# The mmdebstrapped root filesystem is cached as OUTDIR/rootfs-KEY.tar.zst, KEY
# naming the suite, mirror and package lists: only the first run downloads.
# OUTDIR/rootfs-base.tar.zst links to it, for deploy/install.sh's checks in
# run-image-test.sh, which install into a fresh copy of the same tree.
# The mirror is the first Debian one this host's apt uses (or $VITRINE_IMAGE_MIRROR).
#
# Test-only additions, never made by the package: root autologin on the
# serial console ttyS0 (the harness's shell), DHCP on the virtual NIC, the
# package itself in /root (to remove and reinstall it on the live system), and
# the installer's sources in /root/vitrine-src (for its checks there).
set -euo pipefail
[ $# -ge 2 ] || { echo "usage: $0 DEB OUTDIR [CONFIG]" >&2; exit 64; }
deb=$(readlink -f "$1")
[ -f "$deb" ] || { echo "$0: no package at $1 (make deb)" >&2; exit 1; }
out=$(mkdir -p "$2" && cd "$2" && pwd)
config=${3:+$(readlink -f "$3")}
here=$(cd "$(dirname "$0")" && pwd)
repo=$(cd "$here/../.." && pwd)
[ "$(id -u)" -eq 0 ] || { echo "$0: mmdebstrap and the image's file ownership need root" >&2; exit 1; }
"$repo/deploy/dev/ensure-packages.sh" mmdebstrap e2fsprogs zstd

suite=bookworm
# The boot essentials, and procps for the harness's pgrep. Not the kiosk's
# runtime libraries: those must come from the package's Depends.
# v4l-utils (cec-ctl, cec-follower) plays the TV on vivid's CEC bus (test only, below).
# avahi-daemon, as Raspberry Pi OS runs it (the package recommends it), announces the
# console through the package's service file; avahi-utils browses and resolves it (test only).
# network-manager, as Raspberry Pi OS trixie runs it, joins the Wi-Fi the card names; hostapd
# and dnsmasq-base play the access point on a second mac80211_hwsim radio, set up with iproute2 (test only).
packages=systemd,systemd-sysv,udev,kmod,linux-image-amd64,initramfs-tools,util-linux,procps,v4l-utils,avahi-daemon,avahi-utils,network-manager,wpasupplicant,hostapd,dnsmasq-base,iw,iproute2
# ...but downloaded once, at the cache stage, into the tree's apt cache (not
# installed), so that apt-get install of the package, and install.sh --root in
# run-image-test.sh, need no network afterwards. This list is only that hint:
# a dependency missing from it is downloaded then, one missing from Depends
# shows as a kiosk that cannot start.
prefetch=(libdrm2 libturbojpeg0 libjpeg62-turbo libevdev2 libpng16-16 libwebp7 libwebpdemux2 libgif7 libheif1 libde265-0 libdav1d6 libaom3 libx265-199 libyaml-0-2 libfreetype6 fonts-dejavu-core adduser tzdata)

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

# Version 3 of the cached tree: bump when the cache stage below changes.
key=$(printf '3 %s %s %s %s' "$suite" "$mirror" "$packages" "${prefetch[*]}" | sha256sum | cut -c1-12)
cache="$out/rootfs-$key.tar.zst"
# shellcheck source=Tests/Image/test-image-setup.sh
. "$here/test-image-setup.sh"
if [ ! -f "$cache" ]; then
    echo "mmdebstrap $suite from $mirror (cached afterwards as $(basename "$cache"))"
    # mmdebstrap, not debootstrap: one apt run for every package instead of a
    # dpkg call each, and hooks that set the image up before its kernel is
    # installed, so that the initramfs is generated once, already small: only
    # what mounting an ext4 root on virtio-blk takes (Debian's default,
    # MODULES=most, packs every storage driver and makes a slow boot under TCG
    # much slower). The list goes in modules.d, not /etc/initramfs-tools/modules,
    # a conffile of initramfs-tools.
    # shellcheck disable=SC2016  # $1 is mmdebstrap's, in its hooks
    test_image_mmdebstrap "$cache" "$out/mmdebstrap.log" "$suite" "$mirror" "$packages" "${prefetch[*]}" \
        --setup-hook='mkdir -p "$1/etc/initramfs-tools/conf.d" "$1/usr/share/initramfs-tools/modules.d"' \
        --setup-hook='echo MODULES=list > "$1/etc/initramfs-tools/conf.d/vitrine-image.conf"' \
        --setup-hook='printf "%s\n" virtio_pci virtio_blk ext4 crc32c_generic > "$1/usr/share/initramfs-tools/modules.d/vitrine-image"'
fi

ln -sfn "$(basename "$cache")" "$out/rootfs-base.tar.zst"

root="$out/rootfs"
rm -rf "$root"
mkdir -p "$root"
tar -C "$root" --numeric-owner --zstd -xpf "$cache"

test_image_setup "$root" ttyS0
# NetworkManager manages the Wi-Fi alone: the wired NIC stays systemd-networkd's (the harness's port forward).
mkdir -p "$root/etc/NetworkManager/conf.d"
printf '[keyfile]\nunmanaged-devices=except:type:wifi\n' > "$root/etc/NetworkManager/conf.d/90-vitrine-image.conf"

# Test only: what deploy/install.sh needs, for the installer checks on the running system.
install -d -m 0700 "$root/root/vitrine-src/docs"
cp -r "$repo/deploy" "$root/root/vitrine-src/"
cp "$repo/docs/deployment.md" "$repo/docs/configuration.md" "$root/root/vitrine-src/docs/"

test_image_install "$root" "$deb" "$out/apt-install.log" "$config"

kernel=$(find "$root/boot" -name 'vmlinuz-*' -printf '%f\n' | sort -V | tail -1)
cp "$root/boot/$kernel" "$out/vmlinuz"
cp "$root/boot/initrd.img-${kernel#vmlinuz-}" "$out/initrd.img"
# The image: what the tree holds plus room for state and the journal.
size_mb=$(( $(du -sm "$root" | cut -f1) + 384 ))
rm -f "$out/disk.img"
mkfs.ext4 -q -F -L vitrine-root -d "$root" "$out/disk.img" "${size_mb}M"
echo "image: $out/disk.img (${size_mb} MiB), $kernel"
