#!/usr/bin/env bash
# `make test` overlaps the Raspberry Pi build with the amd64 tests: the arm64
# cross-build, its package and its image (Tests/ARM64/run-arm64-image-test.sh
# prepare) run in the background at the lowest CPU and I/O priority from the
# start, and `make arm64-test` waits for them before its checks.
#
#   deploy/arm64/background.sh start [MAKE_PID]   start it; it is stopped if MAKE_PID goes away
#   deploy/arm64/background.sh wait               wait for it: exit 0 when it made the package
#                                                 and the image, 1 if it failed, 3 if none was started
#
# Why: the cross-build is about ten minutes of both cores, while the amd64
# tests leave much of the CPU idle (QEMU guests waiting for a frame, kiosks
# waiting for their next slide, downloads). At nice 19 the background gets
# only what the tests leave: the kernel's scheduler gives a nice-0 task about
# 70 times the CPU share of a nice-19 one, and wakes it ahead of one. With
# autogroups (sched_autogroup_enabled, Debian's default), that holds between
# sessions only through the session's own autogroup nice, which is set too.
# Without a start, `wait` has nothing to wait for (exit 3), and
# Tests/ARM64/run-arm64-image-test.sh does every step in the foreground.
set -euo pipefail
# shellcheck source=deploy/arm64/common.sh
. "$(dirname "$0")/common.sh"
state=$ARM64_BUILD_DIR/background
log=$state.log

case "${1:-}" in
    start)
        owner=${2:-}
        mkdir -p "$ARM64_BUILD_DIR"
        rm -f "$state.status"
        # setsid: its own process group, so that the watcher can stop all of it.
        # shellcheck disable=SC2016  # $1 and $2 are the inner shell's
        setsid bash -c '
            # setsid makes a new session, which the kernel schedules as an
            # autogroup of its own, with an equal share against the tests
            # whatever the nice of its processes: the group itself gets nice 19.
            echo 19 > /proc/self/autogroup 2> /dev/null || true
            started=$(date +%s)
            status=0
            # Everything the job installs, first: it waits for an install already
            # under way (make test starts one for the whole suite), not for dpkg.
            "$1/deploy/dev/ensure-packages.sh" mmdebstrap arch-test debian-archive-keyring python3 gpgv dpkg xz-utils \
                dpkg-dev binutils chrpath lintian binutils-aarch64-linux-gnu qemu-user-static e2fsprogs zstd qemu-system-arm qemu-utils \
                shellcheck cpio || status=$?
            [ "$status" -eq 0 ] && { nice -n 19 ionice -c 2 -n 7 "$1/Tests/ARM64/run-arm64-image-test.sh" prepare || status=$?; }
            echo "$status $(( $(date +%s) - started ))" > "$2.status"
        ' background "$arm64_repo" "$state" > "$log" 2>&1 < /dev/null &
        job=$!
        echo "$job" > "$state.pid"
        if [ -n "$owner" ]; then
            # A make that stops early (a failed test, Ctrl-C) takes the job with it.
            # shellcheck disable=SC2016  # $1 and $2 are the inner shell's
            setsid bash -c 'while kill -0 "$1" 2> /dev/null && kill -0 "$2" 2> /dev/null; do sleep 5; done
                            kill -0 "$2" 2> /dev/null && kill -TERM -- "-$2" 2> /dev/null; exit 0' \
                watcher "$owner" "$job" > /dev/null 2>&1 < /dev/null &
        fi
        arm64_say "started the arm64 cross-build, package and image in the background (nice 19; log: $log)"
        ;;
    wait)
        [ -f "$state.pid" ] || exit 3
        job=$(cat "$state.pid")
        waited=$(date +%s)
        while [ ! -f "$state.status" ] && kill -0 "$job" 2> /dev/null; do sleep 2; done
        rm -f "$state.pid"
        read -r status seconds < "$state.status" 2> /dev/null || { status=1; seconds='?'; }
        arm64_say "the background arm64 build ended with status $status after $seconds s (waited $(( $(date +%s) - waited )) s for it); its log:"
        grep -E '^(== |build\.sh:|build-deb\.sh: built|  Depends|mmdebstrap|rootfs cached|image:|toolchain|sysroot|Swift SDK)|rror' "$log" | sed 's/^/  /' || true
        if [ "$status" != 0 ]; then
            tail -40 "$log" >&2
            arm64_die "the background arm64 build failed (log: $log)"
        fi
        ;;
    *) echo "usage: $0 start [MAKE_PID] | wait" >&2; exit 64 ;;
esac
