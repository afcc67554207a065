#!/usr/bin/env bash
# Builds the bootable Debian image of the image test (Tests/Image/imagetest.py):
# a small bookworm root filesystem made with debootstrap from Debian's
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
# The debootstrapped root filesystem comes from Tests/Image/cache-rootfs.sh,
# which makes it once and caches it as OUTDIR/rootfs-base.tar (`make test`
# runs it beside the static build, so the image test finds it made).
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
[ "$(id -u)" -eq 0 ] || { echo "$0: debootstrap and the image's file ownership need root" >&2; exit 1; }
"$repo/deploy/dev/ensure-packages.sh" e2fsprogs

"$here/cache-rootfs.sh" "$out"

root="$out/rootfs"
rm -rf "$root"
mkdir -p "$root"
tar -C "$root" --numeric-owner -xpf "$out/rootfs-base.tar"

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
# The package, installed as a user would: `apt-get install ./FILE.deb` resolves
# its Depends (from the cache stage's downloads) and runs its maintainer
# scripts. In a chroot there is no running systemd: the postinst enables the
# unit (deb-systemd-helper makes the links itself) and starts nothing. The
# .deb stays in /root for the checks on the live system (test only).
cp "$deb" "$root/root/"
if ! chroot "$root" sh -c "cd /root && DEBIAN_FRONTEND=noninteractive apt-get install -y -q --no-install-recommends ./$(basename "$deb")" \
        > "$out/apt-install.log" 2>&1; then
    tail -30 "$out/apt-install.log" >&2
    exit 1
fi
grep -E '^(Setting up|Unpacking|vitrine:)' "$out/apt-install.log" | sed 's/^/  /'
# The downloaded packages: in the cache, not in the image.
chroot "$root" apt-get clean

kernel=$(find "$root/boot" -name 'vmlinuz-*' -printf '%f\n' | sort -V | tail -1)
cp "$root/boot/$kernel" "$out/vmlinuz"
cp "$root/boot/initrd.img-${kernel#vmlinuz-}" "$out/initrd.img"
# The image: what the tree holds plus room for state and the journal.
size_mb=$(( $(du -sm "$root" | cut -f1) + 384 ))
rm -f "$out/disk.img"
mkfs.ext4 -q -F -L vitrine-root -d "$root" "$out/disk.img" "${size_mb}M"
echo "image: $out/disk.img (${size_mb} MiB), $kernel"
