#!/usr/bin/env bash
# Builds Vitrine's signed apt repository (`make repo`) with aptly:
#
#   deploy/repo/build-repo.sh [--key KEYDIR] [--out DIR] [DEB ...]
#
# KEYDIR is the GnuPG home of the signing key (deploy/repo/new-key.sh), by
# default $VITRINE_REPO_KEY. It stays where it is: only its public half is
# copied into the published tree. DIR (default .build-repo) keeps aptly's
# database; DIR/public is the repository to serve, as it is, from any static
# origin (docs/apt-repository.md says how to upload it, and in which order).
#
# Each DEB goes into the suite of the Debian release it was built against,
# which the package names itself (the distribution of its changelog, written
# by deploy/debian/build-deb.sh): bookworm (Debian 12, amd64) or trixie
# (Debian 13 and Raspberry Pi OS, arm64). The libraries differ between them,
# so one package never serves both. With no DEB given, the packages of `make
# deb` and `make deb ARCH=arm64` are taken, those that exist.
#
# A suite keeps every version ever added, so that a board can go back to an
# earlier one (`apt install vitrine=VERSION`). A version is added once: the
# same file again changes nothing, different contents under a published
# version are refused (bump the version instead).
#
# Every suite's Release then gets Date and Valid-Until (VITRINE_REPO_VALID_DAYS,
# 30 by default) and is signed again (deploy/repo/sign-release.sh): the
# repository must be built or signed again within that many days.
#
# After publishing, every suite's signature is checked as the two apt
# releases check it: sqv (trixie's apt) on Release.gpg, gpgv (bookworm's) on
# InRelease, against the exported public key, and the hash must not be SHA-1.
set -euo pipefail
umask 022

here=$(cd "$(dirname "$0")" && pwd)
repo=$(cd "$here/../.." && pwd)

die() { echo "build-repo.sh: $*" >&2; exit 1; }
say() { echo "build-repo.sh: $*"; }

keydir=${VITRINE_REPO_KEY:-}
out=$repo/.build-repo
debs=()
while [ $# -gt 0 ]; do
    case "$1" in
        --key) [ $# -ge 2 ] || die "--key needs a directory"; keydir=$2; shift 2 ;;
        --out) [ $# -ge 2 ] || die "--out needs a directory"; out=$2; shift 2 ;;
        -h|--help) sed -n '2,/^set -euo/{/^set -euo/d;s/^# \{0,1\}//;p}' "$0"; exit 0 ;;
        -*) die "unknown option $1 (see --help)" ;;
        *) debs+=("$(readlink -f "$1")"); shift ;;
    esac
done
[ -n "$keydir" ] || die "no signing key: set VITRINE_REPO_KEY to its GnuPG home, or make one with deploy/repo/new-key.sh DIR (make repo-key)"
[ -d "$keydir" ] || die "VITRINE_REPO_KEY=$keydir is not a directory"
keydir=$(cd "$keydir" && pwd)
mkdir -p "$out"
out=$(cd "$out" && pwd)
case "$keydir/" in
    "$out"/*) die "the signing key ($keydir) is inside the repository's directory ($out): keep it apart, where the origin never sees it" ;;
esac
"$repo/deploy/dev/ensure-packages.sh" aptly gnupg sqv gpgv

export GNUPGHOME=$keydir
# gpg starts an agent for this home; it goes when the script does.
trap 'gpgconf --kill gpg-agent 2> /dev/null || true' EXIT
fingerprint=$(gpg --batch --quiet --list-secret-keys --with-colons 2> /dev/null | awk -F: '$1 == "fpr" { print $10; exit }')
[ -n "$fingerprint" ] || die "$keydir holds no secret key (make one with deploy/repo/new-key.sh)"

if [ ${#debs[@]} -eq 0 ]; then
    for deb in "$repo"/.build-deb/vitrine_*_amd64.deb "$repo"/.build-deb/arm64/vitrine_*_arm64.deb; do
        [ -f "$deb" ] && debs+=("$deb")
    done
    [ ${#debs[@]} -gt 0 ] || die "no packages in .build-deb: make deb (and make deb ARCH=arm64) first, or name them"
fi

conf=$out/aptly.conf
cat > "$conf" << EOF
{
  "rootDir": "$out/aptly",
  "gpgProvider": "gpg",
  "downloadConcurrency": 1,
  "architectures": []
}
EOF
aptly() { command aptly -config="$conf" "$@"; }

# The package's own fields, and the release it was built against.
field() { dpkg-deb --field "$2" "$1"; }
built_for() {
    dpkg-deb --fsys-tarfile "$1" | tar -xO ./usr/share/doc/vitrine/changelog.gz 2> /dev/null | gzip -dc | head -1 \
        | sed -n 's/^[^ ]* ([^)]*) \([a-z]*\);.*/\1/p'
}

