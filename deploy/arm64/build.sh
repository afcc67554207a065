#!/usr/bin/env bash
# `make arm64`: cross-compiles Vitrine for aarch64 (Raspberry Pi OS trixie,
# Debian 13 arm64) with Debian sid's Swift, in the toolchain chroot, against
# the trixie sysroot: the static-stdlib release build, as the x86 package's.
#
#   deploy/arm64/build.sh            -> .build-arm64/release/vitrine
#                                       .build-arm64/release/vitrine-video
#
# Makes the chroot and the Swift SDK first when they are missing (cached in
# .build-arm64-toolchain and .build-arm64; see toolchain.sh and sysroot.sh).
# SWIFT_JOBS (default 2) limits the compile jobs.
set -euo pipefail
# shellcheck source=deploy/arm64/common.sh
. "$(dirname "$0")/common.sh"
here=$arm64_repo/deploy/arm64

"$here/toolchain.sh"
"$here/sysroot.sh"

sdks=$ARM64_BUILD_DIR/swift-sdks
sysroot=$sdks/vitrine-aarch64.artifactbundle/sdk/sysroot
# SwiftPM reads the system libraries' .pc files itself: only the sysroot's
# (PKG_CONFIG_LIBDIR replaces the default search path, so nothing of the
# chroot's own amd64 libraries is found), with their paths prefixed by it.
pc="$sysroot/usr/lib/aarch64-linux-gnu/pkgconfig:$sysroot/usr/share/pkgconfig"
export SWIFT_ENV="PKG_CONFIG_SYSROOT_DIR=$sysroot PKG_CONFIG_LIBDIR=$pc PKG_CONFIG_PATH=$pc"
"$here/in-toolchain.sh" swift build -c release --static-swift-stdlib -j "${SWIFT_JOBS:-2}" \
    --scratch-path "$ARM64_BUILD_DIR" --swift-sdks-path "$sdks" --swift-sdk vitrine-aarch64 --product vitrine
binary=$ARM64_BUILD_DIR/release/vitrine
[ -f "$binary" ] || arm64_die "no $binary after the build"
# The video helper, against trixie's FFmpeg 7.1 (the amd64 package's is
# bookworm's 5.1): it shares every module but VitrineFFmpeg with the kiosk,
# so this is that module, its main and a link.
"$here/in-toolchain.sh" swift build -c release --static-swift-stdlib -j "${SWIFT_JOBS:-2}" \
    --scratch-path "$ARM64_BUILD_DIR" --swift-sdks-path "$sdks" --swift-sdk vitrine-aarch64 --product vitrine-video
[ -f "$ARM64_BUILD_DIR/release/vitrine-video" ] || arm64_die "no $ARM64_BUILD_DIR/release/vitrine-video after the build"
# What was built, and with what (docs/raspberry-pi.md quotes these).
{
    cat "$ARM64_TOOLCHAIN_DIR/versions"
    sed -n 's/^\(libc6\|swiftlang\) \([^ ]*\) .*/sysroot:\1 \2/p' "$ARM64_BUILD_DIR/sysroot-packages.txt"
} > "$ARM64_BUILD_DIR/versions"
file_type=$(readelf -h "$binary" | sed -n 's/^ *Machine: *//p')
[ "$file_type" = AArch64 ] || arm64_die "$binary is for $file_type, not AArch64"
arm64_say "$binary: $(du -m "$binary" | cut -f1) MB, needs glibc $(readelf -W -V "$binary" | grep -o 'GLIBC_[0-9.]*' | sort -uV | tail -1)"
