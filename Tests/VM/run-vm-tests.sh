#!/usr/bin/env bash
# The VM end-to-end tests: builds the release binary with the Swift standard
# library linked in, packs it into an initramfs with Debian's stock kernel, and
# runs Tests/VM/vmtest.py once per display driver (bochs-drm, virtio-gpu).
#
#   Tests/VM/run-vm-tests.sh [bochs|virtio ...]      (default: both)
#
# About 10 s to boot each VM under TCG, a few minutes in all after the build.
set -euo pipefail
cd "$(dirname "$0")/../.."
deploy/dev/ensure-packages.sh qemu-system-x86 busybox-static kmod cpio python3 evemu-tools v4l-utils
gpus=("$@")
[ ${#gpus[@]} -gt 0 ] || gpus=(bochs virtio)

swift build -c release --static-swift-stdlib --scratch-path .build-static --product vitrine
binary=.build-static/release/vitrine
Tests/VM/build-initramfs.sh "$binary" .build-vm

status=0
for gpu in "${gpus[@]}"; do
    python3 Tests/VM/vmtest.py --gpu "$gpu" --kernel .build-vm/vmlinuz --initrd .build-vm/initrd.img \
        --vitrine "$binary" --work ".build-vm/work-$gpu" || status=1
done
exit $status