declare -A touched=()
for deb in "${debs[@]}"; do
    [ -f "$deb" ] || die "no package at $deb"
    package=$(field Package "$deb") version=$(field Version "$deb") arch=$(field Architecture "$deb")
    suite=$(built_for "$deb")
    case "$suite" in
        bookworm|trixie) ;;
        "") die "$deb: its changelog (usr/share/doc/vitrine/changelog.gz) names no Debian release; build it with deploy/debian/build-deb.sh" ;;
        *) die "$deb: built for $suite, which this repository has no suite for (bookworm, trixie)" ;;
    esac
    local_repo=vitrine-$suite
    aptly repo show "$local_repo" > /dev/null 2>&1 \
        || aptly repo create -distribution="$suite" -component=main -comment="Vitrine for Debian $suite" "$local_repo" > /dev/null
    if ! aptly repo add "$local_repo" "$deb" > "$out/add.log" 2>&1; then
        if grep -q "conflict" "$out/add.log"; then
            die "$deb: $package $version ($arch) is already in $suite with different contents; a published version never changes: bump the version"
        fi
        cat "$out/add.log" >&2
        die "aptly could not add $deb to $suite"
    fi
    say "$suite: $package $version ($arch) from $(basename "$deb")"
    touched[$suite]=1
done

# Publishes a suite, under a prefix of its own name (DIR/public/SUITE/dists and
# DIR/public/SUITE/pool): the suites have packages of the same name and version
# built against different libraries, and a shared pool would let one
# overwrite the other's file under the other's checksums. It has the
# architectures its packages have, and is published a first time,
# again after a new version (aptly's `publish update`), or anew when an
# architecture came or went (a published suite's list is fixed).
publish() {
    local suite=$1 local_repo=vitrine-$1 architectures published
    architectures=$(aptly repo search -format='{{.Architecture}}' "$local_repo" 'Name (% *)' | sort -u | paste -sd, -)
    published=$(aptly publish list -raw | awk -v s="$suite" '$1 == s && $2 == s { print "yes" }')
    if [ "$published" = yes ] && [ "$(sed -n 's/^Architectures: //p' "$out/aptly/public/$suite/dists/$suite/Release" | tr ' ' ,)" != "$architectures" ]; then
        aptly publish drop "$suite" "$suite" > /dev/null
        published=""
    fi
    if [ "$published" = yes ]; then
        aptly publish update -batch -gpg-key="$fingerprint" "$suite" "$suite" > "$out/publish.log" 2>&1
    else
        aptly publish repo -batch -gpg-key="$fingerprint" -origin=Vitrine -label=Vitrine \
            -architectures="$architectures" -component=main -distribution="$suite" "$local_repo" "$suite" > "$out/publish.log" 2>&1
    fi || { cat "$out/publish.log" >&2; die "aptly could not publish $suite"; }
}
for suite in "${!touched[@]}"; do publish "$suite"; done

public=$out/aptly/public
# aptly 1.5 writes no Valid-Until: every published suite is dated and signed again,
# valid for VITRINE_REPO_VALID_DAYS (30), so that a replayed old index expires.
"$here/sign-release.sh" --key "$keydir" "$public"/*/dists/*/Release
ln -sfn aptly/public "$out/public"
gpg --batch --armor --export "$fingerprint" > "$public/vitrine-archive-keyring.asc"
gpg --batch --export "$fingerprint" > "$public/vitrine-archive-keyring.gpg"

# Every suite as apt will see it.
failed=0
for release in "$public"/*/dists/*/Release; do
    dists=$(dirname "$release")
    suite=$(basename "$dists")
    if ! sqv --keyring "$public/vitrine-archive-keyring.gpg" "$dists/Release.gpg" "$release" > /dev/null 2> "$out/sqv.log"; then
        echo "build-repo.sh: sqv refuses $suite's Release.gpg: $(tr '\n' ' ' < "$out/sqv.log")" >&2; failed=1
    fi
    if ! gpgv --keyring "$public/vitrine-archive-keyring.gpg" "$dists/InRelease" > "$out/gpgv.log" 2>&1; then
        echo "build-repo.sh: gpgv refuses $suite's InRelease: $(tr '\n' ' ' < "$out/gpgv.log")" >&2; failed=1
    fi
    # OpenPGP hash algorithm 2 is SHA-1, which trixie's apt refuses.
    if gpg --batch --list-packets "$dists/Release.gpg" 2> /dev/null | grep -q "digest algo 2,"; then
        echo "build-repo.sh: $suite is signed with SHA-1, which trixie's apt refuses" >&2; failed=1
    fi
    for packages in "$dists"/main/binary-*/Packages; do
        versions=$(awk '$1 == "Package:" { name = $2 } $1 == "Version:" && name == "vitrine" { print $2 }' "$packages" | sort -V | paste -sd' ' -)
        arch=$(basename "$(dirname "$packages")")
        say "$suite ${arch#binary-}: vitrine ${versions:-(none)}"
    done
done
[ $failed -eq 0 ] || die "the published repository does not verify"
say "signed by $fingerprint; serve $out/public (docs/apt-repository.md)"
