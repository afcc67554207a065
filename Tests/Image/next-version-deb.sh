#!/usr/bin/env bash
# The image test's "next version" of the package, for the upgrade from the
# apt repository: the same files as DEB, under the version VERSION+SUFFIX
# (a later one in dpkg's order), with its changelog and md5sums made to
# match. A real next version is a new build; what the upgrade test needs is
# a package apt sees as newer, whose install replaces /usr/bin/vitrine and
# restarts the kiosk, as any upgrade does.
#
#   next-version-deb.sh [--broken] DEB SUFFIX OUTDIR     prints the new package's path
#
# --broken: /usr/bin/vitrine exits at once with an error, as a release that
# crashes at start would: the over-the-air update test's version to roll back.
set -euo pipefail
broken=no
if [ "${1:-}" = --broken ]; then broken=yes; shift; fi
[ $# -eq 3 ] || { echo "usage: $0 [--broken] DEB SUFFIX OUTDIR" >&2; exit 64; }
deb=$1 suffix=$2 out=$3
version=$(dpkg-deb --field "$deb" Version)
arch=$(dpkg-deb --field "$deb" Architecture)
next=$version+$suffix
dpkg --compare-versions "$next" gt "$version" || { echo "$0: $next is not later than $version" >&2; exit 1; }
tree=$(mktemp -d)
trap 'rm -rf "$tree"' EXIT
dpkg-deb -R "$deb" "$tree"
sed -i "s/^Version: .*/Version: $next/" "$tree/DEBIAN/control"
changelog=usr/share/doc/vitrine/changelog.gz
gzip -dc "$tree/$changelog" | sed "1s/(${version//./\\.})/($next)/" | gzip -9n > "$tree/$changelog.new"
mv "$tree/$changelog.new" "$tree/$changelog"
sed -i "s|^[0-9a-f]*  $changelog\$|$(md5sum < "$tree/$changelog" | cut -d' ' -f1)  $changelog|" "$tree/DEBIAN/md5sums"
if [ $broken = yes ]; then
    printf '#!/bin/sh\necho "vitrine %s: broken on purpose (the image test rolls it back)" >&2\nexit 1\n' "$next" > "$tree/usr/bin/vitrine"
    chmod 0755 "$tree/usr/bin/vitrine"
    sed -i "s|^[0-9a-f]*  usr/bin/vitrine\$|$(md5sum < "$tree/usr/bin/vitrine" | cut -d' ' -f1)  usr/bin/vitrine|" "$tree/DEBIAN/md5sums"
fi
mkdir -p "$out"
result=$out/vitrine_${next}_$arch.deb
dpkg-deb --root-owner-group -Zxz -b "$tree" "$result" > /dev/null
echo "$result"
