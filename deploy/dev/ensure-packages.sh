#!/usr/bin/env bash
# Installs the Debian packages named on the command line that are not installed yet.
# Quick when everything is there (one dpkg query), so every make target can call it.
#
#   ensure-packages.sh PACKAGE...
#   ensure-packages.sh --background LOG PACKAGE...   install them behind the caller's back
#
# Calls are serialised by a lock, and each checks again once it holds it: a
# call that needs a package another call is installing waits for that install
# instead of failing on dpkg's lock. So `make test` installs the whole suite's
# packages in one apt-get in the background while the first build compiles
# (the Makefile's test-packages), and each step's own call waits only for what it needs.
set -euo pipefail
background_log=
if [ "${1:-}" = --background ]; then
    background_log=$2
    shift 2
fi

missing_packages() {
    local package
    for package in "$@"; do
        dpkg-query -W -f='${Status}' "$package" 2>/dev/null | grep -q "install ok installed" || echo "$package"
    done
}

missing=$(missing_packages "$@" | tr '\n' ' ')
[ -z "$missing" ] && exit 0
if [ "$(id -u)" -ne 0 ]; then
    echo "missing Debian packages: ${missing% }; run as root or: sudo apt-get install ${missing% }" >&2
    exit 1
fi

install() {
    local lock=/run/lock
    [ -d "$lock" ] || lock=/tmp
    exec 9> "$lock/vitrine-ensure-packages.lock"
    flock 9
    local missing
    mapfile -t missing < <(missing_packages "$@")
    [ ${#missing[@]} -eq 0 ] && return 0
    echo "installing: ${missing[*]}"
    export DEBIAN_FRONTEND=noninteractive
    # One update per hour at most: the calls of one `make test` share it. A
    # package the lists do not know yet makes the install fail; then update and try again.
    if [ -z "$(find /var/lib/apt/lists -maxdepth 1 -name '*_Packages*' -newermt '1 hour ago' -print -quit 2>/dev/null)" ]; then
        apt-get update -qq
    fi
    apt-get install -y -qq --no-install-recommends "${missing[@]}" > /dev/null \
        || { apt-get update -qq && apt-get install -y -qq --no-install-recommends "${missing[@]}" > /dev/null; }
}

if [ -n "$background_log" ]; then
    mkdir -p "$(dirname "$background_log")"
    # setsid: not in make's process group, so that Ctrl-C does not cut an install in half.
    setsid bash -c "$(declare -f missing_packages install); install \"\$@\"" install "$@" > "$background_log" 2>&1 < /dev/null &
    exit 0
fi
install "$@"
