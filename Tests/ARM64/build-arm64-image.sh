#!/usr/bin/env bash
# Builds the arm64 boot-to-kiosk image of `make arm64-test`: a small Debian 13
# (trixie) arm64 root filesystem made with mmdebstrap from Debian's packages
# (systemd, udev, and both of Debian's arm64 kernels: linux-image-arm64 with
# 4K pages and linux-image-arm64-16k with 16K pages, as a Raspberry Pi 5 runs),
# with the arm64 package of `make deb ARCH=arm64` installed by
# `apt-get install ./vitrine_VERSION_arm64.deb` in a chroot, as on a real
# system. This amd64 machine runs the arm64 maintainer scripts through
# qemu-user-static and binfmt_misc (deploy/arm64/binfmt.sh).
#
#   build-arm64-image.sh DEB OUTDIR [CONFIG [REPOSITORY]]
#   build-arm64-image.sh --rootfs-only OUTDIR   only the cached tree (below), which
#                                               needs no package: made while it builds
#
# OUTDIR receives disk.img (ext4, root=/dev/vda), vmlinuz and initrd.img (the
# 4K kernel), vmlinuz-16k and initrd-16k.img. CONFIG, when given, is placed at
# /etc/vitrine/vitrine.yaml before the package is installed, which keeps it.
# REPOSITORY, when given, is a signed apt repository (deploy/repo/build-repo.sh's
# public tree) whose trixie suite holds DEB: the package is installed from there
# by the image's own apt, which checks the suite's signature (test_image_install).
# The mmdebstrapped tree is cached as OUTDIR/rootfs-KEY.tar.zst (KEY: suite,
# mirror, package lists): only the first run downloads.
#
# The same layout as Tests/Image/build-image.sh (the amd64 bookworm image), with
# the arm64 differences: mmdebstrap instead of debootstrap (it runs a foreign
# architecture's maintainer scripts through binfmt_misc by itself), the serial
# console is the PL011 ttyAMA0 of QEMU's virt machine, and there are two kernels.
set -euo pipefail
[ $# -ge 2 ] || { echo "usage: $0 DEB OUTDIR [CONFIG], or $0 --rootfs-only OUTDIR" >&2; exit 64; }
rootfs_only=no
if [ "$1" = --rootfs-only ]; then
    rootfs_only=yes
else
    deb=$(readlink -f "$1")
    [ -f "$deb" ] || { echo "$0: no package at $1 (make deb ARCH=arm64)" >&2; exit 1; }
fi
out=$(mkdir -p "$2" && cd "$2" && pwd)
config=${3:+$(readlink -f "$3")}
repository=${4:+$(readlink -f "$4")}
here=$(cd "$(dirname "$0")" && pwd)
repo=$(cd "$here/../.." && pwd)
[ "$(id -u)" -eq 0 ] || { echo "$0: mmdebstrap, chroot and the image's file ownership need root" >&2; exit 1; }
"$repo/deploy/dev/ensure-packages.sh" mmdebstrap arch-test e2fsprogs debian-archive-keyring cpio xz-utils zstd
"$repo/deploy/arm64/binfmt.sh"

suite=trixie
mirror=${DEBIAN_MIRROR:-http://deb.debian.org/debian}
# The boot essentials, both kernels, procps for the harness, and v4l-utils
# (cec-ctl, cec-follower) for the test TV on vivid's HDMI-CEC bus. Not the
# kiosk's runtime libraries: those must come from the package's Depends.
# busybox-static is the initramfs's shell (Tests/ARM64/make-initramfs.sh).
packages=systemd,systemd-sysv,udev,kmod,busybox-static,linux-image-arm64,linux-image-arm64-16k,util-linux,procps,v4l-utils
# ...but downloaded at the cache stage (not installed), so that installing the
# package later needs no network; a dependency missing here is downloaded then.
prefetch=(libdrm2 libturbojpeg0 libjpeg62-turbo libevdev2 libpng16-16t64 libwebp7 libwebpdemux2 libsharpyuv0 libgif7 libheif1 libheif-plugin-libde265 libde265-0 libheif-plugin-dav1d libdav1d7 libyaml-0-2 libfreetype6 fonts-dejavu-core libstdc++6 adduser tzdata)
key=$(printf '2 %s %s %s %s' "$suite" "$mirror" "$packages" "${prefetch[*]}" | sha256sum | cut -c1-12)
cache="$out/rootfs-$key.tar.zst"
# shellcheck source=Tests/Image/test-image-setup.sh
. "$repo/Tests/Image/test-image-setup.sh"
if [ ! -f "$cache" ]; then
    echo "mmdebstrap $suite arm64 from $mirror (cached afterwards as $(basename "$cache"))"
    # The kernels' depmod and initramfs run here, natively, not in the chroot:
    # under qemu-user they took about 250 of this step's 600 CPU seconds. So
    # the kernel packages' Depends on an initramfs generator is met by a stub
    # package that provides linux-initramfs-tool, and depmod is diverted to
    # true while they are installed; the customize hook puts it back and runs
    # this machine's depmod on the image's modules (the ELF it reads is the
    # same on any architecture, as a cross-built kernel's modules_install does).
    stub_dir=$(mktemp -d)
    trap 'rm -rf "$stub_dir"' EXIT
    mkdir -p "$stub_dir/stub/DEBIAN"
    printf '%s\n' "Package: vitrine-test-initramfs-stub" "Version: 1" "Architecture: all" \
        "Maintainer: Vitrine tests <tests@invalid>" "Provides: linux-initramfs-tool" \
        "Description: the test image's initramfs is made outside it (Tests/ARM64/make-initramfs.sh)" > "$stub_dir/stub/DEBIAN/control"
    dpkg-deb --build -Zgzip "$stub_dir/stub" "$stub_dir/initramfs-stub.deb" > /dev/null
    # shellcheck disable=SC2016  # $1 is mmdebstrap's, in its hooks
    test_image_mmdebstrap "$cache" "$out/mmdebstrap.log" "$suite" "$mirror" "$packages" "${prefetch[*]}" --arch=arm64 \
        --include="$stub_dir/initramfs-stub.deb" --hook-dir=/usr/share/mmdebstrap/hooks/file-mirror-automount \
        --aptopt='Acquire::Check-Valid-Until "false"' \
        --essential-hook='chroot "$1" dpkg-divert --quiet --local --rename --divert /usr/sbin/depmod.image-build --add /usr/sbin/depmod' \
        --essential-hook='ln -s /bin/true "$1/usr/sbin/depmod"' \
        --customize-hook='rm "$1/usr/sbin/depmod" && chroot "$1" dpkg-divert --quiet --local --rename --remove /usr/sbin/depmod' \
        --customize-hook='for modules in "$1"/usr/lib/modules/*; do depmod -b "$1" "${modules##*/}"; done'
fi
[ "$rootfs_only" = yes ] && exit 0

root="$out/rootfs"
rm -rf "$root"
mkdir -p "$root"
tar -C "$root" --numeric-owner --zstd -xpf "$cache"

# The test image's system files, serial shell, network and TV, as on amd64;
# trixie's arm64 kernels have vivid with CONFIG_VIDEO_VIVID_CEC too. ttyAMA0 is
# the PL011 UART of QEMU's virt machine.
test_image_setup "$root" ttyAMA0

test_image_install "$root" "$deb" "$out/apt-install.log" "$config" ${repository:+"$repository" trixie}

# The two kernels and their initramfs images, for QEMU's -kernel/-initrd.
for flavour in arm64 arm64-16k; do
    kernel=$(find "$root/boot" -name "vmlinuz-*-$flavour" -printf '%f\n' | sort -V | tail -1)
    [ -n "$kernel" ] || { echo "$0: no $flavour kernel in the image" >&2; exit 1; }
    suffix=$([ "$flavour" = arm64 ] && echo "" || echo "-16k")
    cp "$root/boot/$kernel" "$out/vmlinuz$suffix"
    "$here/make-initramfs.sh" "$root" "${kernel#vmlinuz-}" "$out/initrd$suffix.img"
    echo "$kernel" > "$out/kernel$suffix.txt"
done
size_mb=$(( $(du -sm "$root" | cut -f1) + 384 ))
rm -f "$out/disk.img"
mkfs.ext4 -q -F -L vitrine-root -d "$root" "$out/disk.img" "${size_mb}M"
# The tree is in the image now: 0.7 GB that nothing reads again.
rm -rf "$root"
echo "image: $out/disk.img (${size_mb} MiB), kernels $(cat "$out/kernel.txt") and $(cat "$out/kernel-16k.txt")"
