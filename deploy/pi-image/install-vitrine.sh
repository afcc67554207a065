#!/usr/bin/env bash
# mmdebstrap's customize hook for build-pi-image.sh: Vitrine installed into the
# image's tree ROOT from the trixie suite of REPOSITORY (make repo's public
# tree), as a board installs it (docs/apt-repository.md): the key in
# /etc/apt/keyrings, then apt-get update, which checks the suite's signature
# with the image's own apt (sqv), and apt-get install vitrine=VERSION. The
# suite is read from a copy in the tree (a file: source), taken away
# afterwards; build-pi-image.sh then writes the source boards use.
#
#   install-vitrine.sh ROOT REPOSITORY VERSION
set -euo pipefail
root=$1 repository=$2 version=$3
install -d -m 0755 "$root/etc/apt/keyrings"
install -m 0644 "$repository/vitrine-archive-keyring.asc" "$root/etc/apt/keyrings/vitrine.asc"
copy=$root/srv/vitrine-repository
rm -rf "$copy"
mkdir -p "$copy/sources.d"
cp -r "$repository/trixie" "$copy/"
printf 'Types: deb\nURIs: file:/srv/vitrine-repository/trixie\nSuites: trixie\nComponents: main\nSigned-By: /etc/apt/keyrings/vitrine.asc\n' \
    > "$copy/sources.d/vitrine.sources"
cp "$copy/sources.d/vitrine.sources" "$root/etc/apt/sources.list.d/vitrine.sources"
chroot "$root" apt-get update -q
chroot "$root" env DEBIAN_FRONTEND=noninteractive apt-get install -y -q --no-install-recommends "vitrine=$version"
# shellcheck disable=SC2016  # ${Version} is dpkg-query's
installed=$(chroot "$root" dpkg-query -W -f='${Version}' vitrine)
[ "$installed" = "$version" ] || { echo "install-vitrine.sh: apt installed vitrine $installed, not $version" >&2; exit 1; }
rm -rf "$copy" "$root/etc/apt/sources.list.d/vitrine.sources"
chroot "$root" apt-get clean
echo "install-vitrine.sh: vitrine $version installed from the signed trixie suite"
