#!/usr/bin/env bash
# The arm64 boot-to-kiosk test (`make arm64-test`):
#   1. the arm64 package (deploy/debian/build-deb.sh with ARCH=arm64, `make deb
#      ARCH=arm64`, which cross-builds with `make arm64` first); $VITRINE_ARM64_DEB
#      names an already built one instead;
#   2. the quick proof under qemu-aarch64-static (Tests/ARM64/user-mode-test.sh)
#      on the binary of the package;
#   3. shellcheck of these scripts and deploy/arm64;
#   4. a Debian 13 (trixie) arm64 image with the package installed by apt-get from
#      the trixie suite of a signed repository that `make repo`'s script built
#      with a throwaway key (Tests/Image/test-repository.sh), so that trixie's
#      own apt checks its signature (Tests/ARM64/build-arm64-image.sh; the
#      mmdebstrap is cached in .build-arm64-image);
#   5. boots it in qemu-system-aarch64 (TCG) on Debian's arm64 kernel, then on
#      its 16K-page kernel, and runs Tests/ARM64/arm64imagetest.py.
#
#   run-arm64-image-test.sh            all of it, or, when `make test` started
#                                      prepare in the background
#                                      (deploy/arm64/background.sh), check after it
#   run-arm64-image-test.sh prepare    steps 1 and 4
#   run-arm64-image-test.sh check      the rest, on what prepare made
# Run as root (mmdebstrap, chroot, binfmt_misc, file ownership in the image).
set -euo pipefail
cd "$(dirname "$0")/../.."
started=$(date +%s)
phase() { echo "== $* ($(( $(date +%s) - started )) s)"; }
steps=${1:-}
if [ -z "$steps" ]; then
    waited=0
    deploy/arm64/background.sh wait || waited=$?
    case $waited in 0) steps=check ;; 3) steps=all ;; *) exit 1 ;; esac
fi
case "$steps" in all|prepare|check) ;; *) echo "usage: $0 [prepare|check]" >&2; exit 64 ;; esac
deploy/dev/ensure-packages.sh qemu-system-arm qemu-utils qemu-user-static mmdebstrap arch-test e2fsprogs zstd python3 shellcheck

out=.build-arm64-image
mkdir -p "$out"
token=arm64-test-token-6d0e94b2c7
if [ "$steps" != check ]; then
    rm -f "$out/prepared"
    # The image's root tree needs no package: it is made beside the cross-build.
    # Each is mostly one thread at a time (qemu-user running maintainer scripts;
    # the optimiser on one module), so together they keep two cores busy where
    # one after the other left one idle for minutes. Its output is in its log.
    # It starts once the toolchain is there, and as SCHED_IDLE: the toolchain,
    # the cross-build and the package are the path everything waits for, and
    # the root tree is needed only at the end, so it takes only CPU they leave.
    # (Started beside the toolchain at the same priority, it halved what the
    # toolchain got while the amd64 debug build held both cores.)
    if [ -z "${VITRINE_ARM64_DEB:-}" ]; then
        deploy/arm64/toolchain.sh
    fi
    chrt --idle 0 Tests/ARM64/build-arm64-image.sh --rootfs-only "$out" > "$out/rootfs.log" 2>&1 &
    rootfs_job=$!
    if [ -n "${VITRINE_ARM64_DEB:-}" ]; then
        deb=$VITRINE_ARM64_DEB
    else
        phase "arm64 cross-build and package"
        ARCH=arm64 deploy/debian/build-deb.sh
        deb=$(ARCH=arm64 deploy/debian/build-deb.sh --print-deb)
    fi
    rootfs_status=0
    wait "$rootfs_job" || rootfs_status=$?
    cat "$out/rootfs.log"
    [ "$rootfs_status" -eq 0 ] || { echo "$0: the image's root tree could not be made" >&2; exit 1; }
    [ -f "$deb" ] || { echo "$0: no package at $deb" >&2; exit 1; }
    {
        cat Tests/Image/configs/kiosk.yaml
        printf 'api:\n  listen: "0.0.0.0:8080"\n  token: "%s"\n' "$token"
    } > "$out/vitrine.yaml"
    # The image installs the package from the trixie suite of a signed repository, so that
    # trixie's own apt checks the signature `make repo` makes (sqv, Debian's policy).
    phase "repository"
    Tests/Image/test-repository.sh "$out/repository" "$deb"
    grep "trixie arm64:" "$out/repository/build.log"
    phase "image"
    Tests/ARM64/build-arm64-image.sh "$deb" "$out" "$out/vitrine.yaml" "$out/repository/aptly/public"
    # What check needs: the package the image has (the image is made from it).
    readlink -f "$deb" > "$out/prepared"
    [ "$steps" = prepare ] && { phase "prepared"; exit 0; }
fi
[ -f "$out/prepared" ] || { echo "$0: nothing prepared in $out (run it with prepare, or without arguments)" >&2; exit 1; }
deb=$(cat "$out/prepared")
[ -f "$deb" ] || { echo "$0: no package at $deb" >&2; exit 1; }
# The very binary the image runs: the expected pictures are rendered by it,
# under qemu-aarch64-static with the sysroot's libraries.
binary=$out/vitrine
dpkg-deb --fsys-tarfile "$deb" | tar -xO ./usr/bin/vitrine > "$binary"
chmod 0755 "$binary"
sysroot=$(readlink -f .build-arm64/swift-sdks/vitrine-aarch64.artifactbundle/sdk/sysroot)
# shellcheck disable=SC2016  # "$@" is the wrapper's own
printf '#!/bin/sh\nexec qemu-aarch64-static -L %s %s "$@"\n' "$sysroot" "$(readlink -f "$binary")" > "$out/vitrine-reference"
chmod 0755 "$out/vitrine-reference"

failed=0
phase "user mode"
Tests/ARM64/user-mode-test.sh "$binary" || failed=1

phase "shellcheck"
shellcheck deploy/debian/build-deb.sh deploy/arm64/*.sh Tests/ARM64/*.sh Tests/ARM64/initramfs-init Tests/Image/test-image-setup.sh Tests/PixelRows/run.sh

phase "boot test"
status=0
python3 Tests/ARM64/arm64imagetest.py --image "$out" --vitrine "$out/vitrine-reference" --config Tests/Image/configs/kiosk.yaml \
    --pushed Tests/Image/configs/pushed.json --token "$token" --work "$out/work" || status=1
phase "done"
[ $failed -eq 0 ] && exit $status
exit 1
