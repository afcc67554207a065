#!/usr/bin/env bash
# Runs a command inside the sid toolchain chroot (deploy/arm64/toolchain.sh),
# with the repository at the same path as outside, so that the scratch path's
# absolute paths, error messages and debug information name the real files.
#
#   deploy/arm64/in-toolchain.sh COMMAND [ARG...]
#
# The mounts are made in a private mount namespace (unshare): they vanish with
# the command, whatever way it ends, and nothing is left mounted on the host.
set -euo pipefail
# shellcheck source=deploy/arm64/common.sh
. "$(dirname "$0")/common.sh"
root=$ARM64_TOOLCHAIN_DIR/root
[ -d "$root/usr" ] || arm64_die "no toolchain chroot: run deploy/arm64/toolchain.sh first"
[ $# -gt 0 ] || arm64_die "no command"

# SwiftPM fetches the packages with git. Where this machine's git reads them
# from local mirrors (url.<mirror>.insteadOf), the chroot gets the same rules
# and the mirrors, read-only.
gitconfig=$root/etc/gitconfig
{
    printf '[safe]\n\tdirectory = *\n'
    git config --get-regexp '^url\..*\.insteadof$' 2> /dev/null | while read -r key value; do
        mirror=${key#url.}
        mirror=${mirror%.insteadof}
        printf '[url "%s"]\n\tinsteadOf = %s\n' "$mirror" "$value"
    done || true  # no such rules: git config exits 1
} > "$gitconfig.new"
mv "$gitconfig.new" "$gitconfig"
mirrors=$(git config --get-regexp '^url\..*\.insteadof$' 2> /dev/null | sed -e 's/^url\.//' -e 's/\.insteadof .*$//' | sort -u | grep '^/' || true)

# shellcheck disable=SC2016  # expanded by the inner shell
exec unshare --mount --propagation private -- bash -euo pipefail -c '
    root=$1 repo=$2 mirrors=$3; shift 3
    mkdir -p "$root$repo"
    mount --bind "$repo" "$root$repo"
    mount -t proc proc "$root/proc"
    mount --rbind /dev "$root/dev"
    for mirror in $mirrors; do
        [ -d "$mirror" ] || continue
        mkdir -p "$root$mirror"
        mount --bind -o ro "$mirror" "$root$mirror"
    done
    cp /etc/resolv.conf "$root/etc/resolv.conf" 2> /dev/null || true
    exec chroot "$root" env -i PATH=/usr/local/bin:/usr/bin:/bin HOME=/root LANG=C.UTF-8 TERM=dumb \
        ${SWIFT_ENV:-} sh -c "cd \"\$0\" && exec \"\$@\"" "$repo" "$@"
' in-toolchain "$root" "$arm64_repo" "$mirrors" "$@"
