#!/usr/bin/env bash
# The arm64 test image's initramfs, made on the build machine from the image's
# own files: its static busybox (busybox-static:arm64) and the kernel modules
# that mounting an ext4 root on virtio-blk takes, with their dependencies from
# modules.dep, decompressed, and /init (Tests/ARM64/initramfs-init).
#
#   make-initramfs.sh ROOT KERNEL_VERSION OUTPUT
#
# Why not the image's initramfs-tools: under qemu-user, mkinitramfs (and the
# depmod before it) took about two minutes per kernel, a quarter of the image
# build; this takes a second or two, natively.
set -euo pipefail
root=$1 version=$2 output=$(readlink -f "$3")
here=$(cd "$(dirname "$0")" && pwd)
modules=$root/usr/lib/modules/$version
[ -f "$modules/modules.dep" ] || { echo "$0: no modules.dep in $modules (depmod -b ROOT $version)" >&2; exit 1; }
[ -x "$root/usr/bin/busybox" ] || { echo "$0: no busybox in $root (busybox-static)" >&2; exit 1; }
work=$(mktemp -d)
trap 'rm -rf "$work"' EXIT
mkdir -p "$work"/{bin,lib/modules,proc,sys,dev,root}
cp "$root/usr/bin/busybox" "$work/bin/busybox"
for applet in sh mkdir mount umount insmod sleep cat switch_root echo; do ln -s busybox "$work/bin/$applet"; done

# Each wanted module after its dependencies (modules.dep lists a module's
# dependencies with the one to load first last). Built-in ones (virtio_pci on
# this kernel) are in modules.builtin, not modules.dep, and need nothing.
declare -A dependencies=() loaded=()
while IFS= read -r line; do dependencies[${line%%:*}]=${line#*:}; done < "$modules/modules.dep"
order=()
load() {
    local path=$1 dependency
    [ -n "${loaded[$path]:-}" ] && return
    loaded[$path]=1
    # shellcheck disable=SC2086  # a space-separated list
    for dependency in $(printf '%s\n' ${dependencies[$path]} | tac); do load "$dependency"; done
    order+=("$path")
}
for module in virtio_blk ext4 crc32c_generic; do
    path=$(printf '%s\n' "${!dependencies[@]}" | grep -E "/$module\.ko(\.xz)?$" || true)
    if [ -z "$path" ]; then
        grep -qE "/$module\.ko" "$modules/modules.builtin" || { echo "$0: no module $module for $version" >&2; exit 1; }
        continue
    fi
    load "$path"
done
: > "$work/lib/modules/load-order"
for path in "${order[@]}"; do
    name=$(basename "${path%.xz}")
    case $path in
        *.xz) xz -dc "$modules/$path" > "$work/lib/modules/$name" ;;
        *) cp "$modules/$path" "$work/lib/modules/$name" ;;
    esac
    echo "$name" >> "$work/lib/modules/load-order"
done
install -m 0755 "$here/initramfs-init" "$work/init"
(cd "$work" && find . | cpio -o -H newc --quiet) | gzip -1 > "$output"
echo "initramfs for $version: $(tr '\n' ' ' < "$work/lib/modules/load-order")($(du -h "$output" | cut -f1))"
