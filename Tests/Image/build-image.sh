#!/usr/bin/env bash
# Builds the bootable Debian image of the image test (Tests/Image/imagetest.py):
# a small bookworm root filesystem made with debootstrap from Debian's
# packages (systemd, udev, Debian's stock kernel, the runtime libraries), with
# the static-stdlib vitrine binary, the unit and a starter configuration
# installed by deploy/install.sh --root, packed into an ext4 disk image.
#
#   build-image.sh BINARY OUTDIR [CONFIG]
#
# OUTDIR receives disk.img (ext4, the root filesystem for root=/dev/vda),
# vmlinuz and initrd.img (the rootfs's own kernel and initramfs, for QEMU's
# -kernel/-initrd). CONFIG, when given, is placed at /etc/vitrine/vitrine.yaml
# before the installer runs, which then keeps it (it writes its starter
# configuration only where there is none).
#
# The debootstrapped root filesystem is cached as OUTDIR/rootfs-KEY.tar, KEY
# naming the suite, mirror and package list: only the first run downloads.
# The mirror is the first Debian one this host's apt uses (or $VITRINE_IMAGE_MIRROR).
#
# Test-only additions, never made by the installer: root autologin on the
# serial console ttyS0 (the harness's shell), DHCP on the virtual NIC, and the
# installer's sources in /root/vitrine-src (for its checks on the live system).
set -euo pipefail
[ $# -ge 2 ] || { echo "usage: $0 BINARY OUTDIR [CONFIG]" >&2; exit 64; }
binary=$(readlink -f "$1")
out=$(mkdir -p "$2" && cd "$2" && pwd)
config=${3:+$(readlink -f "$3")}
here=$(cd "$(dirname "$0")" && pwd)
repo=$(cd "$here/../.." && pwd)
[ "$(id -u)" -eq 0 ] || { echo "$0: debootstrap and the image's file ownership need root" >&2; exit 1; }
"$repo/deploy/dev/ensure-packages.sh" debootstrap e2fsprogs

suite=bookworm
# What the kiosk needs at run time (deploy/install.sh installs the same on a
# real system), the boot essentials, and procps for the harness's pgrep.
packages=systemd,systemd-sysv,udev,kmod,linux-image-amd64,initramfs-tools,util-linux,procps
packages+=,libdrm2,libturbojpeg0,libjpeg62-turbo,libevdev2,libpng16-16,zlib1g,libstdc++6,libgcc-s1

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

# Version 1 of the cached tree: bump when the cache stage below changes.
key=$(printf '1 %s %s %s' "$suite" "$mirror" "$packages" | sha256sum | cut -c1-12)
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
    tar -C "$staging" --numeric-owner -cf "$cache.partial" .
    mv "$cache.partial" "$cache"
    rm -rf "$staging"
    echo "rootfs cached in $(( $(date +%s) - started )) s"
fi

root="$out/rootfs"
rm -rf "$root"
mkdir -p "$root"
tar -C "$root" --numeric-owner -xpf "$cache"

echo vitrine-image > "$root/etc/hostname"
printf '127.0.0.1\tlocalhost\n127.0.1.1\tvitrine-image\n' > "$root/etc/hosts"
printf '/dev/vda\t/\text4\trw,errors=remount-ro\t0\t1\n' > "$root/etc/fstab"

# Test only: a root shell on the serial console for the harness.
mkdir -p "$root/etc/systemd/system/serial-getty@ttyS0.service.d"
cat > "$root/etc/systemd/system/serial-getty@ttyS0.service.d/autologin.conf" <<'UNIT'
[Service]
ExecStart=
ExecStart=-/sbin/agetty --autologin root --noclear --keep-baud 115200,57600,38400,9600 %I linux
UNIT
# Test only: DHCP from QEMU's user-mode network, for the API's port forward.
cat > "$root/etc/systemd/network/20-wired.network" <<'UNIT'
[Match]
Name=en* eth*

[Network]
DHCP=ipv4
UNIT
systemctl --root="$root" enable systemd-networkd.service > /dev/null 2>&1

# Test only: what deploy/install.sh needs, for the installer checks on the running system.
install -d -m 0700 "$root/root/vitrine-src/docs"
cp -r "$repo/deploy" "$root/root/vitrine-src/"
cp "$repo/docs/deployment.md" "$repo/docs/configuration.md" "$root/root/vitrine-src/docs/"

if [ -n "$config" ]; then
    install -d -m 0755 "$root/etc/vitrine"
    install -m 0644 "$config" "$root/etc/vitrine/vitrine.yaml"
fi
"$repo/deploy/install.sh" --root "$root" --binary "$binary"

kernel=$(find "$root/boot" -name 'vmlinuz-*' -printf '%f\n' | sort -V | tail -1)
cp "$root/boot/$kernel" "$out/vmlinuz"
cp "$root/boot/initrd.img-${kernel#vmlinuz-}" "$out/initrd.img"
# The image: what the tree holds plus room for state and the journal.
size_mb=$(( $(du -sm "$root" | cut -f1) + 384 ))
rm -f "$out/disk.img"
mkfs.ext4 -q -F -L vitrine-root -d "$root" "$out/disk.img" "${size_mb}M"
echo "image: $out/disk.img (${size_mb} MiB), $kernel"
