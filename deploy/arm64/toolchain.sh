#!/usr/bin/env bash
# The cross toolchain for `make arm64`: a Debian unstable (sid) chroot for the
# build machine's architecture (amd64) with Debian's swiftlang, made once with
# mmdebstrap and kept in .build-arm64-toolchain/root.
#
#   deploy/arm64/toolchain.sh            make it unless it is there
#   deploy/arm64/toolchain.sh --refresh  make it anew (a newer swiftlang in sid)
#
# Why sid: it is the one Debian suite with a Swift new enough for this package
# (trixie's swiftlang is 6.0.3). The version is not pinned: a fresh chroot gets
# whatever sid has, and .build-arm64-toolchain/versions records it. The arm64
# sysroot (deploy/arm64/sysroot.sh) takes swiftlang:arm64 from sid too, at the
# version installed here, so the compiler and its runtime always match.
#
# mmdebstrap uses apt, which checks the InRelease signature (Debian's keyring)
# and the SHA256 of each .deb. Acquire::Check-Valid-Until is off because a
# mirror may serve a sid Release past its Valid-Until (a frozen snapshot does);
# the signature is still checked. dpkg skips its fsync per file
# (force-unsafe-io): a chroot cut short is made again from the start.
set -euo pipefail
# shellcheck source=deploy/arm64/common.sh
. "$(dirname "$0")/common.sh"

refresh=no
[ "${1:-}" = --refresh ] && refresh=yes
root=$ARM64_TOOLCHAIN_DIR/root
# The packages of the chroot: the compiler (swiftlang brings its own clang and
# lld), libc6-dev for the build machine's own links (Package.swift is
# compiled and run), pkg-config for SwiftPM's system-library targets, git for SwiftPM's
# checkouts. Changing the list makes the chroot anew.
packages="swiftlang libc6-dev pkgconf git ca-certificates"
# What of swiftlang a cross-build never runs, left out as dpkg unpacks it: the
# debugger (liblldb, lldb-server), the editor services (sourcekitd,
# sourcekit-lsp, clangd), docc and swift-format, 730 MiB of its 2.7 GiB, and
# the documentation of every package. A CI machine's disk is not ours alone:
# a fresh-clone run once ran out of space (docs/benchmarks.md, "Disk").
excluded=(
    '/usr/libexec/swift/bin/lldb*' '/usr/libexec/swift/lib/liblldb*' /usr/libexec/swift/bin/repl_swift
    '/usr/libexec/swift/lib/libsourcekitd*' /usr/libexec/swift/bin/sourcekit-lsp /usr/libexec/swift/bin/clangd
    /usr/libexec/swift/bin/docc '/usr/libexec/swift/share/docc/*' /usr/libexec/swift/bin/swift-format
    '/usr/share/doc/*' '/usr/share/man/*' '/usr/share/locale/*'
)
dpkg_excludes=()
for path in "${excluded[@]}"; do dpkg_excludes+=("--dpkgopt=path-exclude=$path"); done
stamp="sid amd64 $packages without ${excluded[*]}"
if [ "$refresh" = no ] && [ "$(cat "$ARM64_TOOLCHAIN_DIR/root.stamp" 2> /dev/null)" = "$stamp" ] && chroot "$root" test -x /usr/bin/swift 2> /dev/null; then
    exit 0
fi

"$arm64_repo/deploy/dev/ensure-packages.sh" mmdebstrap debian-archive-keyring
[ "$(id -u)" -eq 0 ] || arm64_die "run as root (mmdebstrap, chroot)"
mkdir -p "$ARM64_TOOLCHAIN_DIR"
started=$(date +%s)
arm64_say "mmdebstrap sid with $packages (cached afterwards in $root)"
rm -rf "$root.new" "$ARM64_TOOLCHAIN_DIR/root.stamp"
mmdebstrap --mode=root --variant=apt --include="${packages// /,}" \
    --aptopt='Acquire::Check-Valid-Until "false"' --aptopt='APT::Install-Recommends "false"' --dpkgopt=force-unsafe-io "${dpkg_excludes[@]}" \
    --keyring="$DEBIAN_KEYRING" sid "$root.new" "$DEBIAN_MIRROR" > "$ARM64_TOOLCHAIN_DIR/mmdebstrap.log" 2>&1 \
    || { tail -30 "$ARM64_TOOLCHAIN_DIR/mmdebstrap.log" >&2; arm64_die "mmdebstrap failed (log: $ARM64_TOOLCHAIN_DIR/mmdebstrap.log)"; }
# The downloaded .debs are not needed again.
rm -rf "$root.new/var/cache/apt/archives/"*.deb
rm -rf "$root"
mv "$root.new" "$root"
# shellcheck disable=SC2016  # dpkg-query's fields
chroot "$root" dpkg-query -W -f='${Package} ${Version}\n' swiftlang libswiftlang pkgconf git libc6 > "$ARM64_TOOLCHAIN_DIR/versions"
echo "$stamp" > "$ARM64_TOOLCHAIN_DIR/root.stamp"
arm64_say "toolchain ready in $(( $(date +%s) - started )) s: $(tr '\n' ' ' < "$ARM64_TOOLCHAIN_DIR/versions")"
