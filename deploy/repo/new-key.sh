#!/usr/bin/env bash
# Makes the signing key of Vitrine's apt repository (`make repo-key`):
#
#   deploy/repo/new-key.sh KEYDIR [--uid "NAME <EMAIL>"] [--no-passphrase]
#
# KEYDIR becomes a GnuPG home (mode 0700) holding one Ed25519 signing key, and
# KEYDIR/vitrine-archive-keyring.asc its public half. Keep KEYDIR off the
# origin and out of version control, and back it up: `make repo` reads it from
# $VITRINE_REPO_KEY and copies only the public key into the published tree.
#
# Why Ed25519: trixie's apt verifies repositories with sqv under Debian's
# policy, which refuses SHA-1 signatures and short RSA keys; an Ed25519
# signature always hashes with SHA-256 or better, and bookworm's gpgv checks it
# too. The key does not expire: a kiosk that cannot be reached when an expiry
# comes would stop updating for good. Rotate it by publishing a keyring with
# both keys for a while (docs/apt-repository.md, "The signing key").
#
# --no-passphrase is for throwaway keys (the image test's); otherwise GnuPG
# asks for a passphrase through its pinentry, and `make repo` through its agent.
set -euo pipefail
umask 077

die() { echo "new-key.sh: $*" >&2; exit 1; }

[ $# -ge 1 ] || die "usage: new-key.sh KEYDIR [--uid \"NAME <EMAIL>\"] [--no-passphrase]"
keydir=$1; shift
uid="Vitrine archive signing key <archive@vitrine.invalid>"
passphrase=ask
while [ $# -gt 0 ]; do
    case "$1" in
        --uid) [ $# -ge 2 ] || die "--uid needs a value"; uid=$2; shift 2 ;;
        --no-passphrase) passphrase=none; shift ;;
        *) die "unknown option $1" ;;
    esac
done
command -v gpg > /dev/null || die "gpg is not installed (apt-get install gnupg)"
if [ -d "$keydir" ] && GNUPGHOME=$keydir gpg --batch --list-secret-keys --with-colons 2> /dev/null | grep -q '^sec'; then
    die "$keydir already holds a secret key; a second one would make the choice of signing key ambiguous"
fi
mkdir -p "$keydir"
chmod 0700 "$keydir"
export GNUPGHOME
GNUPGHOME=$(cd "$keydir" && pwd)
# gpg starts an agent for this home; it goes when the script does.
trap 'gpgconf --kill gpg-agent 2> /dev/null || true' EXIT

if [ "$passphrase" = none ]; then
    gpg --batch --quiet --pinentry-mode loopback --passphrase '' --quick-generate-key "$uid" ed25519 sign never
else
    gpg --quiet --quick-generate-key "$uid" ed25519 sign never
fi
fingerprint=$(gpg --batch --quiet --list-secret-keys --with-colons | awk -F: '$1 == "fpr" { print $10; exit }')
[ -n "$fingerprint" ] || die "gpg made no key in $keydir"
umask 022
gpg --batch --armor --export "$fingerprint" > "$GNUPGHOME/vitrine-archive-keyring.asc"
echo "new-key.sh: signing key $fingerprint in $keydir"
echo "new-key.sh: its public half: $keydir/vitrine-archive-keyring.asc; keep $keydir itself private and backed up"
