#!/usr/bin/env bash
# Dates and signs a published suite's Release: `Date` is now, `Valid-Until` a
# number of days later, then InRelease (clearsigned, which bookworm's apt
# reads) and Release.gpg (detached, which trixie's sqv checks) are made anew
# with SHA-512:
#
#   deploy/repo/sign-release.sh [--key KEYDIR] [--valid-days N] [--now EPOCH] RELEASE...
#
# Why: without Valid-Until, anyone who can answer for the origin (a mirror, a
# cache, a network in the way) can keep serving an old, validly signed index
# for ever, and hold a board on an old version without its apt ever noticing
# (a freeze attack). With it, apt refuses the index once it is older than N
# days ("is expired"). So the repository must be signed again within N days:
# `make repo` does it at every run, and this script does it alone, with no new
# package, for a timer or a cron job (docs/apt-repository.md, "Validity").
#
# build-repo.sh calls it after each publish. KEYDIR is the signing key's
# GnuPG home ($VITRINE_REPO_KEY by default); N is $VITRINE_REPO_VALID_DAYS, or
# 30; --now signs as of another time (tests make an expired index with it).
set -euo pipefail
die() { echo "sign-release.sh: $*" >&2; exit 1; }

keydir=${VITRINE_REPO_KEY:-}
days=${VITRINE_REPO_VALID_DAYS:-30}
now=$(date -u +%s)
releases=()
while [ $# -gt 0 ]; do
    case "$1" in
        --key) [ $# -ge 2 ] || die "--key needs a directory"; keydir=$2; shift 2 ;;
        --valid-days) [ $# -ge 2 ] || die "--valid-days needs a number"; days=$2; shift 2 ;;
        --now) [ $# -ge 2 ] || die "--now needs seconds since 1970"; now=$2; shift 2 ;;
        -h|--help) sed -n '2,/^set -euo/{/^set -euo/d;s/^# \{0,1\}//;p}' "$0"; exit 0 ;;
        -*) die "unknown option $1 (see --help)" ;;
        *) releases+=("$1"); shift ;;
    esac
done
[ ${#releases[@]} -gt 0 ] || die "no Release file given (see --help)"
{ [ -n "$keydir" ] && [ -d "$keydir" ]; } || die "no signing key: --key DIR or VITRINE_REPO_KEY, a GnuPG home (deploy/repo/new-key.sh)"
[[ $days =~ ^[1-9][0-9]{0,3}$ ]] || die "--valid-days / VITRINE_REPO_VALID_DAYS is $days: a whole number of days, 1 to 9999"
[[ $now =~ ^[0-9]+$ ]] || die "--now is $now: seconds since 1970"

export GNUPGHOME=$keydir
fingerprint=$(gpg --batch --quiet --list-secret-keys --with-colons 2> /dev/null | awk -F: '$1 == "fpr" { print $10; exit }')
[ -n "$fingerprint" ] || die "no secret key in $keydir"
# apt reads these dates as RFC 1123, in English whatever the locale.
stamp() { LC_ALL=C date -u -d "@$1" '+%a, %d %b %Y %H:%M:%S UTC'; }
date_line=$(stamp "$now")
until_line=$(stamp $((now + days * 86400)))

for release in "${releases[@]}"; do
    [ -f "$release" ] || die "no Release file at $release"
    dists=$(dirname "$release")
    # Date and Valid-Until in place of the old ones; the rest (the index files' hashes) as it was.
    awk -v d="$date_line" -v u="$until_line" '
        /^Valid-Until:/ { next }
        /^Date:/ { print "Date: " d; print "Valid-Until: " u; dated = 1; next }
        { print }
        END { if (!dated) exit 1 }' "$release" > "$release.new" || { rm -f "$release.new"; die "$release has no Date: field"; }
    mv "$release.new" "$release"
    gpg --batch --yes --quiet --local-user "$fingerprint" --digest-algo SHA512 --clearsign -o "$dists/InRelease.new" "$release"
    gpg --batch --yes --quiet --local-user "$fingerprint" --digest-algo SHA512 --armor --detach-sign -o "$dists/Release.gpg.new" "$release"
    # Both signatures replace the old ones together, after the Release they sign.
    mv "$dists/InRelease.new" "$dists/InRelease"
    mv "$dists/Release.gpg.new" "$dists/Release.gpg"
    echo "sign-release.sh: $release valid until $until_line"
done
