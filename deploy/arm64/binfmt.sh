#!/usr/bin/env bash
# Lets this amd64 machine run arm64 programs in a chroot: registers
# qemu-user-static's aarch64 interpreter with the kernel's binfmt_misc, as
# systemd-binfmt would at boot (CI containers run no systemd). The F flag of
# Debian's rule opens the interpreter now, so it works inside any chroot.
# Used by Tests/ARM64 (mmdebstrap --arch=arm64, apt-get in the image's tree).
set -euo pipefail
# shellcheck source=deploy/arm64/common.sh
. "$(dirname "$0")/common.sh"
"$arm64_repo/deploy/dev/ensure-packages.sh" qemu-user-static
binfmt=/proc/sys/fs/binfmt_misc
[ -e "$binfmt/register" ] || mount -t binfmt_misc binfmt_misc "$binfmt" \
    || arm64_die "cannot mount binfmt_misc: arm64 chroots need it"
if [ ! -e "$binfmt/qemu-aarch64" ]; then
    rule=/usr/lib/binfmt.d/qemu-aarch64.conf
    [ -f "$rule" ] || arm64_die "no $rule (qemu-user-static)"
    grep -v '^#' "$rule" > "$binfmt/register"
fi
grep -q '^enabled' "$binfmt/qemu-aarch64" || arm64_die "the qemu-aarch64 binfmt rule is not enabled"
