#!/usr/bin/env bash
# Builds VKMS, the kernel's virtual KMS driver, out of tree for the VM's
# kernel: Debian builds its kernel without it (CONFIG_DRM_VKMS is not set).
# The source is drivers/gpu/drm/vkms from linux-source-6.1, built against the
# matching linux-headers; Tests/VM/vkms/*.patch are applied first (a
# 3840x2160 mode, which DMT lacks). With enable_overlay=1 it has 8 overlay
# planes, and its writeback connector captures what the planes compose: the
# VM's planes checks (Tests/VM/planes_checks.py) use both.
#
#   build-vkms.sh KERNEL_VERSION OUTDIR      → OUTDIR/vkms.ko
#
# Cached in OUTDIR by kernel version, source version and patches: a few
# seconds to build, and nothing to do when those have not changed.
set -euo pipefail
kver=$1
out=$(mkdir -p "$2" && cd "$2" && pwd)
here=$(cd "$(dirname "$0")" && pwd)
repo=$(cd "$here/../.." && pwd)

"$repo/deploy/dev/ensure-packages.sh" "linux-headers-$kver" linux-source-6.1 xz-utils make gcc
source_version=$(dpkg-query -W -f '${Version}' linux-source-6.1)
key="$kver $source_version $(cat "$here"/vkms/*.patch | sha256sum | cut -c1-16)"
if [ -f "$out/vkms.ko" ] && [ "$(cat "$out/key" 2>/dev/null)" = "$key" ]; then
    exit 0
fi

work="$out/build"
rm -rf "$work" && mkdir -p "$work"
tar -xJf /usr/src/linux-source-6.1.tar.xz -C "$work" --strip-components=5 linux-source-6.1/drivers/gpu/drm/vkms
for patch in "$here"/vkms/*.patch; do
    patch --batch --forward -s -p1 -d "$work" < "$patch"
done
make -s -C "/lib/modules/$kver/build" M="$work" CONFIG_DRM_VKMS=m modules
cp "$work/vkms.ko" "$out/vkms.ko"
echo "$key" > "$out/key"
echo "vkms.ko for $kver (linux-source-6.1 $source_version)"
