#!/usr/bin/env bash
# A throwaway signed apt repository for the image tests, made as `make repo`
# makes one (deploy/repo/build-repo.sh), with a key of its own:
#
#   test-repository.sh DIR DEB...
#
# DIR is made anew: DIR/key the key's GnuPG home (beside the repository,
# never in it), DIR/aptly/public the tree to serve, DIR/build.log what the
# script said (each suite's versions). Exits non-zero if the repository could
# not be built or does not verify.
set -euo pipefail
[ $# -ge 2 ] || { echo "usage: $0 DIR DEB..." >&2; exit 64; }
dir=$1; shift
repo=$(cd "$(dirname "$0")/../.." && pwd)
rm -rf "$dir"
mkdir -p "$dir"
"$repo/deploy/repo/new-key.sh" "$dir/key" --no-passphrase --uid "Vitrine image test <image-test@vitrine.invalid>" \
    > "$dir/new-key.log" 2>&1 || { cat "$dir/new-key.log" >&2; exit 1; }
VITRINE_REPO_KEY=$dir/key "$repo/deploy/repo/build-repo.sh" --out "$dir/aptly" "$@" > "$dir/build.log" 2>&1 \
    || { cat "$dir/build.log" >&2; exit 1; }
