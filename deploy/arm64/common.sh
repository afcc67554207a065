# Shared by deploy/arm64/*.sh (sourced): where the arm64 cross-build keeps its
# caches, and the Debian archive it takes everything from.
# shellcheck shell=bash
arm64_repo=$(cd "$(dirname "${BASH_SOURCE[0]}")/../.." && pwd)
# Everything lives in ignored .build-* folders (.gitignore has .build-*/):
#   .build-arm64-toolchain/  the sid chroot with swiftlang (amd64), and the
#                            downloaded .debs of the sysroot
#   .build-arm64/            the Swift SDK (sysroot) and SwiftPM's scratch path
ARM64_TOOLCHAIN_DIR=${ARM64_TOOLCHAIN_DIR:-$arm64_repo/.build-arm64-toolchain}
ARM64_BUILD_DIR=${ARM64_BUILD_DIR:-$arm64_repo/.build-arm64}
# The host's mirror by default (deb.debian.org answers from a nearby one).
DEBIAN_MIRROR=${DEBIAN_MIRROR:-http://deb.debian.org/debian}
DEBIAN_KEYRING=${DEBIAN_KEYRING:-/usr/share/keyrings/debian-archive-keyring.gpg}

arm64_say() { echo "${0##*/}: $*"; }
arm64_die() { echo "${0##*/}: $*" >&2; exit 1; }
